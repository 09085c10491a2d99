//! Lesson 11: the matrix units. FP32-accurate products on the tensor cores: each value split
//! into two TF32 parts, three products per multiply-add through the unit, the sum kept in FP32
//! outside it. The declaration the grader, the scoreboard and the book read, and the lesson's
//! program:
//!
//! ```text
//! cargo run --release --bin 11_matrix_units [-- --solution --size 4096]
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::lesson::{
    define, per_mad, probe_define, require_divides, require_nonempty, Behaviour, Host, Kind,
    Lesson, Measured, OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

#[path = "11_matrix_units/unit.rs"]
pub mod unit;

#[path = "11_matrix_units/warp_group.rs"]
pub mod warp_group;

pub static LESSON: Lesson = Lesson {
    key: "11",
    slug: "matrix_units",
    title: "The matrix units",
    teaches: "the tensor cores' 16×8×8 TF32 multiply-accumulate from OpenCL, and FP32 accuracy from it: each value split into two TF32 parts, three products, the sum kept outside the unit",
    hint: "in kernels/11_matrix_units.cl, start with stage (11.1): copy A's BM×BK block and B's BK×BN block of the k-step into as and bs with async_copy16 (4 floats) or async_copy4 (1 float), bytes 0 outside the matrices. Then load and split the fragments (11.2), three mma_tf32 per tile (11.3), and store acc (11.4).",
    kind: Kind::OpenCl(&MATRIX),
    // Requests per k-step: a BM×BK block of A and a BK×BN block of B for 2·BM·BN·BK FLOP (the
    // FP32 product's, whatever the unit does three times over).
    intensity: Some(lab::lesson::Intensity {
        rule: "BM×BN blocks: 2·BM·BN / (4·(BM+BN))",
        of: |d| {
            Some(lab::lesson::register_tile(
                lab::lesson::positive(d, "BM")?,
                lab::lesson::positive(d, "BN")?,
            ))
        },
        walk: |d| {
            Some(lab::lesson::Walk::Blocks {
                bm: lab::lesson::positive(d, "BM")?,
                bn: lab::lesson::positive(d, "BN")?,
            })
        },
    }),
    peers: &[],
    top: true,
    program: None,
    unit: lab::lesson::Unit::MatrixTf32,
};

pub static MATRIX: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |ctx| {
        // Big blocks where there are tensor cores to feed; small ones for the model on a CPU.
        let d: &[(&str, &str)] = if nvidia(ctx.info) { GPU_DEFINES } else { CPU_DEFINES };
        lab::lesson::defines(d)
    },
    check_defines,
    launch: |s, d| {
        require_nonempty(s)?;
        check_defines(d)?;
        let (bm, bn) = (define(d, "BM")?, define(d, "BN")?);
        let threads = 32 * warps(d)?;
        Ok(Launch {
            global: [s.n.div_ceil(bn) * threads, s.m.div_ceil(bm)],
            local: Some([threads, 1]),
        })
    },
    shapes: |d| {
        let (bm, bn, bk) = (define(d, "BM")?, define(d, "BN")?, define(d, "BK")?);
        Ok(vec![
            // Whole blocks, K and N multiples of 4: the 16-byte copies only.
            Shape::new(2 * bm, bn, 3 * bk),
            // Partial blocks everywhere, K and N not multiples of 4: the 4-byte copies.
            Shape::new(bm + 3, 2 * bn - 5, 2 * bk + 3),
            // N a multiple of 4 but not of the block, M and K odd.
            Shape::new(bm / 2 + 1, bn + 4, bk + 1),
            Shape::new(37, 29, 301),
            // Every matrix longer than 65 536 floats: an index kept in 16 bits wraps.
            Shape::new(257, 263, 129),
            // A long K, where FP32's own error has grown well above the split's: the result
            // must be at least as accurate as FP32 (see unit::accuracy).
            Shape::new(40, 24, 4096),
        ])
    },
    build_options: "",
    define_sets: &[
        // Blocks taller than wide, warps wider than tall, K-steps of one 8.
        &[
            ("BM", "64"),
            ("BN", "32"),
            ("BK", "8"),
            ("WM", "16"),
            ("WN", "32"),
            ("STAGES", "2"),
        ],
        // Blocks wider than tall, warps taller than wide, three stages, K split in three
        // (the grid holds three problems; the last part of K ends in zeros where K is not a
        // multiple of three k-steps).
        &[
            ("BM", "32"),
            ("BN", "64"),
            ("BK", "16"),
            ("WM", "32"),
            ("WN", "16"),
            ("STAGES", "3"),
            ("SPLIT_K", "3"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[
            // K and N not multiples of 4: the 4-byte copies.
            Probe {
                shape: Shape::new(35, 19, 19),
                defines: PROBE_DEFINES,
            },
            // The 16-byte copies, with partial blocks.
            Probe {
                shape: Shape::new(35, 20, 20),
                defines: PROBE_DEFINES,
            },
        ],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        // The device's own blocks (64×64 on a CPU, 128×128 on a GPU, warps of 32×32 or more)
        // are too slow under the simulator: square blocks of four 16×16 warps in three stages,
        // and tall warps of 16×8 in blocks wider than tall; each at two blocks a side and three
        // k-steps (so that a shape drawn near it for the sanitizer keeps two).
        probes: &[
            Probe {
                shape: Shape::new(64, 64, 24),
                defines: &[
                    ("BM", "32"),
                    ("BN", "32"),
                    ("BK", "8"),
                    ("WM", "16"),
                    ("WN", "16"),
                    ("STAGES", "3"),
                ],
            },
            Probe {
                shape: Shape::new(32, 64, 48),
                defines: &[
                    ("BM", "16"),
                    ("BN", "32"),
                    ("BK", "16"),
                    ("WM", "16"),
                    ("WN", "8"),
                    ("STAGES", "2"),
                ],
            },
        ],
        judge: through_the_unit,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "BK"),
    }),
    // K and N padded to multiples of 4 by the host where they are not (lesson 08's zero
    // padding, made on the device and counted in the time): every copy is then 16 bytes, where
    // the 4-byte copies cost an H100 a quarter of its speed (chapter 11). The simulator runs the
    // kernel on the matrices as they are, so its 4-byte copies are still checked. K split into
    // SPLIT_K parts where the defines say so: the host's to choose, the kernel only offsets
    // its matrices by its part. Where the unit is the model, every run's C is divided by the
    // factor the model scales its products by (unit::unscaled).
    host: Host {
        run: |gpu, kernel, p, l, d| {
            let parts = split_k(d).map_err(anyhow::Error::msg)?;
            let out = lab::harness::exec::run_padded(gpu, kernel, p, l, 4, parts)?;
            Ok(unit::unscaled(gpu, p, out))
        },
        exact: |gpu, kernel, p, l, d| Ok(unit::unscaled(gpu, p, (BUFFERS.exact)(gpu, kernel, p, l, d)?)),
        prelude: Some(unit::prelude),
        unordered: Some(unit::unordered),
        accuracy: Some(|p, out, failed| unit::accuracy(p, &out.c, failed)),
        compiled: Some(compiled),
        ..BUFFERS
    },
    // The one place the block's shape follows the problem's: the winner the course's tuner
    // recorded at this shape or near it, every side within a fifth (`lab-bench tune --lesson
    // 11 --shape MxNxK`), else smaller blocks or K in parts where the big ones leave compute
    // units idle (`by_shape`, below).
    sized: Some(|ctx, shape| {
        let space = (MATRIX.knobs.expect("lesson 11 declares its knobs"))(ctx.info);
        // A recorded combination counts only if it is one of those (so one the grader checks).
        let in_space = |d: &[lab::harness::program::Define]| {
            space.iter().any(|k| lab::harness::program::same(k, d))
        };
        // A winner serves only problems of its own class, every side within a fifth of the
        // shape it was tuned at: between two tuned shapes, and for shapes nobody tuned, the
        // choice turns on how many blocks fill the device, which by_shape counts (a 4096³
        // winner ran 1024×1024×4096 at 21.4 TFLOP/s where by_shape's split gets 42.7 on an
        // H200).
        let results = lab::tuner::tuned_csv(&ctx.course.results());
        lab::tuner::tuned_near(&results, &LESSON.name(), ctx.info, shape, &in_space, 1.2)
            .map(|(_, d)| d)
            .or_else(|| Some(by_shape(ctx.info, shape)))
    }),
    // Every block shape the tuner or by_shape may pick on this device, whole and with K split
    // into every count of parts by_shape may ask for (2 to 16), graded at the small and deep
    // thin shapes each time: a kernel whose part index is right for four parts and wrong for
    // five fails on every grading, not on the day a problem's shape asks for five. Elsewhere,
    // where nothing splits K, the device's own blocks in the most parts (a part index taken
    // modulo any smaller count goes wrong there) and in five (no power of two), so that a file
    // graded at home is graded for the class's GPU too. The counts cost runs, not builds
    // (`compiled`).
    knobs: Some(|info| {
        let with_parts = |d: &[(&str, &str)], parts: usize| {
            let mut d = lab::lesson::defines(d);
            d.push(lab::harness::program::Define {
                name: "SPLIT_K".into(),
                value: parts.to_string(),
            });
            d
        };
        if nvidia(info) {
            [GPU_DEFINES, GPU_SMALL_DEFINES]
                .iter()
                .flat_map(|d| {
                    std::iter::once(lab::lesson::defines(d))
                        .chain((2..=MAX_PARTS).map(move |p| with_parts(d, p)))
                })
                .collect()
        } else {
            vec![with_parts(CPU_DEFINES, MAX_PARTS), with_parts(CPU_DEFINES, 5)]
        }
    }),
    any_size: true,
    variants: &[Variant {
        name: "warp-group",
        about: "the same split and three products on Hopper's warp-group unit (wgmma), four warps per call, one operand straight from local memory",
        measure: warp_group::measure,
        product: Some(warp_group::product),
    }],
};

