//! `lab-bench`, the bench's program: the ladder beside its peers, the autotuner, the book's
//! tables and charts, the references' accuracy and the compilers' evidence; and its own
//! grading worker, as every program of the course is.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lab::cli::{self, Edge};
use lab_bench::tools;

/// Measures the ladder and regenerates the book's numbers.
#[derive(Parser)]
#[command(name = "lab-bench", version)]
struct Args {
    #[command(subcommand)]
    command: Cmd,
    /// Folder of kernels to measure instead of kernels/ (tune, evidence).
    #[arg(long, value_name = "DIR", global = true)]
    kernels: Option<PathBuf>,
    /// Count a part that could not be checked (races, technique, threads, sandbox, speed) as
    /// a failure (also: LAB_STRICT=1).
    #[arg(long, global = true)]
    strict: bool,
    /// Build OpenCL kernels as this OpenCL C version, e.g. --cl-std 1.2 (also: LAB_CL_STD;
    /// default: the device compiler's own).
    #[arg(long, global = true, value_name = "VERSION", value_parser = lab::harness::program::parse_cl_std)]
    cl_std: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Measure every rung, its variants and the peers on one device (results/<device>.csv).
    Ladder(tools::ladder::Args),
    /// Autotune the top rung for a device (results/tuned.csv).
    Tune(tools::tune::Args),
    /// Regenerate the book's tables and charts from results/.
    Results {
        /// Write nothing; fail, naming each file, if regenerating would change any.
        #[arg(long)]
        check: bool,
    },
    /// Write the compiler's build log and program binary (PTX on NVIDIA) of your GPU kernels.
    Evidence(tools::evidence::Args),
    /// Run the GPU rungs' references on public inputs of a seed and give their error against
    /// float64, C written for a comparison with cuBLAS on the same matrices.
    Accuracy(tools::accuracy::Args),
    /// Grade one request in this process (started by the grader; not for people).
    #[command(hide = true)]
    Worker { request: PathBuf, events: PathBuf },
}

fn main() -> ExitCode {
    // The ladder grades a rung before it times it, in a worker: this program started again.
    if let Some(served) = cli::serve_if_worker() {
        return served;
    }
    let args = Args::parse();
    let edge = match Edge::from_env() {
        Ok(e) => Edge {
            strict: e.strict || args.strict,
            cl_std: args.cl_std.clone().or(e.cl_std),
            ..e
        },
        Err(e) => return cli::finish(Err(e)),
    };
    match args.command {
        Cmd::Ladder(a) => cli::finish(tools::ladder::run(&a, &edge)),
        Cmd::Tune(a) => cli::finish(tools::tune::run(&a, args.kernels.as_deref(), &edge)),
        Cmd::Results { check: false } => cli::finish(tools::results::run(&edge.course)),
        Cmd::Results { check: true } => cli::finish(tools::results::check(&edge.course)),
        Cmd::Evidence(a) => {
            // NVIDIA's driver answers a program it has compiled before from its cache, and
            // then prints no ptxas lines (registers, spills), which are the evidence. Set
            // here, before the first OpenCL call and while no other thread runs.
            if std::env::var_os("CUDA_CACHE_DISABLE").is_none() {
                std::env::set_var("CUDA_CACHE_DISABLE", "1");
            }
            cli::finish(tools::evidence::run(&a, args.kernels.as_deref(), &edge))
        }
        Cmd::Accuracy(a) => cli::finish(tools::accuracy::run(&a, &edge)),
        Cmd::Worker { .. } => cli::finish(Err(anyhow::anyhow!(
            "`lab-bench worker` takes a request file and an event file, and is started by the grader"
        ))),
    }
}
