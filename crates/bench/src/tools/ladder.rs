//! `lab-bench ladder`: measures every rung's reference answer, the variants each chapter compares,
//! and the peers, at several sizes on one device, in one run, and appends the results to a
//! CSV file under results/. Every row of one invocation carries the same `run`: they were
//! measured together. This is the command behind every measured number in the book.

use std::path::PathBuf;

use anyhow::{Context as _, Result};

use crate::peers;
use crate::peers::cpu_blas;
use lab::cli::Edge;
use lab::grade::Source;
use lab::harness::cpu_crate;
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::record::{self, LadderRow};
use lab::harness::timing::Timing;
use lab::ladder;
use lab::lesson::{CpuRun, Kind, Lesson, Peer};
use lab::report;
use lab::run::{self, cpu_model, default_threads, timing_row};

/// What to measure.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Square sizes to measure (default: 1024,2048,4096 on a GPU, 256,512,1024 otherwise).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Shapes besides the square sizes, as MxNxK (e.g. 8192x8192x1024,1024x8192x8192), for
    /// the GPU lessons, their variants and CLBlast: users' matrices are long, flat and ragged.
    #[arg(long, value_delimiter = ',', value_parser = lab::harness::matrix::Shape::parse_tag)]
    pub shapes: Vec<Shape>,
    /// Only these lessons, e.g. --lessons 5,10 (default: all).
    #[arg(long, value_delimiter = ',')]
    pub lessons: Vec<String>,
    /// Largest size at which the CPU lessons and peers run (they are slow).
    #[arg(long, default_value_t = 1024)]
    pub cpu_max: usize,
    /// The CSV file to append to (default: results/<device>.csv).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Skip the variants (other versions each chapter compares).
    #[arg(long)]
    pub no_variants: bool,
    /// Skip the peers (CLBlast; OpenBLAS, the gemm crate, matrixmultiply).
    #[arg(long)]
    pub no_peers: bool,
    /// The run these rows belong to (default: a new one); `scripts/cublas_sgemm.py --run`
    /// takes the same, so that cuBLAS's rows read as measured together with these.
    #[arg(long)]
    pub run: Option<String>,
    /// The OpenBLAS library to load (also: OPENBLAS_LIBRARY; default: libopenblas.so.0 and
    /// the like on the library path).
    #[arg(long)]
    pub openblas: Option<String>,
}

/// A file-name-friendly form of a device name.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_string()
}

fn say(what: &str, t: &Timing, shape: Shape) {
    println!(
        "  {what:<44} {shape}  {:>10} GFLOP/s  ({}, best {}, worst {})",
        report::gflops(t.gflops(shape)),
        report::ms(t.device_ms),
        report::ms(t.best_ms),
        report::ms(t.worst_ms)
    );
}

