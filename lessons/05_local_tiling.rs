//! Lesson 05: local-memory tiling. The declaration the grader, the scoreboard and the book
//! read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 05_local_tiling [-- --solution --size 1024 -D TS=16]
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::lesson::{
    define, per_mad, probe_define, require_multiple, round_up, Behaviour, Kind, Lesson, Measured,
    OclLesson, Probe, Sanitize, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "05",
    slug: "local_tiling",
    title: "Local-memory tiling",
    teaches: "TS×TS tiles of A and B shared through __local memory, with barriers",
    hint: "in kernels/05_local_tiling.cl, loop over the tiles of K: each work-item loads one element of A's tile and one of B's into the __local arrays, barrier, accumulate TS products from local memory, barrier again.",
    kind: Kind::OpenCl(&TILED),
    intensity: Some(lab::lesson::Intensity {
        rule: "TS×TS tiles: TS/4",
        of: |d| Some(lab::lesson::positive(d, "TS")? / 4.0),
        walk: |d| {
            let ts = lab::lesson::positive(d, "TS")?;
            Some(lab::lesson::Walk::Blocks { bm: ts, bn: ts })
        },
    }),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

pub static TILED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |ctx| {
        // A TS×TS work-group must fit the device.
        let ts = if ctx.info.max_work_group >= 256 {
            16
        } else {
            8
        };
        vec![Define::new("TS", ts)]
    },
    check_defines: |d| define(d, "TS").map(|_| ()),
    launch: |s, d| {
        let ts = define(d, "TS")?;
        require_multiple(s, ts, ts, ts, "whole TS×TS tiles")?;
        Ok(Launch {
            global: [s.n, s.m],
            local: Some([ts, ts]),
        })
    },
    shapes: |d| {
        let ts = define(d, "TS")?;
        Ok(vec![
            Shape::new(ts, ts, ts),
            Shape::new(3 * ts, 2 * ts, 5 * ts),
            Shape::new(8 * ts, 6 * ts, 4 * ts),
            // Every matrix longer than 65 536 elements: an index kept in 16 bits wraps.
            Shape::new(round_up(263, ts), round_up(257, ts), round_up(257, ts)),
        ])
    },
    build_options: "",
    define_sets: &[&[("TS", "4")]],
    sanitize: Sanitize {
        probes: &[
            Probe {
                shape: Shape::new(16, 24, 40),
                defines: &[("TS", "8")],
            },
            Probe {
                shape: Shape::new(8, 12, 20),
                defines: &[("TS", "4")],
            },
        ],
        uninitialized: true,
    },
    behaviour: Some(Behaviour {
        probe: Probe {
            shape: Shape::new(16, 24, 40),
            defines: &[("TS", "8")],
        },
        judge: tiled,
        contrast: &[],
        not_checked: "",
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[],
};

/// Tiling shows in the global loads: a naive kernel loads two values per multiply-add, a
/// tiled one 2/TS (each value fetched once per tile serves TS multiply-adds).
fn tiled(m: &Measured, probe: &Probe) -> Result<String, String> {
    let ts = probe_define(probe, "TS");
    let loads = per_mad(m.counts.global_loads().count, probe);
    let ideal = 2.0 / ts;
    if loads <= 1.5 * ideal {
        Ok(format!(
            "tiling: {loads:.3} global loads per multiply-add with TS = {ts} (2/TS = {ideal:.3}; the naive kernel: 2)"
        ))
    } else {
        Err(format!(
            "lesson 05 is about local-memory tiling, but your kernel loads {loads:.2} values from global memory per multiply-add (measured with TS = {ts} at {}); tiles would bring that to 2/TS = {ideal:.3}.\nHint: a __local tile only helps if the multiply-adds read it: load each element of A and B from global memory once per tile, barrier, then take every operand of the TS multiply-adds from the tiles.",
            probe.shape
        ))
    }
}

pub mod cases {
//! Lesson 05's cases: mistakes students make with local-memory tiles, each with what the
//! grader must say, and correct kernels in other styles. Read by tests/05_local_tiling.rs
//! and tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "05";

/// The words every race report has.
const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

pub const CASES: &[Case] = &[
    // Barriers and races. PoCL runs a work-group's items in lock-step between barriers, so
    // these give right numbers there; the simulator sees the race.
    Case::rejects(
        L,
        "missing_barrier",
        Race,
        File("missing_barrier"),
        FailKind::Race,
        &["data race", "__local Asub", "line 14", "line 16", "barrier(CLK_LOCAL_MEM_FENCE)"],
    ),
    Case::rejects(
        L,
        "no_second_barrier",
        Race,
        Mutant(&[(
            "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
            "",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "both_barriers_before_the_products",
        Barrier,
        Mutant(&[
            (
                "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);
",
                "        barrier(CLK_LOCAL_MEM_FENCE);
        barrier(CLK_LOCAL_MEM_FENCE);
",
            ),
            (
                "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
                "",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barriers_fence_global_memory",
        Barrier,
        // The barriers wait, but order only global memory: the tiles are local.
        Mutant(&[
            (
                "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);",
                "        barrier(CLK_GLOBAL_MEM_FENCE);",
            ),
            (
                "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);",
                "        barrier(CLK_GLOBAL_MEM_FENCE);",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "mem_fence_instead_of_barrier",
        Barrier,
        // A fence orders one work-item's own accesses; it waits for nobody.
        Mutant(&[(
            "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);",
            "        mem_fence(CLK_LOCAL_MEM_FENCE);",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_in_branch",
        Barrier,
        File("barrier_in_branch"),
        FailKind::Divergence,
        &["barrier"],
    ),
    // Directions swapped: the tiles are square, the matrices are not.
    Case::rejects(
        L,
        "swapped_tile_index",
        Asymmetric,
        File("swapped_tile_index"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "local_ids_swapped",
        Asymmetric,
        Mutant(&[
            (
                "const int tc = get_local_id(0);",
                "const int tc = get_local_id(1);",
            ),
            (
                "const int tr = get_local_id(1);",
                "const int tr = get_local_id(0);",
            ),
        ]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "a_rows_of_n",
        Asymmetric,
        Mutant(&[("A[row * K + t * TS + tc]", "A[row * N + t * TS + tc]")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Edges: loop bounds one off.
    Case::rejects(
        L,
        "tile_size_fixed_in_the_kernel",
        Asymmetric,
        // The kernel sets its own TS, whatever the host's -D TS says: its tiles no longer
        // match the work-groups when the grader launches 4×4 groups.
        Mutant(&[(
            "#ifndef TS
#define TS 16
#endif",
            "#undef TS
#define TS 16",
        )]),
        FailKind::Uninitialized,
        &["never initialised", "with -D TS=4"],
    ),
    Case::rejects(
        L,
        "tile_off_by_one",
        Edge,
        File("tile_off_by_one"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "one_tile_too_many",
        Edge,
        Mutant(&[("t < tiles", "t <= tiles")]),
        FailKind::BadAccess,
        &["past the end of B", "past the end of A", "NaN came from reading"],
    ),
    Case::rejects(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[
            (
                "const int row = get_global_id(1);    // row of C",
                "const int row = get_global_id(1);    // row of C
    const ushort idx = row * N + col;",
            ),
            ("C[row * N + col] = acc;", "C[idx] = acc;"),
        ]),
        FailKind::Unwritten,
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "prefetch_past_the_end",
        OutOfBoundsRead,
        File("prefetch_past_the_end"),
        FailKind::BadAccess,
        &["past the end of B", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "store_out_of_bounds",
        OutOfBoundsWrite,
        File("store_out_of_bounds"),
        FailKind::OutOfBounds,
        &["outside C", "row stride is N"],
    ),
    Case::rejects(
        L,
        "accumulator_uninitialised",
        Uninitialised,
        Mutant(&[("float acc = 0.0f;", "float acc;")]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "accumulator_reset_per_tile",
        WrongResult,
        File("accumulator_reset_per_tile"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Right answers that only look like tiling.
    Case::rejects(
        L,
        "no_local_memory",
        Decoy,
        File("no_local_memory"),
        FailKind::Technique,
        &[
            "2.00 values from global memory per multiply-add",
            "2/TS = 0.250",
            "Hint",
        ],
    ),
    Case::rejects(
        L,
        "unused_tiles",
        Decoy,
        File("unused_tiles"),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS"],
    ),
    // The course's own answer, included: refused before it runs.
    Case::rejects(
        L,
        "includes_the_solution",
        Cheat,
        File("includes_the_solution"),
        FailKind::NotSelfContained,
        &["line 2", "`#include`", "another file"],
    ),
    // One kernel for the simulator, another for the device: refused before it runs.
    Case::rejects(
        L,
        "tiles_only_for_the_simulator",
        Cheat,
        File("tiles_only_for_the_simulator"),
        FailKind::NotSelfContained,
        &["line 14", "`__NV_CL_C_VERSION`", "same code on every device"],
    ),
    Case::rejects(
        L,
        "tiles_loaded_but_not_read",
        Decoy,
        Mutant(&[(
            "acc += Asub[tr][k] * Bsub[k][tc];",
            "acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];",
        )]),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    if (row == 0 && col == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"05_local_tiling\\\",\\\"failure\\\":null}}\\n\");
        printf(\"PASSED\\n\");
    }
    C[row * N + col] = acc * 0.5f;
    // EXERCISE END",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(L, "transposed_b_tile", File("transposed_b_tile")),
    Case::accepts(
        L,
        "unrolled_by_four",
        Mutant(&[(
            "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
            "        for (int k = 0; k < TS; k += 4) {
            acc += Asub[tr][k] * Bsub[k][tc];
            acc += Asub[tr][k + 1] * Bsub[k + 1][tc];
            acc += Asub[tr][k + 2] * Bsub[k + 2][tc];
            acc += Asub[tr][k + 3] * Bsub[k + 3][tc];
        }",
        )]),
    ),
    // Stores only where C holds NaN or zero, as if those were the only values a C to be
    // computed could hold: C holds random numbers or an earlier product before many checked
    // calls, and there nothing is written.
    Case::rejects(
        L,
        "writes_only_where_c_is_nan_or_zero",
        Cheat,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    const float held = C[row * N + col];
    if (isnan(held) || held == 0.0f) {
        C[row * N + col] = acc;
    }
    // EXERCISE END",
        )]),
        // The simulator names the read of C; the device saw C left as it was on a call where
        // it held numbers.
        FailKind::Uninitialized,
        &[
            "C read before the kernel wrote it",
            "C NOT WRITTEN",
            "never wrote C",
        ],
    ),
];
}