fn nvidia(info: &lab::harness::device::DeviceInfo) -> bool {
    info.vendor.to_lowercase().contains("nvidia")
}

/// The defines for a problem on a device. On the tensor cores, a problem whose 128×128 blocks
/// fill three quarters of the places the device has for them (two work-groups of 255-register
/// work-items per compute unit) takes them. Otherwise K is split into as many parts as fill
/// the places with 128×128 blocks, each part at least 512 long; failing that into parts of
/// 64×64 blocks; failing that the 64×64 blocks alone (four times as many groups, each of four
/// 32×32 warps). Measured on an H200 (research/splitk-11/): 1024×1024×8192 50.1 TFLOP/s in
/// four parts against 42.1 for 64×64 blocks (cuBLAS's kernel 46.4), 512×512×8192 32.2 in
/// sixteen against 13.8; at 1024³ no split wins (28.0 for 64×64 blocks against 23.7 in four
/// parts). On an H100 (research/shapes-11/): 1024³ 27.5 to 28.3 TFLOP/s for 64×64 blocks
/// against 17.7 to 18.1 for 128×128; at 2048³ the big blocks win, 59.5 against 45.9.
pub fn by_shape(
    info: &lab::harness::device::DeviceInfo,
    shape: Shape,
) -> Vec<lab::harness::program::Define> {
    if !nvidia(info) {
        return lab::lesson::defines(CPU_DEFINES);
    }
    let places = 2 * info.compute_units.max(1) as usize;
    let blocks = |b: usize| shape.m.div_ceil(b) * shape.n.div_ceil(b);
    let fills = |groups: usize| 4 * groups >= 3 * places;
    if fills(blocks(128)) {
        return lab::lesson::defines(GPU_DEFINES);
    }
    for (d, b) in [(GPU_DEFINES, 128), (GPU_SMALL_DEFINES, 64)] {
        let parts = (places / blocks(b)).min(shape.k / MIN_PART).min(MAX_PARTS);
        if parts >= 2 && fills(parts * blocks(b)) {
            let mut d = lab::lesson::defines(d);
            d.push(lab::harness::program::Define {
                name: "SPLIT_K".into(),
                value: parts.to_string(),
            });
            return d;
        }
    }
    lab::lesson::defines(GPU_SMALL_DEFINES)
}