/// The threads matrixmultiply uses in this process (its own rule: MATMUL_NUM_THREADS, else
/// the physical cores, at most 4).
fn matrixmultiply_threads() -> usize {
    let cores = default_threads().clamp(1, 4);
    std::env::var("MATMUL_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cores)
        .clamp(1, 4)
}

/// Runs the ladder.
pub fn run(args: &Args, edge: &Edge) -> Result<()> {
    let sel = edge.device(args.device.as_deref());
    let gpu = Gpu::open(sel.as_deref())?;
    let info = gpu.info.clone();
    let sizes = if args.sizes.is_empty() {
        if info.is_gpu() {
            vec![1024, 2048, 4096]
        } else {
            vec![256, 512, 1024]
        }
    } else {
        args.sizes.clone()
    };
    for &s in &sizes {
        lab::cli::check_shape(Shape::square(s))?;
    }
    for &shape in &args.shapes {
        lab::cli::check_shape(shape)?;
    }
    let out = args.out.clone().unwrap_or_else(|| {
        edge.course
            .results()
            .join(format!("{}.csv", slug(&info.name)))
    });
    let run_id = args.run.clone().unwrap_or_else(record::run_id);
    let cpu = format!("{} ({} threads)", cpu_model(), default_threads());
    let cpu_sizes: Vec<usize> = sizes
        .iter()
        .copied()
        .filter(|&s| s <= args.cpu_max)
        .collect();
    let mut rows: Vec<LadderRow> = Vec::new();

    let openblas_path = args
        .openblas
        .clone()
        .or_else(|| std::env::var("OPENBLAS_LIBRARY").ok());

    println!(
        "measuring on {} → {} (run {run_id})",
        info.describe(),
        out.display()
    );
    let only: Vec<&'static Lesson> = args
        .lessons
        .iter()
        .map(|k| {
            ladder::find(k).with_context(|| {
                format!("there is no lesson {k}: the lessons are {}", ladder::keys())
            })
        })
        .collect::<Result<_>>()?;
    let solutions = Source::Folder(edge.course.solutions());
    let mut written = 0;
    for &lesson in ladder::ALL.iter() {
        if !lesson.graded() || !(only.is_empty() || only.iter().any(|l| l.key == lesson.key)) {
            continue;
        }
        // What is measured is kept as it comes: a run stopped halfway keeps its rows.
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
        let is_cpu = matches!(lesson.kind, Kind::Cpu(_));
        let lesson_sizes = if is_cpu { &cpu_sizes } else { &sizes };
        let mut shapes = Vec::new();
        for &s in lesson_sizes {
            shapes.push(Shape::square(s));
            // Lessons that handle any size are also measured just below a power of two.
            if lesson.ocl().is_some_and(|o| o.any_size) {
                shapes.push(Shape::square(s - 1));
            }
        }
        if lesson.ocl().is_some_and(|o| o.any_size) {
            shapes.extend(args.shapes.iter().copied());
        }
        for shape in shapes {
            // Kept shape by shape: a run stopped at its time limit keeps every shape it measured.
            record::append(&out, &rows)?;
            written += rows.len();
            rows.clear();
            match run::measure(lesson, &solutions, edge, sel.as_deref(), shape, &[]) {
                Ok(m) => {
                    say(&format!("{} reference", lesson.name()), &m.timing, shape);
                    let mut row = run::row(&m, &run_id);
                    if is_cpu && row.defines.is_empty() {
                        // The vector width the student crate was built for, here.
                        row.defines = format!("SIMD={}", cpu_crate::simd().1);
                    }
                    rows.push(row);
                }
                Err(e) => println!("  {} at {shape}: not measured: {e:#}", lesson.name()),
            }
            if args.no_variants {
                continue;
            }
            for v in lesson.ocl().map_or(&[][..], |o| o.variants) {
                match (v.measure)(&gpu, &edge.course, shape) {
                    Ok(Some(t)) => {
                        say(&format!("{} {}", lesson.name(), v.name), &t, shape);
                        rows.push(timing_row(
                            &run_id,
                            &info.name,
                            &info.driver,
                            0,
                            &lesson.name(),
                            v.name,
                            shape,
                            &t,
                            None,
                        ));
                    }
                    Ok(None) => println!("  {} {}: does not apply here", lesson.name(), v.name),
                    Err(e) => println!(
                        "  {} {} at {shape}: not measured: {e:#}",
                        lesson.name(),
                        v.name
                    ),
                }
            }
        }
        let cpu_variants = lesson.cpu().and_then(|c| c.variants);
        if let (Some(measure), false) = (cpu_variants, args.no_variants) {
            if let Some(&s) = cpu_sizes.last() {
                let shape = Shape::square(s);
                let file = solutions.path(lesson);
                let on = CpuRun {
                    course: &edge.course,
                    file: &file,
                    shape,
                    timeout: edge.timeout,
                };
                for (name, t, timing) in measure(lesson, &on)? {
                    say(&format!("{} {name}", lesson.name()), &timing, shape);
                    rows.push(timing_row(
                        &run_id,
                        &cpu,
                        "",
                        t,
                        &lesson.name(),
                        &name,
                        shape,
                        &timing,
                        None,
                    ));
                }
            }
        }
    }
    // Write what the rungs gave before the peers, which may be absent or slow.
    record::append(&out, &rows)?;
    written += rows.len();
    rows.clear();
    // A peer is measured when a lesson measured here declares it.
    let wants = |peer: Peer| {
        ladder::ALL
            .iter()
            .filter(|l| only.is_empty() || only.iter().any(|o| o.key == l.key))
            .any(|l| l.peers.contains(&peer))
    };
    if !args.no_peers && wants(Peer::Clblast) {
        let shapes: Vec<Shape> = sizes
            .iter()
            .map(|&s| Shape::square(s))
            .chain(args.shapes.iter().copied())
            .collect();
        rows.extend(clblast_rows(&gpu, edge, &shapes, &run_id));
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
    }
    let cpu_peers = (wants(Peer::Matrixmultiply), wants(Peer::CpuBlas));
    if !args.no_peers && (cpu_peers.0 || cpu_peers.1) && !cpu_sizes.is_empty() {
        let on = CpuPeers {
            edge,
            sizes: &cpu_sizes,
            run_id: &run_id,
            openblas: openblas_path.as_deref(),
        };
        rows.extend(cpu_peer_rows(&on, cpu_peers.0, cpu_peers.1)?);
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
    }
    println!(
        "recorded {written} rows (and any child's) in {} as run {run_id}",
        out.display()
    );
    Ok(())
}

/// The CPU this process runs on, with `threads` threads, as the rows name it.
fn cpu_device(threads: usize) -> String {
    format!("{} ({threads} threads)", cpu_model())
}

/// Where and what the CPU peers are measured.
struct CpuPeers<'a> {
    edge: &'a Edge,
    sizes: &'a [usize],
    run_id: &'a str,
    /// The OpenBLAS the user named, if any.
    openblas: Option<&'a str>,
}

/// One peer to time: its function in the peers' file, the pool it runs on, and how its row
/// names it.
struct PeerRun {
    function: &'static str,
    threads: usize,
    key: &'static str,
    kernel: String,
}

