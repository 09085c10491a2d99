//! Lesson 01: the naive CPU product, the i-j-k triple loop. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 01_cpu_naive [-- --solution --size 512]
//! ```
//!
//! runs your `matmul` (or the reference), checks it against the f64 reference and times it.

use lab::lesson::{CpuLesson, Kind, Lesson, Peer};

pub static LESSON: Lesson = Lesson {
    key: "01",
    slug: "cpu_naive",
    title: "CPU naive",
    teaches: "the i-j-k triple loop, and how to check a product against a reference",
    hint: "in kernels/01_cpu_naive.rs, write the three loops: for each row i and column j of C, sum A[i][k]·B[k][j] over k, then store the sum in C[i*n + j].",
    kind: Kind::Cpu(&CPU),
    intensity: Some(lab::lesson::Intensity {
        rule: "A and B loaded per multiply-add: 2 FLOP / 8 B",
        of: |_| Some(0.25),
        walk: |_| Some(lab::lesson::Walk::Rows),
    }),
    peers: &[Peer::Matrixmultiply],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul"],
    checks: &[],
    not_checked: "",
    serial: true,
    variants: None,
};