/// The shortest part of a split K: at 1024³ four parts of 256 lost to no split (above).
const MIN_PART: usize = 512;
/// The most parts K is split into (the host sums them all).
const MAX_PARTS: usize = 16;

/// The tensor cores' defaults: a 128×128 block of 4 warps, each 64×64, k-steps of 8, four
/// stages (42 KB of local memory; NVIDIA's OpenCL gives a work-group 48 KB). The fastest of
/// the shapes measured on an H100 (research/perf-11/).
pub const GPU_DEFINES: &[(&str, &str)] = &[
    ("BM", "128"),
    ("BN", "128"),
    ("BK", "8"),
    ("WM", "64"),
    ("WN", "64"),
    ("STAGES", "4"),
];

/// For problems too small to fill the tensor cores with 128×128 blocks: 64×64 blocks of four
/// 32×32 warps, k-steps of 16, four stages (39 KB). The fastest of twelve shapes measured at
/// 1024³ on an H100 (research/shapes-11/, call 1).
pub const GPU_SMALL_DEFINES: &[(&str, &str)] = &[
    ("BM", "64"),
    ("BN", "64"),
    ("BK", "16"),
    ("WM", "32"),
    ("WN", "32"),
    ("STAGES", "4"),
];

/// The model's defaults on a CPU: four warps of 16×16. The model runs as fast in 32×32 blocks
/// as in 64×64 ones on PoCL (research/grading-time/cpu-tiles.csv), and the grader's count of
/// the unit at the asked size simulates two whole blocks, a quarter of the work with these.
const CPU_DEFINES: &[(&str, &str)] = &[
    ("BM", "32"),
    ("BN", "32"),
    ("BK", "16"),
    ("WM", "16"),
    ("WN", "16"),
    ("STAGES", "2"),
];

