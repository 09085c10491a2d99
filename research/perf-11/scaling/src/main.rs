//! Lesson 11's FP16-split variants on inputs outside FP16's comfortable range (perf-11, call 13).
//!
//!     f16scale [MxNxK] [CSV]        (run from the course's root; default 128x128x1024)
//!
//! Builds research/perf-11/scripts/variants/v9 and v10 (SCALE=1, 2 and 3) with the unit of
//! research/perf-11/scripts/variants/v10/mma.cl (lesson 11's mma.cl with the FP16 additions of
//! v10's patch), runs each through lesson 11's own host code on the course's random inputs
//! multiplied by powers of two, and prints each result's error against the float64 product
//! beside plain FP32's (one float multiply-add after another along K) on the same inputs.

use std::io::Write as _;
use std::path::Path;

use anyhow::{ensure, Context as _, Result};
use lab::harness::device::Gpu;
use lab::harness::matrix::{self, Problem, Shape};
use lab::harness::program;
use lab::lesson::defines;

const UNIT: &str = "research/perf-11/scripts/variants/v10/mma.cl";

/// Errors of one result against the exact product.
struct Errors {
    /// max |C − exact| / max |exact|: what the course's check reports.
    max: f64,
    /// ‖C − exact‖ / ‖exact‖ (Frobenius).
    fro: f64,
    /// max over elements of |C − exact| / Σ|a·b|: each element against its own scale, so a
    /// row or column far smaller than the rest counts as much as the largest.
    elem: f64,
    /// Elements that are inf or NaN.
    nonfinite: usize,
}

fn errors(r: &matrix::Reference, c: &[f32]) -> Errors {
    let (mut num, mut den, mut emax, mut xmax, mut elem) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut nonfinite = 0;
    for ((&got, &exact), &scale) in c.iter().zip(&r.c).zip(&r.scale) {
        if !got.is_finite() {
            nonfinite += 1;
        }
        let d = (got as f64 - exact).abs();
        num += d * d;
        den += exact * exact;
        emax = emax.max(d);
        xmax = xmax.max(exact.abs());
        if scale > 0.0 {
            elem = elem.max(d / scale);
        }
    }
    // A NaN anywhere makes every measure NaN rather than hiding in a max.
    let nan = if nonfinite > 0 { f64::NAN } else { 1.0 };
    Errors {
        max: nan * emax / xmax.max(f64::MIN_POSITIVE),
        fro: nan * num.sqrt() / den.sqrt().max(f64::MIN_POSITIVE),
        elem: nan * elem,
        nonfinite,
    }
}

/// The course's inputs with A's row i multiplied by 2^row(i) and B's column j by 2^col(j).
fn scaled(p: &Problem, row: impl Fn(usize) -> i32, col: impl Fn(usize) -> i32) -> Problem {
    let Shape { m, n, k } = p.shape;
    let mut q = p.clone();
    for i in 0..m {
        let s = 2f32.powi(row(i));
        for x in &mut q.a[i * k..(i + 1) * k] {
            *x *= s;
        }
    }
    for kk in 0..k {
        for j in 0..n {
            q.b[kk * n + j] *= 2f32.powi(col(j));
        }
    }
    q
}

/// The course's inputs with A's column k multiplied by 2^e(k) and B's row k by 2^-e(k): the same
/// products, but each row of A spread over 2^(max e − min e).
fn spread_along_k(p: &Problem, e: impl Fn(usize) -> i32) -> Problem {
    let Shape { m, n, k } = p.shape;
    let mut q = p.clone();
    for kk in 0..k {
        let s = 2f32.powi(e(kk));
        for i in 0..m {
            q.a[i * k + kk] *= s;
        }
        for x in &mut q.b[kk * n..(kk + 1) * n] {
            *x /= s;
        }
    }
    q
}

