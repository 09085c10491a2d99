//! Lesson 00: your device. What it is, and its two ceilings (peak FP32 rate and
//! global-memory bandwidth), measured with the micro-kernels in solutions/00_your_device.cl.
//! There is nothing to grade: this is the roofline every later lesson is measured against.
//!
//! ```text
//! cargo run --release --bin 00_your_device [-- --record]
//! ```

use anyhow::Result;
use clap::{Args as _, FromArgMatches as _};
use lab::harness::device::{self, DeviceInfo, Gpu};
use lab::harness::cpu_facts;
use lab::harness::paths;
use lab::harness::peak::{self, vector_type};
use lab::lesson::{Kind, Lesson, Program, Session};

#[path = "00_your_device/microbench.rs"]
pub mod microbench;
#[path = "00_your_device/cache_rate.rs"]
pub mod cache_rate;
#[path = "00_your_device/matrix_unit.rs"]
pub mod matrix_unit;

use microbench::{Options, Report};

pub static LESSON: Lesson = Lesson {
    key: "00",
    slug: "your_device",
    title: "Your device",
    teaches:
        "what the device is and its two ceilings, peak FP32 rate and memory bandwidth: the roofline",
    hint: "run `cargo run --release --bin 00_your_device` to measure your device's peak",
    kind: Kind::Device,
    intensity: None,
    peers: &[],
    top: false,
    program: Some(&PROGRAM),
    unit: lab::lesson::Unit::Fp32,
};

/// The program: no standard run, its own flags.
static PROGRAM: Program = Program {
    about: "Lesson 00: lists your device's properties and measures its peak FP32 rate and memory bandwidth",
    flags: Args::augment_args,
    standard: false,
    then: |matches, session| run(&Args::from_arg_matches(matches)?, session),
};

#[derive(clap::Args)]
struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    device: Option<String>,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    list_devices: bool,
    /// Append the measured peak to results/peak.csv.
    #[arg(long)]
    record: bool,
    /// Shorter measurements: a first look, less precise.
    #[arg(long)]
    quick: bool,
}

fn run(args: &Args, session: &Session) -> Result<()> {
    if args.list_devices {
        print!("{}", device::list_table()?);
        return Ok(());
    }
    let device = args.device.clone().or_else(|| session.device.clone());
    let gpu = Gpu::open(device.as_deref())?;
    print!("{}", properties(&gpu.info));

    let opts = Options {
        quick: args.quick,
        kernels: microbench::kernel_path(&session.course.solutions()),
    };
    println!(
        "\nPeak FP32: chains of multiply-adds (`mad`), 2 FLOP each{}",
        if args.quick { ", quick run" } else { "" }
    );
    println!(
        "  {:<8} {:>6} {:>10} {:>6} {:>7} {:>10} {:>11}  check",
        "type", "chains", "work-items", "group", "steps", "ms", "GFLOP/s"
    );
    let mut flops = Vec::new();
    for width in microbench::WIDTHS {
        let r = microbench::measure_flops(&gpu, width, &opts)?;
        println!(
            "  {:<8} {:>6} {:>10} {:>6} {:>7} {:>10.3} {:>11.1}  {} work-items match the CPU (max rel. diff {:.1e})",
            vector_type(r.width),
            r.chains,
            r.work_items,
            r.local,
            r.iters,
            r.ms,
            r.gflops,
            r.check.checked,
            r.check.max_rel_err
        );
        flops.push(r);
    }
    let bandwidth = microbench::measure_bandwidth(&gpu, &opts)?;
    let matrix = matrix_unit::measure(&gpu, &opts)?;
    match &matrix {
        Some(m) => println!(
            "\nMatrix unit: mma.sync m16n8k8 TF32 (compute capability {}.{}), {} chains per warp, \
             {} work-items, {} steps, {:.3} ms: {:.1} GFLOP/s ({} work-items match exactly)",
            m.capability.0,
            m.capability.1,
            matrix_unit::CHAINS,
            m.work_items,
            m.iters,
            m.ms,
            m.gflops,
            m.checked
        ),
        None => println!(
            "\nMatrix unit: none this course can drive here (NVIDIA's tensor cores, compute \
             capability 8.0 or newer); lesson 11 runs a model of it."
        ),
    }
    let l1 = cache_rate::measure(&gpu, &opts, cache_rate::Level::L1)?;
    let l2 = cache_rate::measure(&gpu, &opts, cache_rate::Level::L2)?;
    for c in [&l1, &l2].into_iter().flatten() {
        let (name, how) = match c.level {
            cache_rate::Level::L1 => ("L1 cache", "reads kept in L1 (ld.global.ca)"),
            cache_rate::Level::L2 => ("L2 cache", "reads that skip L1 (ld.global.cg)"),
        };
        println!(
            "\n{name}: float4 {how} over {} (the driver reports {} of global-memory cache), \
             {} work-items, {} reads each, {:.3} ms: {:.1} GB/s read ({} work-items' sums match)",
            bytes(c.bytes),
            bytes(c.cache_bytes),
            c.work_items,
            c.reps,
            c.ms,
            c.gbs,
            c.checked
        );
    }
    if l2.is_none() {
        println!(
            "\nCaches: not measured here. The course measures L1 and L2 only on NVIDIA GPUs, \
             whose loads can choose the cache they come from (ld.global.ca, ld.global.cg)."
        );
    }
    let report = Report {
        flops,
        bandwidth,
        matrix_gflops: matrix.as_ref().map(|m| m.gflops),
        l1_gbs: l1.as_ref().map(|c| c.gbs),
        l2_gbs: l2.as_ref().map(|c| c.gbs),
    };
    let Some(p) = report.peak(&gpu.info) else {
        anyhow::bail!("no multiply-add width was measured");
    };
    let bw = &report.bandwidth;
    println!(
        "\nGlobal memory: float4 copy of {} MiB, {:.3} ms: {:.1} GB/s (bytes read + written)",
        bw.bytes >> 20,
        bw.ms,
        bw.gbs
    );
    print!("{}", roofline(&p));
    if !gpu.info.is_gpu() {
        print!("{}", datasheet(p.gflops));
    }

    if args.record {
        let results = session.course.results();
        peak::save(&results, &p)?;
        println!("\nRecorded in {}.", paths::display(&peak::file(&results)));
    } else {
        println!("\nRecord it with --record: every later lesson then reports its % of this peak.");
    }
    Ok(())
}

