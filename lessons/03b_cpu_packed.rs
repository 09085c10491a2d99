//! Lesson 03b: the BLIS/GotoBLAS design on the CPU: packed panels of A and B, a
//! register-blocked micro-kernel the compiler vectorises, cache blocking around it, threads
//! over macro-tiles. The declaration the grader, the scoreboard and the book read, and the
//! lesson's program:
//!
//! ```text
//! cargo run --release --bin 03b_cpu_packed [-- --solution --size 1024]
//! ```
//!
//! runs your `matmul_packed` (or the reference), checks it and times it against lesson 03.

use lab::harness::cpu_crate::Caches;
use lab::harness::matrix::Shape;
use lab::lesson::{CpuCheck, CpuLesson, Kind, Lesson, Level, Peer};

pub static LESSON: Lesson = Lesson {
    key: "03b",
    slug: "cpu_packed",
    title: "CPU packed panels (BLIS)",
    teaches: "packed panels of A and B, a register-blocked micro-kernel, cache blocking and threads over macro-tiles",
    hint: "in kernels/03b_cpu_packed.rs, start with the micro-kernel (03b.3): an MR×NR array of accumulators updated from one sliver of A and one of B. Then pack A and B into slivers (03b.1, 03b.2), loop over the slivers of a block (03b.4), and finally the blocked loops with rayon over blocks of rows (03b.5).",
    kind: Kind::Cpu(&CPU),
    intensity: Some(INTENSITY),
    peers: &[Peer::Matrixmultiply, Peer::CpuBlas],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// The work is shared among threads (on a problem large enough that a fast kernel still
/// runs for a tenth of a second of CPU time).
static THREADS: CpuCheck = CpuCheck::Threads {
    shape: Shape::new(1536, 1024, 1024),
    pool: 8,
    tries: 3,
    max_share: 0.75,
};

/// Packing and small slivers show in the first-level misses: the micro-kernel's operands come
/// from a sliver of A that stays in L1 and a packed sliver of B that streams through it.
static REUSE: CpuCheck = CpuCheck::Caches {
    level: Level::L1,
    shape: Shape::new(200, 264, 300),
    caches: Caches {
        l1: (32768, 8, 64),
        ll: (1 << 20, 16, 64),
    },
    good: (&LESSON, "matmul_packed"),
    bad: (&lab::ladder::l02_cpu_loop_order::LESSON, "matmul_ikj"),
    what: "reuse of packed slivers from the first-level cache",
    hint: "pack A into slivers of MR rows and B into slivers of NR columns, and let the micro-kernel read one sliver of A (it stays in L1) against every sliver of B of the packed panel.",
};

/// The micro-kernel's MR×NR tile of C stays in registers while each step along K loads MR
/// values of A and NR of B. The tile follows the vector width the student crate is built for
/// (`cpu_crate::RUSTFLAGS`, the machine's own), which `lab-bench ladder` records as `SIMD=` bits:
/// 12×32 with AVX-512's 32 registers of 16 floats, 6×16 with AVX's 16 of 8, unless a row
/// records other MR and NR.
pub const INTENSITY: lab::lesson::Intensity = lab::lesson::Intensity {
    rule: "MR×NR micro-tile (12×32 with AVX-512, else 6×16): 2·MR·NR / (4·(MR+NR))",
    of: |d| {
        let wide = lab::lesson::positive(d, "SIMD").is_some_and(|bits| bits >= 512.0);
        let (mr, nr) = if wide { (12.0, 32.0) } else { (6.0, 16.0) };
        let mr = lab::lesson::positive(d, "MR").unwrap_or(mr);
        let nr = lab::lesson::positive(d, "NR").unwrap_or(nr);
        Some(lab::lesson::register_tile(mr, nr))
    },
    // The reference's panels (`KC`, `NC` in solutions/03b_cpu_packed.rs).
    walk: |_| {
        Some(lab::lesson::Walk::Packed {
            kc: 256.0,
            nc: 1024.0,
        })
    },
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_packed"],
    checks: &[("matmul_packed", &THREADS), ("matmul_packed", &REUSE)],
    not_checked: "register blocking itself: how many values the micro-kernel keeps in registers depends on the compiler and the vector width, so it is judged by the speed beside matrixmultiply, not by a count",
    serial: false,
    variants: None,
};

pub mod cases {
//! Lesson 03b's cases: the packed design gone wrong the way it usually does (K blocks, edges of
//! the micro-tile, packing order, threads), and correct versions in other styles.
//! Read by tests/03b_cpu_packed.rs and tests/suite.rs.
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
