//! `lab-bench accuracy`: the GPU rungs' references on one public set of inputs, so that their
//! errors compare with a peer's on the very same matrices. Grading never uses a public seed
//! (a kernel could recognise its inputs); this command grades nothing, it only measures how
//! far each reference's C lies from the exact product.
//!
//! Each C is checked here against float64 at the ladder's points (`sample_points(shape, 4096,
//! 11)`), and written, with `--c-out`, as raw little-endian f32 for a full comparison:
//! `scripts/cublas_sgemm.py --lab-inputs SEED --lab-c DIR` multiplies the same matrices with
//! cuBLAS and in float64 on the GPU, and gives every element's error for cuBLAS and for each C.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};

use lab::cli::Edge;
use lab::harness::device::Gpu;
use lab::harness::matrix::{compare_sampled, sample_points, Problem, Shape};
use lab::harness::program;
use lab::ladder;
use lab::lesson::Ctx;
use lab::prepared::{self, Prepared};

/// The seed of the points where C is compared, as in `scripts/cublas_sgemm.py`'s `lab_points`.
const POINTS_SEED: u64 = 11;

/// What to measure.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// GPU lessons whose references are run, e.g. --lessons 10,11.
    #[arg(long, value_delimiter = ',', default_value = "10,11")]
    pub lessons: Vec<String>,
    /// Square sizes.
    #[arg(long, value_delimiter = ',', default_value = "1024,2048,4096")]
    pub sizes: Vec<usize>,
    /// Shapes besides the square sizes, as MxNxK, e.g. --shapes 8192x8192x1024,4095x4097x4093.
    #[arg(long, value_delimiter = ',', value_parser = Shape::parse_tag)]
    pub shapes: Vec<Shape>,
    /// Inputs of wide dynamic range: A and B of the seed with every row of A and column of B
    /// scaled by a power of two from 2^-20 to 2^20 (`Problem::widened(seed.rotate_left(29))`,
    /// as the grader's wide cases; `scripts/cublas_sgemm.py --lab-wide` makes the same).
    #[arg(long)]
    pub wide: bool,
    /// The inputs' seed: A and B are `Problem::random(shape, seed)` of src/harness/matrix.rs.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// A folder to write each C into, as `<lesson>-<size>.f32` (raw little-endian f32).
    #[arg(long)]
    pub c_out: Option<PathBuf>,
}

/// max |c − exact| / max |exact| over `points`, exact in float64 (the grader's own sampled
/// comparison); infinite where a sampled value is not a number.
pub fn relative_error(p: &Problem, c: &[f32], points: &[(usize, usize)]) -> f64 {
    if points
        .iter()
        .any(|&(i, j)| !c[i * p.shape.n + j].is_finite())
    {
        return f64::INFINITY;
    }
    compare_sampled(p, c, points).max_rel_err
}

