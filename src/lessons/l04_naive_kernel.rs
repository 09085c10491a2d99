use std::path::Path;

use anyhow::Result;

use super::{Kind, Lesson, OclLesson, Variant, BUFFERS, STANDARD_ARGS};
use crate::device::Gpu;
use crate::exec::{Launch, Timing};
use crate::matrix::Shape;
use crate::program;

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
    sized: None,
    variants: &[Variant {
        name: "row-as-dim0",
        about: "the same kernel with get_global_id(0) as the row (seed 004's mapping): uncoalesced",
        measure: row_as_dim0,
    }],
};

/// The swapped-id kernel (src/lessons/kernels/04_row_as_dim0.cl).
const ROW_AS_DIM0: &str = include_str!("kernels/04_row_as_dim0.cl");

/// Checks and times the swapped mapping: global size (M, N) so that dimension 0 is the row.
fn row_as_dim0(gpu: &Gpu, shape: Shape) -> Result<Option<Timing>> {
    let path = Path::new("src/lessons/kernels/04_row_as_dim0.cl");
    let program = program::build_source(gpu, path, ROW_AS_DIM0, &[], "")?;
    let kernel = program::kernel(&program, path, "matmul", STANDARD_ARGS)?;
    let launch = Launch {
        global: [shape.m, shape.n],
        local: None,
    };
    super::checked_time(gpu, &LESSON, &kernel, shape, &launch, &[])
}
