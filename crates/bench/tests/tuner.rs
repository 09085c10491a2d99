//! The autotuner and the CLBlast peer, on whatever OpenCL device the machine has.

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::sync::{Mutex, MutexGuard};

use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::ladder::l10_tuned::{self, tuner::Params};
use lab::tuner::{self, TuneOptions};
use lab_bench::peers;

fn g() -> common::Grader {
    common::grader()
}

/// One OpenCL user at a time: these tests share the process, and some drivers (PoCL among
/// them) do not take kindly to contexts created and dropped from several threads at once.
static DEVICE: Mutex<()> = Mutex::new(());

fn device() -> MutexGuard<'static, ()> {
    DEVICE.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn a_small_tuning_run_checks_times_and_records_a_winner() {
    let _one = device();
    let g = g();
    let opts = TuneOptions {
        course: g.opts.course.clone(),
        device: g.opts.device.clone(),
        shape: Some(Shape::square(96)),
        budget: Some(3),
        time_ms: 20.0,
        progress: false,
        kernels: None,
    };
    let out = tuner::tune(&l10_tuned::LESSON, &opts).expect("the tuner runs");
    assert_eq!(out.tried, 3);
    assert_eq!(out.build_failed + out.check_failed, 0, "{}", out.report(3));
    let best = out.best().expect("a winner").defines.clone();
    assert!(
        out.defaults.is_some(),
        "the device's own defines are always tried first"
    );
    let text = out.report(3);
    assert!(
        text.contains("GFLOP/s") && text.contains(&lab::harness::program::line(&best)),
        "{text}"
    );

    let tmp = lab::harness::child::Scratch::new("tune").unwrap();
    let dir = tmp.dir.clone();
    let path = dir.join("tuned.csv");
    out.write(&path).unwrap();
    let gpu = Gpu::open(opts.device.as_deref()).unwrap();
    assert_eq!(
        l10_tuned::tuner::tuned_from(&path, &gpu.info),
        Params::from_defines(&best).ok()
    );
}

#[test]
fn a_lesson_without_knobs_is_refused_by_name() {
    let g = g();
    let opts = TuneOptions {
        course: g.opts.course.clone(),
        device: g.opts.device.clone(),
        shape: Some(Shape::square(64)),
        budget: None,
        time_ms: 20.0,
        progress: false,
        kernels: None,
    };
    let why = match tuner::tune(lab::ladder::find("05").unwrap(), &opts) {
        Ok(_) => panic!("lesson 05 has no knobs, yet it was tuned"),
        Err(e) => format!("{e:#}"),
    };
    assert!(why.contains("05_local_tiling declares no knobs"), "{why}");
}

#[test]
fn tuning_a_folder_tunes_its_kernel_and_checks_every_configuration() {
    let _one = device();
    let g = g();
    let tmp = lab::harness::child::Scratch::new("tune-dir").unwrap();
    let store = "    // EXERCISE(10.4) BEGIN: store acc";
    let reference = std::fs::read_to_string(g.opts.course.solutions().join("10_tuned.cl")).unwrap();
    assert!(
        reference.contains(store),
        "the reference's store is where this test expects"
    );
    // Right for the first element of every work-item's block but that one: wrong everywhere.
    let wrong = reference.replace(store, &format!("    acc[0][0] = (float4)(1.0f);\n{store}"));
    std::fs::write(tmp.dir.join("10_tuned.cl"), wrong).unwrap();
    let opts = TuneOptions {
        course: g.opts.course.clone(),
        device: g.opts.device.clone(),
        shape: Some(Shape::square(96)),
        budget: Some(2),
        time_ms: 20.0,
        progress: false,
        kernels: Some(tmp.dir.clone()),
    };
    let out = tuner::tune(&l10_tuned::LESSON, &opts).expect("the tuner runs");
    let text = out.report(2);
    assert_eq!(out.file, tmp.dir.join("10_tuned.cl"), "{text}");
    assert_eq!(out.tried, 2, "{text}");
    assert_eq!(
        out.check_failed, 2,
        "the folder's wrong kernel was tuned: {text}"
    );
    assert!(out.best().is_none(), "{text}");
    let why = out.first_failure.as_deref().unwrap_or_default();
    assert!(why.contains("expected"), "{why}");
}

#[test]
fn clblast_absent_is_a_message_not_an_error() {
    let why = match peers::load(Some("/nonexistent/libclblast.so")) {
        Ok(_) => panic!("a library that does not exist was loaded"),
        Err(e) => e.to_string(),
    };
    assert!(
        why.contains("CLBLAST_LIBRARY=/nonexistent/libclblast.so"),
        "{why}"
    );
    assert!(why.contains("could not be loaded"), "{why}");
}

#[test]
fn clblast_when_installed_computes_the_right_product() {
    // CI does not install CLBlast: then there is nothing to measure, and that is fine.
    let lib = match peers::load(None) {
        Ok(l) => l,
        Err(why) => {
            println!("{why}");
            return;
        }
    };
    let _one = device();
    let gpu = Gpu::open(g().opts.device.as_deref()).unwrap();
    let t = peers::clblast_sgemm(&lib, &gpu, Shape::new(70, 45, 33))
        .expect("CLBlast runs and its result checks out");
    assert!(t.device_ms > 0.0 && t.host_ms > 0.0, "{t:?}");
    assert_eq!(t.checked, t.reps, "every timed call is checked");
}

/// The CPU peers as the ladder times them: built into a driver like the CPU lessons' and timed
/// with the lessons' protocol, every call's C checked. OpenBLAS where it is installed.
#[test]
fn cpu_peers_are_served_and_timed_like_the_lessons() {
    let g = g();
    let builder = lab::grade::cpu::builder(&g.opts.course);
    let lib = peers::cpu_blas::load(None).ok();
    let own = lib.as_ref().map(|l| l.corename()).unwrap_or_default();
    let at = peers::cpu_served::OpenBlasAt {
        library: lib
            .as_ref()
            .map_or(peers::cpu_blas::NAMES[0], |l| l.path.as_str()),
        own_core: &own,
        avx512_core: peers::cpu_blas::AVX512_CORE,
    };
    let built = peers::cpu_served::build(&builder, &at).expect("the peers build");
    let mut functions = vec!["matrixmultiply", "gemm"];
    if lib.is_some() {
        functions.push("openblas");
    }
    let limit = std::time::Duration::from_secs(120);
    for f in functions {
        for threads in [1, 2] {
            let t = peers::cpu_served::time(&built, f, Shape::new(67, 45, 33), threads, limit)
                .unwrap_or_else(|e| panic!("{f} on {threads} threads: {e:#}"));
            assert!(t.device_ms > 0.0 && t.reps >= 3, "{f}: {t:?}");
            assert_eq!(t.checked, t.reps, "{f}: every timed call is checked");
        }
    }
}
