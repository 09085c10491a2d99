//! Lesson 09: the Adreno design. B read through the texture pipe as an image, A and C in
//! buffers the host maps instead of copying (zero copy), a micro-tile of C per work-item. The
//! declaration the grader, the scoreboard and the book read, its host code, and the lesson's
//! program:
//!
//! ```text
//! cargo run --release --bin 09_texture_zero_copy [-- --solution --path both --search]
//! ```

use std::path::Path;

use anyhow::{Context as _, Result};
use clap::{Args as _, FromArgMatches as _};
use lab::grade::verify;
use lab::harness::device::Gpu;
use lab::harness::exec::Launch;
use lab::harness::timing::Timing;
use lab::harness::matrix::{Problem, Shape};
use lab::harness::paths::Course;
use lab::harness::program::{self, Arg, Define};
use lab::harness::timing;
use lab::lesson::{
    define, per_mad, positive, probe_define, require_nonempty, with_overrides, Behaviour, Host, Kind, Lesson,
    Measured, OclLesson, Probe, Program, Sanitize, Session, Variant,
};
use lab::prepared::Prepared;
use lab::report;

#[path = "09_texture_zero_copy/texture.rs"]
pub mod texture;

use texture::{Setup, Transfer};

pub static LESSON: Lesson = Lesson {
    key: "09",
    slug: "texture_zero_copy",
    title: "Texture pipe and zero copy",
    teaches: "B as an image read with read_imagef, A and C in mapped host-visible memory, a micro-tile per work-item",
    hint: "in kernels/09_texture_zero_copy.cl, read rows k..k+3 of B as four pixels with read_imagef(B, pixel, (int2)(column, row)), add a.x*b[0] + a.y*b[1] + a.z*b[2] + a.w*b[3] to each row's float4 accumulator, then store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N.",
    kind: Kind::OpenCl(&TEXTURE),
    intensity: Some(INTENSITY),
    peers: &[],
    top: false,
    program: Some(&PROGRAM),
    unit: lab::lesson::Unit::Fp32,
};

