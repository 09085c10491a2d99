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
    Lesson, Measured, OclLesson, Probe, Sanitize, BUFFERS, STANDARD_ARGS,
};

#[path = "11_matrix_units/unit.rs"]
pub mod unit;

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
    top: false,
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
        // Blocks wider than tall, warps taller than wide, three stages.
        &[
            ("BM", "32"),
            ("BN", "64"),
            ("BK", "16"),
            ("WM", "32"),
            ("WN", "16"),
            ("STAGES", "3"),
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
        uninitialized: true,
    },
    behaviour: Some(Behaviour {
        probe: Probe {
            shape: Shape::new(64, 32, 32),
            defines: PROBE_DEFINES,
        },
        judge: through_the_unit,
        contrast: &[],
        not_checked: "",
    }),
    host: Host {
        prelude: Some(unit::prelude),
        accuracy: Some(unit::accuracy),
        ..BUFFERS
    },
    // The one place the block's shape follows the problem's: smaller blocks where the big
    // ones leave compute units idle (below).
    sized: Some(|ctx, shape| Some(lab::lesson::defines(by_shape(ctx.info, shape)))),
    // Every shape by_shape may pick on this device, graded at the small shapes each time.
    knobs: Some(|info| {
        if nvidia(info) {
            [GPU_DEFINES, GPU_SMALL_DEFINES]
                .iter()
                .map(|d| lab::lesson::defines(d))
                .collect()
        } else {
            Vec::new()
        }
    }),
    any_size: true,
    variants: &[],
};

fn nvidia(info: &lab::harness::device::DeviceInfo) -> bool {
    info.vendor.to_lowercase().contains("nvidia")
}

/// The defines for a problem on a device. On the tensor cores, a problem whose 128×128 blocks
/// would fill less than three quarters of the places the device has for them (two work-groups
/// of 255-register work-items per compute unit) is cut into 64×64 blocks: four times as many
/// groups, each of four 32×32 warps. Measured on an H100 (research/shapes-11/): at 1024³ 27.5
/// to 28.3 TFLOP/s against 17.7 to 18.1 for 128×128 blocks, at 1536³ 35.2 against 33.3; at
/// 2048³ (256 blocks for 264 places) the big blocks win, 59.5 against 45.9 (k-steps of 8).
pub fn by_shape(
    info: &lab::harness::device::DeviceInfo,
    shape: Shape,
) -> &'static [(&'static str, &'static str)] {
    if !nvidia(info) {
        return CPU_DEFINES;
    }
    let blocks = shape.m.div_ceil(128) * shape.n.div_ceil(128);
    let places = 2 * info.compute_units.max(1) as usize;
    if 4 * blocks >= 3 * places {
        GPU_DEFINES
    } else {
        GPU_SMALL_DEFINES
    }
}

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

/// The model's defaults on a CPU: four warps.
const CPU_DEFINES: &[(&str, &str)] = &[
    ("BM", "64"),
    ("BN", "64"),
    ("BK", "16"),
    ("WM", "32"),
    ("WN", "32"),
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
    if per > 3.0 * padded * 1.2 {
        return Err(format!(
            "the matrix unit did {per:.2} multiply-adds for each multiply-add of the product (measured at {at}); three per multiply-add (big·big, big·small, small·big) are enough for FP32 accuracy, and each costs time.\nHint: small·small is below FP32's rounding: leave it out; and call mma_tf32 once per tile, product and k-step."
        ));
    }
    Ok(format!(
        "the matrix unit did {per:.2} multiply-adds per multiply-add of the product at {at} (three products)"
    ))
}