fn bytes(b: u64) -> String {
    const GIB: u64 = 1 << 30;
    if b >= GIB {
        format!("{:.1} GiB", b as f64 / GIB as f64)
    } else if b >= 1 << 20 {
        format!("{} MiB", b >> 20)
    } else {
        format!("{} KiB", b >> 10)
    }
}

/// The properties that matter for the ladder, each with the lesson that uses it.
fn properties(i: &DeviceInfo) -> String {
    let rows: Vec<(&str, String, &str)> = vec![
        ("name", i.name.clone(), ""),
        ("vendor", i.vendor.clone(), ""),
        ("platform", i.platform.clone(), ""),
        ("driver", i.driver.clone(), "every measurement names it"),
        ("OpenCL", i.version.clone(), ""),
        ("type", i.kind.clone(), ""),
        (
            "compute units",
            i.compute_units.to_string(),
            "work-groups run on these; a launch needs many per unit",
        ),
        (
            "clock",
            format!("{} MHz", i.clock_mhz),
            "peak = units × lanes × 2 × clock",
        ),
        (
            "global memory",
            bytes(i.global_mem_bytes),
            "the largest matrices",
        ),
        (
            "max allocation",
            bytes(i.max_alloc_bytes),
            "the largest single buffer",
        ),
        (
            "local memory",
            bytes(i.local_mem_bytes),
            "per work-group: bounds the tiles of lessons 05-10",
        ),
        (
            "max work-group",
            i.max_work_group.to_string(),
            "work-items per group: bounds tile sizes",
        ),
        (
            "max work-item sizes",
            format!("{:?}", i.max_work_item_sizes),
            "per dimension",
        ),
        (
            "images",
            if i.image_support {
                format!("yes, 2D up to {} wide", i.image2d_max_width)
            } else {
                "no".to_string()
            },
            "lesson 09 reads B as an image",
        ),
        (
            "float vector width",
            format!(
                "preferred {}, native {}",
                i.preferred_float_width, i.native_float_width
            ),
            "what the driver advises for lesson 07",
        ),
        (
            "unified memory",
            if i.host_unified_memory { "yes" } else { "no" }.to_string(),
            "shared with the host: zero copy pays (lesson 09)",
        ),
    ];
    let mut out = format!("Device {}\n", i.index);
    for (name, value, why) in rows {
        if why.is_empty() {
            out.push_str(&format!("  {name:<20} {value}\n"));
        } else {
            out.push_str(&format!("  {name:<20} {value:<28} ({why})\n"));
        }
    }
    out
}

/// The CPU's datasheet peak beside the one just measured: PoCL's code reaches what its vector
/// width and its threads allow, the chip's FMA units set the ceiling a BLAS aims at.
fn datasheet(measured: f64) -> String {
    match cpu_facts::host().datasheet() {
        Ok(d) => {
            let nominal = d
                .nominal_ghz
                .map(|g| format!("; the OS reports {g:.2} GHz"))
                .unwrap_or_default();
            format!(
                "\nDatasheet peak of this CPU: {}\n  ({}; clock measured with a chain of dependent adds{nominal})\n  The peak measured above is {:.0}% of it: the CPU lessons' \"% of peak\" is of the measured one.\n",
                d.formula(),
                d.units.source,
                100.0 * measured / d.gflops()
            )
        }
        Err(why) => format!("\nNo datasheet peak for this CPU: {why}.\n"),
    }
}

/// The roofline: the two ceilings, where they meet, and what that asks of a matrix product.
fn roofline(p: &peak::Peak) -> String {
    let ridge = p.ridge();
    let mut out = format!(
        "\nPeak: {:.1} GFLOP/s ({}), bandwidth {:.1} GB/s\n",
        p.gflops,
        vector_type(p.best_width),
        p.bandwidth_gbs
    );
    out.push_str(&format!(
        "Roofline ridge: {:.1} FLOP/byte. A kernel doing fewer FLOP per byte of global memory \
         traffic is limited by bandwidth; above it, by arithmetic.\n",
        ridge
    ));
    out.push_str(&format!(
        "For C = A·B (n×n, f32): at best 2n³ FLOP over 12n² bytes = n/6 FLOP/byte, so n ≥ {:.0} \
         could reach the peak.\n",
        (6.0 * ridge).ceil()
    ));
    out.push_str(&format!(
        "  naive kernel, every operand from global memory: 1/4 FLOP/byte, at most {:.1} GFLOP/s\n",
        p.bandwidth_gbs / 4.0
    ));
    out.push_str(&format!(
        "  T×T tiles reused from local memory: T/4 FLOP/byte, so tiles of T ≥ {:.0} are needed\n",
        (4.0 * ridge).ceil()
    ));
    out
}
