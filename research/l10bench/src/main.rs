//! Exploration harness for lesson 10 (its measurements are in research/perf-10/; not part of the course).
//!
//!     l10bench JOBS OUTDIR [TIME_MS]
//!
//! JOBS: one job per line, `name file size [NAME=VALUE ...] [opt:-cl-...] [ptx]`; size is
//! `S` or `MxNxK`. Each job's kernel file is built with its defines (and -cl-nv-verbose on
//! NVIDIA), run once into a guarded C, checked at sample points against the f64 reference,
//! then timed (median of profiled launches over TIME_MS). With `ptx`, the program binary
//! (PTX on NVIDIA) and the build log go to OUTDIR/name.ptx and OUTDIR/name.log.
//! Prints one CSV row per job (also to OUTDIR/bench.csv).
//!
//! `mode:NAME` on a job times it another way (research/fresh-10/); without it, `warm`:
//! - `warm`: the same A, B and C every call, launches back to back;
//! - `gap`: the same buffers, the GPU left idle GAP_MS (15) before each timed launch, as the
//!   course's fresh inputs and checks leave it;
//! - `flush`: the same buffers, a 256 MiB buffer written before each timed launch, so that
//!   no line of A, B or C is left in the L2 cache;
//! - `fresh`: new A, B and C buffers every call (the same numbers), moved to the device before
//!   the launch, as the course's `run_guarded` makes them;
//! - `course`: the course's own call, `run_guarded` on a problem drawn anew for every call
//!   and checked at sample points.
//!
//! Beside each median of device times, the median wall time of the launch (enqueue to
//! completion on the host) goes to `wall_ms`: the launch's cost on the host.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use lab::harness::device::Gpu;
use opencl3::memory::ClMem as _;
use lab::harness::exec::{self, GuardedC};
use lab::harness::matrix::{self, Problem, Shape};
use lab::harness::program::{self, Define};

struct Inputs {
    p: Problem,
    points: Vec<(usize, usize)>,
    a: opencl3::memory::Buffer<f32>,
    b: opencl3::memory::Buffer<f32>,
    c: GuardedC,
}

