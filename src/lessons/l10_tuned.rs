use super::{define, Kind, Lesson, OclLesson, Technique, Variant, BUFFERS, STANDARD_ARGS};
use crate::exec::Launch;
use crate::matrix::Shape;
use crate::tuner::Params;

pub static LESSON: Lesson = Lesson {
    number: 10,
    slug: "tuned",
    title: "Putting it together",
    hint: "in kernels/10_tuned.cl, start with load_step (10.1): each work-item reads LPTA float4 of A and LPTB of B into registers, zero outside the matrices. Then write them into the local tiles, A transposed (10.2), multiply the tiles into acc (10.3) and store acc into C, inside the matrix only (10.4).",
    kind: Kind::OpenCl(&TUNED),
};

pub static TUNED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    // The device's tuned winner from results/tuned.csv, else defaults that fit it.
    defines: |info| crate::tuner::params_for(info).defines(),
    launch: |s, d| {
        if s.m == 0 || s.n == 0 || s.k == 0 {
            return Err(format!("{s}: every dimension must be at least 1"));
        }
        let p = Params::from_defines(d)?;
        p.check()?;
        // One work-group per TSM×TSN block of C, the last ones partly outside C.
        Ok(Launch {
            global: [
                s.n.div_ceil(p.tsn) * p.rtsn(),
                s.m.div_ceil(p.tsm) * p.rtsm(),
            ],
            local: Some([p.rtsn(), p.rtsm()]),
        })
    },
    shapes: |d| {
        let (tm, tn, tk) = (define(d, "TSM"), define(d, "TSN"), define(d, "TSK"));
        vec![
            Shape::new(1, 1, 1),
            // Whole tiles, K a multiple of 4: the float4 paths only.
            Shape::new(2 * tm, tn, 3 * tk),
            // Partial tiles everywhere, K and N not multiples of 4: the scalar paths.
            Shape::new(tm + 3, 2 * tn - 5, 2 * tk + 3),
            // N a multiple of 4 but not of the tile, M and K odd.
            Shape::new(tm / 2 + 1, tn + 4, tk + 1),
            Shape::new(37, 29, 301),
        ]
    },
    build_options: "",
    uses: &[
        Technique {
            pattern: "__local",
            min: 1,
            hint: "keep the tiles of A and B in `__local` memory (lesson 05), two copies of each for double buffering",
        },
        Technique {
            pattern: "barrier(",
            min: 1,
            hint: "with double buffering one `barrier(CLK_LOCAL_MEM_FENCE)` per k-step is enough, but it must be there: between writing a buffer and reading it",
        },
        Technique {
            pattern: "float4",
            min: 1,
            hint: "read and write four floats at a time (`float4`, lesson 07): from global memory, from the local tiles and into C",
        },
        Technique {
            pattern: "WPTN",
            min: 1,
            hint: "each work-item computes a WPTM×WPTN block of C in registers (lesson 06); use the defines, so the tuner can change them",
        },
    ],
    host: BUFFERS,
    // Lesson runs and the ladder use the winner tuned at the nearest size.
    sized: Some(|info, shape| crate::tuner::tuned_for_size(info, shape).map(|p| p.defines())),
    variants: &[Variant {
        name: "clblast",
        about: "CLBlast's SGEMM (its own tuned kernels) on the same device and problem",
        measure: |gpu, shape| {
            let p = crate::matrix::Problem::random(shape, 17);
            crate::clblast::time_sgemm(gpu, &p, 2000.0)
        },
    }],
};