/// Counted per work-item, whose micro-tile is RM rows × 4·RN columns of C: per step along K
/// it reads RN pixels of B (16·RN bytes: the image reads are requests of each work-item,
/// even where the texture cache serves them again) and A's RM values, from global memory
/// itself (A_LOCAL = 0) or a 1/WGX share of the group's copy into local memory (A_LOCAL = 1,
/// the default). FLOP: 2·RM·4·RN.
pub const INTENSITY: lab::lesson::Intensity = lab::lesson::Intensity {
    rule: "per work-item: 8·RM·RN FLOP / (4·RM/WGX + 16·RN) B",
    of: |d| {
        let (rm, rn, wgx) = (positive(d, "RM")?, positive(d, "RN")?, positive(d, "WGX")?);
        let a_local = d.get("A_LOCAL").is_none_or(|v| *v != 0.0);
        let a_bytes = 4.0 * rm / if a_local { wgx } else { 1.0 };
        Some(2.0 * rm * 4.0 * rn / (a_bytes + 16.0 * rn))
    },
    // A work-group's macro-tile: WGY·RM rows, WGX·RN float4 columns.
    walk: |d| {
        Some(lab::lesson::Walk::Blocks {
            bm: positive(d, "WGY")? * positive(d, "RM")?,
            bn: 4.0 * positive(d, "WGX")? * positive(d, "RN")?,
        })
    },
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

/// The kernel's rules: whole numbers of at least 1, KT a multiple of 4 (A is read as float4
/// along K), A_LOCAL 0 or 1.
fn check_texture(d: &[Define]) -> Result<(), String> {
    for name in ["WGX", "WGY", "RM", "RN", "KT"] {
        define(d, name)?;
    }
    let kt = define(d, "KT")?;
    if !kt.is_multiple_of(4) {
        return Err(format!(
            "-D KT={kt}: KT must be a multiple of 4 (A is read four floats at a time along K)"
        ));
    }
    if let Some(a) = d.iter().rev().find(|x| x.name == "A_LOCAL") {
        if !["0", "1"].contains(&a.value.trim()) {
            return Err(format!(
                "-D A_LOCAL={}: A_LOCAL must be 0 (each work-item loads its own A) or 1 (the group shares A in local memory)",
                a.value
            ));
        }
    }
    Ok(())
}

pub static TEXTURE: OclLesson = OclLesson {
    kernel: "matmul",
    args: ARGS,
    defines: |ctx| texture::default_defines(ctx.info),
    check_defines: check_texture,
    launch,
    shapes: |d| {
        let tm = define(d, "WGY")? * define(d, "RM")?;
        let tn = 4 * define(d, "WGX")? * define(d, "RN")?;
        let kt = define(d, "KT")?;
        Ok(vec![
            Shape::new(1, 1, 1),
            Shape::square(tn),
            Shape::new(2 * tm, tn, 3 * kt),
            Shape::new(tm + 3, tn / 2 + 5, 2 * kt + 5),
            Shape::new(2 * tm - 1, 3, 7),
            Shape::new(5, tn + 6, kt.max(8) - 1),
            // Every matrix longer than 65 536 vectors of four floats: an index kept in 16
            // bits wraps.
            Shape::new(521, 517, 519),
        ])
    },
    build_options: BUILD_OPTIONS,
    define_sets: &[&[
        ("WGX", "4"),
        ("WGY", "8"),
        ("RM", "4"),
        ("RN", "2"),
        ("KT", "8"),
    ]],
    sanitize: Sanitize {
        probes: &[Probe {
            shape: Shape::new(19, 69, 21),
            defines: PROBE_DEFINES,
        }],
        // B read from a buffer by the course's own read_imagef: Oclgrind 21.10 counts every
        // value read from an image as never initialised.
        stand_in: Some(&texture::stand_in::STAND_IN),
    },
    behaviour: Some(Behaviour {
        // The device's own micro-tile on a CPU (RM = 8 rows of one pixel, KT = 16) in a
        // work-group of 4×2 (the device's 32×8 is too large for the simulator), and 4×2-pixel
        // micro-tiles in a group of 4×4; each at two macro-tiles a side and three steps of KT
        // (so that a shape drawn near it for the sanitizer keeps two).
        probes: &[
            Probe {
                shape: Shape::new(32, 32, 48),
                defines: &[
                    ("WGX", "4"),
                    ("WGY", "2"),
                    ("RM", "8"),
                    ("RN", "1"),
                    ("KT", "16"),
                    ("A_LOCAL", "1"),
                ],
            },
            Probe {
                shape: Shape::new(32, 64, 24),
                defines: &[
                    ("WGX", "4"),
                    ("WGY", "4"),
                    ("RM", "4"),
                    ("RN", "2"),
                    ("KT", "8"),
                    ("A_LOCAL", "1"),
                ],
            },
        ],
        judge: micro_tiles,
        banks: false,
        not_checked: "B is an image, so every correct kernel reads it through the texture pipe; the counts measure how much each read is reused. The zero-copy path is the course's host code, not yours",
        k_step: |d| lab::lesson::define(d, "KT"),
    }),
    host: Host {
        run: |gpu, kernel, p, l, d| {
            texture::run(gpu, kernel, p, l, d, Setup::ZERO_COPY).map(|r| r.output)
        },
        // The image is B's exact size; A is laid out as the kernel expects (rows padded to
        // KT), so a read past its rows is still seen.
        exact: |gpu, kernel, p, l, d| {
            texture::run(gpu, kernel, p, l, d, Setup::ZERO_COPY).map(|r| r.output)
        },
        needs_images: true,
        prelude: None,
        unordered: None,
        accuracy: None,
        kernels: &[],
        own_look: None,
        compiled: None,
        counterfactual: None,
    },
    sized: None,
    knobs: None,
    any_size: true,
    variants: &[
        Variant {
            name: "copy",
            about: "the same kernel with enqueued copies of A, B and C instead of map/unmap",
            measure: measure_copy,
            product: None,
        },
        Variant {
            name: "b-as-buffer",
            about: "the same kernel with B read from a plain buffer instead of an image: what the texture pipe itself brings",
            measure: measure_b_as_buffer,
            product: None,
        },
        Variant {
            name: "adreno-blog",
            about: "the Adreno blog's kernel as published: 8×4 micro-tiles, A read from global memory, 16×8 work-groups",
            measure: measure_adreno_blog,
            product: None,
        },
    ],
};

/// The program: the standard run, then the host paths and, on request, the work-group
/// search.
static PROGRAM: Program = Program {
    about: "Lesson 09: runs your kernel with B as an image, checks it against the CPU reference and times the zero-copy and copy paths",
    flags: Args::augment_args,
    standard: true,
    then: |matches, session| body(&Args::from_arg_matches(matches)?, session),
};

#[derive(clap::Args)]
struct Args {
    /// How A, B and C reach the device: zero-copy (map/unmap of host-visible memory),
    /// copy (enqueued writes and reads), or both.
    #[arg(long, value_name = "zero-copy|copy|both", default_value = "both")]
    path: String,
    /// Time every work-group shape of the lesson's small search (8 or 16 rows per work-item)
    /// at this size, and name the fastest.
    #[arg(long)]
    search: bool,
}

fn body(args: &Args, session: &Session) -> Result<()> {
    let transfers: Vec<Transfer> = match args.path.as_str() {
        "both" => vec![Transfer::ZeroCopy, Transfer::Copy],
        p => vec![p.parse().map_err(anyhow::Error::msg)?],
    };
    let Some((shape, defines)) = &session.measured else {
        return Ok(());
    };
    let shape = *shape;
    let file = &session.file;
    let gpu = Gpu::open(session.device.as_deref())?;
    println!(
        "\nhost paths at {shape} (kernel time, and end to end with filling A and B and reading C):"
    );
    for t in transfers {
        let (kernel_ms, host_ms) = time_path(&gpu, file, shape, defines, t)?;
        println!(
            "  {:<10} kernel {:>10} ({} GFLOP/s), end to end {:>10} ({} GFLOP/s)",
            t.name(),
            report::ms(kernel_ms),
            report::gflops(shape.flops() / (kernel_ms * 1e6)),
            report::ms(host_ms),
            report::gflops(shape.flops() / (host_ms * 1e6)),
        );
    }
    if args.search {
        search(&gpu, file, shape, session.overrides)?;
    }
    Ok(())
}

/// Builds the kernel with `defines` and checks it once with the given path, then times it.
fn time_path(
    gpu: &Gpu,
    file: &Path,
    shape: Shape,
    defines: &[Define],
    transfer: Transfer,
) -> Result<(f64, f64)> {
    (TEXTURE.check_defines)(defines).map_err(anyhow::Error::msg)?;
    let l = launch(shape, defines).map_err(anyhow::Error::msg)?;
    let kernel = Prepared::read(gpu, &TEXTURE, file, defines, BUILD_OPTIONS)?.kernel;
    let p = Problem::random(shape, 7);
    let setup = Setup {
        transfer,
        ..Setup::ZERO_COPY
    };
    let run = texture::run(gpu, &kernel, &p, &l, defines, setup)
        .with_context(|| format!("running the {} path", transfer.name()))?;
    check(&p, run, &format!("the {} path", transfer.name()))?;
    let t = texture::time(gpu, &kernel, shape, &l, defines, transfer)?;
    Ok((t.device_ms, t.host_ms))
}

/// Times each candidate work-group shape (kernel time, zero-copy path) and names the fastest.
fn search(gpu: &Gpu, file: &Path, shape: Shape, overrides: &[Define]) -> Result<()> {
    println!("\nwork-group search at {shape} on {}:", gpu.info.name);
    let mut best: Option<(f64, Vec<Define>)> = None;
    for cand in texture::candidates(&gpu.info) {
        // -D flags other than the searched ones (A_LOCAL, KT...) still apply.
        let rest: Vec<Define> = overrides
            .iter()
            .filter(|d| !["WGX", "WGY", "RM"].contains(&d.name.as_str()))
            .cloned()
            .collect();
        let defines = with_overrides(cand, &rest);
        let label = defines
            .iter()
            .map(|d| format!("-D {}={}", d.name, d.value))
            .collect::<Vec<_>>()
            .join(" ");
        match time_path(gpu, file, shape, &defines, Transfer::ZeroCopy) {
            Ok((ms, _)) => {
                println!(
                    "  {label:<60} {:>10} {} GFLOP/s",
                    report::ms(ms),
                    report::gflops(shape.flops() / (ms * 1e6))
                );
                if best.as_ref().is_none_or(|(b, _)| ms < *b) {
                    best = Some((ms, defines));
                }
            }
            Err(e) => println!("  {label:<60} failed: {e:#}"),
        }
    }
    if let Some((ms, d)) = best {
        let flags: Vec<String> = d
            .iter()
            .map(|d| format!("-D {}={}", d.name, d.value))
            .collect();
        println!(
            "fastest: {} ({} GFLOP/s); pass these flags to use it",
            flags.join(" "),
            report::gflops(shape.flops() / (ms * 1e6))
        );
    }
    Ok(())
}

/// One work-group per macro-tile, enough of them to cover C; the kernel guards the edges.
fn launch(s: Shape, d: &[Define]) -> Result<Launch, String> {
    require_nonempty(s)?;
    let (wgx, wgy) = (define(d, "WGX")?, define(d, "WGY")?);
    let (rm, rn) = (define(d, "RM")?, define(d, "RN")?);
    let groups_x = s.n.div_ceil(4).div_ceil(wgx * rn);
    let groups_y = s.m.div_ceil(wgy * rm);
    Ok(Launch {
        global: [groups_x * wgx, groups_y * wgy],
        local: Some([wgx, wgy]),
    })
}

/// Checks a result of the lesson's host set-up, as the grader would.
fn check(p: &Problem, run: texture::Run, what: &str) -> Result<()> {
    verify(p, &run.output, None)
        .map(|_| ())
        .map_err(|f| anyhow::anyhow!("{what} is wrong: {}", f.message))
}

fn measure_copy(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    if texture::check_device(&gpu.info, Some(shape)).is_err() {
        return Ok(None);
    }
    let defines = texture::default_defines(&gpu.info);
    (TEXTURE.check_defines)(&defines).map_err(anyhow::Error::msg)?;
    let l = launch(shape, &defines).map_err(anyhow::Error::msg)?;
    let file = course.solutions().join(LESSON.file_name());
    let kernel = Prepared::read(gpu, &TEXTURE, &file, &defines, BUILD_OPTIONS)?.kernel;
    let p = Problem::random(shape, 7);
    let run = texture::run(gpu, &kernel, &p, &l, &defines, Setup::COPY)?;
    check(&p, run, "the copy path")?;
    texture::time(gpu, &kernel, shape, &l, &defines, Transfer::Copy).map(Some)
}

fn measure_adreno_blog(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    let Ok(l) = texture::adreno_blog_launch(shape) else {
        return Ok(None);
    };
    if texture::check_device(&gpu.info, Some(shape)).is_err() {
        return Ok(None);
    }
    let defines = texture::adreno_blog_defines();
    let origin = course.lessons().join("09_texture_zero_copy/adreno_blog.cl");
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
    texture::time(gpu, &kernel, shape, &l, &defines, Transfer::ZeroCopy).map(Some)
}

/// A small asymmetric set for the simulator: 4×2 work-groups of 4×2-pixel micro-tiles.
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("WGX", "4"),
    ("WGY", "2"),
    ("RM", "4"),
    ("RN", "2"),
    ("KT", "8"),
    ("A_LOCAL", "1"),
];

