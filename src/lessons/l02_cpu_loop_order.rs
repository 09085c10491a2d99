use super::{CpuPart, Kind, Lesson};
use crate::cpu_kernels::{reference, student};

pub static LESSON: Lesson = Lesson {
    number: 2,
    slug: "cpu_loop_order",
    title: "CPU loop order and blocking",
    hint: "in kernels/02_cpu_loop_order.rs, start with `matmul_ikj`: clear row i of C, then for each k add A[i][k] times row k of B into it. Then `matmul_blocked`: the same loops, over blocks.",
    kind: Kind::Cpu(&[
        CpuPart {
            name: "matmul_ikj",
            student: student::loop_order::matmul_ikj,
            reference: reference::loop_order::matmul_ikj,
        },
        CpuPart {
            name: "matmul_blocked",
            student: student::loop_order::matmul_blocked,
            reference: reference::loop_order::matmul_blocked,
        },
    ]),
};
