//! Lesson 03b's grader: the reference passes, with its thread check run; the cases
//! below (edits of the solution wrong on purpose, and correct ones
//! in other styles) are graded as they expect.

mod common;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 03b` grades it, with the same report:
/// `cargo test --test 03b_cpu_packed -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("03b")
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
fn cases() {
    g().assert_cases(cases::CASES);
}

pub mod cases {
    //! Lesson 03b's cases: the packed design gone wrong the way it usually does (K blocks, edges of
    //! the micro-tile, packing order, threads), and correct versions in other styles.
    //! Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "03b";

    pub const CASES: &[Case] = &[
    // A library linked in and timed as the student's own: refused before it is built.
    Case::rejects(
        L,
        "calls_a_blas",
        Cheat,
        File("calls_a_blas"),
        FailKind::NotSelfContained,
        &["line 2", "`link`", "library"],
    ),
    // Every K block overwrites C: right only while K fits one block (KC = 256).
    Case::rejects(
        L,
        "k_blocks_overwrite",
        WrongResult,
        Mutant(&[("overwrite: pc == 0,", "overwrite: true,")]),
        FailKind::Wrong,
        &["`matmul_packed`", "K=259", "expected", "got"],
    ),
    // The first K block adds into C, which arrives holding anything (NaN among others).
    Case::rejects(
        L,
        "never_overwrites",
        Uninitialised,
        Mutant(&[("overwrite: pc == 0,", "overwrite: false,")]),
        FailKind::Unwritten,
        &["`matmul_packed`", "NaN"],
    ),
    Case::rejects(
        L,
        "micro_kernel_row_of_a",
        WrongResult,
        Mutant(&[(
            "for (acc_row, &a_i) in acc.iter_mut().zip(a) {",
            "for (acc_row, &a_i) in acc.iter_mut().zip(a.iter().rev()) {",
        )]),
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    ),
    // A sliver of A packed row by row (each row's K values together) while the micro-kernel
    // reads it column by column (MR values of one k together).
    Case::rejects(
        L,
        "a_packed_in_the_wrong_order",
        Asymmetric,
        Mutant(&[(
            "let places = sliver.iter_mut().skip(i).step_by(MR);",
            "let places = sliver.iter_mut().skip(i * kc).take(kc);",
        )]),
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    ),
    // The last micro-tile of a row stored whole, as if N were a multiple of NR: it spills
    // into the next row of C (or past its end).
    Case::rejects_any(
        L,
        "last_partial_tile_stored_whole",
        Edge,
        Mutant(&[(
            "let cols = NR.min(blk.nc - col);",
            "let cols = NR;",
        )]),
        &[FailKind::Wrong, FailKind::Crash, FailKind::OutOfBounds],
        &["`matmul_packed`"],
    ),
    // K assumed a multiple of KC: the last K block reads past the end of A and B.
    Case::rejects_any(
        L,
        "k_assumed_a_multiple_of_kc",
        OutOfBoundsRead,
        Mutant(&[("let kc = KC.min(k - pc);", "let kc = KC;")]),
        &[FailKind::Crash, FailKind::Wrong],
        &["`matmul_packed`"],
    ),
    // Rows of C assumed a multiple of MR: the partial sliver's rows are dropped.
    Case::rejects(
        L,
        "partial_sliver_of_rows_dropped",
        Edge,
        Mutant(&[(
            "let rows = MR.min(blk.mc - row);",
            "let rows = if blk.mc - row < MR { 0 } else { MR };",
        )]),
        FailKind::Unwritten,
        &["`matmul_packed`", "NaN"],
    ),
    // Packing B, then multiplying on one thread: the lesson's last step not taken.
    Case::rejects(
        L,
        "sequential_blocks",
        Decoy,
        Mutant(&[
            (
                "c.par_chunks_mut(MC * n).enumerate().for_each_init(",
                "c.chunks_mut(MC * n).enumerate().for_each(",
            ),
            (
                "                || vec![0.0f32; MC * KC],\n                |a_buf, (t, c_rows)| {",
                "                |(t, c_rows)| {\n                    let a_buf = &mut vec![0.0f32; MC * KC];",
            ),
            ("        .par_chunks_mut(NR * kc)", "        .chunks_mut(NR * kc)"),
        ]),
        FailKind::Technique,
        &["`matmul_packed` did", "on one thread"],
    ),
    // Threads only where rayon's pool has more threads than the process has cores, as the
    // thread check's pool of 8 has on a small machine: every block in one task otherwise, on
    // one thread of rayon's own pool, where every timed call runs.
    Case::rejects(
        L,
        "threads_only_in_a_pool_larger_than_the_cores",
        Decoy,
        Mutant(&[
            (
                "c.par_chunks_mut(MC * n).enumerate().for_each_init(",
                "c.par_chunks_mut(MC * n)
                .with_min_len(one_task_unless_watched())
                .enumerate()
                .for_each_init(",
            ),
            (
                "        .par_chunks_mut(NR * kc)",
                "        .par_chunks_mut(NR * kc)
        .with_min_len(one_task_unless_watched())",
            ),
            (
                "pub fn matmul_packed(",
                "fn one_task_unless_watched() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    match rayon::current_num_threads() > cores {
        true => 1,
        false => usize::MAX,
    }
}

pub fn matmul_packed(",
            ),
        ]),
        FailKind::Technique,
        &["`matmul_packed` did", "in rayon's own pool", "on one thread"],
    ),
    // Every row block's macro-kernel behind one lock: the blocks are handed to rayon's workers,
    // and they compute one at a time.
    Case::rejects(
        L,
        "blocks_behind_one_lock",
        Decoy,
        Mutant(&[
            (
                "pub fn matmul_packed(",
                "static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());\n\npub fn matmul_packed(",
            ),
            (
                "                    let ic = t * MC;",
                "                    let _turn = ONE_AT_A_TIME.lock().unwrap();\n                    let ic = t * MC;",
            ),
        ]),
        FailKind::Technique,
        &["`matmul_packed`'s threads took turns"],
    ),
    // Returns as soon as it has copied A and B, and leaves a thread of its own to fill C:
    // the call's time ends when the grader has paused that thread too, and C is read then,
    // still NaN where the thread had not written.
    Case::rejects_any(
        L,
        "returns_before_c_is_written",
        Cheat,
        Mutant(&[(
            "pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {",
            "pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    struct Late(*mut f32, usize);
    unsafe impl Send for Late {}
    let (a, b) = (a.to_vec(), b.to_vec());
    let late = Late(c.as_mut_ptr(), c.len());
    std::thread::spawn(move || {
        let late = late;
        let c = unsafe { std::slice::from_raw_parts_mut(late.0, late.1) };
        matmul_packed_in_time(&a, &b, c, m, n, k);
    });
}

fn matmul_packed_in_time(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {",
        )]),
        &[FailKind::Unwritten, FailKind::Wrong],
        &["`matmul_packed`"],
    ),
    // A forged verdict printed by a version whose K blocks overwrite each other.
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[
            ("overwrite: pc == 0,", "overwrite: true,"),
            (
                "    let c = &mut c[..m * n];",
                "    let c = &mut c[..m * n];
    println!(\"LAB-EVENT {{\\\"Done\\\":{{\\\"lesson\\\":\\\"03b_cpu_packed\\\",\\\"failure\\\":null}}}}\");",
            ),
        ]),
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Lesson 03's parallel loop under this lesson's name: right, threaded, and nothing packed.
    Case::rejects(
        L,
        "lesson_03_renamed",
        Decoy,
        File("lesson_03_renamed"),
        FailKind::Technique,
        &["`matmul_packed`", "first-level cache"],
    ),
    // Other block sizes: smaller K and row blocks, narrower column panels.
    Case::accepts(
        L,
        "other_block_sizes",
        Mutant(&[
            ("pub const KC: usize = 256;", "pub const KC: usize = 96;"),
            ("pub const MC: usize = 4 * MR;", "pub const MC: usize = 2 * MR;"),
            ("pub const NC: usize = 1024;", "pub const NC: usize = 160;"),
        ]),
    ),
    // The micro-kernel with indices instead of iterators.
    Case::accepts(
        L,
        "micro_kernel_with_indices",
        Mutant(&[(
            "    for (a, b) in a_sliver.chunks_exact(MR).zip(b_sliver.chunks_exact(NR)) {
        for (acc_row, &a_i) in acc.iter_mut().zip(a) {
            for (acc_ij, &b_j) in acc_row.iter_mut().zip(b) {
                *acc_ij = madd(a_i, b_j, *acc_ij);
            }
        }
    }",
            "    for p in 0..a_sliver.len() / MR {
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] = madd(a_sliver[p * MR + i], b_sliver[p * NR + j], acc[i][j]);
            }
        }
    }",
        )]),
    ),
    // B packed on the calling thread; the macro-tiles still run in parallel.
    Case::accepts(
        L,
        "b_packed_on_one_thread",
        Mutant(&[("        .par_chunks_mut(NR * kc)", "        .chunks_mut(NR * kc)")]),
    ),
    // Another hand: 4×8 tiles in a flat array, std::thread::scope over bands of rows.
    Case::accepts(
        L,
        "scoped_threads_small_tiles",
        File("scoped_threads_small_tiles"),
    ),
    // Mistakes that show only past a column panel (N > NC = 1,024): graded at a size drawn
    // past every block size.
    Case::rejects(
        L,
        "b_packed_from_the_first_panel",
        Edge,
        Mutant(&[(
            "pack_b(&b[pc * n + jc..], n, kc, nc, b_panel);",
            "pack_b(&b[pc * n..], n, kc, nc, b_panel);",
        )]),
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    ),
    Case::rejects(
        L,
        "b_rows_strided_by_the_panel",
        Edge,
        Mutant(&[(
            "pack_b(&b[pc * n + jc..], n, kc, nc, b_panel);",
            "pack_b(&b[pc * n + jc..], nc, kc, nc, b_panel);",
        )]),
        FailKind::Wrong,
        &["`matmul_packed`", "expected", "got"],
    ),
    Case::rejects_any(
        L,
        "c_panel_offset_dropped",
        Edge,
        Mutant(&[(
            "macro_kernel(a_block, b_panel, &mut c_rows[jc..], n, blk);",
            "macro_kernel(a_block, b_panel, c_rows, n, blk);",
        )]),
        &[FailKind::Wrong, FailKind::Unwritten],
        &["`matmul_packed`"],
    ),
];
}
