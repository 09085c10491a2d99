//! Lesson 04: the first OpenCL kernel, one work-item per element of C. The declaration the
//! grader, the scoreboard and the book read, its host code, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 04_naive_kernel [-- --solution --size 1024]
//! ```


use anyhow::Result;
use lab::harness::device::Gpu;
use lab::harness::exec::Launch;
use lab::harness::timing::Timing;
use lab::harness::matrix::Shape;
use lab::harness::paths::Course;
use lab::prepared::Prepared;
use lab::lesson::{
    require_nonempty, Kind, Lesson, OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "04",
    slug: "naive_kernel",
    title: "First OpenCL kernel",
    teaches: "one work-item per element of C, the host code around it, and coalescing",
    hint: "in kernels/04_naive_kernel.cl, read your column from get_global_id(0) and your row from get_global_id(1), sum A[row*K + k] * B[k*N + col] over k, and store the sum in C[row*N + col].",
    kind: Kind::OpenCl(&NAIVE),
    intensity: Some(lab::lesson::Intensity {
        rule: "A and B loaded per multiply-add: 2 FLOP / 8 B",
        of: |_| Some(0.25),
        walk: |_| Some(lab::lesson::Walk::RowsInFlight),
    }),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// One work-item per element of C: any size, the work-group left open (`Launch::work_group`
/// chooses it, the same on every device and under the simulator).
pub static NAIVE: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |_| Vec::new(),
    check_defines: |_| Ok(()),
    launch: |s, _| {
        require_nonempty(s)?;
        // Dimension 0 runs along a row of C, so neighbouring work-items touch neighbouring
        // addresses of B and C.
        Ok(Launch {
            global: [s.n, s.m],
            local: None,
        })
    },
    shapes: |_| {
        Ok(vec![
            Shape::new(1, 1, 1),
            Shape::new(7, 13, 5),
            Shape::new(64, 48, 80),
            Shape::new(131, 97, 150),
            // More than 65 536 elements of C: an index kept in 16 bits wraps here.
            Shape::new(263, 257, 9),
        ])
    },
    build_options: "",
    define_sets: &[],
    sanitize: Sanitize {
        probes: &[Probe {
            shape: Shape::new(37, 29, 23),
            defines: &[],
        }],
        stand_in: None,
    },
    behaviour: None,
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[Variant {
        name: "row-as-dim0",
        about: "the same kernel with get_global_id(0) as the row (seed 004's mapping): uncoalesced",
        measure: row_as_dim0,
        product: None,
    }],
};

/// The swapped-id kernel.
const ROW_AS_DIM0: &str = include_str!("04_naive_kernel/row_as_dim0.cl");

/// Checks and times the swapped mapping: global size (M, N) so that dimension 0 is the row.
fn row_as_dim0(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    let path = course.lessons().join("04_naive_kernel/row_as_dim0.cl");
    let kernel = Prepared::build_as(gpu, &NAIVE, &path, ROW_AS_DIM0, &[], "")?.kernel;
    let launch = Launch {
        global: [shape.m, shape.n],
        local: None,
    };
    let (t, _) = lab::measure::checked_time(gpu, &NAIVE, &kernel, shape, &launch, &[])?;
    Ok(Some(t))
}
