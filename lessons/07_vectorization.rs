//! Lesson 07: vectorization, float4 loads and stores. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 07_vectorization [-- --solution -D WIDTH=8]
//! ```

use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder::l06_register_tiling::{block_defines, block_launch, block_shapes, check_blocks};
use lab::lesson::{
    define, per_mad, probe_define, require_divides, Behaviour, Ctx, Kind, Lesson, Measured,
    OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "07",
    slug: "vectorization",
    title: "Vectorization",
    teaches: "float4 (and float2, float8) loads and stores from global and local memory",
    hint: "in kernels/07_vectorization.cl, first make floatX views of A, B and C (`const __global floatX* Av = (const __global floatX*)A;`), then load the tiles one vector at a time (A's lanes go to WIDTH rows of Asub, B's vectors go to Bsub as they are), accumulate with a float times a vector, and store C as vectors.",
    kind: Kind::OpenCl(&VECTORIZED),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// Lesson 06's tiles, with float4 accesses: 16 bytes is the widest single load most GPUs
/// have, and WPTN = 8 columns split into two of them.
pub fn vector_defines(ctx: &Ctx) -> Vec<Define> {
    let mut d = block_defines(ctx);
    d.push(Define::new("WIDTH", 4));
    d
}

/// Lesson 06's rules, and whole vectors: WIDTH one of the OpenCL vector sizes, dividing
/// WPTN and TSK, and each tile split evenly into vectors among the work-items.
pub fn check_vectors(d: &[Define]) -> Result<(), String> {
    check_blocks(d)?;
    let width = define(d, "WIDTH")?;
    if ![1, 2, 4, 8, 16].contains(&width) {
        return Err(format!(
            "-D WIDTH={width}: WIDTH must be 1, 2, 4, 8 or 16 (the OpenCL vector sizes)"
        ));
    }
    require_divides(
        d,
        "WPTN",
        "WIDTH",
        "a work-item's columns are whole vectors",
    )?;
    require_divides(d, "TSK", "WIDTH", "A's tile is loaded in vectors along K")?;
    let items = (define(d, "TSM")? / define(d, "WPTM")?) * (define(d, "TSN")? / define(d, "WPTN")?);
    for (what, size) in [
        ("A's tile", define(d, "TSM")? * define(d, "TSK")?),
        ("B's tile", define(d, "TSK")? * define(d, "TSN")?),
    ] {
        if size % (width * items) != 0 {
            return Err(format!(
                "{what} ({size} floats) does not split into vectors of {width} evenly among {items} work-items"
            ));
        }
    }
    Ok(())
}

fn with_width(ctx: &Ctx, width: usize) -> Vec<Define> {
    let mut d = vector_defines(ctx);
    d.retain(|x| x.name != "WIDTH");
    d.push(Define::new("WIDTH", width));
    d
}

pub static VECTORIZED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: vector_defines,
    check_defines: check_vectors,
    launch: block_launch,
    shapes: block_shapes,
    build_options: "",
    define_sets: &[
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "4"),
            ("WPTN", "8"),
            ("WIDTH", "4"),
        ],
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "16"),
            ("WPTM", "8"),
            ("WPTN", "4"),
            ("WIDTH", "4"),
        ],
        &[
            ("TSM", "32"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "4"),
            ("WPTN", "4"),
            ("WIDTH", "2"),
        ],
        // A work-group of 16×4 work-items (RTSM ≠ RTSN) with two vectors per row of a
        // work-item's block, so that swapped block strides cannot pass.
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "4"),
            ("WIDTH", "2"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[PROBE],
        uninitialized: true,
    },
    behaviour: Some(Behaviour {
        probe: PROBE,
        judge: vectors,
        contrast: &[],
        not_checked: "",
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[
        Variant {
            name: "float2",
            about: "the same kernel with WIDTH = 2: 8-byte accesses",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 2),
        },
        Variant {
            name: "float8",
            about: "the same kernel with WIDTH = 8: 32-byte accesses, which most GPUs split in two",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 8),
        },
    ],
};

fn measure_width(
    gpu: &lab::harness::device::Gpu,
    course: &lab::harness::paths::Course,
    shape: lab::harness::matrix::Shape,
    width: usize,
) -> anyhow::Result<Option<lab::harness::timing::Timing>> {
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let file = course.solutions().join(LESSON.file_name());
    lab::measure::measure_file(gpu, &LESSON, &file, &with_width(&ctx, width), shape)
}