fn parse_shape(s: &str) -> Result<Shape> {
    let v: Vec<usize> = s.split('x').map(|x| x.parse()).collect::<Result<_, _>>()?;
    Ok(match v.as_slice() {
        [n] => Shape::square(*n),
        [m, n, k] => Shape::new(*m, *n, *k),
        _ => anyhow::bail!("bad size {s}"),
    })
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let jobs = std::fs::read_to_string(&args[1]).context("reading jobs")?;
    let out = PathBuf::from(&args[2]);
    std::fs::create_dir_all(&out)?;
    let time_ms: f64 = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(200.0);
    let gpu = Gpu::open(lab::cli::Edge::from_env()?.device(None).as_deref())?;
    let nv = gpu.info.vendor.to_lowercase().contains("nvidia");
    eprintln!("{:#?}", gpu.info);
    let ocl = lab::ladder::get("10").ocl().context("lesson 10")?;
    let mut inputs: HashMap<(usize, usize, usize), Inputs> = HashMap::new();
    let mut csv = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out.join("bench.csv"))?;
    let header = "date,device,driver,name,file,m,n,k,defines,mode,device_ms,gflops,max_rel_err,build_info,wall_ms,best_ms,worst_ms,reps";
    println!("{header}");
    writeln!(csv, "{header}")?;
    for line in jobs.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split_whitespace();
        let (name, file, size) = (
            it.next().unwrap(),
            it.next().context("file")?,
            it.next().context("size")?,
        );
        let shape = parse_shape(size)?;
        let mut defines = Vec::new();
        let mut opts = Vec::new();
        let mut dump = false;
        let mut mode = "warm".to_string();
        for t in it {
            if let Some(m) = t.strip_prefix("mode:") {
                mode = m.to_string();
            } else if let Some(o) = t.strip_prefix("opt:") {
                // `opt:-cl-nv-maxrregcount:128` passes `-cl-nv-maxrregcount 128`.
                opts.push(o.replace(':', " "));
            } else if t == "ptx" {
                dump = true;
            } else {
                defines.push(lab::cli::parse_define(t).map_err(|e| anyhow::anyhow!(e))?);
            }
        }
        if nv {
            opts.push("-cl-nv-verbose".into());
        }
        let result = run_one(&gpu, ocl, name, file, shape, &defines, &opts.join(" "), dump, &out, time_ms, &mut inputs, &mode);
        let dtext: Vec<String> = defines.iter().map(|d: &Define| format!("{}={}", d.name, d.value)).collect();
        let row = match result {
            Ok((t, err, info)) => format!(
                "{},{},{},{name},{file},{},{},{},{},{mode},{:.4},{:.1},{err:.2e},\"{info}\",{:.4},{:.4},{:.4},{}",
                lab::harness::record::today(), gpu.info.name, gpu.info.driver, shape.m, shape.n, shape.k,
                dtext.join(" "), t.ms, shape.flops() / (t.ms * 1e-3) / 1e9, t.wall_ms, t.best_ms, t.worst_ms, t.reps
            ),
            Err(e) => format!(
                "{},{},{},{name},{file},{},{},{},{},{mode},,,,\"FAILED: {}\",,,,",
                lab::harness::record::today(), gpu.info.name, gpu.info.driver, shape.m, shape.n, shape.k,
                dtext.join(" "), format!("{e:#}").replace('"', "'").replace('\n', " | ")
            ),
        };
        println!("{row}");
        writeln!(csv, "{row}")?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_one(
    gpu: &Gpu,
    ocl: &lab::lesson::OclLesson,
    name: &str,
    file: &str,
    shape: Shape,
    defines: &[Define],
    opts: &str,
    dump: bool,
    out: &std::path::Path,
    time_ms: f64,
    inputs: &mut HashMap<(usize, usize, usize), Inputs>,
    mode: &str,
) -> Result<(Times, f64, String)> {
    let path = PathBuf::from(file);
    let source = std::fs::read_to_string(&path).with_context(|| format!("reading {file}"))?;
    let program = program::build_source(gpu, &path, &source, defines, opts)?;
    let log = program.get_build_log(gpu.device.id()).unwrap_or_default();
    // The ptxas lines: registers, spills, stack.
    let info: Vec<String> = log
        .lines()
        .filter(|l| l.contains("ptxas info") && (l.contains("Used") || l.contains("spill") || l.contains("stack")))
        .map(|l| l.split("ptxas info    :").last().unwrap_or(l).trim().to_string())
        .collect();
    if dump {
        std::fs::write(out.join(format!("{name}.log")), &log)?;
        if let Ok(bins) = program.get_binaries() {
            if let Some(b) = bins.first() {
                std::fs::write(out.join(format!("{name}.ptx")), b)?;
            }
        }
    }
    let kernel = program::kernel(&program, &path, ocl.kernel, ocl.args)?;
    let launch = (ocl.launch)(shape, defines).map_err(|w| anyhow::anyhow!(w))?;
    if !inputs.contains_key(&(shape.m, shape.n, shape.k)) {
        let p = Problem::random(shape, 4242);
        let points = matrix::sample_points(shape, 512, 4242);
        let a = exec::input_buffer(gpu, &p.a, 0)?;
        let b = exec::input_buffer(gpu, &p.b, 0)?;
        let c = GuardedC::new(gpu, &lab::harness::poison::Poison::nan(shape.m * shape.n), 0)?;
        inputs.insert((shape.m, shape.n, shape.k), Inputs { p, points, a, b, c });
    }
    let inp = &inputs[&(shape.m, shape.n, shape.k)];
    // Poison C again so that a kernel that writes nothing cannot pass on an earlier job's result.
    let c = GuardedC::new(gpu, &lab::harness::poison::Poison::nan(shape.m * shape.n), 0)?;
    exec::set_standard_args(&kernel, shape, &inp.a, &inp.b, &c.c)?;
    let first = exec::launch(gpu, &kernel, &launch)?;
    let (got, guard) = c.read(gpu)?;
    anyhow::ensure!(guard.clean(), "wrote outside C");
    let cmp = matrix::compare_sampled(&inp.p, &got, &inp.points);
    if let Some(bad) = &cmp.first_wrong {
        anyhow::bail!("wrong at ({}, {}): expected {}, got {}", bad.row, bad.col, bad.expected, bad.got);
    }
    drop(c);
    exec::set_standard_args(&kernel, shape, &inp.a, &inp.b, &inp.c.c)?;
    exec::launch(gpu, &kernel, &launch)?;
    let reps = reps_for(first, time_ms).max(5);
    let mut times = Vec::with_capacity(reps);
    let mut walls = Vec::with_capacity(reps);
    // The scratch buffer `flush` writes: five times the H100's and H200's 50 MiB of L2.
    let mut scratch = match mode {
        "flush" => Some(unsafe {
            opencl3::memory::Buffer::<f32>::create(
                &gpu.context,
                opencl3::memory::CL_MEM_READ_WRITE,
                64 << 20,
                std::ptr::null_mut(),
            )?
        }),
        _ => None,
    };
    let mut worst_err = cmp.max_rel_err;
    for rep in 0..reps {
        let (ms, wall) = match mode {
            "warm" => exec::launch_timed(gpu, &kernel, &launch)?,
            "gap" => {
                std::thread::sleep(std::time::Duration::from_millis(GAP_MS));
                exec::launch_timed(gpu, &kernel, &launch)?
            }
            "flush" => {
                let s = scratch.as_mut().context("scratch")?;
                let ev = unsafe { gpu.queue.enqueue_fill_buffer(s, &[rep as f32], 0, 256 << 20, &[])? };
                ev.wait()?;
                exec::launch_timed(gpu, &kernel, &launch)?
            }
            "fresh" => {
                let a = exec::input_buffer(gpu, &inp.p.a, 0)?;
                let b = exec::input_buffer(gpu, &inp.p.b, 0)?;
                let c = GuardedC::new(gpu, &inp.p.poison, 0)?;
                exec::set_standard_args(&kernel, shape, &a, &b, &c.c)?;
                exec::settle(gpu, &[a.get(), b.get(), c.whole.get()])?;
                let t = exec::launch_timed(gpu, &kernel, &launch)?;
                let (got, _) = c.read(gpu)?;
                let cmp = matrix::compare_sampled(&inp.p, &got, &inp.points);
                anyhow::ensure!(cmp.first_wrong.is_none(), "fresh call {rep} wrong");
                t
            }
            "course" => {
                let p = Problem::random(shape, 9000 + rep as u64);
                let out = exec::run_guarded(gpu, &kernel, &p, &launch)?;
                let cmp = matrix::compare_sampled(&p, &out.c, &inp.points);
                anyhow::ensure!(cmp.first_wrong.is_none(), "course call {rep} wrong");
                worst_err = worst_err.max(cmp.max_rel_err);
                (out.kernel_ms, out.wall_ms)
            }
            other => anyhow::bail!("no mode {other}"),
        };
        times.push(ms);
        walls.push(wall);
    }
    // Put the kernel's arguments back on the shared buffers for the next job.
    exec::set_standard_args(&kernel, shape, &inp.a, &inp.b, &inp.c.c)?;
    let best_ms = times.iter().cloned().fold(f64::INFINITY, f64::min);
    let worst_ms = times.iter().cloned().fold(0.0, f64::max);
    let t = Times {
        ms: exec::median(&mut times),
        wall_ms: exec::median(&mut walls),
        best_ms,
        worst_ms,
        reps,
    };
    Ok((t, worst_err, info.join("; ")))
}

/// How long `gap` leaves the GPU idle before each timed launch, ms: about what the course's
/// loop spends between two launches at 1024 (drawing the next problem, reading C back,
/// checking it).
const GAP_MS: u64 = 15;

/// One job's timed launches.
struct Times {
    /// Median device time, ms.
    ms: f64,
    /// Median wall time from enqueue to completion, ms.
    wall_ms: f64,
    best_ms: f64,
    worst_ms: f64,
    reps: usize,
}

/// How many timed repetitions fit a time budget, given one run's time (3 to 50): this
/// harness's own rule, kept as it was when its measurements were taken.
fn reps_for(one_ms: f64, budget_ms: f64) -> usize {
    ((budget_ms / one_ms.max(1e-3)) as usize).clamp(3, 50)
}
