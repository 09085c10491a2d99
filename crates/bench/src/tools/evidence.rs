//! `lab-bench evidence`: the compiler's own account of a GPU rung, for the chapters that explain
//! them and for the student who wants the same account of their own kernel. Builds each
//! lesson's kernel from the student's folder (`--kernels DIR`, else `LAB_KERNELS`, else
//! kernels/; `--solution` for the reference answers) with the defines a grading builds it
//! with, and writes the build log (with `-cl-nv-verbose` on NVIDIA: registers and spills per
//! kernel), what the runtime says of the kernel on this device (local and private memory,
//! largest work-group), and the program binary (on NVIDIA, the PTX). On a machine with
//! CUDA's tools, `ptxas -v` on the PTX gives the same counts for a named GPU.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use lab::cli::Edge;
use lab::harness::device::{DeviceInfo, Gpu};
use lab::harness::matrix::Shape;
use lab::harness::{paths, program};
use lab::ladder;
use lab::lesson::{Ctx, Lesson, OclLesson};
use lab::prepared::{self, Prepared};

/// What to build, and where to write.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Lessons, e.g. --lessons 6,7,10.
    #[arg(long, value_delimiter = ',', default_value = "6,7,10")]
    pub lessons: Vec<String>,
    /// Build with the defines the lesson's program grades and times with at this square
    /// size (lesson 10: the ones tuned for it). Without it: the defines `cargo lab` grades
    /// and times with.
    #[arg(long)]
    pub size: Option<usize>,
    /// Build the reference answers (solutions/) instead of your kernels.
    #[arg(long)]
    pub solution: bool,
    /// The folder to write into.
    #[arg(long)]
    pub out: PathBuf,
}

/// One lesson's evidence, as written.
struct Written {
    source: PathBuf,
    options: String,
    files: Vec<PathBuf>,
}

/// Builds each lesson of `args` from `kernels` (the `--kernels` flag, if given) and writes
/// its evidence into `args.out`.
pub fn run(args: &Args, kernels: Option<&Path>, edge: &Edge) -> Result<()> {
    let dir = if args.solution {
        edge.course.solutions()
    } else {
        edge.kernels(kernels)?
    };
    let gpu = Gpu::open(edge.device(args.device.as_deref()).as_deref())?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let shape = args
        .size
        .map(|s| {
            let shape = Shape::square(s);
            lab::cli::check_shape(shape).map(|()| shape)
        })
        .transpose()?;
    // Every lesson is looked up before anything is built, so a typo costs no build.
    let lessons = args
        .lessons
        .iter()
        .map(|key| {
            let lesson = ladder::find(key).with_context(|| {
                format!(
                    "there is no lesson {key}: the lessons are {}",
                    ladder::keys()
                )
            })?;
            let ocl = lesson.ocl().with_context(|| {
                format!(
                    "lesson {} runs on the CPU: it has no kernel for an OpenCL compiler to account for",
                    lesson.key
                )
            })?;
            Ok((lesson, ocl))
        })
        .collect::<Result<Vec<_>>>()?;
    println!(
        "{} ({}), kernels from {}",
        gpu.info.name,
        gpu.info.platform,
        paths::display(&dir)
    );
    for (lesson, ocl) in lessons {
        let w = one(&gpu, lesson, ocl, &dir, shape, edge, &args.out)?;
        println!(
            "{}: {}, options: {}",
            lesson.name(),
            paths::display(&w.source),
            w.options
        );
        for f in &w.files {
            println!("  {}", paths::display(f));
        }
    }
    println!("{}", what_the_device_gives(&gpu.info));
    Ok(())
}

/// Whether the OpenCL implementation is NVIDIA's, whose program binary is PTX and whose
/// compiler takes `-cl-nv-verbose`.
fn is_nvidia(info: &DeviceInfo) -> bool {
    info.vendor.to_lowercase().contains("nvidia") || info.platform.to_lowercase().contains("nvidia")
}

