//! Lesson 07: vectorization, float4 loads and stores. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//!     cargo run --release --bin 07_vectorization [-- --solution -D WIDTH=8]

use lab::harness::program::Define;
use lab::ladder::l06_register_tiling::{block_defines, block_launch, block_shapes, check_blocks};
use lab::lesson::{
    define, require_divides, Ctx, Kind, Lesson, OclLesson, Technique, Variant, BUFFERS,
    STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "07",
    slug: "vectorization",
    title: "Vectorization",
    teaches: "float4 (and float2, float8) loads and stores from global and local memory",
    hint: "in kernels/07_vectorization.cl, first make floatX views of A, B and C (`const __global floatX* Av = (const __global floatX*)A;`), then load the tiles one vector at a time (A's lanes go to WIDTH rows of Asub, B's vectors go to Bsub as they are), accumulate with a float times a vector, and store C as vectors.",
    kind: Kind::OpenCl(&VECTORIZED),
};

/// Lesson 06's tiles, with float4 accesses: 16 bytes is the widest single load most GPUs
/// have, and WPTN = 8 columns split into two of them.
pub fn vector_defines(ctx: &Ctx) -> Vec<Define> {
    let mut d = block_defines(ctx);
    d.push(Define::new("WIDTH", 4));
    d
}

/// Lesson 06's rules, and whole vectors: WIDTH one of the OpenCL vector sizes, dividing
/// WPTN and TSK, and each tile split evenly into vectors among the work-items.
pub fn check_vectors(d: &[Define]) -> Result<(), String> {
    check_blocks(d)?;
    let width = define(d, "WIDTH")?;
    if ![1, 2, 4, 8, 16].contains(&width) {
        return Err(format!(
            "-D WIDTH={width}: WIDTH must be 1, 2, 4, 8 or 16 (the OpenCL vector sizes)"
        ));
    }
    require_divides(
        d,
        "WPTN",
        "WIDTH",
        "a work-item's columns are whole vectors",
    )?;
    require_divides(d, "TSK", "WIDTH", "A's tile is loaded in vectors along K")?;
    let items = (define(d, "TSM")? / define(d, "WPTM")?) * (define(d, "TSN")? / define(d, "WPTN")?);
    for (what, size) in [
        ("A's tile", define(d, "TSM")? * define(d, "TSK")?),
        ("B's tile", define(d, "TSK")? * define(d, "TSN")?),
    ] {
        if size % (width * items) != 0 {
            return Err(format!(
                "{what} ({size} floats) does not split into vectors of {width} evenly among {items} work-items"
            ));
        }
    }
    Ok(())
}

fn with_width(ctx: &Ctx, width: usize) -> Vec<Define> {
    let mut d = vector_defines(ctx);
    d.retain(|x| x.name != "WIDTH");
    d.push(Define::new("WIDTH", width));
    d
}

pub static VECTORIZED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: vector_defines,
    check_defines: check_vectors,
    launch: block_launch,
    shapes: block_shapes,
    build_options: "",
    uses: &[
        Technique {
            pattern: "__local",
            min: 1,
            hint: "keep the tiles in local memory, as in lesson 06.",
        },
        Technique {
            pattern: "barrier(",
            min: 2,
            hint: "call `barrier(CLK_LOCAL_MEM_FENCE)` twice per tile: after loading it and after using it.",
        },
        Technique {
            pattern: "[WPTM][WPTN / WIDTH]",
            min: 1,
            hint: "keep lesson 06's block of results in registers, now as vectors: `floatX acc[WPTM][WPTN / WIDTH];`.",
        },
        Technique {
            pattern: "__global floatX*",
            min: 3,
            hint: "read A and B and write C through vector pointers: `const __global floatX* Av = (const __global floatX*)A;` (floatX is float4 when WIDTH is 4), and likewise Bv and Cv. One vector access moves WIDTH floats.",
        },
    ],
    host: BUFFERS,
    sized: None,
    variants: &[
        Variant {
            name: "float2",
            about: "the same kernel with WIDTH = 2: 8-byte accesses",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 2),
        },
        Variant {
            name: "float8",
            about: "the same kernel with WIDTH = 8: 32-byte accesses, which most GPUs split in two",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 8),
        },
    ],
};

fn measure_width(
    gpu: &lab::harness::device::Gpu,
    course: &lab::harness::paths::Course,
    shape: lab::harness::matrix::Shape,
    width: usize,
) -> anyhow::Result<Option<lab::harness::exec::Timing>> {
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let file = course.solutions().join(LESSON.file_name());
    lab::measure::measure_file(gpu, &LESSON, &file, &with_width(&ctx, width), shape)
}

pub fn main() -> std::process::ExitCode {
    lab::cli::lesson_main(&LESSON)
}
