//! `lab evidence`: the compiler's own account of the GPU rungs, for the chapters that explain
//! them. Builds each lesson's reference with the defines it runs with at a size (the tuned
//! ones where recorded), and writes the build log (with `-cl-nv-verbose` on NVIDIA: registers
//! and spills per kernel) and the program binary (on NVIDIA, the PTX) into a folder. On a
//! machine with CUDA's tools, `ptxas -v` on the PTX gives the same counts for a named GPU.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use crate::cli::Edge;
use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::harness::program;
use crate::ladder;
use crate::lesson::{with_overrides, Ctx};

/// What to write.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Lessons, e.g. --lessons 6,7,10.
    #[arg(long, value_delimiter = ',', default_value = "6,7,10")]
    pub lessons: Vec<String>,
    /// The square size whose defines are used (the tuned ones of lesson 10).
    #[arg(long, default_value_t = 4096)]
    pub size: usize,
    /// The folder to write into.
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: &Args, edge: &Edge) -> Result<()> {
    let gpu = Gpu::open(edge.device(args.device.as_deref()).as_deref())?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let nvidia = gpu.info.vendor.to_lowercase().contains("nvidia")
        || gpu.info.platform.to_lowercase().contains("nvidia");
    let shape = Shape::square(args.size);
    for key in &args.lessons {
        let lesson = ladder::find(key).with_context(|| {
            format!(
                "there is no lesson {key}: the lessons are {}",
                ladder::keys()
            )
        })?;
        let ocl = lesson
            .ocl()
            .with_context(|| format!("lesson {} has no kernel", lesson.key))?;
        let ctx = Ctx {
            info: &gpu.info,
            course: &edge.course,
        };
        let mut defines = (ocl.defines)(&ctx);
        if let Some(tuned) = ocl.sized.and_then(|f| f(&ctx, shape)) {
            defines = with_overrides(defines, &tuned);
        }
        let extra = if nvidia {
            format!("{} -cl-nv-verbose", ocl.build_options)
        } else {
            ocl.build_options.to_string()
        };
        let file = edge.course.solutions().join(lesson.file_name());
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let prog = program::build_source(
            &gpu,
            &file,
            &ocl.source(&gpu, &text),
            &defines,
            extra.trim(),
        )?;
        let log = prog.get_build_log(gpu.device.id()).unwrap_or_default();
        let opts = program::options(&defines, extra.trim());
        let name = lesson.name();
        std::fs::write(
            args.out.join(format!("{name}.build.log")),
            format!(
                "# {} on {} (driver {}), options: {opts}\n{log}",
                lesson.file_name(),
                gpu.info.name,
                gpu.info.driver
            ),
        )?;
        let binaries = prog
            .get_binaries()
            .context("reading the program's binary")?;
        if let Some(bin) = binaries.first() {
            let ext = if nvidia { "ptx" } else { "bin" };
            std::fs::write(args.out.join(format!("{name}.{ext}")), bin)?;
        }
        println!("{name}: {opts}");
    }
    println!("written to {}", args.out.display());
    Ok(())
}
