use super::{Kind, Lesson, OclLesson, BUFFERS, STANDARD_ARGS};
use crate::exec::Launch;
use crate::matrix::Shape;

pub static LESSON: Lesson = Lesson {
    number: 4,
    slug: "naive_kernel",
    title: "First OpenCL kernel",
    hint: "in kernels/04_naive_kernel.cl, read your column from get_global_id(0) and your row from get_global_id(1), sum A[row*K + k] * B[k*N + col] over k, and store the sum in C[row*N + col].",
    kind: Kind::OpenCl(&NAIVE),
};

/// One work-item per element of C: any size, the driver picks the work-group.
pub static NAIVE: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |_| Vec::new(),
    launch: |s, _| {
        if s.m == 0 || s.n == 0 || s.k == 0 {
            return Err(format!("{s}: every dimension must be at least 1"));
        }
        // Dimension 0 runs along a row of C, so neighbouring work-items touch neighbouring
        // addresses of B and C.
        Ok(Launch {
            global: [s.n, s.m],
            local: None,
        })
    },
    shapes: |_| {
        vec![
            Shape::new(1, 1, 1),
            Shape::new(7, 13, 5),
            Shape::new(64, 48, 80),
            Shape::new(131, 97, 150),
        ]
    },
    build_options: "",
    uses: &[],
    host: BUFFERS,
    variants: &[],
};
