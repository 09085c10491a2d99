//! Lesson 11's grader: the reference passes through the model of the matrix unit at sizes
//! with partial blocks, K and N not multiples of 4, and a long K where it must be at least as
//! accurate as FP32; the cases below are graded as they expect.

mod common;

use lab::harness::matrix::{Problem, Shape};
use lab::ladder;
use lab::ladder::l11_matrix_units::unit;
use lab::lesson::defines;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 11` grades it, with the same report:
/// `cargo test --test 11_matrix_units -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("11")
}

#[test]
fn solution_passes() {
    let v = g().solution_passes("11");
    assert!(
        v.notes.iter().any(|n| n.contains("matrix unit:")),
        "the verdict names the path the unit took: {:?}",
        v.notes
    );
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

#[test]
fn launches_any_size_and_refuses_bad_defines() {
    let ocl = ladder::get("11").ocl().unwrap();
    let d = defines(&[
        ("BM", "128"),
        ("BN", "64"),
        ("BK", "16"),
        ("WM", "64"),
        ("WN", "32"),
        ("STAGES", "3"),
    ]);
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // Two blocks of rows and two of columns, four warps each.
    assert_eq!(l.global, [2 * 128, 2]);
    assert_eq!(l.local, Some([128, 1]));
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    for (name, bad, words) in [
        ("WM", "24", "multiple of 16"),
        ("WN", "12", "multiple of 8"),
        ("BK", "12", "multiple of 8"),
        ("STAGES", "1", "2, 3 or 4"),
        ("BN", "48", "multiple of WN"),
        ("BK", "24", "copies per row must divide"),
        ("SPLIT_K", "17", "1 to 16"),
    ] {
        let d = lab::lesson::with_overrides(d.clone(), &defines(&[(name, bad)]));
        let why = (ocl.check_defines)(&d).unwrap_err();
        assert!(why.contains(words), "{name}={bad}: {why}");
    }
}

#[test]
fn accuracy_is_judged_against_fp32_on_the_same_inputs() {
    let p = Problem::random(Shape::new(8, 8, 2048), 5);
    let exact = lab::harness::matrix::reference(&p).c;
    // The exact product rounded to f32: better than FP32's loop, accepted.
    let good: Vec<f32> = exact.iter().map(|&x| x as f32).collect();
    assert_eq!(unit::accuracy(&p, &good, false), None);
    let (e, e32) = unit::errors(&p, &good);
    assert!(e < e32, "{e} {e32}");
    // Every element off by one part in 2¹²: TF32-sized, rejected with TF32's explanation.
    let tf32: Vec<f32> = exact
        .iter()
        .map(|&x| (x * (1.0 + 1.0 / 4096.0)) as f32)
        .collect();
    let why = unit::accuracy(&p, &tf32, false).expect("rejected");
    assert!(why.contains("TF32 keeps 10 bits"), "{why}");
    // Off by one part in 2¹⁸: the split summed inside the unit.
    let drift: Vec<f32> = exact
        .iter()
        .map(|&x| (x * (1.0 - 1.0 / 262144.0)) as f32)
        .collect();
    let why = unit::accuracy(&p, &drift, false).expect("rejected");
    assert!(why.contains("kept inside the unit"), "{why}");
    // A short K is not judged against FP32 unless the allowance already failed it.
    let short = Problem::random(Shape::new(8, 8, 16), 5);
    let ok: Vec<f32> = lab::harness::matrix::reference(&short)
        .c
        .iter()
        .map(|&x| (x * (1.0 + 1.0 / 4096.0)) as f32)
        .collect();
    assert_eq!(unit::accuracy(&short, &ok, false), None);
    assert!(unit::accuracy(&short, &ok, true).is_some());
    // A wrong product is not a rounding matter: the generic message stays.
    let wrong: Vec<f32> = exact.iter().map(|&x| (x + 1.0) as f32).collect();
    assert_eq!(unit::accuracy(&p, &wrong, true), None);
}

/// The TF32 value nearest to `x` with ties to even, found by comparing the two TF32 neighbours
/// (a different route from the model's integer sum).
fn tf32_nearest_even(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let (sign, mag) = (x.to_bits() & 0x8000_0000, x.to_bits() & 0x7fff_ffff);
    let down = mag & 0xffff_e000;
    let up = down + 0x2000;
    // Past the largest TF32 value the next one up is 2^128, which FP32 writes as infinity.
    let value = |bits: u32| match f32::from_bits(bits) {
        v if v.is_infinite() => 2f64.powi(128),
        v => v as f64,
    };
    let m = f32::from_bits(mag) as f64;
    let (dd, du) = (m - value(down), value(up) - m);
    let pick = if dd < du || (dd == du && down & 0x2000 == 0) {
        down
    } else {
        up
    };
    f32::from_bits(sign | pick)
}

/// The unit as the sanitizer's drawn run takes it: the same source but the model's call, which
/// waits at no barrier and touches no local memory, so that a warp may run ahead of another as
/// on the tensor cores; it builds, and it is the lesson's own where the unit is the instruction.
#[test]
fn the_unordered_unit_waits_for_nobody() {
    common::unordered_unit_waits_for_nobody(
        &g(),
        unit::prelude,
        unit::unordered,
        unit::MMA_CL,
        "inline float4 mma_tf32",
        "__kernel void k(__global float4* d) { d[0] = mma_tf32(d[1], d[2].xy, d[3], 0); }",
    );
}

/// The unit's two roundings as the model computes them on this device: `tf32_round` to nearest
/// with ties away from zero, `tf32_cvt` with ties to even (what `cvt.rn.tf32.f32` does), on
/// ties, values next to them, both signs, subnormals, infinity and the largest floats.
#[test]
fn the_models_tf32_roundings() {
    use lab::harness::device::Gpu;
    use lab::harness::exec::input_buffer;
    use lab::harness::program::{self, Arg};
    use opencl3::kernel::ExecuteKernel;
    use opencl3::types::CL_BLOCKING;

    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let prelude = unit::prelude(&gpu);
    if prelude.source.contains("#define MMA_PTX 1") {
        // On the tensor cores tf32_cvt is the instruction, which this test does not model.
        return;
    }
    let source = format!(
        "{}\n__kernel void round_both(__global const float* x, __global float* r, __global float* e) {{\n    const int i = get_global_id(0);\n    r[i] = tf32_round(x[i]);\n    e[i] = tf32_cvt(x[i]);\n}}\n",
        prelude.source
    );
    let path = std::path::Path::new("lessons/11_matrix_units/mma.cl");
    let prog = program::build_source(&gpu, path, &source, &[], "").unwrap();
    let args = [Arg::GlobalIn("x"), Arg::GlobalOut("r"), Arg::GlobalOut("e")];
    let kernel = program::kernel(&prog, path, "round_both", &args).unwrap();

    let mut xs: Vec<f32> = Vec::new();
    for base in [1.0f32, 1.5, 3.0e-3, 7.0e20, f32::MIN_POSITIVE] {
        let b = base.to_bits() & 0xffff_e000;
        // Even and odd kept parts, each exactly at the tie and one bit either side of it.
        for kept in [b, b + 0x2000] {
            for low in [0x0fffu32, 0x1000, 0x1001, 0x0001, 0x1fff] {
                xs.push(f32::from_bits(kept | low));
            }
        }
    }
    xs.extend([1.0e-40f32, f32::MAX, f32::INFINITY, 0.0]);
    let negatives: Vec<f32> = xs.iter().map(|x| -x).collect();
    xs.extend(negatives);

    let n = xs.len();
    // The course's input buffers: the values, then a guard zone of NaN.
    let x = input_buffer(&gpu, &xs, 0).unwrap();
    let (r, e) = (
        input_buffer(&gpu, &vec![0.0; n], 0).unwrap(),
        input_buffer(&gpu, &vec![0.0; n], 0).unwrap(),
    );
    let (mut rv, mut ev) = (vec![0.0f32; n], vec![0.0f32; n]);
    unsafe {
        ExecuteKernel::new(&kernel)
            .set_arg(&x)
            .set_arg(&r)
            .set_arg(&e)
            .set_global_work_size(n)
            .enqueue_nd_range(&gpu.queue)
            .unwrap();
        gpu.queue
            .enqueue_read_buffer(&r, CL_BLOCKING, 0, &mut rv, &[])
            .unwrap();
        gpu.queue
            .enqueue_read_buffer(&e, CL_BLOCKING, 0, &mut ev, &[])
            .unwrap();
    }
    let mut ties = 0;
    for (i, &v) in xs.iter().enumerate() {
        let even = tf32_nearest_even(v);
        assert_eq!(
            ev[i].to_bits(),
            even.to_bits(),
            "tf32_cvt({v:e}) = {:e}, not {even:e}",
            ev[i]
        );
        if v.to_bits() & 0x1fff == 0x1000 {
            // A tie: tf32_round goes away from zero.
            ties += 1;
            let away = f32::from_bits((v.to_bits() & 0xffff_e000) + 0x2000);
            assert_eq!(rv[i].to_bits(), away.to_bits(), "tf32_round({v:e})");
        } else {
            assert_eq!(rv[i].to_bits(), even.to_bits(), "tf32_round({v:e})");
        }
    }
    assert_eq!(ties, 20);
}

/// An H100 as OpenCL describes it, for the host's choice of block by shape.
fn h100() -> lab::harness::device::DeviceInfo {
    lab::harness::device::DeviceInfo {
        index: 0,
        platform: "NVIDIA CUDA".into(),
        name: "NVIDIA H100 80GB HBM3".into(),
        vendor: "NVIDIA Corporation".into(),
        driver: String::new(),
        version: String::new(),
        kind: "GPU".into(),
        compute_units: 132,
        clock_mhz: 1980,
        global_mem_bytes: 0,
        max_alloc_bytes: 0,
        local_mem_bytes: 48 * 1024,
        max_work_group: 1024,
        max_work_item_sizes: Vec::new(),
        image_support: true,
        image2d_max_width: 0,
        preferred_float_width: 1,
        native_float_width: 1,
        base_align_bytes: 0,
        host_unified_memory: false,
    }
}

/// A winner the tuner recorded at a shape serves the shapes of its class (every side within a
/// fifth) and no other; elsewhere the rule by shape decides.
#[test]
fn a_tuned_winner_serves_the_shapes_near_the_one_it_was_tuned_at() {
    use lab::ladder::l11_matrix_units::{by_shape, GPU_DEFINES, GPU_SMALL_DEFINES};
    let ocl = ladder::get("11").ocl().unwrap();
    let gpu = h100();
    let tmp = lab::harness::child::Scratch::new("tuned-11").unwrap();
    let course = lab::harness::paths::Course::new(tmp.dir.clone());
    std::fs::create_dir_all(course.results()).unwrap();
    let path = lab::tuner::tuned_csv(&course.results());
    let split = |d: &[(&str, &str)], parts: &str| {
        lab::lesson::with_overrides(defines(d), &defines(&[("SPLIT_K", parts)]))
    };
    let row = |at: Shape, d: &[lab::harness::program::Define]| lab::tuner::TunedRow {
        date: "2026-12-01".into(),
        device: gpu.name.clone(),
        driver: "1.0".into(),
        gflops: 1.0,
        size: at,
        defines: lab::harness::program::line(d),
        props: lab::tuner::signature(&gpu),
        lesson: "11_matrix_units".into(),
    };
    let flat = Shape::new(8192, 8192, 1024);
    let small = split(GPU_SMALL_DEFINES, "4");
    lab::harness::record::append(
        &path,
        &[
            row(flat, &small),
            row(Shape::square(4096), &defines(GPU_SMALL_DEFINES)),
            // Outside the space the grader checks (the big blocks in three stages): never
            // taken.
            row(
                Shape::new(1024, 8192, 8192),
                &lab::lesson::with_overrides(defines(GPU_DEFINES), &defines(&[("STAGES", "3")])),
            ),
        ],
    )
    .unwrap();
    // The column keeps the shape as written.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(",8192x8192x1024,") && text.contains(",4096,"),
        "{text}"
    );
    let ctx = lab::lesson::Ctx {
        info: &gpu,
        course: &course,
    };
    let sized = ocl.sized.unwrap();
    for (shape, want) in [
        (flat, small.clone()),
        (Shape::new(8000, 9000, 1100), small.clone()),
        (Shape::new(7000, 9800, 860), small.clone()),
        (Shape::square(4096), defines(GPU_SMALL_DEFINES)),
        (Shape::new(4500, 3500, 4000), defines(GPU_SMALL_DEFINES)),
        // Another class: the rule by shape.
        (
            Shape::new(8192, 8192, 2048),
            by_shape(&gpu, Shape::new(8192, 8192, 2048)),
        ),
        (
            Shape::new(8192, 1024, 8192),
            by_shape(&gpu, Shape::new(8192, 1024, 8192)),
        ),
        (
            Shape::new(1024, 8192, 8192),
            by_shape(&gpu, Shape::new(1024, 8192, 8192)),
        ),
        (Shape::square(8192), by_shape(&gpu, Shape::square(8192))),
    ] {
        assert_eq!(sized(&ctx, shape), Some(want), "{shape}");
    }
}

