//! Lesson 02: loop order and cache blocking on the CPU. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 02_cpu_loop_order [-- --solution --size 512]
//! ```
//!
//! runs your `matmul_blocked` (or the reference), checks it and times it against lesson 01.

use lab::harness::cpu_crate::Caches;
use lab::harness::matrix::Shape;
use lab::lesson::{CpuCheck, CpuLesson, Kind, Lesson, Level, Peer};

pub static LESSON: Lesson = Lesson {
    key: "02",
    slug: "cpu_loop_order",
    title: "CPU loop order and blocking",
    teaches: "i-k-j order, which streams rows of B and C, then cache blocking",
    hint: "in kernels/02_cpu_loop_order.rs, start with `matmul_ikj`: clear row i of C, then for each k add A[i][k] times row k of B into it. Then `matmul_blocked`: the same loops, over blocks.",
    kind: Kind::Cpu(&CPU),
    intensity: Some(INTENSITY),
    peers: &[Peer::Matrixmultiply],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// The simulated caches: a common 32 KiB first level, and a 1 MiB last level (about a
/// core's L2), so that B (4 MB at the blocking check's size) does not fit.
const CACHES: Caches = Caches {
    l1: (32768, 8, 64),
    ll: (1 << 20, 16, 64),
};

/// Loop order shows in the first-level misses: walking down a column of B (i-j-k) misses at
/// every step once the column is longer than the cache (768 rows, 800 k-steps: more lines
/// than the 512 of a 32 KiB cache); walking along rows misses once per 16 floats.
static LOOP_ORDER: CpuCheck = CpuCheck::Caches {
    level: Level::L1,
    shape: Shape::new(768, 40, 800),
    caches: CACHES,
    good: (&LESSON, "matmul_ikj"),
    bad: (&lab::ladder::l01_cpu_naive::LESSON, "matmul"),
    what: "loop order",
    hint: "something in your innermost loop walks down a column (a stride of n or k floats): make the innermost loop run along a row of B and of C, as i-k-j does.",
    // Rows of B a multiple of 2 KiB apart: a walk down a column misses at every step. M of
    // 32 or more: work done once on B (transposing or packing it, N·K steps, each of them
    // strided one way) is a 32nd of the column walk's, not an eighth as at M = 8.
    confirm: Some(Shape::new(32, 1024, 1024)),
};

/// Blocking shows in the last-level misses: without it every row of A streams all of B (4 MB,
/// four times the simulated 1 MiB cache) from memory; with a block of B that fits, the block
/// comes from the cache for every row.
static BLOCKING: CpuCheck = CpuCheck::Caches {
    level: Level::Last,
    shape: Shape::new(32, 1040, 1000),
    caches: CACHES,
    good: (&LESSON, "matmul_blocked"),
    bad: (&LESSON, "matmul_ikj"),
    what: "cache blocking",
    hint: "keep a block of B (the book's 128×128 floats, 64 KiB) in cache while every row of A uses it: loop over blocks of k and j outside, and run the i-k-j loop inside one block. Blocks as large as B, or no blocks, do not reuse it.",
    // Blocking gains a fraction, not many times, over i-k-j: nothing to confirm by speed.
    confirm: None,
};

/// i-k-j: B[p][j] loaded, C[i][j] loaded and stored for each multiply-add, A[i][p] in a
/// register (lesson 03 keeps the same loop on each thread).
pub const INTENSITY: lab::lesson::Intensity = lab::lesson::Intensity {
    rule: "B loaded, C loaded and stored per multiply-add: 2 FLOP / 12 B",
    of: |_| Some(2.0 / 12.0),
    // The reference's blocks (`BK`, `BN` in solutions/02_cpu_loop_order.rs).
    walk: |_| {
        Some(lab::lesson::Walk::KBlocked {
            bk: 128.0,
            bn: 128.0,
        })
    },
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_ikj", "matmul_blocked"],
    checks: &[
        ("matmul_ikj", &LOOP_ORDER),
        ("matmul_blocked", &LOOP_ORDER),
        ("matmul_blocked", &BLOCKING),
    ],
    not_checked: "",
    serial: true,
    variants: None,
};
