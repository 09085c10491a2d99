//! Lesson 10's grader: the reference passes at sizes with partial tiles and K, N not
//! multiples of 4; the cases below (kernels wrong on purpose, and
//! correct ones in other styles) are graded as they expect.

mod common;

use lab::grade::{self, Source};
use lab::harness::matrix::Shape;
use lab::ladder;
use lab::ladder::l10_tuned::tuner::Params;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 10` grades it, with the same report:
/// `cargo test --test 10_tuned -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("10")
}

#[test]
fn solution_passes() {
    g().solution_passes("10");
}

#[test]
fn solution_passes_loading_a_along_k() {
    // ALONGK=1: A's float4 loads run along its rows and A's tile is stored swizzled. Two
    // asymmetric shapes, with k-steps of 16 and of 8 (different swizzles), through the whole
    // grader, sanitizer included.
    for p in [
        Params::new(64, 32, 16, 8, 4).along_k(1),
        Params::new(32, 64, 8, 4, 8).along_k(1),
    ] {
        let mut opts = g().opts;
        opts.defines = p.defines();
        let v = grade::grade(
            ladder::get("10"),
            &Source::Folder(opts.course.solutions()),
            &opts,
        );
        assert!(v.passed(), "{p}:\n{}", report::verdict(&v));
        assert!(!v.cases.is_empty(), "{p}: the grader checked no case");
    }
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

#[test]
fn launches_any_size_and_refuses_bad_defines() {
    let ocl = ladder::get("10").ocl().unwrap();
    let d = Params::new(128, 128, 16, 8, 8).defines();
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // Two blocks of rows and one of columns, 16×16 work-items each.
    assert_eq!(l.global, [16, 32]);
    assert_eq!(l.local, Some([16, 16]));
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    let bad = Params::new(128, 128, 16, 6, 8).defines();
    let why = (ocl.launch)(Shape::square(256), &bad).unwrap_err();
    assert!(why.contains("multiples of 4"), "{why}");
}

pub mod cases {
    //! Lesson 10's cases: mistakes students make when they put everything together, each with
    //! what the grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "10";

    /// The words every race report has.
    const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

    /// The lesson's set with a work-group of 4×8 work-items (RTSM ≠ RTSN).
    const RTSM_NE_RTSN: &str = "with -D TSM=64 -D TSN=32 -D TSK=8 -D WPTM=8 -D WPTN=8";

    /// The one barrier of a k-step, with its comment.
    const THE_BARRIER: &str =
    "        // One barrier per k-step: the other buffer, written in the next step, was last read
        // in the previous step, which every work-item has finished once it passes here.
        barrier(CLK_LOCAL_MEM_FENCE);
";

    pub const CASES: &[Case] = &[
    // Barriers and buffers. PoCL hides these races; the simulator does not.
    Case::rejects(
        L,
        "no_barrier",
        Race,
        Mutant(&[(THE_BARRIER, "")]),
        FailKind::Race,
        &["data race", "__local", "hint"],
    ),
    Case::rejects_any(
        L,
        "barrier_only_at_the_declared_depths",
        Race,
        // The barrier only at the K of every shape the lesson declares for the simulator
        // (19, 20 and 24): the sanitizer's shape drawn for each grading has a K of its own.
        // Which the simulator sees first there, a tile read before it is loaded or one
        // overwritten while read, depends on the defines drawn with it.
        Mutant(&[(
            THE_BARRIER,
            "        if (K == 19 || K == 20 || K == 24) {
            barrier(CLK_LOCAL_MEM_FENCE);
        }
",
        )]),
        &[FailKind::Race, FailKind::Uninitialized],
        &["__local"],
    ),
    Case::rejects(
        L,
        "one_buffer_one_barrier",
        Race,
        // Double buffering without the second buffer: the next step overwrites the tile
        // while slower work-items still read it.
        Mutant(&[("const int buf = t & 1;", "const int buf = 0;")]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_only_before_a_next_step",
        Barrier,
        Mutant(&[
            (THE_BARRIER, ""),
            (
                "        if (t + 1 < steps) {
            load_step(",
                "        if (t + 1 < steps) {
            barrier(CLK_LOCAL_MEM_FENCE);
            load_step(",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "early_return_below_c",
        Barrier,
        // Work-items whose rows all lie below C leave at once: the others wait for them.
        Mutant(&[(
            "    const int n0 = get_group_id(0) * TSN;
",
            "    const int n0 = get_group_id(0) * TSN;
    if (m0 + ty * 4 >= M) {
        return;
    }
",
        )]),
        // PoCL's run already goes wrong; the simulator says why.
        FailKind::OutOfBounds,
        &["outside C", "reached this barrier", "early `return`"],
    ),
    // Directions swapped, hidden by square work-groups.
    Case::rejects(
        L,
        "b_registers_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "b[j] = bs[k * (TSN / 4) + j * RTSN + tx];",
            "b[j] = bs[k * (TSN / 4) + j * RTSM + tx];",
        )]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "a_registers_strided_by_rtsn",
        Asymmetric,
        Mutant(&[("((i * RTSM + ty) ^ SWZ(k))", "((i * RTSN + ty) ^ SWZ(k))")]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "store_rows_strided_by_rtsn",
        Asymmetric,
        Mutant(&[(
            "const int row = m0 + (i / 4) * (RTSM * 4) + ty * 4 + (i % 4);",
            "const int row = m0 + (i / 4) * (RTSN * 4) + ty * 4 + (i % 4);",
        )]),
        FailKind::Unwritten,
        &[RTSM_NE_RTSN, "never written"],
    ),
    Case::rejects(
        L,
        "a_tile_rows_of_tsn",
        Asymmetric,
        Mutant(&[
            (
                "const int row = m0 + (ALONGK ? id / (TSK / 4) : id % TSM);
        const int col = k0 + (ALONGK ? id % (TSK / 4) : id / TSM) * 4;",
                "const int row = m0 + (ALONGK ? id / (TSK / 4) : id % TSN);
        const int col = k0 + (ALONGK ? id % (TSK / 4) : id / TSN) * 4;",
            ),
            (
                "const int row = ALONGK ? id / (TSK / 4) : id % TSM;
            const int k = (ALONGK ? id % (TSK / 4) : id / TSM) * 4;",
                "const int row = ALONGK ? id / (TSK / 4) : id % TSN;
            const int k = (ALONGK ? id % (TSK / 4) : id / TSN) * 4;",
            ),
        ]),
        // Two work-items load the same float4 of the tile and others none: the simulator
        // sees them write the same elements.
        FailKind::Race,
        &["data race", "__local as"],
    ),
    Case::rejects(
        L,
        "a_tile_not_transposed",
        Asymmetric,
        Mutant(&[
            ("as[(k + 0) * TSM + m]", "as[m * TSK + k + 0]"),
            ("as[(k + 1) * TSM + m]", "as[m * TSK + k + 1]"),
            ("as[(k + 2) * TSM + m]", "as[m * TSK + k + 2]"),
            ("as[(k + 3) * TSM + m]", "as[m * TSK + k + 3]"),
        ]),
        FailKind::Wrong,
        &["expected", "got", "max relative error"],
    ),
    Case::rejects(
        L,
        "neighbouring_columns_in_store",
        Asymmetric,
        Mutant(&[(
            "const int col = n0 + (j * RTSN + tx) * 4;",
            "const int col = n0 + tx * WPTN + j * 4;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Edges: partial steps, ragged rows, guards one off.
    Case::rejects(
        L,
        "k_steps_rounded_down",
        Edge,
        Mutant(&[(
            "const int steps = (K + TSK - 1) / TSK;",
            "const int steps = K / TSK;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Rows of A past M read unguarded in the last row of work-groups but not its last column,
    // and only in launches of more than a thousand groups: every grading runs the simulator at
    // its vast thin shape (odd sides, thousands of groups), once with a drawn group and the
    // last, once with the two edges (harness::groups::see_edges).
    Case::rejects(
        L,
        "reads_past_a_at_the_edge_of_large_launches",
        OutOfBoundsRead,
        Mutant(&[(
            "if (row >= M || col >= K) {",
            "const bool edge = get_num_groups(0) * get_num_groups(1) > 1000
            && get_group_id(1) + 1 == get_num_groups(1)
            && get_group_id(0) + 1 < get_num_groups(0);
        if ((row >= M && !edge) || col >= K) {",
        )]),
        FailKind::BadAccess,
        &["past the end of", "M=4"],
    ),
    // Columns of B past N read only where the last column of tiles is nearly empty (its
    // vectors from 32 columns past the edge on, unguarded) or nearly full (a tile three
    // columns short or less read as if whole, in float4), in launches of more than a thousand
    // groups. A drawn side leaves a drawn part of the last tile past the edge, so each of
    // these reads past B in some gradings only; the simulator also runs the edges where every
    // last tile is cut the two extreme ways (grade::shapes::cut_both_ways): in every grading.
    Case::rejects(
        L,
        "reads_past_b_where_the_last_tile_is_nearly_empty",
        OutOfBoundsRead,
        Mutant(&[(
            "if (row >= K || col >= N) {",
            "const bool far = get_num_groups(0) * get_num_groups(1) > 1000 && col >= N + 32;
        if (row >= K || (col >= N && !far)) {",
        )]),
        FailKind::BadAccess,
        &["past the end of", "N=4"],
    ),
    Case::rejects(
        L,
        "reads_past_b_where_the_last_tile_is_nearly_full",
        OutOfBoundsRead,
        Mutant(&[(
            "} else if ((N & 3) == 0) {
            rb[l] = *(const __global float4*)p;",
            "} else if ((N & 3) == 0 || (get_num_groups(0) * get_num_groups(1) > 1000
                                     && n0 + TSN - N < 4)) {
            rb[l] = vload4(0, p);",
        )]),
        FailKind::BadAccess,
        &["past the end of", "N=4"],
    ),
    // Wrong only past some K: every define set, each of the tuner's combinations among them,
    // is also checked at thin shapes with K from 1,025 to 8,192 (grade::shapes::thin).
    // A k-step fewer in launches of more than 4,000 work-groups over a K past 2,048: no
    // launch that large has so long a K but the problem every grading runs on a window of
    // its work-groups, whose kernel counts the whole launch's groups (grade::window).
    Case::rejects(
        L,
        "a_step_fewer_in_launches_of_many_groups_at_long_k",
        Cheat,
        Mutant(&[(
            "const int steps = (K + TSK - 1) / TSK;",
            "const int steps = (K + TSK - 1) / TSK - (get_num_groups(0) * get_num_groups(1) > 4000 && K > 2048);",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "k_steps_capped",
        Edge,
        Mutant(&[(
            "const int steps = (K + TSK - 1) / TSK;",
            "const int steps = (min(K, 2048) + TSK - 1) / TSK;",
        )]),
        FailKind::Wrong,
        &["expected", "got", "K="],
    ),
    Case::rejects(
        L,
        "one_combination_drops_a_step_at_long_k",
        Edge,
        // One k-step of the tuner's choices (TSK = 32) loses its last step once K is long.
        Mutant(&[(
            "const int steps = (K + TSK - 1) / TSK;",
            "int steps = (K + TSK - 1) / TSK;
#if TSK == 32
    if (steps > 24) steps -= 1;
#endif",
        )]),
        FailKind::Wrong,
        &["TSK=32", "expected", "got"],
    ),
    Case::rejects(
        L,
        "b_vector_loads_when_n_is_ragged",
        Edge,
        Mutant(&[(
            "} else if ((N & 3) == 0) {
            rb[l] = *(const __global float4*)p;",
            "} else if (true) {
            rb[l] = *(const __global float4*)p;",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    Case::rejects(
        L,
        "a_vector_loads_when_k_is_ragged",
        Edge,
        Mutant(&[(
            "} else if ((K & 3) == 0) {",
            "} else if (true) {",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    Case::rejects(
        L,
        "row_guard_up_to_and_including_m",
        Edge,
        Mutant(&[("        if (row < M) {", "        if (row <= M) {")]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    // The wrapped index also has two work-items write one element of C where C has more
    // than 65 536: where the simulator runs such a problem (drawn per grading), it names
    // that race, the device's words on the 16 bits after it.
    Case::rejects_any(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "__global float* p = C + row * N + col;",
            "__global float* p = C + (ushort)(row * N + col);",
        )]),
        &[FailKind::Unwritten, FailKind::Race],
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "a_rows_below_m_loaded",
        OutOfBoundsRead,
        // Rows of A's tile below M are read from memory instead of set to zero: they only
        // reach rows of C that are not stored, so C is right.
        Mutant(&[("if (row >= M || col >= K) {", "if (col >= K) {")]),
        FailKind::BadAccess,
        &["past the end of p", "read 0.0f instead of memory"],
    ),
    Case::rejects(
        L,
        "stores_outside_c",
        OutOfBoundsWrite,
        Mutant(&[
            (
                "(i % 4);
        if (row < M) {",
                "(i % 4);
        {",
            ),
            (
                "if (col < N) {
                        *(__global float4*)p = v;
                    }",
                "*(__global float4*)p = v;",
            ),
            (
                "if (col + 0 < N) p[0] = v.x;
                    if (col + 1 < N) p[1] = v.y;
                    if (col + 2 < N) p[2] = v.z;
                    if (col + 3 < N) p[3] = v.w;",
                "p[0] = v.x;
                    p[1] = v.y;
                    p[2] = v.z;
                    p[3] = v.w;",
            ),
        ]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
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
        &["uninitialised value", "acc[i][j]"],
    ),
    // Right answers that are not lesson 10's kernel.
    Case::rejects(
        L,
        "scalar_tiles",
        Decoy,
        File("scalar_tiles"),
        FailKind::Technique,
        &["bytes each", "float4 (16 bytes)", "Hint"],
    ),
    Case::rejects(
        L,
        "register_block_only_in_tiles_up_to_64_by_64",
        Decoy,
        // B's float4 read again from local memory for every product where the tiles are larger
        // than 64 × 64, as only a large GPU's are (64 × 128 on an H100); a CPU's and a small
        // GPU's tiles keep it in a register. (Through a volatile pointer: a plain read again
        // of the same element is one load once the compiler is through.) Right everywhere;
        // the technique is missing on the device the class's grades are timed on, whatever
        // machine grades.
        Mutant(&[(
            "                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);",
            "#if TSM * TSN > 64 * 64
                    const volatile __local float4* again = bs;
                    acc[i][j] = mad((float4)(a[i]), again[k * (TSN / 4) + j * RTSN + tx], acc[i][j]);
#else
                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);
#endif",
        )]),
        FailKind::Technique,
        &["from local memory per multiply-add", "the defines the lesson takes on a large GPU"],
    ),
    Case::rejects(
        L,
        "lesson_08_kernel",
        Decoy,
        Solution("08"),
        FailKind::Technique,
        &["local loads", "float4"],
    ),
    Case::rejects(
        L,
        "one_buffer_two_barriers",
        Decoy,
        // Right, but lesson 08's synchronisation: one copy of each tile, two barriers per
        // k-step.
        Mutant(&[
            (
                "__local float4 As[2 * TSK * TSM / 4];
    __local float4 Bs[2 * TSK * TSN / 4];",
                "__local float4 As[TSK * TSM / 4];
    __local float4 Bs[TSK * TSN / 4];",
            ),
            ("const int buf = t & 1;", "const int buf = 0;"),
            (
                "        // EXERCISE END
        // ANCHOR_END: compute
    }",
                "        // EXERCISE END
        // ANCHOR_END: compute
        barrier(CLK_LOCAL_MEM_FENCE);
    }",
            ),
        ]),
        FailKind::Technique,
        &["barriers per k-step", "double buffering"],
    ),
    Case::rejects(
        L,
        "double_buffered_only_with_the_counted_defines",
        Decoy,
        // Two copies of each tile only when built with tiles twice as tall as wide, as with the
        // defines lesson 10 once declared for the technique's counts (TSM = 32, TSN = 16); the
        // device's own square tiles get lesson 08's one copy and two barriers per k-step.
        Mutant(&[
            (
                "__local float4 As[2 * TSK * TSM / 4];
    __local float4 Bs[2 * TSK * TSN / 4];",
                "#if TSM / TSN == 2
#define ONE_COPY 0
    __local float4 As[2 * TSK * TSM / 4];
    __local float4 Bs[2 * TSK * TSN / 4];
#else
#define ONE_COPY 1
    __local float4 As[TSK * TSM / 4];
    __local float4 Bs[TSK * TSN / 4];
#endif",
            ),
            ("const int buf = t & 1;", "const int buf = ONE_COPY ? 0 : t & 1;"),
            (
                "        // EXERCISE END
        // ANCHOR_END: compute
    }",
                "        // EXERCISE END
        // ANCHOR_END: compute
#if ONE_COPY
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }",
            ),
        ]),
        FailKind::Technique,
        &["barriers per k-step", "double buffering", "drawn for this grading"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
",
            "    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"10_tuned\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = (float4)(1.0f);
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(
        L,
        "a_loaded_along_k",
        // ALONGK = 1 whatever the host asks.
        Mutant(&[(
            "// Derived sizes:",
            "#undef ALONGK
#define ALONGK 1

// Derived sizes:",
        )]),
    ),
    Case::accepts(
        L,
        "vload_and_vstore",
        Mutant(&[
            (
                "ra[l] = *(const __global float4*)p;",
                "ra[l] = vload4(0, p);",
            ),
            (
                "rb[l] = *(const __global float4*)p;",
                "rb[l] = vload4(0, p);",
            ),
            ("*(__global float4*)p = v;", "vstore4(v, 0, p);"),
        ]),
    ),
    Case::accepts(
        L,
        "columns_outer_in_the_product",
        Mutant(&[(
            "            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN / 4; j++) {
                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);",
            "            for (int j = 0; j < WPTN / 4; j++) {
                #pragma unroll
                for (int i = 0; i < WPTM; i++) {
                    acc[i][j] += a[i] * b[j];",
        )]),
    ),
    // Wrong for one combination the tuner may choose: every grading checks them all.
    Case::rejects(
        L,
        "wrong_for_one_tuner_combination",
        Asymmetric,
        Mutant(&[(
            "                const float4 v = acc[i][j];\n",
            "#if TSM == 128 && TSN == 64 && TSK == 32\n                const float4 v = acc[i][j] * 1.001f;\n#else\n                const float4 v = acc[i][j];\n#endif\n",
        )]),
        FailKind::Wrong,
        &["with -D TSM=128 -D TSN=64 -D TSK=32"],
    ),
    Case::accepts(
        L,
        "b_tile_of_floats_read_with_vload4",
        Mutant(&[
            ("__local float4 Bs[2 * TSK * TSN / 4];", "__local float Bs[2 * TSK * TSN];"),
            ("__local float4* bs = Bs + buf * (TSK * TSN / 4);", "__local float* bs = Bs + buf * (TSK * TSN);"),
            ("bs[tid + l * THREADS] = rb[l];", "vstore4(rb[l], tid + l * THREADS, bs);"),
            ("b[j] = bs[k * (TSN / 4) + j * RTSN + tx];", "b[j] = vload4(k * (TSN / 4) + j * RTSN + tx, bs);"),
        ]),
    ),
];
}
