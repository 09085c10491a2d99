//! Lesson 08: padding. Any M, N and K, with guarded edge tiles; and padded local tiles
//! against bank conflicts. The declaration the grader, the scoreboard and the book read, its
//! host code (the zero-padding variant), and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 08_padding [-- --solution -m 1000 -n 999 -k 1001]
//! ```

use std::ptr;
use std::time::Instant;

use anyhow::{Context as _, Result};
use lab::grade::verify;
use lab::harness::device::Gpu;
use lab::harness::exec::{self, event_ms, Launch, RunOutput};
use lab::harness::timing::Timing;
use lab::harness::matrix::{Problem, Shape};
use lab::harness::paths::Course;
use lab::harness::program::Define;
use lab::harness::timing;
use lab::prepared::{self, Prepared};
use lab::ladder::l07_vectorization::{check_vectors, vector_defines};
use lab::lesson::{
    define, probe_define, require_nonempty, round_up, Behaviour, Ctx, Kind, Lesson, Measured,
    OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

pub static LESSON: Lesson = Lesson {
    key: "08",
    slug: "padding",
    title: "Padding",
    teaches: "any M, N, K with guarded edge tiles (or zero-padding), and padded local tiles against bank conflicts",
    hint: "in kernels/08_padding.cl, decide once whether the work-group's tile lies inside C; load tiles with vectors there, and elsewhere element by element with 0.0f for anything outside A or B; store vectors inside C and, on the edges, only the elements with row < M and column < N.",
    kind: Kind::OpenCl(&PADDED),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

fn padded_defines(ctx: &Ctx) -> Vec<Define> {
    let mut d = vector_defines(ctx);
    // Rows of the transposed tile of A start 2 banks apart: a warp's stores, TSK/WIDTH
    // steps by 32·WIDTH/TSK rows, then fall in 32 different banks (TSK = 16).
    d.push(Define::new("PAD", 2));
    d
}

/// Lesson 07's rules; PAD may be 0.
fn check_padded(d: &[Define]) -> Result<(), String> {
    check_vectors(d)?;
    match d.iter().rev().find(|x| x.name == "PAD") {
        Some(p) if p.value.trim().parse::<usize>().is_err() => Err(format!(
            "-D PAD={}: PAD must be a whole number of floats, 0 or more",
            p.value
        )),
        _ => Ok(()),
    }
}

pub static PADDED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: padded_defines,
    check_defines: check_padded,
    launch: |s, d| {
        require_nonempty(s)?;
        let (tsm, tsn) = (define(d, "TSM")?, define(d, "TSN")?);
        let (wptm, wptn) = (define(d, "WPTM")?, define(d, "WPTN")?);
        // Whole tiles, hanging over the edges of C where M or N is not a multiple.
        Ok(Launch {
            global: [round_up(s.n, tsn) / wptn, round_up(s.m, tsm) / wptm],
            local: Some([tsn / wptn, tsm / wptm]),
        })
    },
    shapes: |d| {
        let (tsm, tsn, tsk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
        Ok(vec![
            Shape::new(1, 1, 1),
            Shape::new(7, 13, 5),
            Shape::new(31, 33, 17),
            Shape::new(100, 257, 1000),
            Shape::new(tsm, 2 * tsn, 3 * tsk),
            Shape::new(tsm + 3, tsn + 4, 2 * tsk + 4),
            Shape::new(tsm + 3, tsn - 1, 2 * tsk + 1),
            // Interior tiles with N and K not multiples of 4: no vector path may be taken
            // where a row of B or A does not start on a vector boundary.
            Shape::new(2 * tsm + 1, 2 * tsn + 2, 3 * tsk + 3),
            // Every matrix longer than 65 536 vectors of four floats: an index kept in 16
            // bits wraps.
            Shape::new(521, 517, 519),
        ])
    },
    build_options: "",
    define_sets: &[
        &[("TSM", "32"), ("TSN", "64"), ("TSK", "8"), ("WPTM", "4"), ("WPTN", "8"), ("WIDTH", "4"), ("PAD", "1")],
        &[("TSM", "64"), ("TSN", "32"), ("TSK", "16"), ("WPTM", "8"), ("WPTN", "4"), ("WIDTH", "4"), ("PAD", "3")],
        // A work-group of 16×4 work-items (RTSM ≠ RTSN) with two vectors per row of a
        // work-item's block, so that swapped block strides cannot pass.
        &[("TSM", "32"), ("TSN", "64"), ("TSK", "8"), ("WPTM", "8"), ("WPTN", "4"), ("WIDTH", "2"), ("PAD", "1")],
    ],
    sanitize: Sanitize {
        probes: &[
            // N and K multiples of 4: vector loads inside, scalar loads at the edges.
            Probe {
                shape: Shape::new(19, 36, 20),
                defines: PROBE_DEFINES,
            },
            // Nothing aligned: the scalar path everywhere.
            Probe {
                shape: Shape::new(19, 37, 19),
                defines: PROBE_DEFINES,
            },
        ],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        // Lesson 07's sets, padded: the first by the device's own PAD = 2, the second by 1. Two
        // tiles a side (a drawn shape of whole tiles may not be one) and three steps along K
        // (so that a shape drawn near it for the sanitizer keeps two).
        probes: &[
            Probe {
                shape: Shape::new(64, 64, 24),
                defines: &[
                    ("TSM", "32"),
                    ("TSN", "32"),
                    ("TSK", "8"),
                    ("WPTM", "8"),
                    ("WPTN", "8"),
                    ("WIDTH", "4"),
                    ("PAD", "2"),
                ],
            },
            Probe {
                shape: Shape::new(64, 32, 48),
                defines: &[
                    ("TSM", "32"),
                    ("TSN", "16"),
                    ("TSK", "16"),
                    ("WPTM", "8"),
                    ("WPTN", "4"),
                    ("WIDTH", "4"),
                    ("PAD", "1"),
                ],
            },
        ],
        judge: padded,
        contrast: &[("PAD", "0")],
        not_checked: "padding is judged by the size of the local tiles and how it grows with PAD; the simulator has no memory banks, so bank conflicts themselves are not measured",
        k_step: |d| lab::lesson::define(d, "TSK"),
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: true,
    variants: &[
        Variant {
            name: "pad-0",
            about: "the same kernel without padding of A's local tile (PAD = 0)",
            measure: |gpu, course, shape| {
                let ctx = Ctx {
                    info: &gpu.info,
                    course,
                };
                let mut d = padded_defines(&ctx);
                d.retain(|x| x.name != "PAD");
                d.push(Define::new("PAD", 0));
                let file = course.solutions().join(LESSON.file_name());
                lab::measure::measure_file(gpu, &LESSON, &file, &d, shape)
            },
            product: None,
        },
        Variant {
            name: "zero-padding",
            about: "lesson 07's kernel on copies of A, B and C zero-padded to whole tiles on the device; the copies are part of the time",
            measure: zero_padding,
            product: None,
        },
    ],
};

/// A small asymmetric set for the simulator, with padding.
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("TSM", "8"),
    ("TSN", "16"),
    ("TSK", "8"),
    ("WPTM", "2"),
    ("WPTN", "4"),
    ("WIDTH", "4"),
    ("PAD", "2"),
];

/// Lesson 07's vectors (at whole tiles), and padding that shows in the local tiles: A's
/// TSK×(TSM + PAD) floats beside B's TSK×TSN, and PAD = 0 taking exactly A's TSK×PAD
/// floats less (padding B's tile instead leaves the transposing stores into A's tile meeting
/// in the same banks).
fn padded(m: &Measured, probe: &Probe) -> Result<String, String> {
    let vectors = lab::ladder::l07_vectorization::vectors(m, probe)?;
    let d = |n| probe_define(probe, n);
    let (tsm, tsn, tsk, pad) = (d("TSM"), d("TSN"), d("TSK"), d("PAD"));
    let hint = "Hint: declare A's tile as `__local float Asub[TSK][TSM + PAD];` so that each row starts PAD banks after the previous one.";
    let want = (4.0 * tsk * (tsm + pad + tsn)) as u64;
    if m.local_bytes < want {
        return Err(format!(
            "lesson 08 pads the local tile of A, but your kernel's local memory is {} bytes with PAD = {pad} (measured at {}), less than a TSK×(TSM + PAD) tile of A and a TSK×TSN tile of B take ({want} bytes).\n{hint}",
            m.local_bytes, probe.shape
        ));
    }
    let step = (4.0 * tsk * pad) as u64;
    match m.contrast_local_bytes {
        Some(unpadded) if m.local_bytes.checked_sub(unpadded) != Some(step) => {
            return Err(format!(
                "lesson 08 pads each of the TSK rows of A's local tile by PAD floats, which takes 4·TSK·PAD = {step} bytes (TSK = {tsk}, PAD = {pad}); but your kernel's local memory is {} bytes with PAD = {pad} and {unpadded} with PAD = 0 (measured at {}), so PAD pads something else. Padding B's tile does not help: the stores that transpose A into its tile are the ones that meet in the same banks.\n{hint}",
                m.local_bytes, probe.shape
            ));
        }
        _ => {}
    }
    Ok(format!(
        "{vectors}; local tiles of {} bytes with PAD = {pad}{}",
        m.local_bytes,
        m.contrast_local_bytes
            .map(|u| format!(", {u} with PAD = 0"))
            .unwrap_or_default()
    ))
}


/// Runs lesson 07's kernel on zero-padded copies, made on the device: fill the padded
/// buffers with zeros, copy A and B in as rectangles, run, copy C's rectangle out. Device
/// time is the sum of all those steps.
fn zero_padding(gpu: &Gpu, course: &Course, s: Shape) -> Result<Option<Timing>> {
    let l07 = &lab::ladder::l07_vectorization::LESSON;
    let ocl = l07.ocl().context("lesson 07 has a kernel")?;
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let d = prepared::defines(ocl, &ctx, None, &[]).map_err(anyhow::Error::msg)?;
    let get = |name| define(&d, name).map_err(anyhow::Error::msg);
    let (tsm, tsn, tsk) = (get("TSM")?, get("TSN")?, get("TSK")?);
    let pad = Shape::new(round_up(s.m, tsm), round_up(s.n, tsn), round_up(s.k, tsk));
    let launch = (ocl.launch)(pad, &d).map_err(|why| anyhow::anyhow!(why))?;
    let file = course.solutions().join(l07.file_name());
    let kernel = Prepared::read(gpu, ocl, &file, &d, ocl.build_options)?.kernel;

    let device = |len: usize| -> Result<Buffer<f32>> {
        unsafe { Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, len, ptr::null_mut()) }
            .context("allocating a zero-padded matrix")
    };
    let mut ap = device(pad.m * pad.k)?;
    let mut bp = device(pad.k * pad.n)?;
    let cp = device(pad.m * pad.n)?;
    exec::set_standard_args(&kernel, pad, &ap, &bp, &cp)?;

    // One padded product on fresh inputs, step by step; its kernel time is the device time of
    // all the steps.
    let mut once = |p: &Problem| -> Result<RunOutput> {
        let started = Instant::now();
        let a = exec::input_buffer(gpu, &p.a, 0)?;
        let b = exec::input_buffer(gpu, &p.b, 0)?;
        let mut c = exec::input_buffer(gpu, &p.poison.to_vec(), 0)?;
        let f4 = std::mem::size_of::<f32>();
        let mut ms = 0.0;
        let steps = Instant::now();
        unsafe {
            let q = &gpu.queue;
            for (buf, len) in [(&mut ap, pad.m * pad.k), (&mut bp, pad.k * pad.n)] {
                let e = q.enqueue_fill_buffer(buf, &[0.0f32], 0, len * f4, &[])?;
                e.wait()?;
                ms += event_ms(&e)?;
            }
            // Rectangles: origin and region in bytes along x, rows along y.
            let zero = [0usize; 3];
            let copies = [
                (&a, &mut ap, [s.k * f4, s.m, 1], s.k * f4, pad.k * f4),
                (&b, &mut bp, [s.n * f4, s.k, 1], s.n * f4, pad.n * f4),
            ];
            for (src, dst, region, src_pitch, dst_pitch) in copies {
                let e = q.enqueue_copy_buffer_rect(
                    src,
                    dst,
                    zero.as_ptr(),
                    zero.as_ptr(),
                    region.as_ptr(),
                    src_pitch,
                    0,
                    dst_pitch,
                    0,
                    &[],
                )?;
                e.wait()?;
                ms += event_ms(&e)?;
            }
            ms += exec::launch(gpu, &kernel, &launch)?;
            let region = [s.n * f4, s.m, 1];
            let e = q.enqueue_copy_buffer_rect(
                &cp,
                &mut c,
                zero.as_ptr(),
                zero.as_ptr(),
                region.as_ptr(),
                pad.n * f4,
                0,
                s.n * f4,
                0,
                &[],
            )?;
            e.wait()?;
            ms += event_ms(&e)?;
        }
        let wall_ms = steps.elapsed().as_secs_f64() * 1e3;
        let mut out = vec![0.0f32; s.m * s.n];
        unsafe {
            gpu.queue
                .enqueue_read_buffer(&c, CL_BLOCKING, 0, &mut out, &[])
                .context("reading C back")?;
        }
        Ok(RunOutput {
            wall_ms,
            host_ms: started.elapsed().as_secs_f64() * 1e3,
            found: None,
            ..RunOutput::plain(out, ms)
        })
    };
    let target = timing::Target::device(&gpu.info);
    timing::time_checked(s, &target, &mut once, |p, out| {
        verify(p, out, None)
            .map(|_| ())
            .map_err(|f| format!("the zero-padded product is wrong: {}", f.message))
    })
    .map(Some)
}