pub fn run(args: &Args, edge: &Edge) -> Result<()> {
    if args.sizes.is_empty() || args.sizes.contains(&0) {
        bail!("--sizes takes positive sizes, e.g. --sizes 1024,4096");
    }
    let gpu = Gpu::open(edge.device(args.device.as_deref()).as_deref())?;
    if let Some(dir) = &args.c_out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    println!(
        "references on {} (driver {}), inputs of seed {}{}; error: max |C − exact| / max |exact| at the ladder's points",
        gpu.info.name,
        gpu.info.driver,
        args.seed,
        if args.wide { ", widened" } else { "" }
    );
    let shapes: Vec<Shape> = (args.sizes.iter().map(|&s| Shape::square(s)))
        .chain(args.shapes.iter().copied())
        .collect();
    for key in &args.lessons {
        let lesson = ladder::find(key).with_context(|| {
            format!(
                "there is no lesson {key}: the lessons are {}",
                ladder::keys()
            )
        })?;
        let ocl = lesson
            .ocl()
            .with_context(|| format!("lesson {} has no kernel: only GPU rungs", lesson.key))?;
        ocl.supports(&gpu.info)?;
        let file = edge.course.solutions().join(lesson.file_name());
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let ctx = Ctx {
            info: &gpu.info,
            course: &edge.course,
        };
        for &shape in &shapes {
            let size = shape.tag();
            let defines =
                prepared::defines(ocl, &ctx, Some(shape), &[]).map_err(anyhow::Error::msg)?;
            let launch = (ocl.launch)(shape, &defines)
                .map_err(|why| anyhow::anyhow!("lesson {} at {shape}: {why}", lesson.key))?;
            let prepared = Prepared::build(&gpu, ocl, &file, &text, &defines, ocl.build_options)?;
            let p = match args.wide {
                true => Problem::random(shape, args.seed).widened(args.seed.rotate_left(29)),
                false => Problem::random(shape, args.seed),
            };
            let out = (ocl.host.run)(&gpu, &prepared.kernel, &p, &launch, &defines)
                .with_context(|| format!("running lesson {} at {shape}", lesson.key))?;
            let options = program::options(&defines, "");
            report(args, &p, &out.c, &lesson.name(), &size, &options)?;
            // The variants that give their C, on the same inputs.
            for v in ocl.variants {
                let Some(product) = v.product else { continue };
                let name = format!("{}-{}", lesson.name(), v.name);
                match product(&gpu, &edge.course, &p)
                    .with_context(|| format!("running {name} at {shape}"))?
                {
                    Some(c) => report(args, &p, &c, &name, &size, "variant")?,
                    None => println!("  {name:<18} {size:>6}  does not apply on this device"),
                }
            }
        }
    }
    if let Some(dir) = &args.c_out {
        println!(
            "C written to {}; for every element's error beside cuBLAS's on the same inputs:\n  python3 scripts/cublas_sgemm.py {} --lab-inputs {}{} --lab-c {}",
            dir.display(),
            shapes.iter().map(|s| s.tag()).collect::<Vec<_>>().join(" "),
            args.seed,
            if args.wide { " --lab-wide" } else { "" },
            dir.display()
        );
    }
    Ok(())
}

/// Prints the error of `c` at the ladder's points, and writes C where asked.
fn report(args: &Args, p: &Problem, c: &[f32], name: &str, size: &str, how: &str) -> Result<()> {
    let points = sample_points(p.shape, 4096, POINTS_SEED);
    let err = relative_error(p, c, &points);
    println!("  {name:<18} {size:>6}  {err:.2e}  ({how})");
    if let Some(dir) = &args.c_out {
        let path = dir.join(format!("{name}-{size}.f32"));
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?,
        );
        for x in c {
            f.write_all(&x.to_le_bytes())?;
        }
        f.flush()
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::harness::matrix::reference_at;

    #[test]
    fn shapes_are_read_as_mxnxk_and_named_so() {
        assert_eq!(
            Shape::parse_tag("8192x8192x1024"),
            Ok(Shape::new(8192, 8192, 1024))
        );
        assert!(Shape::parse_tag("8192x0x4").is_err() && Shape::parse_tag("12x3").is_err());
        assert!(Shape::parse_tag("axbxc").is_err());
        assert_eq!(Shape::square(4096).tag(), "4096");
        assert_eq!(Shape::new(4095, 4097, 4093).tag(), "4095x4097x4093");
    }

    #[test]
    fn the_error_is_relative_to_the_largest_exact_value_and_sees_a_nan() {
        let p = Problem::random(Shape::new(3, 2, 4), 5);
        let pts: Vec<(usize, usize)> = (0..3).flat_map(|i| (0..2).map(move |j| (i, j))).collect();
        let exact: Vec<f32> = reference_at(&p, &pts)
            .iter()
            .map(|&(e, _, _)| e as f32)
            .collect();
        assert!(relative_error(&p, &exact, &pts) < 1e-7);
        let mut off = exact.clone();
        off[3] += 0.5;
        let scale = reference_at(&p, &pts)
            .iter()
            .map(|&(e, _, _)| e.abs())
            .fold(0.0, f64::max);
        let err = relative_error(&p, &off, &pts);
        assert!((err - 0.5 / scale).abs() < 1e-6, "{err}");
        off[1] = f32::NAN;
        assert!(relative_error(&p, &off, &pts).is_infinite());
    }
}