/// A small asymmetric set for the simulator: 8×16 tiles of 2×4 blocks, float4.
const PROBE: Probe = Probe {
    shape: Shape::new(16, 32, 24),
    defines: &[
        ("TSM", "8"),
        ("TSN", "16"),
        ("TSK", "8"),
        ("WPTM", "2"),
        ("WPTN", "4"),
        ("WIDTH", "4"),
    ],
};

/// Vectors show in the bytes each global access moves: 4·WIDTH for a floatX access, 4 for
/// a float. The global loads per multiply-add show that the tiles are still shared.
pub fn vectors(m: &Measured, probe: &Probe) -> Result<String, String> {
    let width = probe_define(probe, "WIDTH");
    let (tsm, tsn) = (probe_define(probe, "TSM"), probe_define(probe, "TSN"));
    let loads = m.counts.global_loads();
    let stores = m.counts.global_stores();
    let (lb, sb) = (loads.bytes_per_access(), stores.bytes_per_access());
    let want = 4.0 * width;
    if lb < 0.75 * want || sb < 0.75 * want {
        return Err(format!(
            "lesson 07 is about vector accesses, but your kernel's global loads move {lb:.1} bytes each and its stores {sb:.1} (measured with WIDTH = {width} at {}); float{width} accesses move {want:.0}.\nHint: read A and B and write C through floatX pointers (or vload{width}/vstore{width}): one access moves WIDTH floats. Vector types that are declared but filled lane by lane from scalar loads do not count.",
            probe.shape
        ));
    }
    let per = per_mad(loads.count, probe);
    let ideal = (1.0 / tsm + 1.0 / tsn) / width;
    if per > 1.5 * ideal {
        return Err(format!(
            "your kernel loads {per:.3} vectors from global memory per multiply-add (measured at {}); shared tiles read in vectors need (1/TSM + 1/TSN)/WIDTH = {ideal:.4}.\nHint: keep lesson 06's tiles in local memory: each vector of A and B is loaded from global memory once per tile.",
            probe.shape
        ));
    }
    Ok(format!(
        "vectors: {lb:.0} bytes per global load and {sb:.0} per store with WIDTH = {width}"
    ))
}

