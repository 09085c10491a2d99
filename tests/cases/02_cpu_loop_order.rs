//! Lesson 02's cases: loop orders and blocks gone wrong, each with what the grader must say.
//! Read by tests/02_cpu_loop_order.rs and tests/suite.rs.

use lab::grade::FailKind;
use lab::testing::{Case, Class::*, Code::*};

const L: &str = "02";

pub const CASES: &[Case] = &[
    Case::rejects(
        L,
        "ikj_without_clearing",
        Uninitialised,
        Mutant(&[(
            "c_row.fill(0.0); // C arrives as NaN: start each row from zero",
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
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "c_row.fill(0.0); // C arrives as NaN: start each row from zero",
            "c_row.fill(1.0);
        println!(\"LAB-EVENT {{\\\"Done\\\":{{\\\"lesson\\\":\\\"02_cpu_loop_order\\\",\\\"failure\\\":null}}}}\");",
        )]),
        FailKind::Wrong,
        &["`matmul_ikj`", "expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
];