/// The micro-tile shows in the image reads: one pixel (four floats of a row of B) feeds RM
/// rows of the micro-tile, so a kernel reads 1/(4·RM) pixels per multiply-add; stores of C
/// are float4.
fn micro_tiles(m: &Measured, probe: &Probe) -> Result<String, String> {
    let rm = probe_define(probe, "RM");
    let reads = per_mad(m.counts.image_reads(), probe);
    let ideal = 1.0 / (4.0 * rm);
    if reads > 1.5 * ideal {
        return Err(format!(
            "your kernel reads {reads:.3} pixels of B per multiply-add (measured with RM = {rm} at {}); a micro-tile of RM rows reuses each pixel for all of them: 1/(4·RM) = {ideal:.4}.\nHint: read the four pixels of rows k..k+3 of B once per step, into registers, and use them for every row of the micro-tile.",
            probe.shape
        ));
    }
    let stores = m.counts.global_stores().bytes_per_access();
    if stores < 12.0 {
        return Err(format!(
            "your kernel stores C {stores:.1} bytes at a time (measured at {}); a micro-tile's row of four columns is one float4 store.\nHint: store four columns of C at once with `vstore4(acc, 0, C + row * N + col)` where they all lie inside C.",
            probe.shape
        ));
    }
    Ok(format!(
        "micro-tiles: {reads:.4} image reads per multiply-add with RM = {rm}, C stored {stores:.0} bytes at a time"
    ))
}

