//! Lesson 03b's grader: the reference passes; versions wrong on purpose (edits of the
//! solution, made at test time) are rejected with what the student needs to read.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    let v = g().solution_passes("03b");
    assert!(
        v.notes.iter().any(|n| n.contains("shares its work")),
        "the thread check ran: {v:?}"
    );
}

#[test]
fn rejects_k_blocks_that_overwrite_each_other() {
    // Every K block overwrites C: right only while K fits one block (KC = 256).
    g().rejects_mutant(
        "03b",
        "k_blocks_overwrite",
        &[("overwrite: pc == 0,", "overwrite: true,")],
        FailKind::Wrong,
        &["`matmul_packed`", "K=259", "expected", "got"],
    );
}

#[test]
fn rejects_tiles_added_into_the_nan_of_c() {
    g().rejects_mutant(
        "03b",
        "never_overwrites",
        &[("overwrite: pc == 0,", "overwrite: false,")],
        FailKind::Unwritten,
        &["`matmul_packed`", "NaN"],
    );
}

#[test]
fn rejects_a_micro_kernel_that_reads_the_wrong_row_of_a() {
    g().rejects_mutant(
        "03b",
        "micro_kernel_row_of_a",
        &[(
            "for (acc_row, &a_i) in acc.iter_mut().zip(a) {",
            "for (acc_row, &a_i) in acc.iter_mut().zip(a.iter().rev()) {",
        )],
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    );
}

#[test]
fn rejects_blocks_of_rows_run_on_one_thread() {
    g().rejects_mutant(
        "03b",
        "sequential_blocks",
        &[
            (
                "c.par_chunks_mut(MC * n).enumerate().for_each_init(",
                "c.chunks_mut(MC * n).enumerate().for_each(",
            ),
            (
                "                || vec![0.0f32; MC * KC],\n                |a_buf, (t, c_rows)| {",
                "                |(t, c_rows)| {\n                    let a_buf = &mut vec![0.0f32; MC * KC];",
            ),
            ("        .par_chunks_mut(NR * kc)", "        .chunks_mut(NR * kc)"),
        ],
        FailKind::Technique,
        &["`matmul_packed` did", "on one thread"],
    );
}
