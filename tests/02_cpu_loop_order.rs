//! Lesson 02's grader: the reference passes; the cases below are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/02_cpu_loop_order and tests/right/02_cpu_loop_order).

mod common;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 02` grades it, with the same report:
/// `cargo test --test 02_cpu_loop_order -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("02")
}

#[test]
fn solution_passes() {
    g().solution_passes("02");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

pub mod cases {
    //! Lesson 02's cases: loop orders and blocks gone wrong, each with what the grader must say.
    //! Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "02";

    pub const CASES: &[Case] = &[
    Case::rejects(
        L,
        "ikj_without_clearing",
        Uninitialised,
        Mutant(&[(
            "c_row.fill(0.0); // C arrives holding anything: start each row from zero",
            "",
        )]),
        FailKind::Unwritten,
        &["`matmul_ikj`", "NaN", "without clearing it first"],
    ),
    Case::rejects(
        L,
        "blocked_drops_partial_blocks",
        Edge,
        Mutant(&[(
            "for p0 in (0..k).step_by(BK) {",
            "for p0 in (0..k / BK * BK).step_by(BK) {",
        )]),
        FailKind::Wrong,
        &["`matmul_blocked`", "expected", "got 0.0"],
    ),
    Case::rejects(
        L,
        "blocked_b_without_column_offset",
        WrongResult,
        Mutant(&[(
            "let b_row = &b[p * n + j0..p * n + j1];",
            "let b_row = &b[p * n..p * n + (j1 - j0)];",
        )]),
        FailKind::Wrong,
        &["`matmul_blocked`", "expected", "got"],
    ),
    // Code that knows valgrind by its slowness and never finishes there: the step that
    // measures it under valgrind is stopped like any other, and the code fails, so the
    // measurement cannot be dodged by a loop that runs long only there.
    Case::rejects(
        L,
        "waits_forever_under_valgrind",
        Cheat,
        Mutant(&[(
            "    // EXERCISE(02.1) BEGIN: clear row i of C, then add a[i][p] times row p of B into it
",
            "    // EXERCISE(02.1) BEGIN: clear row i of C, then add a[i][p] times row p of B into it
    let started = std::time::Instant::now();
    let mut x = 0u64;
    for i in 0..20_000_000u64 {
        x = x.wrapping_add(std::hint::black_box(i));
    }
    if x != 1 && started.elapsed().as_millis() > 300 {
        loop {
            std::hint::black_box(&mut x);
        }
    }
",
        )]),
        FailKind::Hang,
        &["did not finish", "while checking the technique"],
    )
    .watchdog(20),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "c_row.fill(0.0); // C arrives holding anything: start each row from zero",
            "c_row.fill(1.0);
        println!(\"LAB-EVENT {{\\\"Done\\\":{{\\\"lesson\\\":\\\"02_cpu_loop_order\\\",\\\"failure\\\":null}}}}\");",
        )]),
        FailKind::Wrong,
        &["`matmul_ikj`", "expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // The i-j-k order under the i-k-j name: right, and walking down a column of B.
    Case::rejects(
        L,
        "ijk_under_the_ikj_name",
        Decoy,
        File("ijk_under_the_ikj_name"),
        FailKind::Technique,
        &[
            "loop order",
            "`matmul_ikj`",
            "misses the first-level cache",
            "walks down a column",
        ],
    ),
    Case::rejects(
        L,
        "jki_order",
        Decoy,
        File("jki_order"),
        FailKind::Technique,
        &["loop order", "`matmul_ikj`"],
    ),
    // Block loops whose blocks are the whole matrix.
    Case::rejects(
        L,
        "blocked_without_blocks",
        Decoy,
        File("blocked_without_blocks"),
        FailKind::Technique,
        &[
            "cache blocking",
            "`matmul_blocked`",
            "last-level cache",
            "block of B",
        ],
    ),
    // Dot products of rows of A with rows of a transposed copy of B: contiguous, and right.
    Case::accepts(L, "transposed_b", File("transposed_b")),
    // Smaller, unequal blocks: still blocked, still right.
    Case::accepts(
        L,
        "other_block_sizes",
        Mutant(&[
            ("pub const BK: usize = 128;", "pub const BK: usize = 48;"),
            ("pub const BN: usize = 128;", "pub const BN: usize = 200;"),
        ]),
    ),
    // The cache simulator's counting switched off from inside the crate.
    Case::rejects(
        L,
        "counts_switched_off",
        Cheat,
        File("counts_switched_off"),
        FailKind::NotSelfContained,
        &["`asm`", "assembly"],
    ),
    // The same requests, written into the crate's own code at run time through
    // /proc/self/mem, and the counted work padded to a product's: the sandbox's /proc is
    // read-only, so the requests never reach valgrind and the loop order shows.
    Case::rejects(
        L,
        "counts_switched_off_at_run_time",
        Cheat,
        File("counts_switched_off_at_run_time"),
        FailKind::Technique,
        &["loop order", "`matmul_ikj`", "drawn at grading time"],
    ),
    // The technique only at the sizes an earlier check looked at: it looks at a size drawn
    // at grading time, and its message names none to special-case.
    Case::rejects(
        L,
        "loop_order_only_at_the_checked_sizes",
        Cheat,
        File("loop_order_only_at_the_checked_sizes"),
        FailKind::Technique,
        &["loop order", "`matmul_ikj`", "drawn at grading time"],
    ),
    // The technique only where the code sees it is measured, by valgrind's name in its
    // environment or by the sizes the cache checks draw from: the simulator sees it, and the
    // same walk is timed beside the course's on ordinary calls at a size drawn apart.
    Case::rejects(
        L,
        "loop_order_only_under_valgrind",
        Cheat,
        File("loop_order_only_under_valgrind"),
        FailKind::Technique,
        &["`matmul_ikj`", "without the simulator", "drawn at grading time"],
    ),
    Case::rejects(
        L,
        "loop_order_only_near_the_checked_sizes",
        Cheat,
        File("loop_order_only_near_the_checked_sizes"),
        FailKind::Technique,
        &["`matmul_ikj`", "without the simulator", "drawn at grading time"],
    ),
    // A row whose first element already holds a number is taken for one computed before, and
    // skipped: C holds numbers before many checked calls (random ones, or an earlier product).
    Case::rejects(
        L,
        "skips_rows_whose_first_element_is_finite",
        Cheat,
        Mutant(&[(
            "c_row.fill(0.0); // C arrives holding anything: start each row from zero",
            "if c_row[0].is_finite() {
            continue;
        }
        c_row.fill(0.0);",
        )]),
        FailKind::Unwritten,
        &["`matmul_ikj`", "never wrote C", "before the call"],
    ),
];
}