/// Small and asymmetric for the simulator: four warps of 16×8, two stages (a missing barrier
/// shows between one step's copies and the next step's reads).
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("BM", "32"),
    ("BN", "16"),
    ("BK", "16"),
    ("WM", "16"),
    ("WN", "8"),
    ("STAGES", "2"),
];

/// What the compiler sees of a knob set: the count of parts of K (SPLIT_K) is the host's, the
/// grid's height; the kernel is told only that K is split (K_IN_PARTS), so one build serves
/// every count (a GPU's grading builds each block shape twice, not once per count) and no
/// kernel can key on a count it is built for.
fn compiled(d: &[lab::harness::program::Define]) -> Vec<lab::harness::program::Define> {
    let split = split_k(d).is_ok_and(|parts| parts > 1);
    let mut out: Vec<_> = (d.iter())
        .filter(|x| x.name != "SPLIT_K" && x.name != "K_IN_PARTS")
        .cloned()
        .collect();
    if split {
        out.push(lab::harness::program::Define::new("K_IN_PARTS", 1));
    }
    out
}

/// How many parts K is split into: SPLIT_K where the defines name it, else 1.
fn split_k(d: &[lab::harness::program::Define]) -> Result<usize, String> {
    match d.iter().any(|x| x.name == "SPLIT_K") {
        true => define(d, "SPLIT_K"),
        false => Ok(1),
    }
}

fn warps(d: &[lab::harness::program::Define]) -> Result<usize, String> {
    Ok((define(d, "BM")? / define(d, "WM")?) * (define(d, "BN")? / define(d, "WN")?))
}

