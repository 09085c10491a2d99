//! Lesson 00's micro-benchmarks on the default device, in quick mode: every vector width's
//! chains match the CPU, the copy arrives intact, and the rates are finite and positive.
//! No timing thresholds: the device and its load are unknown.

use std::sync::{Mutex, MutexGuard};

use lab::harness::device::Gpu;
use lab::ladder::l00_your_device::microbench::{self, Chains, Options, WIDTHS};

/// One test at a time on the device: some drivers (PoCL among them) crash when several
/// threads of one process open contexts at once, and timings would disturb each other.
static DEVICE: Mutex<()> = Mutex::new(());

fn gpu() -> (MutexGuard<'static, ()>, Gpu) {
    let guard = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    let gpu =
        Gpu::open(lab::cli::Edge::from_env().unwrap().device.as_deref()).expect("an OpenCL device");
    (guard, gpu)
}

#[test]
fn micro_benchmarks_are_checked_and_finite() {
    let (_lock, gpu) = gpu();
    let opts = quick();
    let report = microbench::measure(&gpu, &opts, |_| {}).expect("the micro-benchmarks run");
    assert_eq!(report.flops.len(), WIDTHS.len());
    for r in &report.flops {
        assert!(
            r.gflops.is_finite() && r.gflops > 0.0,
            "width {}: {}",
            r.width,
            r.gflops
        );
        assert!(r.ms > 0.0 && r.check.checked > 0, "width {}", r.width);
        assert!(r.iters % microbench::UNROLL == 0);
    }
    let bw = &report.bandwidth;
    assert!(bw.gbs.is_finite() && bw.gbs > 0.0, "{}", bw.gbs);
    let peak = report.peak(&gpu.info).expect("a peak");
    assert_eq!(peak.device, gpu.info.name);
    assert!(peak.ridge().is_finite() && peak.ridge() > 0.0);
    assert!(WIDTHS.contains(&peak.best_width));
}

#[test]
fn a_chain_that_skipped_steps_is_caught() {
    // A kernel whose loop stops halfway, as a compiler that shortened it would make it: run
    // 512 of the 1024 steps' recurrence; the check must refuse the output.
    let (_lock, gpu) = gpu();
    let chains = Chains::new(&gpu, 4, Some(512), &quick()).expect("build");
    chains.launch(&gpu, 1024).expect("launch");
    let out = chains.read(&gpu).expect("read");
    let ok = microbench::verify(&out, 4, chains.chains, 1024).expect("1024 steps check out");
    assert!(ok.checked > 0);
    let ab = microbench::coefficients(1024);
    chains.launch_with(&gpu, 512, ab).expect("launch");
    let out = chains.read(&gpu).expect("read");
    let err = microbench::verify(&out, 4, chains.chains, 1024)
        .expect_err("512 steps must not pass for 1024")
        .to_string();
    assert!(
        err.contains("wrong") && err.contains("CPU gets"),
        "the message says what is wrong: {err}"
    );
}

#[test]
fn launch_refuses_a_step_count_the_kernel_cannot_do() {
    let (_lock, gpu) = gpu();
    let chains = Chains::new(&gpu, 1, Some(64), &quick()).expect("build");
    let err = chains
        .launch(&gpu, 100)
        .expect_err("100 is not a multiple of 16");
    assert!(err.to_string().contains("multiple of"), "{err}");
}

fn quick() -> Options {
    Options {
        quick: true,
        kernels: microbench::kernel_path(&lab::harness::paths::Course::from_env().solutions()),
    }
}
