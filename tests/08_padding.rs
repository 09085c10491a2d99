//! Lesson 08's grader: the reference passes for any size (1×1×1, primes, odd and non-square
//! shapes), with small tiles and other paddings, and built without padding is told where its
//! banks conflict; the cases below
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect;
//! the variants measured beside it (no padding, zero-padded copies) give right answers.

mod common;

use lab::grade::{self, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 08` grades it, with the same report:
/// `cargo test --test 08_padding -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("08")
}

fn passes_with(d: Vec<Define>) {
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let v = grade::grade(
        ladder::get("08"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    assert!(v.passed(), "{}", report::verdict(&v));
}

#[test]
fn solution_passes_for_any_size() {
    let v = g().solution_passes("08");
    for s in [
        Shape::new(1, 1, 1),
        Shape::new(7, 13, 5),
        Shape::new(31, 33, 17),
        Shape::new(100, 257, 1000),
    ] {
        assert!(v.cases.iter().any(|c| c.shape == s), "{s} is not graded");
    }
}

#[test]
fn solution_passes_with_small_tiles_and_widths() {
    passes_with(vec![
        Define::new("TSM", 32),
        Define::new("TSN", 32),
        Define::new("TSK", 8),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 8),
    ]);
    passes_with(vec![Define::new("WIDTH", 1), Define::new("PAD", 1)]);
}

/// Built without padding, the answer's stores into A's tile meet in the banks: the counter
/// can fail the answer itself, and names the line.
#[test]
fn solution_without_padding_is_told_where_its_banks_conflict() {
    let opts = grade::Options {
        defines: vec![Define::new("PAD", 0)],
        ..g().opts
    };
    let v = grade::grade(
        ladder::get("08"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    let text = report::verdict(&v);
    assert_eq!(v.kind(), Some(grade::FailKind::Technique), "{text}");
    for words in ["with PAD = 0", "conflict", "Asub[c + w][r] = a.s[w];"] {
        assert!(text.contains(words), "no `{words}` in:\n{text}");
    }
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("08").ocl().unwrap();
    for v in ocl.variants {
        for s in [Shape::new(131, 67, 45), Shape::new(1, 1, 1)] {
            let t = (v.measure)(&gpu, &g().opts.course, s)
                .unwrap_or_else(|e| panic!("{} at {s}: {e:#}", v.name))
                .expect("every size applies");
            assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
        }
    }
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

#[test]
fn launches_whole_tiles_over_any_size() {
    let ocl = ladder::get("08").ocl().unwrap();
    let d = [
        Define::new("TSM", 128),
        Define::new("TSN", 128),
        Define::new("TSK", 16),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
        Define::new("PAD", 2),
    ];
    let l = (ocl.launch)(Shape::new(4095, 129, 7), &d).unwrap();
    assert_eq!(l.global, [32, 512]);
    assert_eq!(l.local, Some([16, 16]));
    let why = (ocl.launch)(Shape::new(0, 5, 5), &d).unwrap_err();
    assert!(why.contains("at least 1"), "{why}");
}

pub mod cases {
    //! Lesson 08's cases: mistakes students make at the edges of the matrices and with padded
    //! tiles, each with what the grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "08";

    /// The words every race report has.
    const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

    /// The defines of the lesson's set with a 16×4 work-group and two vectors per block row.
    const RTSM_NE_RTSN: &str =
        "with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4 -D WIDTH=2 -D PAD=1";

    pub const CASES: &[Case] = &[
    // Barriers. PoCL hides these; the simulator does not.
    Case::rejects(
        L,
        "missing_barrier",
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
        "second_barrier_only_on_small_launches",
        Race,
        // The barrier after the products is kept only while the launch has at most 40
        // work-groups, as many as the small problems the simulator runs every group of: the
        // next tile overwrites what other work-items still read on every problem a user
        // multiplies. The sanitizer asks at the size the grading was asked for too.
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute",
            "        if (get_num_groups(0) * get_num_groups(1) <= 40) {
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        // EXERCISE END
        // ANCHOR_END: compute",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "no_first_barrier",
        Race,
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load",
            "        // EXERCISE END
        // ANCHOR_END: load",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "early_return_outside_c",
        Barrier,
        // Work-items whose block starts outside C leave at once: the others wait for them
        // at the first barrier.
        Mutant(&[(
            "    const int offM = get_group_id(1) * TSM;
",
            "    const int offM = get_group_id(1) * TSM;
    if (offM + tidm >= M || offN + tidn * WIDTH >= N) {
        return;
    }
",
        )]),
        FailKind::Divergence,
        &["barrier", "return"],
    ),
    // Directions swapped, hidden by square work-groups.
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
        "edge_columns_of_rtsm",
        Asymmetric,
        Mutant(&[(
            "const int col = offN + (tidn + wv * RTSN) * WIDTH;",
            "const int col = offN + (tidn + wv * RTSM) * WIDTH;",
        )]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    // Edges: ragged sizes, guards one off, vector paths where rows are not aligned.
    Case::rejects(
        L,
        "guard_drops_last_row",
        Edge,
        Mutant(&[("} else if (row < M) {", "} else if (row < M - 1) {")]),
        FailKind::Unwritten,
        &["never wrote C", "guarded by a condition"],
    ),
    Case::rejects(
        L,
        "row_guard_up_to_and_including_m",
        Edge,
        Mutant(&[("} else if (row < M) {", "} else if (row <= M) {")]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    Case::rejects(
        L,
        "edge_loads_clamped_not_zeroed",
        Edge,
        Mutant(&[
            (
                "a.s[w] = inside ? A[(offM + r) * K + kt + c + w] : 0.0f;",
                "a.s[w] = A[min(offM + r, M - 1) * K + min(kt + c + w, K - 1)];",
            ),
            (
                "b.s[w] = kt + r < K && col < N ? B[(kt + r) * N + col] : 0.0f;",
                "b.s[w] = B[min(kt + r, K - 1) * N + min(col, N - 1)];",
            ),
        ]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects_any(
        L,
        "vector_path_when_n_is_ragged",
        Edge,
        Mutant(&[(
            "const bool aligned = K % WIDTH == 0 && N % WIDTH == 0;",
            "const bool aligned = K % WIDTH == 0;",
        )]),
        // Not the shape's words: on PoCL the float4 loads and stores of rows that do not start
        // on 16 bytes leave elements unwritten at one shape in one grading and at another in
        // the next, and where they write wrong values into nearly every element the few left
        // unwritten are below what chance would leave, so the judge says "wrong". Where the
        // simulator's drawn shape has K a multiple of 4 and N not, it sees two work-items store
        // the same elements, and says so first, the device's words after. Each kind's message
        // has its own words, so none is asked for.
        &[FailKind::Unwritten, FailKind::Wrong, FailKind::Race],
        &[],
    ),
    Case::rejects(
        L,
        "vector_path_when_k_is_ragged",
        Edge,
        Mutant(&[(
            "const bool aligned = K % WIDTH == 0 && N % WIDTH == 0;",
            "const bool aligned = N % WIDTH == 0;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "interior_when_the_tile_starts_inside",
        Edge,
        Mutant(&[(
            "const bool interior = offM + TSM <= M && offN + TSN <= N;",
            "const bool interior = offM < M && offN < N;",
        )]),
        FailKind::OutOfBounds,
        &["outside C"],
    ),
    // Reads outside A or B that leave C right: only the simulator sees them.
    Case::rejects(
        L,
        "a_row_guard_up_to_and_including_m",
        OutOfBoundsRead,
        Mutant(&[(
            "const bool inside = offM + r < M && kt + c + w < K;",
            "const bool inside = offM + r <= M && kt + c + w < K;",
        )]),
        FailKind::BadAccess,
        &["past the end of A"],
    ),
    // Up to two columns of B past N read where the last column of tiles is nearly full (two
    // columns short or less), in launches of more than a thousand groups: at a drawn odd side
    // only where it is one short of a multiple of the tile width, so the simulator also runs
    // the largest launch's edges where every last tile is cut the two extreme ways, in every
    // grading (grade::shapes::cut_both_ways).
    Case::rejects(
        L,
        "b_read_two_past_n_where_the_last_tile_is_nearly_full",
        OutOfBoundsRead,
        Mutant(&[(
            "b.s[w] = kt + r < K && col < N ? B[(kt + r) * N + col] : 0.0f;",
            "const bool nearly = get_num_groups(0) * get_num_groups(1) > 1000
                        && (int)get_num_groups(0) * TSN - N <= 2;
                    b.s[w] = kt + r < K && col < N + (nearly ? 2 : 0) ? B[(kt + r) * N + col] : 0.0f;",
        )]),
        FailKind::BadAccess,
        &["past the end of B", "N=4"],
    ),
    // ANCHOR: case_example
    Case::rejects(
        L,
        "b_read_before_its_guard",
        OutOfBoundsRead,
        Mutant(&[(
            "b.s[w] = kt + r < K && col < N ? B[(kt + r) * N + col] : 0.0f;",
            "const float v = B[(kt + r) * N + col];
                    b.s[w] = kt + r < K && col < N ? v : 0.0f;",
        )]),
        FailKind::BadAccess,
        &["past the end of B", "read 0.0f instead of memory"],
    ),
    // ANCHOR_END: case_example
    Case::rejects(
        L,
        "store_without_column_guard",
        OutOfBoundsWrite,
        Mutant(&[(
            "if (col + w < N) {
                        C[row * N + col + w] = out.s[w];
                    }",
            "C[row * N + col + w] = out.s[w];",
        )]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ column < N"],
    ),
    Case::rejects(
        L,
        "edge_lanes_left_unset",
        Uninitialised,
        Mutant(&[(
            "a.s[w] = inside ? A[(offM + r) * K + kt + c + w] : 0.0f;",
            "if (inside) {
                        a.s[w] = A[(offM + r) * K + kt + c + w];
                    }",
        )]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "edge_store_wrong_lane",
        WrongResult,
        Mutant(&[(
            "C[row * N + col + w] = out.s[w];",
            "C[row * N + col + w] = out.s[0];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Right answers that only look padded.
    Case::rejects(
        L,
        "no_padding",
        Decoy,
        Mutant(&[(
            "__local float Asub[TSK][TSM + PAD];",
            "__local float Asub[TSK][TSM];",
        )]),
        FailKind::Technique,
        &["with PAD = 2", "4.0 times as many", "line ", "`Asub[c + w][r] = a.s[w];`", "Asub[TSK][TSM + PAD]"],
    ),
    Case::rejects(
        L,
        "padded_tile_declared_but_unused",
        Decoy,
        Mutant(&[(
            "__local float Asub[TSK][TSM + PAD];",
            "__local float Asub[TSK][TSM];
    __local float Apad[TSK][TSM + PAD];",
        )]),
        FailKind::Technique,
        &["with PAD = ", "Asub[TSK][TSM + PAD]"],
    ),
    Case::rejects(
        L,
        "b_tile_padded_instead_of_a",
        Decoy,
        Mutant(&[
            (
                "__local float Asub[TSK][TSM + PAD];",
                "__local float Asub[TSK][TSM];",
            ),
            (
                "__local floatX Bsub[TSK][TSN / WIDTH];",
                "__local floatX Bsub[TSK][TSN / WIDTH + PAD];",
            ),
        ]),
        FailKind::Technique,
        &["stores into local memory", "`Asub[c + w][r] = a.s[w];`", "conflict"],
    ),
    Case::rejects(
        L,
        "padded_only_in_tiles_of_up_to_32_rows",
        Decoy,
        // Padding in tiles of up to 32 rows (a CPU's own, and every declared set), none in a
        // GPU's 64- and 128-row tiles: counted with the defines the lesson takes on other
        // kinds of device, whatever machine grades.
        Mutant(&[(
            "__local float Asub[TSK][TSM + PAD];",
            "#if TSM <= 32
    __local float Asub[TSK][TSM + PAD];
#else
    __local float Asub[TSK][TSM];
#endif",
        )]),
        FailKind::Technique,
        &["PAD", "the defines the lesson takes on a large GPU"],
    ),
    Case::rejects(
        L,
        "padded_tile_indexed_as_unpadded",
        Decoy,
        Mutant(&[
            (
                "Asub[c + w][r] = a.s[w];",
                "((__local float *)Asub)[(c + w) * TSM + r] = a.s[w];",
            ),
            (
                "const float a = Asub[k][tidm + wm * RTSM];",
                "const float a = ((__local float *)Asub)[k * TSM + tidm + wm * RTSM];",
            ),
        ]),
        FailKind::Technique,
        &["4.0 times as many", "(c + w) * TSM + r", "index it as declared"],
    ),
    // Padded in the first and the last work-group (the two a simulator in quick mode runs, if
    // the ids it hands out were the device's), indexed as unpadded in all the others: the
    // simulator's first group is, as the kernel sees it, one drawn for the build
    // (src/harness/groups.rs), and the asked size's count shows the conflicts.
    Case::rejects(
        L,
        "padded_only_in_the_first_and_last_work_groups",
        Decoy,
        Mutant(&[
            (
                "    const int offM = get_group_id(1) * TSM;
",
                "    const int offM = get_group_id(1) * TSM;
    const bool ends = (get_group_id(0) == 0 && get_group_id(1) == 0)
        || (get_group_id(0) == get_num_groups(0) - 1 && get_group_id(1) == get_num_groups(1) - 1);
",
            ),
            (
                "Asub[c + w][r] = a.s[w];",
                "if (ends) {
                    Asub[c + w][r] = a.s[w];
                } else {
                    ((__local float *)Asub)[(c + w) * TSM + r] = a.s[w];
                }",
            ),
            (
                "const float a = Asub[k][tidm + wm * RTSM];",
                "const float a = ends ? Asub[k][tidm + wm * RTSM]
                                      : ((__local float *)Asub)[k * TSM + tidm + wm * RTSM];",
            ),
        ]),
        FailKind::Technique,
        &["conflict", "one drawn for this grading"],
    ),
    // The same class, spelled otherwise: rows padded by whole rows of banks (32 floats per
    // PAD), which grows the tile with PAD and moves no row to another bank.
    Case::rejects(
        L,
        "padded_by_whole_rows_of_banks",
        Decoy,
        Mutant(&[(
            "__local float Asub[TSK][TSM + PAD];",
            "__local float Asub[TSK][TSM + 32 * PAD];",
        )]),
        FailKind::Technique,
        &["conflict", "`Asub[c + w][r] = a.s[w];`"],
    ),
    // Padded as the lesson asks, but each work-item's vectors of B side by side instead of
    // RTSN apart: the loads of B's tile meet two to a bank where a warp spans 16 work-items
    // along N (a large GPU's tiles), not in a CPU's 4.
    Case::rejects(
        L,
        "b_vectors_of_a_work_item_side_by_side",
        Decoy,
        Mutant(&[
            (
                "Breg[wv] = Bsub[k][tidn + wv * RTSN];",
                "Breg[wv] = Bsub[k][tidn * (WPTN / WIDTH) + wv];",
            ),
            (
                "const int col = offN + (tidn + wv * RTSN) * WIDTH;",
                "const int col = offN + (tidn * (WPTN / WIDTH) + wv) * WIDTH;",
            ),
        ]),
        FailKind::Technique,
        &["loads from local memory", "Bsub[k][tidn * (WPTN / WIDTH) + wv]", "the defines the lesson takes on a large GPU"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(08.4) BEGIN: store the results: vectors inside C, element by element on the edges
",
            "    // EXERCISE(08.4) BEGIN: store the results: vectors inside C, element by element on the edges
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"08_padding\\\",\\\"failure\\\":null}}\\n\");
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
                "Cv[(row * N + col) / WIDTH] = acc[wm][wv];",
                "VSTOREX(acc[wm][wv], 0, C + row * N + col);",
            ),
        ]),
    ),
    // No padding: A's rows rotated instead, each group of WIDTH rows by as many columns as
    // a warp's stores cover, so that they meet in no bank either (a swizzle, as CUTLASS lays
    // out its tiles). The banks judge the technique, not the bytes declared.
    Case::accepts(
        L,
        "rows_rotated_instead_of_padded",
        Mutant(&[
            (
                "__local float Asub[TSK][TSM + PAD];",
                "__local float Asub[TSK][TSM];",
            ),
            (
                "Asub[c + w][r] = a.s[w];",
                "Asub[c + w][(r + SWZ(c + w)) % TSM] = a.s[w];",
            ),
            (
                "const float a = Asub[k][tidm + wm * RTSM];",
                "const float a = Asub[k][(tidm + wm * RTSM + SWZ(k)) % TSM];",
            ),
            (
                "// ANCHOR_END: vector_type",
                "// ANCHOR_END: vector_type
#define SWZ(k) (((k) / WIDTH) * (32 * WIDTH / TSK))",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "store_guard_in_one_condition",
        Mutant(&[
            ("} else if (row < M) {", "} else {"),
            ("if (col + w < N) {", "if (row < M && col + w < N) {"),
        ]),
    ),
];
}