/// The CPU peers at each CPU size, each timed in the lessons' driver with the lessons'
/// protocol ([`peers::cpu_served`]): matrixmultiply with its threads and with one, the
/// `gemm` crate and OpenBLAS on all the threads, OpenBLAS's AVX-512 kernel too where its
/// own pick leaves AVX-512 unused. Each row names the kernel the peer runs here.
fn cpu_peer_rows(on: &CpuPeers, matrixmultiply: bool, blas: bool) -> Result<Vec<LadderRow>> {
    let threads = default_threads();
    let mut runs = Vec::new();
    if matrixmultiply {
        let kernel = format!("kernel={}", cpu_blas::matrixmultiply_kernel());
        let mm = matrixmultiply_threads();
        runs.push(PeerRun {
            function: "matrixmultiply",
            threads: mm,
            key: "matrixmultiply",
            kernel: kernel.clone(),
        });
        if mm > 1 {
            runs.push(PeerRun {
                function: "matrixmultiply",
                threads: 1,
                key: "matrixmultiply",
                kernel,
            });
        }
    }
    let mut openblas = None;
    if blas {
        runs.push(PeerRun {
            function: "gemm",
            threads,
            key: "gemm",
            kernel: format!("kernel={} version=0.19", cpu_blas::gemm_crate_kernel()),
        });
        match cpu_blas::load(on.openblas) {
            Ok(lib) => {
                let core = lib.corename();
                // The driver's environment is empty: the core type this process runs is
                // handed to it, and named as the user's where the user chose it.
                let chosen = std::env::var("OPENBLAS_CORETYPE").is_ok_and(|v| !v.trim().is_empty());
                runs.push(PeerRun {
                    function: "openblas",
                    threads,
                    key: "openblas",
                    kernel: format!(
                        "kernel={core}{} version={}",
                        if chosen { " OPENBLAS_CORETYPE" } else { "" },
                        lib.version()
                    ),
                });
                if cpu_blas::cpu_has_avx512() && !cpu_blas::uses_avx512(&core) {
                    runs.push(PeerRun {
                        function: "openblas_avx512",
                        threads,
                        key: "openblas",
                        kernel: format!(
                            "kernel={} OPENBLAS_CORETYPE version={}",
                            cpu_blas::AVX512_CORE,
                            lib.version()
                        ),
                    });
                }
                openblas = Some((lib.path.clone(), core));
            }
            Err(why) => println!("  {why}"),
        }
    }
    let builder = lab::grade::cpu::builder(&on.edge.course);
    let (library, own_core) = openblas.unwrap_or_else(|| (cpu_blas::NAMES[0].into(), "".into()));
    let at = peers::cpu_served::OpenBlasAt {
        library: &library,
        own_core: &own_core,
        avx512_core: cpu_blas::AVX512_CORE,
    };
    let served = peers::cpu_served::build(&builder, &at)?;
    let limit = on.edge.timeout;
    let mut rows = Vec::new();
    for run in &runs {
        for &s in on.sizes {
            let shape = Shape::square(s);
            let name = format!("peer {} threads={} ({})", run.key, run.threads, run.kernel);
            match peers::cpu_served::time(&served, run.function, shape, run.threads, limit) {
                Ok(t) => {
                    say(&name, &t, shape);
                    let mut row = timing_row(
                        on.run_id,
                        &cpu_device(run.threads),
                        "",
                        run.threads,
                        run.key,
                        &format!("threads={}", run.threads),
                        shape,
                        &t,
                        None,
                    );
                    row.defines = run.kernel.clone();
                    rows.push(row);
                }
                Err(e) => println!("  {name} at {shape}: not measured: {e:#}"),
            }
        }
    }
    Ok(rows)
}

/// One way of timing CLBlast at a shape.
type ClblastTiming =
    fn(&peers::Clblast, &Gpu, Shape) -> anyhow::Result<lab::harness::timing::Timing>;

/// CLBlast at each size, where it is installed.
fn clblast_rows(gpu: &Gpu, edge: &Edge, shapes: &[Shape], run_id: &str) -> Vec<LadderRow> {
    let lib = match peers::load(edge.clblast.as_deref()) {
        Ok(l) => l,
        Err(why) => {
            println!("  {why}");
            return Vec::new();
        }
    };
    let mut rows = Vec::new();
    for &shape in shapes {
        // Warm (batches on the same inputs, as a library is usually benchmarked), then fresh
        // (one call per new problem, as the course times its lessons).
        let ways: [(&str, &str, ClblastTiming); 2] = [
            ("peer CLBlast", "sgemm", peers::clblast_sgemm),
            (
                "peer CLBlast fresh",
                "sgemm-fresh",
                peers::clblast_sgemm_fresh,
            ),
        ];
        for (what, variant, time) in ways {
            match time(&lib, gpu, shape) {
                Ok(t) => {
                    say(what, &t, shape);
                    rows.push(timing_row(
                        run_id,
                        &gpu.info.name,
                        &gpu.info.driver,
                        0,
                        "clblast",
                        variant,
                        shape,
                        &t,
                        None,
                    ));
                }
                Err(e) => println!("  {what} at {shape}: not measured: {e:#}"),
            }
        }
    }
    rows
}
