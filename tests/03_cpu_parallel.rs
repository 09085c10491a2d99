//! Lesson 03's grader: the reference passes; the cases below are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/03_cpu_parallel and tests/right/03_cpu_parallel).

mod common;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 03` grades it, with the same report:
/// `cargo test --test 03_cpu_parallel -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("03")
}

#[test]
fn solution_passes() {
    g().solution_passes("03");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

fn right(name: &str) -> std::path::PathBuf {
    g().opts
        .course
        .tests()
        .join("right/03_cpu_parallel")
        .join(format!("{name}.rs"))
}

#[test]
fn accepts_scoped_threads_over_bands_of_rows() {
    let v = g().grade_file("03", right("scoped_threads"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(
        v.notes.iter().any(|n| n.contains("shares its work")),
        "{v:?}"
    );
    // Judged, or said to be unjudged on a busy machine: never silent. With no core to spare
    // while it ran, how the work was shared may be unjudged already, and whether the threads
    // ran at the same time is then not asked.
    let unjudged = (v.unchecked.iter()).any(|u| u.why.contains(lab::grade::TOO_FEW_CORES));
    assert!(
        unjudged || v.notes.iter().any(|n| n.contains("ran at the same time")),
        "{v:?}"
    );
}

pub mod cases {
    //! Lesson 03's cases: rows handed to threads gone wrong, each with what the grader must say.
    //! Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "03";

    pub const CASES: &[Case] = &[
    Case::rejects(
        L,
        "chunks_of_k",
        Asymmetric,
        Mutant(&[(".par_chunks_mut(n)", ".par_chunks_mut(k.max(1))")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked"],
    ),
    Case::rejects(
        L,
        "rows_of_a_of_n",
        Asymmetric,
        Mutant(&[("let a_ip = a[i * k + p];", "let a_ip = a[i * n + p];")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked", "index out of bounds"],
    ),
    Case::rejects(
        L,
        "rows_not_cleared",
        Uninitialised,
        Mutant(&[("            c_row.fill(0.0);\n", "")]),
        FailKind::Unwritten,
        &["`matmul_parallel`", "NaN"],
    ),
    // The product on one thread, under the lesson's name.
    Case::rejects(
        L,
        "sequential",
        Decoy,
        File("sequential"),
        FailKind::Technique,
        &["`matmul_parallel` did", "on one thread", "par_chunks_mut"],
    ),
    // A parallel zero-fill, then the product on one thread.
    Case::rejects(
        L,
        "parallel_fill_only",
        Decoy,
        File("parallel_fill_only"),
        FailKind::Technique,
        &["on one thread"],
    ),
    Case::rejects(
        L,
        "join_with_all_on_one_side",
        Decoy,
        File("join_with_all_on_one_side"),
        FailKind::Technique,
        &["on one thread"],
    ),
    // std::thread::scope over bands of rows instead of rayon.
    Case::accepts(L, "scoped_threads", File("scoped_threads")),
    // Rows on threads in the i-j-k order: slower than the one-thread i-k-j, and right.
    Case::accepts(
        L,
        "rows_on_threads_in_i_j_k_order",
        File("rows_on_threads_in_i_j_k_order"),
    ),
    // Rows handed out two at a time, each pair with its own i-k-j loops.
    Case::accepts(
        L,
        "pairs_of_rows",
        Mutant(&[(
            "        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, c_row)| {
            c_row.fill(0.0);
            for p in 0..k {
                let a_ip = a[i * k + p];
                let b_row = &b[p * n..(p + 1) * n];
                for (cj, bj) in c_row.iter_mut().zip(b_row) {
                    *cj += a_ip * bj;
                }
            }
        });",
            "        .par_chunks_mut(2 * n.max(1))
        .enumerate()
        .for_each(|(t, rows)| {
            for (r, c_row) in rows.chunks_mut(n.max(1)).enumerate() {
                let i = 2 * t + r;
                c_row.fill(0.0);
                for p in 0..k {
                    let a_ip = a[i * k + p];
                    let b_row = &b[p * n..(p + 1) * n];
                    for (cj, bj) in c_row.iter_mut().zip(b_row) {
                        *cj += a_ip * bj;
                    }
                }
            }
        });",
        )]),
    ),
    // Every row behind one lock: the work is spread over the threads, and they take turns.
    Case::rejects(
        L,
        "rows_behind_one_lock",
        Decoy,
        Mutant(&[
            (
                "pub fn matmul_parallel(",
                "static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());\n\npub fn matmul_parallel(",
            ),
            (
                "            c_row.fill(0.0);",
                "            let _turn = ONE_AT_A_TIME.lock().unwrap();\n            c_row.fill(0.0);",
            ),
        ]),
        FailKind::Technique,
        &["threads took turns", "Mutex"],
    ),
    // C behind a Mutex, to please the borrow checker, locked for each row's whole product.
    Case::rejects(
        L,
        "mutex_around_c",
        Decoy,
        File("mutex_around_c"),
        FailKind::Technique,
        &["threads took turns", "Mutex"],
    ),
    // A thread per band of rows, each joined before the next is spawned.
    Case::rejects(
        L,
        "each_thread_joined_at_once",
        Decoy,
        File("each_thread_joined_at_once"),
        FailKind::Technique,
        &["threads took turns", "joining each thread"],
    ),
    // Threads that keep the cores busy without sharing the work: judged on one core, with
    // some of the threads given the least priority.
    Case::rejects(
        L,
        "spinning_beside_serial_code",
        Decoy,
        File("spinning_beside_serial_code"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "one thread at a time"],
    ),
    Case::rejects(
        L,
        "spin_lock_taking_turns",
        Decoy,
        File("spin_lock_taking_turns"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "spin lock"],
    ),
    Case::rejects(
        L,
        "spin_lock_over_scoped_threads",
        Decoy,
        File("spin_lock_over_scoped_threads"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "spin lock"],
    ),
    // Threads only where something tells the code it is watched: the thread check's pool,
    // its size, or work a second thread repeats for show. Each is confirmed where the code
    // runs as timed, beside the course's rows on rayon and its i-k-j on one thread.
    Case::rejects(
        L,
        "threads_only_for_large_problems",
        Decoy,
        File("threads_only_for_large_problems"),
        FailKind::Technique,
        &["outside the thread check", "on one thread"],
    ),
    Case::rejects(
        L,
        "threads_only_in_a_pool_larger_than_the_cores",
        Decoy,
        File("threads_only_in_a_pool_larger_than_the_cores"),
        FailKind::Technique,
        &["outside the thread check", "on one thread"],
    ),
    // The same, faster than the course's one-thread code in rayon's own pool, and slowed on
    // purpose in a pool of one so that its own serial time cannot bound it: the calls timed
    // in rayon's own pool show one thread doing the work. Beside a busy core those shares
    // cannot be measured (no core is free to show them), and the file is then as slow as the
    // course's one-thread code and refused by the line between that and the threaded code
    // instead: either way, by what it does run as timed, on one thread.
    Case::rejects(
        L,
        "slower_alone_than_in_its_pool",
        Decoy,
        File("slower_alone_than_in_its_pool"),
        FailKind::Technique,
        &["outside the thread check", "on one thread"],
    ),
    Case::rejects(
        L,
        "second_thread_repeats_the_product",
        Decoy,
        File("second_thread_repeats_the_product"),
        FailKind::Technique,
        &["outside the thread check", "`matmul_ikj`"],
    ),
    // One thread, and a forged report of threads sharing the work written where an earlier
    // driver wrote its own: the threads are measured from outside the student's process.
    Case::rejects(
        L,
        "sequential_forges_thread_shares",
        Forged,
        File("sequential_forges_thread_shares"),
        FailKind::Technique,
        &["`matmul_parallel` did", "on one thread"],
    ),
    // C read as an accumulator whenever it holds numbers (C += A·B), cleared only when it holds
    // NaN: the lesson's C is overwritten, and it holds numbers before many checked calls.
    Case::rejects(
        L,
        "accumulates_when_c_holds_numbers",
        Cheat,
        Mutant(&[(
            "            c_row.fill(0.0);\n",
            "            if c_row.iter().any(|x| x.is_nan()) {\n                c_row.fill(0.0);\n            }\n",
        )]),
        FailKind::Unwritten,
        &["`matmul_parallel`", "before the call", "without clearing it first"],
    ),
];
}