/// One sentence on what this device's evidence holds, so that a missing PTX is explained.
fn what_the_device_gives(info: &DeviceInfo) -> String {
    if is_nvidia(info) {
        "NVIDIA: the build log holds ptxas's registers, spills and shared memory per kernel; \
         the .ptx is the program's PTX (`ptxas -v -arch=sm_90` on it, after removing its \
         trailing NUL, prints the same counts)."
            .to_string()
    } else {
        format!(
            "{}: no PTX here. The .bin is the program binary in {}'s own format, not assembly; \
             the .kernel.txt has what the runtime reports of the kernel (local memory per \
             work-group, private memory per work-item), and the build log whatever the \
             compiler printed. Registers per work-item are the compiler's secret on this device.",
            info.platform, info.platform
        )
    }
}

/// Builds one lesson's kernel from `dir` and writes its evidence.
fn one(
    gpu: &Gpu,
    lesson: &Lesson,
    ocl: &OclLesson,
    dir: &Path,
    shape: Option<Shape>,
    edge: &Edge,
    out: &Path,
) -> Result<Written> {
    ocl.supports(&gpu.info)?;
    let ctx = Ctx {
        info: &gpu.info,
        course: &edge.course,
    };
    // As a grading chooses them: the device's own defines, or at a size those the lesson's
    // program grades with there (the tuned ones, where recorded).
    let defines = prepared::defines(ocl, &ctx, shape, &[])
        .map_err(|why| anyhow::anyhow!("lesson {}: {why}", lesson.key))?;
    let nvidia = is_nvidia(&gpu.info);
    let extra = if nvidia {
        format!("{} -cl-nv-verbose", ocl.build_options)
    } else {
        ocl.build_options.to_string()
    };
    let file = dir.join(lesson.file_name());
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("reading the kernel file {}", paths::display(&file)))?;
    let prepared = Prepared::build(gpu, ocl, &file, &text, &defines, extra.trim())?;
    let prog = &prepared.program;
    let opts = program::options(&ocl.compiled(&defines), extra.trim());
    let name = lesson.name();
    let starter = if lab::grade::is_starter(&text) {
        " (still the starter: its TODO regions are not done)"
    } else {
        ""
    };
    let mut files = Vec::new();
    let mut write = |ext: &str, bytes: &[u8]| -> Result<()> {
        let path = out.join(format!("{name}.{ext}"));
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
        Ok(())
    };
    let log = prog.get_build_log(gpu.device.id()).unwrap_or_default();
    let log = if log.trim().is_empty() {
        "(the compiler gave no log)\n".to_string()
    } else {
        log
    };
    if nvidia && !log.contains("ptxas info") {
        eprintln!(
            "{name}: NVIDIA's build log has no ptxas lines (registers, spills); the driver answered from its cache of compiled programs: `lab-bench evidence` asks it not to (CUDA_CACHE_DISABLE=1), unless the variable is set to something else"
        );
    }
    write(
        "build.log",
        format!(
            "# {}{starter} on {} (driver {}), options: {opts}\n{log}",
            paths::display(&file),
            gpu.info.name,
            gpu.info.driver
        )
        .as_bytes(),
    )?;
    let kernel = &prepared.kernel;
    let id = gpu.device.id();
    fn bytes<E>(r: std::result::Result<u64, E>) -> String {
        r.map_or("not reported".to_string(), |b| format!("{b} bytes"))
    }
    write(
        "kernel.txt",
        format!(
            "# {}{starter} on {}, options: {opts}\n\
             local memory per work-group: {}\n\
             private memory per work-item: {}\n\
             largest work-group for this kernel: {}\n",
            paths::display(&file),
            gpu.info.name,
            bytes(kernel.get_local_mem_size(id)),
            bytes(kernel.get_private_mem_size(id)),
            kernel
                .get_work_group_size(id)
                .map_or("not reported".to_string(), |n| format!("{n} work-items")),
        )
        .as_bytes(),
    )?;
    let binaries = prog
        .get_binaries()
        .context("reading the program's binary")?;
    if let Some(bin) = binaries.first().filter(|b| !b.is_empty()) {
        write(if nvidia { "ptx" } else { "bin" }, bin)?;
    }
    Ok(Written {
        source: file,
        options: opts,
        files,
    })
}
