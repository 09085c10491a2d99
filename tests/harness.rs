//! The harness around the graders: a missing file, an unknown device, a machine without
//! OpenCL and a flood of printing each get a clear answer. (Lesson 04's kernels that are
//! wrong on purpose are cases of its grader: tests/cases/04_naive_kernel.rs.)

mod common;

use lab::grade::FailKind;

fn g() -> common::Grader {
    common::grader()
}

#[test]
fn a_missing_file_is_reported_not_a_crash() {
    let lesson = lab::ladder::get("04");
    let v = lab::grade::grade(
        lesson,
        &lab::grade::Source::File("tests/wrong/nowhere.cl".into()),
        &g().opts,
    );
    assert_eq!(
        v.kind(),
        Some(FailKind::Missing),
        "{}",
        lab::report::verdict(&v)
    );
    assert!(v.message().contains("nowhere.cl"));
}

#[test]
fn an_unknown_device_is_a_clear_error() {
    let err = lab::harness::device::pick(Some("no-such-device-anywhere"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no device matches"), "{err}");
    let err = lab::harness::device::pick(Some("999"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("there is no device 999"), "{err}");
}

#[test]
fn no_opencl_platform_is_one_clear_message_and_a_failing_exit() {
    // The ICD loader reads its drivers from OCL_ICD_VENDORS when set: an empty folder is a
    // machine with the loader installed and no driver.
    let tmp = lab::harness::child::Scratch::new("no-vendors").unwrap();
    let empty = tmp.dir.clone();
    std::fs::create_dir_all(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
        .env("OCL_ICD_VENDORS", &empty)
        .output()
        .expect("the scoreboard binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit status {:?}", out.status);
    assert!(stderr.contains("found no platform"), "{stderr}");
    assert!(
        stderr.contains("sudo apt-get install pocl-opencl-icd"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_flood_of_printf_still_gets_its_real_verdict() {
    let g = g().with(|o| {
        o.shapes = Some(vec![
            lab::harness::matrix::Shape::new(7, 13, 5),
            lab::harness::matrix::Shape::new(131, 97, 150),
        ])
    });
    let v = g.grade_file("04", g.right("04", "prints_every_multiply_add"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(v.printed.contains("acc"), "{v:?}");
    assert!(
        v.printed.contains("bytes in all"),
        "the flood is shortened: {v:?}"
    );
    assert!(v.printed.lines().count() < 40, "{}", v.printed);
}

/// `--cl-std` (`LAB_CL_STD`) reaches the kernel's build: a `static` function is OpenCL C 1.2,
/// so built as 1.1 the kernel does not compile, with the option in the message; built as 1.2
/// it passes, and the report says which version built it.
#[test]
fn the_opencl_c_version_asked_for_builds_the_kernel() {
    use lab::harness::program::parse_cl_std;
    assert_eq!(parse_cl_std("1.2").as_deref(), Ok("1.2"));
    assert_eq!(parse_cl_std("CL3.0").as_deref(), Ok("3.0"));
    assert!(parse_cl_std("2.5").unwrap_err().contains("1.2"));

    let file = common::mutant(
        &g().opts,
        "04",
        "static_helper",
        &[(
            "__kernel",
            "static float unused_helper(float x) { return x; }\n__kernel",
        )],
    );
    let as_version = |v: &str| g().with(|o| o.cl_std = Some(v.into()));
    let v = as_version("1.1").grade_file("04", file.clone());
    assert_eq!(
        v.kind(),
        Some(FailKind::Build),
        "{}",
        lab::report::verdict(&v)
    );
    assert!(v.message().contains("-cl-std=CL1.1"), "{}", v.message());
    let v = as_version("1.2").grade_file("04", file);
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(
        v.notes.iter().any(|n| n.contains("built as OpenCL C 1.2")),
        "{:?}",
        v.notes
    );
}

/// A student crate is built twice where the CPU has AVX-512: the build that is run and timed
/// uses the machine's widest vectors, the one valgrind's cache simulator runs leaves AVX-512
/// out (valgrind stops at its first instruction). Elsewhere one build serves both.
#[test]
fn the_timed_build_has_the_machines_width_and_the_simulated_one_no_avx512() {
    use lab::harness::cpu_crate::{self, Driver, Flavour};
    use lab::harness::cpu_session::Called;
    use lab::harness::matrix::Shape;

    let dir = std::env::temp_dir().join(format!("lab-widths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("widths.rs");
    // C says which vector width the file was compiled for.
    std::fs::write(
        &file,
        "pub fn widths(_a: &[f32], _b: &[f32], c: &mut [f32], m: usize, n: usize, _k: usize) {\n    \
         let w = if cfg!(target_feature = \"avx512f\") { 512.0 } else { 256.0 };\n    \
         c[..m * n].fill(w);\n}\n",
    )
    .unwrap();
    let opts = g().opts;
    let timed = lab::grade::cpu::builder(&opts.course)
        .build(&file, &["widths"])
        .expect("the timed build");
    let simulated = timed.for_simulator().expect("the simulator's build");
    let width = |built: &cpu_crate::Built| {
        let mut d = Driver::start(built, "widths", 1).expect("a driver");
        let (_, called) = d.call(Shape::new(1, 1, 1), 1, opts.step_timeout, false);
        d.finish();
        match called {
            Called::Done { c, .. } => c[0],
            other => panic!("the call did not return: {other:?}"),
        }
    };
    let (isa, bits) = cpu_crate::simd();
    if bits == 512 {
        assert_eq!(timed.flavour, Flavour::Timed);
        assert_eq!(simulated.flavour, Flavour::Simulated);
        assert_ne!(timed.binary, simulated.binary);
        assert_eq!(width(&timed), 512.0, "the timed build leaves out {isa}");
    } else {
        assert_eq!(timed.binary, simulated.binary);
    }
    assert_eq!(
        width(&simulated),
        256.0,
        "the simulator's build has AVX-512"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A student's processes run only while a call of theirs is in flight: a thread its function
/// leaves running is paused from the moment the call returns until the next call is asked
/// for, so it cannot take the machine from the grader's checks or from the reference timed
/// beside it.
#[test]
fn a_thread_left_running_is_paused_between_calls() {
    use lab::harness::cpu_crate::Driver;
    use lab::harness::cpu_session::Called;
    use lab::harness::matrix::Shape;

    let dir = std::env::temp_dir().join(format!("lab-paused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("spinner.rs");
    // A thread started by the first call counts milliseconds while it runs; each call writes
    // how many it counted since the call before returned.
    std::fs::write(
        &file,
        r#"use std::sync::atomic::{AtomicU64, Ordering};
static TICKS: AtomicU64 = AtomicU64::new(0);
static AT_RETURN: AtomicU64 = AtomicU64::new(0);
static STARTED: std::sync::Once = std::sync::Once::new();
pub fn spinner(_a: &[f32], _b: &[f32], c: &mut [f32], m: usize, n: usize, _k: usize) {
    STARTED.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(std::time::Duration::from_millis(1));
            TICKS.fetch_add(1, Ordering::SeqCst);
        });
    });
    let now = TICKS.load(Ordering::SeqCst);
    c[..m * n].fill((now - AT_RETURN.load(Ordering::SeqCst)) as f32);
    AT_RETURN.store(TICKS.load(Ordering::SeqCst), Ordering::SeqCst);
}
"#,
    )
    .unwrap();
    let opts = g().opts;
    let built = lab::grade::cpu::builder(&opts.course)
        .build(&file, &["spinner"])
        .expect("the build");
    let mut d = Driver::start(&built, "spinner", 1).expect("a driver");
    let mut call = |seed| match d
        .call(Shape::new(1, 1, 1), seed, opts.step_timeout, false)
        .1
    {
        Called::Done { c, .. } => c[0],
        other => panic!("the call did not return: {other:?}"),
    };
    call(1);
    // Its thread has started; a second of the grader's time passes between two calls.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let between = call(2);
    d.finish();
    assert!(
        between < 500.0,
        "the thread counted {between} ms while the grader waited 1000 ms between calls"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// On a GPU each timed launch follows an untimed one of the same kernel on the call before's
/// buffers (`lab::harness::lead`). Turned on here on whatever device runs the tests: every call
/// after the first gets its lead-in, through the plain and the padded runs (C's rows padded, and
/// only K's, where the kernel writes C itself; and A's and B's rows padded with C written where
/// it lies by a kernel that reads the copies at their lengths), and every C is still the
/// product of its own call's inputs.
#[test]
fn each_call_after_the_first_runs_behind_a_lead_in_and_keeps_its_own_result() {
    use lab::harness::device::Gpu;
    use lab::harness::exec::{self, Launch};
    use lab::harness::matrix::{check, Problem, Shape};
    use opencl3::kernel::Kernel;
    use opencl3::program::Program;

    const NAIVE: &str = "__kernel void matmul(int M, int N, int K, __global const float* A,
        __global const float* B, __global float* C) {
        int j = get_global_id(0), i = get_global_id(1);
        if (i >= M || j >= N) return;
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
        C[i * N + j] = s;
    }";
    // The same, reading A and B at rows rounded up to 4 floats: `run_padded_inputs`'s kernel.
    let rows_of_four = NAIVE
        .replace("A[i * K + k]", "A[i * ((K + 3) & ~3) + k]")
        .replace("B[k * N + j]", "B[k * ((N + 3) & ~3) + j]");
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    gpu.lead.turn_on();
    let program = Program::create_and_build_from_source(&gpu.context, NAIVE, "").unwrap();
    let kernel = Kernel::create(&program, "matmul").unwrap();
    let program = Program::create_and_build_from_source(&gpu.context, &rows_of_four, "").unwrap();
    let padded = Kernel::create(&program, "matmul").unwrap();
    let launch = |s: Shape| Launch {
        global: [s.n.div_ceil(4) * 4, s.m],
        local: None,
    };
    let shapes = [
        Shape::new(33, 47, 29),
        Shape::new(21, 46, 30),
        Shape::new(21, 44, 30),
        Shape::new(33, 47, 29),
    ];
    for (round, shape) in shapes.into_iter().enumerate() {
        let before = gpu.lead.done();
        for seed in 0..3u64 {
            let p = Problem::random(shape, 100 * round as u64 + seed);
            let out = match round {
                0 => exec::run_guarded(&gpu, &kernel, &p, &launch(shape)).unwrap(),
                3 => exec::run_padded_inputs(&gpu, &padded, &p, &launch(shape), 4).unwrap(),
                _ => exec::run_padded(&gpu, &kernel, &p, &launch(shape), 4, 1).unwrap(),
            };
            let cmp = check(&p, &out.c);
            assert_eq!(cmp.wrong, 0, "call {seed} at {shape:?}: {cmp:?}");
        }
        assert_eq!(gpu.lead.done() - before, 2, "lead-ins at {shape:?}");
    }
}

/// The host's padding copies on the device give what their definitions say, element for
/// element, at row lengths that are and are not whole groups of four, short rows (a small K)
/// and rows longer than a work-group, one part and several: A cut into slices of K, B's rows
/// lengthened with zero rows below, and C's parts summed back in order and cropped.
#[test]
fn the_padding_copies_give_every_element_their_definition_gives() {
    use lab::harness::device::Gpu;
    use lab::harness::pad;
    use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
    use opencl3::types::CL_BLOCKING;

    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let buffer = |data: &[f32]| {
        let mut b = unsafe {
            Buffer::<f32>::create(
                &gpu.context,
                CL_MEM_READ_WRITE,
                data.len(),
                std::ptr::null_mut(),
            )
        }
        .unwrap();
        unsafe {
            gpu.queue
                .enqueue_write_buffer(&mut b, CL_BLOCKING, 0, data, &[])
        }
        .unwrap();
        b
    };
    let read = |b: &Buffer<f32>, len: usize| {
        let mut out = vec![0.0f32; len];
        unsafe {
            gpu.queue
                .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut out, &[])
        }
        .unwrap();
        out
    };
    let value = |i: usize| (i as f32 * 0.37).sin() + 2.0;
    // The first element that differs, bit for bit: (index, got, wanted).
    let differs = |got: &[f32], want: &[f32]| {
        (0..want.len())
            .find(|&i| got[i].to_bits() != want[i].to_bits())
            .map(|i| (i, got[i], want[i]))
    };
    // (rows, cols, into, out_rows, part_cols): `into` past `cols`, equal, odd; parts of K.
    let copies = [
        (7, 5, 8, 7, 0),
        (3, 1, 4, 5, 0),
        (9, 1031, 1032, 12, 0),
        (4, 12, 12, 4, 0),
        (5, 6, 7, 5, 0),
        (6, 11, 4, 18, 4),
        (2, 1030, 260, 8, 260),
    ];
    // Each copy alone, then each beside the next in one launch (A's and B's copies at once,
    // of different sizes): both outputs whole, neither written into the other's.
    let cases: Vec<_> = copies
        .iter()
        .map(|&(rows, cols, into, out_rows, part_cols)| {
            let src: Vec<f32> = (0..rows * cols).map(value).collect();
            let part_rows = if part_cols == 0 { out_rows } else { rows };
            let want: Vec<f32> = (0..out_rows * into)
                .map(|at| {
                    let (row, c) = (at / into, at % into);
                    let (z, i) = (row / part_rows, row % part_rows);
                    let col = z * part_cols + c;
                    let inside = i < rows && col < cols && (part_cols == 0 || c < part_cols);
                    if inside {
                        src[i * cols + col]
                    } else {
                        0.0
                    }
                })
                .collect();
            let r = pad::Rows {
                rows,
                cols,
                from: cols,
                into,
                out_rows,
            };
            (
                (rows, cols, into, out_rows, part_cols),
                src,
                r,
                part_cols,
                want,
            )
        })
        .collect();
    let n = cases.len();
    let runs = (0..n)
        .map(|i| vec![i])
        .chain((0..n).map(|i| vec![i, (i + 1) % n]));
    for run in runs {
        let bufs: Vec<_> = run
            .iter()
            .map(|&i| {
                let (_, src, r, _, _) = &cases[i];
                (buffer(src), buffer(&vec![f32::NAN; r.into * r.out_rows]))
            })
            .collect();
        let copies: Vec<_> = run
            .iter()
            .zip(&bufs)
            .map(|(&i, (s, d))| pad::Copy {
                src: s,
                dst: d,
                rows: cases[i].2,
                part_cols: cases[i].3,
            })
            .collect();
        pad::enqueue_copies(&gpu, &copies).unwrap().wait().unwrap();
        for (&i, (_, d)) in run.iter().zip(&bufs) {
            let (what, _, _, _, want) = &cases[i];
            let wrong = differs(&read(d, want.len()), want);
            assert_eq!(
                wrong, None,
                "copy {what:?} of {run:?}: (element, got, wanted)"
            );
        }
    }
    // (rows, cols, from, parts): rows whole quads or not, one part or three.
    for (rows, cols, from, parts) in [(5, 7, 8, 1), (3, 8, 8, 3), (4, 5, 5, 2), (2, 1029, 1032, 3)]
    {
        let part = rows * from;
        let src: Vec<f32> = (0..parts * part).map(value).collect();
        let (s, d) = (buffer(&src), buffer(&vec![f32::NAN; rows * cols]));
        let sum = pad::Sum {
            rows,
            cols,
            from,
            parts,
            part,
        };
        pad::enqueue_sum(&gpu, &s, &d, sum).unwrap().wait().unwrap();
        let want: Vec<f32> = (0..rows * cols)
            .map(|at| {
                let (r, c) = (at / cols, at % cols);
                (1..parts).fold(src[r * from + c], |x, z| x + src[z * part + r * from + c])
            })
            .collect();
        let wrong = differs(&read(&d, rows * cols), &want);
        let what = (rows, cols, from, parts);
        assert_eq!(wrong, None, "sum {what:?}: (element, got, wanted)");
    }
}

/// The bank counter, on a kernel whose warps meet in the banks in known ways: stores one,
/// two, 32 and 33 floats apart, a load every work-item makes of the same word (broadcast),
/// and 16-byte loads side by side and 8 vectors apart. Two warps of 32 work-items each; a
/// pass serves 128 bytes.
#[test]
fn the_bank_counter_counts_the_passes_a_warp_s_accesses_take() {
    use lab::harness::oclgrind::banks;
    let scratch = lab::harness::child::Scratch::new("banks").unwrap();
    let plugin = simulator_plugins();
    let dir = &scratch.dir;
    std::fs::write(
        dir.join("banks.cl"),
        "__kernel void banks(__global float *out) {
    __local float t[32 * 33 * 4];
    const int i = get_local_id(0);
    t[i] = 1.0f;
    t[i * 2] = 2.0f;
    t[i * 32] = 3.0f;
    t[i * 33] = 4.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float s = t[0];
    const float4 v = ((__local float4 *)t)[i];
    const float4 w = ((__local float4 *)t)[i * 8];
    out[get_global_id(0)] = s + dot(v, (float4)(1.0f)) + dot(w, (float4)(1.0f));
}
",
    )
    .unwrap();
    std::fs::write(
        dir.join("banks.sim"),
        "banks.cl\nbanks\n64 1 1\n64 1 1\n<size=256 fill=0>\n",
    )
    .unwrap();
    let out = dir.join(banks::OUT_FILE);
    let ran = std::process::Command::new("oclgrind-kernel")
        .arg("banks.sim")
        .current_dir(dir)
        .env("OCLGRIND_PLUGINS", &plugin)
        .env(banks::OUT_VARIABLE, &out)
        .output()
        .expect("oclgrind-kernel runs");
    assert!(ran.status.success(), "{ran:?}");
    let counted = banks::parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let lines: Vec<(u32, bool, u64, u64)> = (counted.lines.iter())
        .map(|l| (l.line, l.store, l.passes, l.ideal))
        .collect();
    assert_eq!(
        lines,
        [
            (4, true, 2, 2),
            (5, true, 4, 2),
            (6, true, 64, 2),
            (7, true, 2, 2),
            (9, false, 2, 2),
            (10, false, 8, 8),
            (11, false, 64, 8),
        ]
    );
    assert_eq!(counted.accesses, 64 * 7);
    let worst = counted.worst().unwrap();
    assert_eq!((worst.line, worst.ratio()), (6, 32.0));
}

/// The course's simulator plugins, built for this machine's Oclgrind.
fn simulator_plugins() -> std::path::PathBuf {
    use lab::harness::oclgrind::{find_icd, plugin};
    let icd = find_icd().expect("Oclgrind is installed (scripts/setup.sh installs it)");
    plugin::build(
        &g().opts.course.root().join("target").join("lab-plugins"),
        &icd,
    )
    .expect("the simulator's plugins build")
}

/// The address reader, on a kernel that reads pointers' values in each way it knows (an
/// integer made from a pointer, a pointer made from an integer, a pointer stored into global
/// and into local memory, one in a branch no work-item takes) and does everything else a kernel may do with pointers
/// (offsets, comparisons of indices, a pointer kept in a variable): only those lines are named.
#[test]
fn the_address_reader_names_the_lines_that_read_a_pointer_s_value() {
    use lab::harness::oclgrind::addresses;
    let scratch = lab::harness::child::Scratch::new("addresses").unwrap();
    let plugin = simulator_plugins();
    let dir = &scratch.dir;
    std::fs::write(
        dir.join("addresses.cl"),
        "typedef __global float *row_t;
__kernel void addresses(__global float *out, __global ulong *where) {
    __local float t[64];
    __local row_t kept[1];
    const int i = get_local_id(0);
    __global float *row = out + i;
    t[i] = (float)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    *row = t[63 - i];
    if (i == 0) where[0] = (ulong)out;
    if (i == 1) kept[0] = out;
    if (i > 64) where[1] = (ulong)t;
    if (i == 2) *(__global row_t *)(where + 2) = row;
    if (out == (__global float *)0x1000000000000) out[i] = 0.0f;
}
",
    )
    .unwrap();
    std::fs::write(
        dir.join("addresses.sim"),
        "addresses.cl\naddresses\n64 1 1\n64 1 1\n<size=256 fill=0>\n<size=64 fill=0>\n",
    )
    .unwrap();
    let out = dir.join(addresses::OUT_FILE);
    let ran = std::process::Command::new("oclgrind-kernel")
        .arg("addresses.sim")
        .current_dir(dir)
        .env("OCLGRIND_PLUGINS", &plugin)
        .env(addresses::OUT_VARIABLE, &out)
        .output()
        .expect("oclgrind-kernel runs");
    // The run stops once the places are written: the kernel is refused whatever it does.
    assert_eq!(ran.status.code(), Some(86), "{ran:?}");
    let lines: Vec<u32> = addresses::parse(&std::fs::read_to_string(&out).unwrap())
        .into_iter()
        .map(|p| p.line)
        .collect();
    assert_eq!(lines, [10, 11, 12, 13, 14]);
}

/// The coverage plugin's count of vector lanes, on a kernel whose 16 work-items each make one
/// `float8` product, one `float2` quotient, a scalar product, and a `float4` product in a
/// branch no work-item takes: the lanes past the first are 16 × (7 + 1), whatever the
/// simulator's own count says of the `fmul` instructions.
#[test]
fn the_coverage_plugin_counts_each_vector_multiplication_s_lanes() {
    use lab::harness::oclgrind::coverage;
    let scratch = lab::harness::child::Scratch::new("lanes").unwrap();
    let plugin = simulator_plugins();
    let dir = &scratch.dir;
    std::fs::write(
        dir.join("lanes.cl"),
        "__kernel void lanes(__global float *out) {
    const int i = get_global_id(0);
    const float8 a = (float8)(out[i]) + (float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
    const float8 p = a * a;
    const float2 q = (float2)(out[i] + 1.0f, 2.0f) / (float2)(3.0f, out[i] + 5.0f);
    float s = out[i] * out[i];
    if (i > 64) s += dot((float4)(s) * (float4)(out[i]), (float4)(1.0f));
    out[i] = p.s0 + p.s7 + q.x + q.y + s;
}
",
    )
    .unwrap();
    std::fs::write(
        dir.join("lanes.sim"),
        "lanes.cl\nlanes\n16 1 1\n16 1 1\n<size=64 fill=1>\n",
    )
    .unwrap();
    let out = dir.join(coverage::OUT_FILE);
    let ran = std::process::Command::new("oclgrind-kernel")
        .arg("lanes.sim")
        .current_dir(dir)
        .env("OCLGRIND_PLUGINS", &plugin)
        .env(coverage::OUT_VARIABLE, &out)
        .env(coverage::KERNEL_VARIABLE, "lanes")
        .output()
        .expect("oclgrind-kernel runs");
    assert!(ran.status.success(), "{ran:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(coverage::lanes(&text), Some(16 * (7 + 1)), "{text}");
}