#[test]
fn blocks_follow_the_problems_shape_and_every_choice_is_graded() {
    use lab::ladder::l11_matrix_units::{by_shape, GPU_DEFINES, GPU_SMALL_DEFINES};
    let ocl = ladder::get("11").ocl().unwrap();
    let gpu = h100();
    let split = |d: &[(&str, &str)], parts: &str| {
        lab::lesson::with_overrides(defines(d), &defines(&[("SPLIT_K", parts)]))
    };
    // 64 or 144 blocks of 128×128 for 264 places: smaller blocks; 256 or more: the big ones.
    for (m, n, want) in [
        (1024, 1024, GPU_SMALL_DEFINES),
        (1536, 1536, GPU_SMALL_DEFINES),
        (2048, 2048, GPU_DEFINES),
        (4095, 4095, GPU_DEFINES),
        (8192, 1024, GPU_DEFINES),
        (1024, 8192, GPU_DEFINES),
        (100, 3000, GPU_SMALL_DEFINES),
    ] {
        assert_eq!(
            by_shape(&gpu, Shape::new(m, n, 512)),
            defines(want),
            "{m}×{n}"
        );
    }
    // A long K where the blocks are few: split into as many parts of at least 512 as fill the
    // places, with the big blocks where they can, else the small ones.
    for (shape, want) in [
        (Shape::new(1024, 1024, 8192), split(GPU_DEFINES, "4")),
        (Shape::new(1024, 1024, 4096), split(GPU_DEFINES, "4")),
        (Shape::new(768, 768, 4096), split(GPU_DEFINES, "7")),
        (Shape::new(512, 512, 8192), split(GPU_DEFINES, "16")),
        (Shape::new(512, 512, 2048), split(GPU_SMALL_DEFINES, "4")),
        (Shape::new(1024, 1024, 1024), defines(GPU_SMALL_DEFINES)),
        (Shape::new(2048, 2048, 8192), defines(GPU_DEFINES)),
    ] {
        assert_eq!(by_shape(&gpu, shape), want, "{shape}");
    }
    // The tuner's space the grader checks holds every block shape the host may pick, whole
    // and in every count of parts, each legal.
    let knobs = (ocl.knobs.unwrap())(&gpu);
    for d in [GPU_DEFINES, GPU_SMALL_DEFINES] {
        let parts = (2..=16).map(|p| split(d, &p.to_string()));
        for d in std::iter::once(defines(d)).chain(parts) {
            assert!(knobs.contains(&d), "{d:?} is graded");
            (ocl.check_defines)(&d).unwrap();
        }
    }
    assert_eq!(knobs.len(), 2 * 16);
    // The count of parts is the host's: the compiler sees each block shape whole or split,
    // four builds for the 32 combinations, and never the count.
    let mut compiled: Vec<String> = (knobs.iter())
        .map(|d| lab::harness::program::options(&ocl.compiled(d), ""))
        .collect();
    assert!(
        compiled.iter().all(|o| !o.contains("SPLIT_K")),
        "{compiled:?}"
    );
    compiled.sort();
    compiled.dedup();
    assert_eq!(compiled.len(), 4, "{compiled:?}");
    let mut in_parts = defines(GPU_DEFINES);
    in_parts.push(lab::harness::program::Define::new("K_IN_PARTS", 1));
    assert_eq!(ocl.compiled(&split(GPU_DEFINES, "16")), in_parts);
    // A device without tensor cores keeps the model's one shape, graded besides in the most
    // parts the host of a GPU asks for, and in five (no power of two).
    let cpu = lab::harness::device::DeviceInfo {
        vendor: "The pocl project".into(),
        kind: "CPU".into(),
        ..gpu
    };
    let own = by_shape(&cpu, Shape::new(64, 64, 64));
    let in_parts = |p: &str| lab::lesson::with_overrides(own.clone(), &defines(&[("SPLIT_K", p)]));
    assert_eq!(
        (ocl.knobs.unwrap())(&cpu),
        vec![in_parts("16"), in_parts("5")]
    );
    assert_eq!(by_shape(&cpu, Shape::new(1024, 1024, 1024)), own);
    assert_eq!(
        by_shape(&cpu, Shape::new(64, 64, 65536)),
        by_shape(&cpu, Shape::new(64, 64, 64))
    );
}

