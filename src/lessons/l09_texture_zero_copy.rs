use anyhow::{bail, Result};

use super::{define, Host, Kind, Lesson, OclLesson, Technique, Variant};
use crate::device::Gpu;
use crate::exec::{Launch, Timing};
use crate::matrix::{Problem, Shape};
use crate::program::{self, Arg, Define};
use crate::texture::{self, Setup, Transfer};
use crate::{paths, runner};

pub static LESSON: Lesson = Lesson {
    number: 9,
    slug: "texture_zero_copy",
    title: "Texture pipe and zero copy",
    hint: "in kernels/09_texture_zero_copy.cl, read rows k..k+3 of B as four pixels with read_imagef(B, pixel, (int2)(column, row)), add a.x*b[0] + a.y*b[1] + a.z*b[2] + a.w*b[3] to each row's float4 accumulator, then store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N.",
    kind: Kind::OpenCl(&TEXTURE),
};

/// The kernel's arguments: B is an image, the rest as in every lesson.
pub const ARGS: &[Arg] = &[
    Arg::Int("M"),
    Arg::Int("N"),
    Arg::Int("K"),
    Arg::GlobalIn("A"),
    Arg::Image("B"),
    Arg::GlobalOut("C"),
];

/// Recommended by the Adreno blog; lets the compiler fuse multiply-adds freely.
pub const BUILD_OPTIONS: &str = "-cl-fast-relaxed-math";

pub static TEXTURE: OclLesson = OclLesson {
    kernel: "matmul",
    args: ARGS,
    defines: texture::default_defines,
    launch,
    shapes: |d| {
        let tm = define(d, "WGY") * define(d, "RM");
        let tn = 4 * define(d, "WGX") * define(d, "RN");
        let kt = define(d, "KT");
        vec![
            Shape::new(1, 1, 1),
            Shape::square(tn),
            Shape::new(2 * tm, tn, 3 * kt),
            Shape::new(tm + 3, tn / 2 + 5, 2 * kt + 5),
            Shape::new(2 * tm - 1, 3, 7),
            Shape::new(5, tn + 6, kt.max(8) - 1),
        ]
    },
    build_options: BUILD_OPTIONS,
    uses: &[
        Technique {
            pattern: "read_imagef",
            min: 1,
            hint: "read B through the texture pipe: `read_imagef(B, pixel, (int2)(x, y))` returns the float4 B[y][4x .. 4x+3].",
        },
        Technique {
            pattern: "vstore4",
            min: 1,
            hint: "store four columns of C at once with `vstore4(acc[i][j], 0, C + row * N + col)` where they all lie inside C.",
        },
    ],
    host: Host {
        run: |gpu, kernel, p, l, d| {
            texture::run(gpu, kernel, p, l, d, Setup::ZERO_COPY).map(|r| r.output)
        },
        time: |gpu, kernel, p, l, d, budget| {
            texture::time(gpu, kernel, p, l, d, budget, Transfer::ZeroCopy)
        },
        needs_images: true,
    },
    sized: None,
    variants: &[
        Variant {
            name: "copy",
            about: "the same kernel with enqueued copies of A, B and C instead of map/unmap",
            measure: measure_copy,
        },
        Variant {
            name: "adreno-blog",
            about: "the Adreno blog's kernel as published: 8×4 micro-tiles, A read from global memory, 16×8 work-groups",
            measure: measure_adreno_blog,
        },
    ],
};

/// One work-group per macro-tile, enough of them to cover C; the kernel guards the edges.
fn launch(s: Shape, d: &[Define]) -> Result<Launch, String> {
    if s.m == 0 || s.n == 0 || s.k == 0 {
        return Err(format!("{s}: every dimension must be at least 1"));
    }
    let (wgx, wgy) = (define(d, "WGX"), define(d, "WGY"));
    let (rm, rn, kt) = (define(d, "RM"), define(d, "RN"), define(d, "KT"));
    if kt == 0 || kt % 4 != 0 || rm == 0 || rn == 0 {
        return Err(format!(
            "KT = {kt} must be a positive multiple of 4, and RM = {rm}, RN = {rn} at least 1"
        ));
    }
    let groups_x = s.n.div_ceil(4).div_ceil(wgx * rn);
    let groups_y = s.m.div_ceil(wgy * rm);
    Ok(Launch {
        global: [groups_x * wgx, groups_y * wgy],
        local: Some([wgx, wgy]),
    })
}

/// Checks a result of the lesson's host set-up against the CPU reference.
fn check(p: &Problem, run: texture::Run, what: &str) -> Result<()> {
    let cmp = runner::check(p, &run.output.c);
    if !cmp.passed() || !run.output.guard.clean() {
        bail!(
            "{what} gave a wrong result at {} ({} wrong of {} checked)",
            p.shape,
            cmp.wrong,
            cmp.checked
        );
    }
    Ok(())
}

fn measure_copy(gpu: &Gpu, shape: Shape) -> Result<Option<Timing>> {
    if texture::check_device(&gpu.info, Some(shape)).is_err() {
        return Ok(None);
    }
    let defines = texture::default_defines(&gpu.info);
    let l = launch(shape, &defines).map_err(anyhow::Error::msg)?;
    let file = paths::solutions_dir().join(LESSON.file_name());
    let prog = program::build_file(gpu, &file, &defines, BUILD_OPTIONS)?;
    let kernel = program::kernel(&prog, &file, TEXTURE.kernel, ARGS)?;
    let p = Problem::random(shape, 7);
    let run = texture::run(gpu, &kernel, &p, &l, &defines, Setup::COPY)?;
    check(&p, run, "the copy path")?;
    texture::time(gpu, &kernel, &p, &l, &defines, 2000.0, Transfer::Copy).map(Some)
}

fn measure_adreno_blog(gpu: &Gpu, shape: Shape) -> Result<Option<Timing>> {
    let Ok(l) = texture::adreno_blog_launch(shape) else {
        return Ok(None);
    };
    if texture::check_device(&gpu.info, Some(shape)).is_err() {
        return Ok(None);
    }
    let defines = texture::adreno_blog_defines();
    let origin = paths::root().join("src/texture.rs");
    let prog = program::build_source(
        gpu,
        &origin,
        texture::ADRENO_BLOG_KERNEL,
        &[],
        BUILD_OPTIONS,
    )?;
    let kernel = program::kernel(&prog, &origin, "matmul", ARGS)?;
    let p = Problem::random(shape, 7);
    let run = texture::run(gpu, &kernel, &p, &l, &defines, Setup::ZERO_COPY)?;
    check(&p, run, "the Adreno blog's kernel")?;
    texture::time(gpu, &kernel, &p, &l, &defines, 2000.0, Transfer::ZeroCopy).map(Some)
}