pub mod cases {
//! Lesson 11's cases: mistakes students make with the matrix unit, each with what the grader
//! must say, and correct kernels in other styles. Read by tests/11_matrix_units.rs and
//! tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "11";

/// The three products of a tile and k-step, and the sum outside the unit.
const THREE: &str =
    "                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;";

/// The barrier of a k-step, after the wait for its copies.
const THE_BARRIER: &str = "        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);";

pub const CASES: &[Case] = &[
    // Accuracy: what the unit's TF32 and its truncating sum do to C.
    Case::rejects(
        L,
        "plain_tf32",
        WrongResult,
        // One TF32 product per multiply-add, the sum kept in the unit.
        Mutant(&[(
            THREE,
            "                    acc[i][j] = mma_tf32(abig[i], bbig[j], acc[i][j], scratch);",
        )]),
        FailKind::Wrong,
        &["TF32 keeps 10 bits", "FP32 on the same inputs", "big·small", "Hint"],
    ),
    Case::rejects(
        L,
        "split_summed_inside_the_unit",
        WrongResult,
        // The three products, but every k-step's passed back into the unit as C.
        Mutant(&[(
            THREE,
            "                    acc[i][j] = mma_tf32(abig[i], bsmall[j], acc[i][j], scratch);
                    acc[i][j] = mma_tf32(asmall[i], bbig[j], acc[i][j], scratch);
                    acc[i][j] = mma_tf32(abig[i], bbig[j], acc[i][j], scratch);",
        )]),
        FailKind::Wrong,
        &["kept inside the unit", "rounds toward zero", "acc += d", "FP32 on the same inputs"],
    ),
    Case::rejects(
        L,
        "big_only_the_small_parts_dropped",
        WrongResult,
        // The split computed, the sum outside, but only big·big sent through the unit.
        Mutant(&[(
            THREE,
            "                    acc[i][j] += mma_tf32(abig[i], bbig[j], (float4)(0.0f), scratch);",
        )]),
        FailKind::Wrong,
        &["TF32 keeps 10 bits", "Hint"],
    ),
    // Barriers and buffers.
    Case::rejects(
        L,
        "no_barrier_before_the_step",
        Race,
        // The copies of step t+1, made at the end of step t, are read by other warps at the
        // start of step t+1 with nothing in between.
        Mutant(&[(THE_BARRIER, "        WAIT_FOR_STEP();")]),
        FailKind::Race,
        &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"],
    ),
    Case::rejects(
        L,
        "one_buffer",
        Race,
        // Every step's copies go into the same buffer: with three stages the second step's
        // copies overwrite the first's before it is read.
        Mutant(&[
            (
                "        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;",
                "        const __local float* as = As;
        const __local float* bs = Bs;",
            ),
            (
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, N, K,",
                "            stage(As, Bs, A, B, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, N, K, s * BK, tid, &cp);",
                "            stage(As, Bs, A, B, N, K, s * BK, tid, &cp);",
            ),
        ]),
        FailKind::Wrong,
        &["STAGES=3", "expected", "got"],
    ),
    Case::gap(
        L,
        "one_buffer_two_stages",
        Race,
        // The same with two stages whatever the host asks. On the tensor cores a warp that is
        // done copies the next step over the tiles while another still reads them; the model
        // of the unit waits for the whole work-group at every call, which orders those
        // accesses, so neither PoCL nor the simulator sees the race.
        Mutant(&[
            ("#define WARPS ((BM / WM) * (BN / WN))", "#undef STAGES
#define STAGES 2
#define WARPS ((BM / WM) * (BN / WN))"),
            (
                "        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;",
                "        const __local float* as = As;
        const __local float* bs = Bs;",
            ),
            (
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, N, K,",
                "            stage(As, Bs, A, B, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, N, K, s * BK, tid, &cp);",
                "            stage(As, Bs, A, B, N, K, s * BK, tid, &cp);",
            ),
        ]),
        "the model of the unit waits at a work-group barrier inside every call (OpenCL C has no warp-wide exchange on PoCL or Oclgrind), which orders the last reads of a step before the next step's copies",
    ),
    // Reads and writes outside the matrices.
    Case::rejects(
        L,
        "a_rows_below_m_copied",
        OutOfBoundsRead,
        // Rows of A's block below M are copied from memory instead of zero: they only reach
        // rows of C that are not stored, so C is right.
        Mutant(&[
            (
                "const bool in = cp->a_in[u] && cp->a_col + k0 < K;",
                "const bool in = cp->a_col + k0 < K;",
            ),
            (
                "const bool in = cp->a_in[u] && cp->a_col + k0 + e < K;",
                "const bool in = cp->a_col + k0 + e < K;",
            ),
        ]),
        FailKind::BadAccess,
        &["past the end of", "A"],
    ),
    Case::rejects(
        L,
        "stores_below_c",
        OutOfBoundsWrite,
        Mutant(&[("            if (row + 8 < M) {", "            {")]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    // Edges and layouts.
    Case::rejects(
        L,
        "k_steps_rounded_down",
        Edge,
        Mutant(&[(
            "const int steps = (K + BK - 1) / BK;",
            "const int steps = K / BK;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "b_copied_16_bytes_when_n_is_ragged",
        Edge,
        Mutant(&[("        if ((N & 3) == 0) {", "        if (true) {")]),
        FailKind::BadAccess,
        &[],
    ),
    Case::rejects(
        L,
        "b_fragment_rows_side_by_side",
        Asymmetric,
        // b.x and b.y taken from rows 2t and 2t+1 (C's layout) instead of t and t+4.
        Mutant(&[(
            "bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]",
            "bs[(kk + 2 * t4) * SB + c], bs[(kk + 2 * t4 + 1) * SB + c]",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects_any(
        L,
        "warps_placed_by_the_other_count",
        Asymmetric,
        // The warp's column of tiles taken modulo the count of its rows: right while the
        // block has as many warps down as across.
        Mutant(&[(
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;",
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BM / WM)) * WN;",
        )]),
        &[FailKind::Wrong, FailKind::Unwritten],
        &["-D BM=64 -D BN=32"],
    ),
    Case::rejects(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[i][j] = (float4)(0.0f);
",
            "",
        )]),
        FailKind::Uninitialized,
        &["never initialised", "C"],
    ),
    // Right answers that are not lesson 11's kernel.
    Case::rejects(
        L,
        "fp32_on_the_cuda_cores",
        Decoy,
        // The same tiles and fragments' places, the products done in FP32 by the work-item
        // itself: accurate, and no matrix unit.
        Mutant(&[(
            THREE,
            "                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    float4 d = (float4)(0.0f);
                    for (int k = 0; k < 8; k++) {
                        const float a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const float b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        d += (float4)(a0 * b0, a0 * b1, a1 * b0, a1 * b1);
                    }
                    acc[i][j] += d;",
        )]),
        FailKind::Technique,
        &["matrix unit did 0.00", "three", "Hint"],
    ),
    Case::rejects(
        L,
        "four_products",
        Decoy,
        // small·small too: a quarter more work for nothing FP32 can hold.
        Mutant(&[(
            "                    d = mma_tf32(asmall[i], bbig[j], d, scratch);",
            "                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(asmall[i], bsmall[j], d, scratch);",
        )]),
        FailKind::Technique,
        &["three per multiply-add", "small·small"],
    ),
    // Correct in another style.
    Case::accepts(
        L,
        "big_and_corrections_in_separate_calls",
        // The corrections from zero in one chain, big·big from zero in another, both added
        // outside the unit.
        Mutant(&[(
            THREE,
            "                    float4 fix = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    fix = mma_tf32(asmall[i], bbig[j], fix, scratch);
                    acc[i][j] += mma_tf32(abig[i], bbig[j], (float4)(0.0f), scratch);
                    acc[i][j] += fix;",
        )]),
    ),
    Case::accepts(
        L,
        "tf32_rounding_by_hand",
        // Round A and B alike with integer arithmetic of one's own instead of the unit's
        // tf32_round and tf32_cvt: the same values but on exact ties.
        Mutant(&[
            (
                "// ANCHOR: stage",
                "#define tf32_round(x) as_float((as_uint(x) + 0x1000u) & 0xffffe000u)

// ANCHOR: stage",
            ),
            (
                "bbig[j] = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));",
                "bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "warps_placed_down_the_columns",
        // Consecutive warps go down the block instead of across it: any one-to-one placement
        // is right.
        Mutant(&[(
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;",
            "const int wm = (warp % (BM / WM)) * WM, wn = (warp / (BM / WM)) * WN;",
        )]),
    ),
    Case::accepts(
        L,
        "stores_by_float2",
        Mutant(&[(
            "            if (row < M) {
                if (col < N) C[row * N + col] = v.x;
                if (col + 1 < N) C[row * N + col + 1] = v.y;
            }
            if (row + 8 < M) {
                if (col < N) C[(row + 8) * N + col] = v.z;
                if (col + 1 < N) C[(row + 8) * N + col + 1] = v.w;
            }",
            "            for (int h = 0; h < 2; h++) {
                const int r = row + 8 * h;
                const float2 p = h ? v.zw : v.xy;
                if (r >= M) continue;
                if ((N & 1) == 0 && col + 1 < N) {
                    vstore2(p, 0, C + r * N + col);
                } else {
                    if (col < N) C[r * N + col] = p.x;
                    if (col + 1 < N) C[r * N + col + 1] = p.y;
                }
            }",
        )]),
    ),
];
}