#[path = "11_matrix_units/cases.rs"]
pub mod cases;

/// The chapter's last kernel, on Hopper's warp-group unit, checked where it can run here: on the
/// model of the instruction (or on the instruction itself on compute capability 9.0), every
/// element of C at shapes with partial blocks, K and N not multiples of 4 (each row read where
/// it lies, or from the host's padded copies) and a last k-step cut short; and at a long K at
/// least as accurate as FP32.
#[test]
fn the_warp_group_kernel_is_right_on_the_unit_or_its_model() {
    use lab::harness::device::Gpu;
    use lab::ladder::l11_matrix_units::warp_group;

    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let course = lab::harness::paths::Course::from_env();
    let instruction = warp_group::has_instruction(&gpu);
    // The tensor cores' blocks (two warp groups, four k-steps per sum; 192 rows where K is a
    // multiple of 4, else 128) on the model too.
    let units = gpu.info.compute_units as usize;
    let big = |shape: Shape, padded: bool| {
        let mut d = warp_group::defines_for(units, true, shape, padded);
        d.retain(|x| x.name != "BM");
        let rows = if padded || shape.k.is_multiple_of(4) {
            192
        } else {
            128
        };
        d.push(lab::harness::program::Define::new("BM", rows));
        d
    };
    // Rows of A or B that start anywhere (K or N not a multiple of 4) are read where they lie:
    // each shift of a row (0 to 3 floats) in several blocks and k-steps, and rows ending in the
    // middle of a 16-byte chunk at the last column and the last k.
    // The host's padding (what problems above the in-place bound take) at ragged shapes: the
    // kernel reads the copies at their padded lengths and writes C where it lies.
    for (shape, seed, tensor_cores, padded) in [
        (Shape::new(131, 70, 77), 3, false, false),
        (Shape::new(131, 72, 77), 10, false, false),
        (Shape::new(131, 70, 76), 11, false, false),
        (Shape::new(131, 70, 77), 12, false, true),
        (Shape::new(131, 72, 77), 13, false, true),
        (Shape::new(131, 70, 76), 14, false, true),
        (Shape::new(150, 139, 103), 15, true, true),
        (Shape::new(64, 128, 48), 4, false, false),
        (Shape::new(65, 100, 40), 5, false, false),
        (Shape::new(40, 24, 1100), 6, false, false),
        (Shape::new(200, 136, 72), 7, true, false),
        (Shape::new(150, 139, 103), 8, true, false),
        (Shape::new(97, 133, 131), 9, false, false),
    ] {
        let d = match tensor_cores && !instruction {
            true => big(shape, padded),
            false => warp_group::defines_for(units, instruction, shape, padded),
        };
        let launch = (warp_group::WARP_GROUP.launch)(shape, &d).unwrap();
        let prepared = warp_group::prepare(&gpu, &course, &d).unwrap();
        let p = Problem::random(shape, seed);
        let out =
            (warp_group::WARP_GROUP.host.run)(&gpu, &prepared.kernel, &p, &launch, &d).unwrap();
        if let Err(f) = lab::grade::verify_whole(&p, &out, None) {
            panic!("{shape} with {d:?}: {}", f.message);
        }
        if shape.k >= unit::ACCURACY_FROM_K {
            let (e, e32) = unit::errors(&p, &out.c);
            assert!(e <= e32, "{shape}: error {e:e}, FP32's {e32:e}");
        }
    }
}

/// A source that asks for the build through NVIDIA's PTX is refused with a sentence where the
/// device cannot run it, before any driver sees it.
#[test]
fn the_ptx_route_is_refused_where_it_cannot_run() {
    use lab::harness::device::Gpu;
    use lab::ladder::l11_matrix_units::warp_group;

    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    if warp_group::has_instruction(&gpu) {
        return;
    }
    let source = format!(
        "{}\n__kernel void f(__global float* x) {{ x[0] = 1.0f; }}\n",
        lab::harness::ptx_patch::MARK
    );
    let path = std::path::Path::new("marked.cl");
    let err = lab::harness::program::build_source(&gpu, path, &source, &[], "").unwrap_err();
    let text = format!("{err:#}");
    assert!(
        text.contains("compute capability 9.0") && text.contains("marked.cl"),
        "{text}"
    );
}
