use super::{CpuPart, Kind, Lesson};
use crate::cpu_kernels::{reference, student};

pub static LESSON: Lesson = Lesson {
    number: 3,
    slug: "cpu_parallel",
    title: "CPU parallel",
    hint: "in kernels/03_cpu_parallel.rs, split C into rows with `c.par_chunks_mut(n)` and run lesson 02's i-k-j loop on each row.",
    kind: Kind::Cpu(&[CpuPart {
        name: "matmul_parallel",
        student: student::parallel::matmul_parallel,
        reference: reference::parallel::matmul_parallel,
    }]),
};