pub mod cases {
//! Lesson 07's cases: mistakes students make with vector accesses, each with what the
//! grader must say, and correct kernels in other styles. Read by tests/07_vectorization.rs
//! and tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "07";

/// The words every race report has.
const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

/// The first barrier, after the loads, and what is left without it.
const FIRST_BARRIER: &str = "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load";
const NO_FIRST_BARRIER: &str = "        // EXERCISE END
        // ANCHOR_END: load";

/// The defines of the lesson's set with a 16×4 work-group and two vectors per block row.
const RTSM_NE_RTSN: &str = "with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4 -D WIDTH=2";

pub const CASES: &[Case] = &[
    // Barriers. PoCL hides these races; the simulator does not.
    Case::rejects(
        L,
        "missing_barrier",
        Race,
        Mutant(&[(FIRST_BARRIER, NO_FIRST_BARRIER)]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "no_second_barrier",
        Race,
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute",
            "        // EXERCISE END
        // ANCHOR_END: compute",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_before_the_loads",
        Barrier,
        Mutant(&[
            (
                "for (int kt = 0; kt < K; kt += TSK) {",
                "for (int kt = 0; kt < K; kt += TSK) {
        barrier(CLK_LOCAL_MEM_FENCE);",
            ),
            (FIRST_BARRIER, NO_FIRST_BARRIER),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "vector_offset_not_scaled",
        Race,
        Mutant(&[(
            "const int c = (id % (TSK / WIDTH)) * WIDTH;",
            "const int c = id % (TSK / WIDTH);",
        )]),
        // Two work-items write the same elements of A's tile, and some are never written.
        FailKind::Race,
        &["data race", "__local", "also failed", "expected", "got"],
    ),
    // Directions swapped, hidden by square tiles and work-groups.
    Case::rejects(
        L,
        "b_registers_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "Breg[wv] = Bsub[k][tidn + wv * RTSN];",
            "Breg[wv] = Bsub[k][tidn + wv * RTSM];",
        )]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "store_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "tidn + wv * RTSN] = acc[wm][wv];",
            "tidn + wv * RTSM] = acc[wm][wv];",
        )]),
        FailKind::Unwritten,
        &[RTSM_NE_RTSN, "never written"],
    ),
    Case::rejects(
        L,
        "b_tile_rows_of_tsm",
        Asymmetric,
        Mutant(&[(
            "const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);",
            "const int r = id / (TSM / WIDTH);
            const int c = id % (TSM / WIDTH);",
        )]),
        FailKind::BadAccess,
        &["Bsub"],
    ),
    Case::rejects(
        L,
        "lanes_of_a_not_transposed",
        Asymmetric,
        Mutant(&[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[(r * TSK + c + w) / TSM][(r * TSK + c + w) % TSM] = a.s[w];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "lane_order_reversed",
        WrongResult,
        Mutant(&[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[c + w][r] = a.s[WIDTH - 1 - w];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Edges and bounds.
    Case::rejects(
        L,
        "one_tile_too_many",
        Edge,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt <= K; kt += TSK) {",
        )]),
        FailKind::BadAccess,
        &["past the end of", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "Cv[(row * N + offN) / WIDTH + tidn + wv * RTSN] = acc[wm][wv];",
            "Cv[(ushort)((row * N + offN) / WIDTH + tidn + wv * RTSN)] = acc[wm][wv];",
        )]),
        FailKind::Unwritten,
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "one_b_vector_too_many",
        OutOfBoundsRead,
        Mutant(&[(
            "for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                Breg[wv]",
            "for (int wv = 0; wv <= WPTN / WIDTH; wv++) {
                Breg[wv]",
        )]),
        FailKind::BadAccess,
        &["Breg"],
    ),
    Case::rejects(
        L,
        "store_vector_index_off_by_one",
        OutOfBoundsWrite,
        Mutant(&[(
            "tidn + wv * RTSN] = acc[wm][wv];",
            "tidn + wv * RTSN + 1] = acc[wm][wv];",
        )]),
        FailKind::OutOfBounds,
        &["outside C", "after the end of C"],
    ),
    Case::rejects(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[wm][wv] = (floatX)(0.0f);
",
            "",
        )]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "accumulator_reset_per_tile",
        WrongResult,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                acc[wm][wv] = (floatX)(0.0f);
            }
        }",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Right answers that only look vectorised.
    Case::rejects(
        L,
        "scalar_accesses",
        Decoy,
        File("scalar_accesses"),
        FailKind::Technique,
        &[
            "global loads move 4.0 bytes each",
            "float4 accesses move 16",
            "Hint",
        ],
    ),
    Case::rejects(
        L,
        "vectors_filled_lane_by_lane",
        Decoy,
        Mutant(&[
            (
                "a.v = Av[((offM + r) * K + kt + c) / WIDTH];",
                "for (int w = 0; w < WIDTH; w++) {
                a.s[w] = A[(offM + r) * K + kt + c + w];
            }",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "lanesX b;
            for (int w = 0; w < WIDTH; w++) {
                b.s[w] = B[(kt + r) * N + offN + c * WIDTH + w];
            }
            Bsub[r][c] = b.v;",
            ),
        ]),
        FailKind::Technique,
        &["global loads move 4.0 bytes each", "filled lane by lane"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(07.4) BEGIN: store the results as vectors
",
            "    // EXERCISE(07.4) BEGIN: store the results as vectors
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"07_vectorization\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = (floatX)(1.0f);
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(
        L,
        "vload_and_vstore",
        Mutant(&[
            (
                "// ANCHOR_END: vector_type",
                "// ANCHOR_END: vector_type
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define VLOADX CAT(vload, WIDTH)
#define VSTOREX CAT(vstore, WIDTH)",
            ),
            (
                "a.v = Av[((offM + r) * K + kt + c) / WIDTH];",
                "a.v = VLOADX(0, A + (offM + r) * K + kt + c);",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "Bsub[r][c] = VLOADX(0, B + (kt + r) * N + offN + c * WIDTH);",
            ),
            (
                "Cv[(row * N + offN) / WIDTH + tidn + wv * RTSN] = acc[wm][wv];",
                "VSTOREX(acc[wm][wv], 0, C + row * N + offN + (tidn + wv * RTSN) * WIDTH);",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "b_tile_of_floats",
        Mutant(&[
            (
                "__local floatX Bsub[TSK][TSN / WIDTH];",
                "__local float Bsub[TSK][TSN];",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "*(__local floatX*)&Bsub[r][c * WIDTH] = Bv[((kt + r) * N + offN) / WIDTH + c];",
            ),
            (
                "Breg[wv] = Bsub[k][tidn + wv * RTSN];",
                "Breg[wv] = *(__local floatX*)&Bsub[k][(tidn + wv * RTSN) * WIDTH];",
            ),
        ]),
    ),
];
}
