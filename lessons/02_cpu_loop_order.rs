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

pub mod cases {
//! Lesson 02's cases: loop orders and blocks gone wrong, each with what the grader must say.
//! Read by tests/02_cpu_loop_order.rs and tests/suite.rs.
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
