//! Lesson 02: loop order and cache blocking on the CPU. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//!     cargo run --release --bin 02_cpu_loop_order [-- --solution --size 512]
//!
//! runs your `matmul_blocked` (or the reference), checks it and times it against lesson 01.

use lab::lesson::{CpuLesson, Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    key: "02",
    slug: "cpu_loop_order",
    title: "CPU loop order and blocking",
    teaches: "i-k-j order, which streams rows of B and C, then cache blocking",
    hint: "in kernels/02_cpu_loop_order.rs, start with `matmul_ikj`: clear row i of C, then for each k add A[i][k] times row k of B into it. Then `matmul_blocked`: the same loops, over blocks.",
    kind: Kind::Cpu(&CPU),
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_ikj", "matmul_blocked"],
};

pub fn main() -> std::process::ExitCode {
    lab::cli::lesson_main(&LESSON)
}