fn check_defines(d: &[lab::harness::program::Define]) -> Result<(), String> {
    let (wm, wn, bk) = (define(d, "WM")?, define(d, "WN")?, define(d, "BK")?);
    let mut why = Vec::new();
    if wm % 16 != 0 {
        why.push(format!(
            "WM = {wm} must be a multiple of 16 (tiles of 16 rows)"
        ));
    }
    if wn % 8 != 0 {
        why.push(format!(
            "WN = {wn} must be a multiple of 8 (tiles of 8 columns)"
        ));
    }
    if bk % 8 != 0 {
        why.push(format!("BK = {bk} must be a multiple of 8 (the unit's k)"));
    }
    for (b, w) in [("BM", "WM"), ("BN", "WN")] {
        if let Err(e) = require_divides(d, b, w, "whole warps") {
            why.push(e);
        }
    }
    let bn = define(d, "BN")?;
    if bn % 4 != 0 {
        why.push(format!(
            "BN = {bn} must be a multiple of 4 (copies of 4 floats)"
        ));
    }
    let parts = split_k(d)?;
    if !(1..=MAX_PARTS).contains(&parts) {
        why.push(format!(
            "SPLIT_K = {parts} must be 1 to {MAX_PARTS} (parts of K)"
        ));
    }
    let stages = define(d, "STAGES")?;
    if !(2..=4).contains(&stages) {
        why.push(format!("STAGES = {stages} must be 2, 3 or 4"));
    }
    if why.is_empty() {
        let w = warps(d)?;
        if !(1..=32).contains(&w) {
            why.push(format!(
                "(BM/WM)·(BN/WN) = {w} warps: a work-group holds 1 to 32 warps"
            ));
        }
        // A work-item's copies lie whole rows apart in the block (the copy plan's strides).
        let threads = 32 * w;
        for (what, per_row) in [("BK/4", bk / 4), ("BN/4", bn / 4)] {
            if threads % per_row != 0 {
                why.push(format!(
                    "{what} = {per_row} copies per row must divide the work-group's {threads} work-items"
                ));
            }
        }
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

/// The technique, by what the simulator counted: the unit did three multiply-adds for every
/// one of the product (big·big, big·small, small·big), and the local tiles were read once per
/// fragment.
fn through_the_unit(m: &Measured, probe: &Probe) -> Result<String, String> {
    let at = probe.shape;
    let unit = unit::unit_mads(m.counts) as f64;
    let per = per_mad(unit as u64, probe);
    let d = |n| probe_define(probe, n);
    let (bm, bn, bk) = (d("BM"), d("BN"), d("BK"));
    // The blocks cover the product rounded up to whole blocks and k-steps: the unit works on
    // the padding too.
    let up = |x: usize, b: f64| (x as f64 / b).ceil() * b / x as f64;
    let padded = up(at.m, bm) * up(at.n, bn) * up(at.k, bk);
    if per < 2.5 {
        return Err(format!(
            "the matrix unit did {per:.2} multiply-adds for each multiply-add of the product (measured at {at} under the simulator, which counts the unit's calls); lesson 11's kernel sends three through it, big·big, big·small and small·big, and does none on the ordinary FP32 units.\nHint: every product of A and B goes through mma_tf32: load the fragments from the local tiles, split them, and call mma_tf32 three times per 16×8 tile and k-step of 8."
        ));
    }
    // The split and the sum outside the unit only subtract and add; one multiplication in two
    // multiply-adds is far above what any split costs (a split by a multiplication, as
    // Veltkamp's, costs one per value: at most 1/WM + 1/WN per multiply-add).
    let lanes = per_mad(unit::lane_multiplies(m.counts), probe);
    if lanes > 0.5 {
        return Err(format!(
            "the ordinary FP32 units did {lanes:.2} multiplications for each multiply-add of the product, besides the matrix unit's {per:.2} (measured at {at} under the simulator, which counts every multiplication outside the unit); lesson 11's products are all made in the unit, and the lanes only split values and add the unit's results. Calls of the unit whose results are not the product's (on zeros, on known fragments, or repeating work done on the lanes) do its work for show.\nHint: every product of A and B goes through mma_tf32, three per 16×8 tile and k-step of 8 (big·small, small·big, big·big); the lanes split (small = x − big) and add what the unit returns into acc."
        ));
    }
    if per > 3.0 * padded * 1.2 {
        return Err(format!(
            "the matrix unit did {per:.2} multiply-adds for each multiply-add of the product (measured at {at}); three per multiply-add (big·big, big·small, small·big) are enough for FP32 accuracy, and each costs time.\nHint: small·small is below FP32's rounding: leave it out; and call mma_tf32 once per tile, product and k-step."
        ));
    }
    let once = match m.counts.wide_lanes {
        Some(_) => "",
        None => " (a vector multiplication counted once, not per lane: the course's simulator plugin did not run)",
    };
    Ok(format!(
        "the matrix unit did {per:.2} multiply-adds per multiply-add of the product at {at} (three products), the lanes {lanes:.2} multiplications{once}"
    ))
}
