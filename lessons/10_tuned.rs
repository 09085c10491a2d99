//! Lesson 10: everything together, tuned per device. The declaration the grader, the
//! scoreboard and the book read, its host code (the autotuner), and the lesson's program:
//!
//!     cargo run --release --bin 10_tuned [-- --solution --size 4096]
//!     cargo run --release -- tune --size 4096 --write     # the autotuner

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::lesson::{
    define, require_nonempty, Kind, Lesson, OclLesson, Technique, Variant, BUFFERS, STANDARD_ARGS,
};

#[path = "10_tuned/tuner.rs"]
pub mod tuner;

use tuner::Params;

pub static LESSON: Lesson = Lesson {
    key: "10",
    slug: "tuned",
    title: "Putting it together",
    teaches: "2D register tiling, wide loads and double-buffered local tiles, parameters picked by an autotuner per device",
    hint: "in kernels/10_tuned.cl, start with load_step (10.1): each work-item reads LPTA float4 of A and LPTB of B into registers, zero outside the matrices. Then write them into the local tiles, A transposed (10.2), multiply the tiles into acc (10.3) and store acc into C, inside the matrix only (10.4).",
    kind: Kind::OpenCl(&TUNED),
};

pub static TUNED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    // The device's tuned winner from results/tuned.csv, else defaults that fit it.
    defines: |ctx| tuner::params_for(ctx.course, ctx.info).defines(),
    check_defines: |d| Params::from_defines(d)?.check(),
    launch: |s, d| {
        require_nonempty(s)?;
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
        let (tm, tn, tk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
        Ok(vec![
            Shape::new(1, 1, 1),
            // Whole tiles, K a multiple of 4: the float4 paths only.
            Shape::new(2 * tm, tn, 3 * tk),
            // Partial tiles everywhere, K and N not multiples of 4: the scalar paths.
            Shape::new(tm + 3, 2 * tn - 5, 2 * tk + 3),
            // N a multiple of 4 but not of the tile, M and K odd.
            Shape::new(tm / 2 + 1, tn + 4, tk + 1),
            Shape::new(37, 29, 301),
        ])
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
    sized: Some(|ctx, shape| {
        tuner::tuned_for_size(&tuner::tuned_csv(&ctx.course.results()), ctx.info, shape)
            .map(|p| p.defines())
    }),
    variants: &[Variant {
        name: "untuned",
        about: "the same kernel with the defaults a device gets before it is tuned",
        measure: |gpu, course, shape| {
            let d = tuner::defaults(&gpu.info).defines();
            let file = course.solutions().join(LESSON.file_name());
            lab::measure::measure_file(gpu, &LESSON, &file, &d, shape)
        },
    }],
};

pub fn main() -> std::process::ExitCode {
    lab::cli::lesson_main(&LESSON)
}
