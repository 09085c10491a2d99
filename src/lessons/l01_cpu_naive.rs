use super::{CpuPart, Kind, Lesson};
use crate::cpu_kernels::{reference, student};

pub static LESSON: Lesson = Lesson {
    number: 1,
    slug: "cpu_naive",
    title: "CPU naive",
    hint: "in kernels/01_cpu_naive.rs, write the three loops: for each row i and column j of C, sum A[i][k]·B[k][j] over k, then store the sum in C[i*n + j].",
    kind: Kind::Cpu(&[CpuPart {
        name: "matmul",
        student: student::naive::matmul,
        reference: reference::naive::matmul,
    }]),
};
