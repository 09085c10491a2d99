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
        banks: true,
        not_checked: "",
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

/// Lesson 07's vectors (at whole tiles), and local accesses that do not meet in the same
/// banks: each warp's loads and stores of the tiles served in about one pass of the 32 banks,
/// as the simulator's bank counter replays them. Padding is the lesson's way there (another
/// layout without conflicts, a swizzle say, passes too); a tile declared padded but indexed
/// as if it were not still meets in the same banks, and padding B's tile leaves the stores
/// that transpose A meeting there.
fn padded(m: &Measured, probe: &Probe) -> Result<String, String> {
    let vectors = lab::ladder::l07_vectorization::vectors(m, probe)?;
    let pad = probe_define(probe, "PAD");
    let Some(banks) = m.banks else {
        // The grader says why they were not counted.
        return Ok(format!("{vectors}; bank conflicts not counted"));
    };
    match banks.worst() {
        Some(w) if w.ratio() > MOST_PASSES => {
            // Line 0: the compiler merged accesses of several lines into one instruction.
            let line = match (w.line, m.source.lines().nth((w.line as usize).wrapping_sub(1))) {
                (1.., Some(t)) => format!("on line {}: `{}`", w.line, t.trim()),
                _ => "on a line the compiler merged with another, so the simulator cannot name it,".to_string(),
            };
            let (what, why) = match w.store {
                true => (
                    "stores into",
                    "A's tile is written transposed, so a warp's stores into it go down its columns: with rows a multiple of 32 floats long, they all start in the same bank.\nHint: declare A's tile as `__local float Asub[TSK][TSM + PAD];` and index it as declared (`Asub[k][m]`), so that each row starts PAD banks after the previous one.",
                ),
                false => (
                    "loads from",
                    "Words 32 floats apart sit in the same bank; the work-items of a warp are served at once when they read neighbouring words, or the same one (which is broadcast).\nHint: index the tiles as lesson 07's kernel does: work-item `tidn` reads vector `tidn + wv * RTSN` of B's row and `tidm + wm * RTSM` of A's, so that neighbouring work-items read neighbouring words.",
                ),
            };
            Err(format!(
                "lesson 08 lays out the local tiles so that the work-items of a warp do not meet in the same bank of local memory, but with PAD = {pad} (measured at {}) the {what} local memory {line} take {} passes of the banks where {} would serve them without conflicts, {:.1} times as many. {why}",
                probe.shape,
                w.passes,
                w.ideal,
                w.ratio()
            ))
        }
        _ => Ok(format!(
            "{vectors}; local accesses without bank conflicts with PAD = {pad}: {} passes of the banks where a layout without conflicts takes {}",
            banks.passes, banks.ideal
        )),
    }
}

/// Passes of the banks per conflict-free pass that each line's local accesses stay under:
/// lesson 08's answer takes 1.00 at every define set the course counts, the same kernel
/// unpadded 2 or more on its stores into A's tile (a two-way conflict at least), and padded in
/// only the first and last of n ≥ 3 work-groups at least 2 − 2/n ≥ 1.33.
const MOST_PASSES: f64 = 1.25;

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
            technique: None,
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
