use super::l06_register_tiling::{block_defines, block_launch, block_shapes};
use super::{define, Kind, Lesson, OclLesson, Technique, Variant, BUFFERS, STANDARD_ARGS};
use crate::device::DeviceInfo;
use crate::program::Define;

pub static LESSON: Lesson = Lesson {
    number: 7,
    slug: "vectorization",
    title: "Vectorization",
    hint: "in kernels/07_vectorization.cl, first make floatX views of A, B and C (`const __global floatX* Av = (const __global floatX*)A;`), then load the tiles one vector at a time (A's lanes go to WIDTH rows of Asub, B's vectors go to Bsub as they are), accumulate with a float times a vector, and store C as vectors.",
    kind: Kind::OpenCl(&VECTORIZED),
};

/// Lesson 06's tiles, with float4 accesses: 16 bytes is the widest single load most GPUs
/// have, and WPTN = 8 columns split into two of them.
pub(super) fn vector_defines(info: &DeviceInfo) -> Vec<Define> {
    let mut d = block_defines(info);
    d.push(Define::new("WIDTH", 4));
    d
}

fn with_width(info: &DeviceInfo, width: usize) -> Vec<Define> {
    let mut d = vector_defines(info);
    d.retain(|x| x.name != "WIDTH");
    d.push(Define::new("WIDTH", width));
    d
}

pub static VECTORIZED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: vector_defines,
    launch: |s, d| {
        let width = define(d, "WIDTH");
        if width == 0 || !define(d, "TSK").is_multiple_of(width) {
            return Err(format!("WIDTH={width} must divide TSK"));
        }
        block_launch(s, d)
    },
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
            measure: |gpu, shape| super::measure_solution(gpu, &LESSON, &with_width(&gpu.info, 2), shape),
        },
        Variant {
            name: "float8",
            about: "the same kernel with WIDTH = 8: 32-byte accesses, which most GPUs split in two",
            measure: |gpu, shape| super::measure_solution(gpu, &LESSON, &with_width(&gpu.info, 8), shape),
        },
    ],
};