/// The lesson's kernel with B in a buffer: the solution's source with its image argument
/// replaced by a `float4` buffer laid out like the image (ceil(N/4) pixels a row, K rows),
/// and `read_imagef` by a read of that buffer that returns zeros outside it, as the image's
/// sampler does. Everything else is the same code, so the difference is the texture pipe.
pub fn b_as_buffer_source(solution: &str) -> Result<String> {
    let image = "__read_only image2d_t B,";
    anyhow::ensure!(
        solution.matches(image).count() == 1,
        "the solution's signature changed: it no longer has `{image}` once"
    );
    Ok(format!(
        "// Lesson 09's kernel with B in a buffer of float4 (pixels), read where the image was.\n\
         #define read_imagef(img, smp, at) \\\n    \
         (((at).x < (N + 3) / 4 && (at).y < K) ? (img)[(at).y * ((N + 3) / 4) + (at).x] : (float4)(0.0f))\n{}",
        solution.replace(image, "const __global float4* B,")
    ))
}

fn measure_b_as_buffer(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    use lab::harness::exec::{self, GuardedC, RunOutput};
    use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
    let defines = texture::default_defines(&gpu.info);
    (TEXTURE.check_defines)(&defines).map_err(anyhow::Error::msg)?;
    let l = launch(shape, &defines).map_err(anyhow::Error::msg)?;
    let file = course.solutions().join(LESSON.file_name());
    let solution =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let source = b_as_buffer_source(&solution)?;
    let prog = program::build_source(gpu, &file, &source, &defines, BUILD_OPTIONS)?;
    let buffer_args = [
        Arg::Int("M"),
        Arg::Int("N"),
        Arg::Int("K"),
        Arg::GlobalIn("A"),
        Arg::GlobalIn("B"),
        Arg::GlobalOut("C"),
    ];
    let kernel = program::kernel(&prog, &file, TEXTURE.kernel, &buffer_args)?;
    let layout = texture::Layout::new(shape, &defines)?;
    let buffer = |data: &mut Vec<f32>, what: &str| -> Result<Buffer<f32>> {
        unsafe {
            Buffer::<f32>::create(
                &gpu.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                data.len(),
                data.as_mut_ptr().cast(),
            )
        }
        .with_context(|| format!("allocating {what}"))
    };
    // Device time only: the host path of a padded buffer is the copy path's.
    let once = |p: &Problem| -> Result<RunOutput> {
        let mut a = vec![0.0f32; layout.a_len()];
        layout.fill_a(&p.a, &mut a);
        let width = 4 * layout.pixels;
        let mut b = vec![0.0f32; width * layout.height()];
        layout.fill_b(&p.b, &mut b, width, texture::RowPitch::Honour);
        let abuf = buffer(&mut a, "A")?;
        let bbuf = buffer(&mut b, "B")?;
        let c = GuardedC::new(gpu, &p.poison, 0)?;
        exec::set_standard_args(&kernel, shape, &abuf, &bbuf, &c.c)?;
        let (kernel_ms, wall_ms) = exec::launch_timed(gpu, &kernel, &l)?;
        let (got, guard) = c.read(gpu)?;
        Ok(RunOutput {
            guard,
            wall_ms,
            host_ms: wall_ms,
            found: None,
            technique: None,
            ..RunOutput::plain(got, kernel_ms)
        })
    };
    let target = timing::Target::device(&gpu.info);
    timing::time_checked(shape, &target, once, |p, out| {
        verify(p, out, None)
            .map(|_| ())
            .map_err(|f| format!("B as a buffer is wrong: {}", f.message))
    })
    .map(Some)
}