fn parse_shape(s: &str) -> Result<Shape> {
    let v: Vec<usize> = s
        .split('x')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("size {s}: expected MxNxK"))?;
    match v.as_slice() {
        [m, n, k] if *m > 0 && *n > 0 && *k > 0 => Ok(Shape::new(*m, *n, *k)),
        _ => anyhow::bail!("size {s}: expected MxNxK, each at least 1"),
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let shape = parse_shape(args.get(1).map_or("128x128x1024", String::as_str))?;
    let mut csv = match args.get(2) {
        Some(path) => {
            Some(std::fs::File::create(path).with_context(|| format!("creating {path}"))?)
        }
        None => None,
    };
    let edge = lab::cli::Edge::from_env()?;
    let gpu = Gpu::open(edge.device(None).as_deref())?;
    let unit = std::fs::read_to_string(UNIT)
        .with_context(|| format!("reading {UNIT} (run from the course's root)"))?;
    ensure!(
        unit.contains("warp_max_u32"),
        "{UNIT} lacks v10's unit additions"
    );
    let ptx = gpu.tensor_cores().is_some();
    let ocl = lab::ladder::get("11").ocl().context("lesson 11")?;
    println!(
        "{} ({}), {shape}, unit: {}",
        gpu.info.name,
        gpu.info.driver,
        if ptx { "mma.sync" } else { "OpenCL C model" }
    );

    let base = [
        ("BM", "128"),
        ("BN", "128"),
        ("BK", "16"),
        ("WM", "64"),
        ("WN", "64"),
        ("STAGES", "2"),
    ];
    let kernels = [
        ("v9", "v9", None),
        ("v10 SCALE=1", "v10", Some("1")),
        ("v10 SCALE=2", "v10", Some("2")),
        ("v10 SCALE=3", "v10", Some("3")),
    ];
    let p = Problem::random(shape, 7);
    let cases: Vec<(&str, Problem)> = vec![
        ("uniform [-1, 1)", p.clone()),
        ("A, B x 2^20", scaled(&p, |_| 20, |_| 20)),
        ("A, B x 2^-20", scaled(&p, |_| -20, |_| -20)),
        ("A x 2^-10 (|x| < 1e-3)", scaled(&p, |_| -10, |_| 0)),
        ("A x 2^40, B x 2^-40", scaled(&p, |_| 40, |_| -40)),
        (
            "rows, columns x 2^(-8..8)",
            scaled(&p, |i| (i * 7 % 17) as i32 - 8, |j| (j * 5 % 17) as i32 - 8),
        ),
        (
            "rows, columns x 2^(-20..20)",
            scaled(
                &p,
                |i| (i * 7 % 41) as i32 - 20,
                |j| (j * 5 % 41) as i32 - 20,
            ),
        ),
        (
            "A col, B row k x 2^(+-(-20..20))",
            spread_along_k(&p, |kk| (kk * 7 % 41) as i32 - 20),
        ),
    ];
    let mut built = Vec::new();
    for (name, dir, scale) in &kernels {
        let file = Path::new("research/perf-11/scripts/variants")
            .join(dir)
            .join("11_matrix_units.cl");
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let source = format!("#define MMA_PTX {}\n{unit}\n#line 1\n{text}", u8::from(ptx));
        let mut d = defines(&base);
        if let Some(s) = scale {
            d.extend(defines(&[("SCALE", s)]));
        }
        let prog = program::build_source(&gpu, &file, &source, &d, ocl.build_options)?;
        let kernel = program::Kernels::create(&prog, &file, ocl.signature(), ocl.host.kernels)?;
        built.push((name, kernel, d));
    }
    let header = "device,driver,m,n,k,case,kernel,max_rel,frobenius,elementwise,nonfinite";
    if let Some(f) = &mut csv {
        writeln!(f, "{header}")?;
    }
    println!(
        "{:<32} {:<12} {:>9} {:>9} {:>11} {:>9}",
        "inputs", "kernel", "max rel", "Frobenius", "elementwise", "inf/NaN"
    );
    for (case, q) in &cases {
        let r = matrix::reference(q);
        let mut rows = vec![("FP32 loop".to_string(), errors(&r, &r.fp32))];
        for (name, kernel, d) in &built {
            let launch = (ocl.launch)(shape, d).map_err(anyhow::Error::msg)?;
            let out = (ocl.host.run)(&gpu, kernel, q, &launch, d)
                .with_context(|| format!("running {name} on {case}"))?;
            rows.push((name.to_string(), errors(&r, &out.c)));
        }
        for (name, e) in &rows {
            println!(
                "{case:<32} {name:<12} {:>9.2e} {:>9.2e} {:>11.2e} {:>9}",
                e.max, e.fro, e.elem, e.nonfinite
            );
            if let Some(f) = &mut csv {
                writeln!(
                    f,
                    "{},{},{},{},{},{case},{name},{:.3e},{:.3e},{:.3e},{}",
                    gpu.info.name,
                    gpu.info.driver,
                    shape.m,
                    shape.n,
                    shape.k,
                    e.max,
                    e.fro,
                    e.elem,
                    e.nonfinite
                )?;
            }
        }
    }
    Ok(())
}
