//! The autotuner and the CLBlast peer, on whatever OpenCL device the machine has.

use std::sync::{Mutex, MutexGuard};

use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::ladder::l10_tuned::tuner::{self, TuneOptions};
use lab::peers;

fn g() -> lab::testing::Grader {
    lab::grader!()
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
        size: Some(96),
        budget: Some(3),
        time_ms: 20.0,
        progress: false,
    };
    let out = tuner::tune(&opts).expect("the tuner runs");
    assert_eq!(out.tried, 3);
    assert_eq!(out.build_failed + out.check_failed, 0, "{}", out.report(3));
    let best = out.best().expect("a winner").params;
    assert!(
        out.defaults.is_some(),
        "the defaults are always tried first"
    );
    let text = out.report(3);
    assert!(
        text.contains("GFLOP/s") && text.contains(&best.to_string()),
        "{text}"
    );

    let dir = std::env::temp_dir().join(format!("lab-tune-{}", std::process::id()));
    let path = dir.join("tuned.csv");
    out.write(&path).unwrap();
    let gpu = Gpu::open(opts.device.as_deref()).unwrap();
    assert_eq!(tuner::tuned_from(&path, &gpu.info), Some(best));
    std::fs::remove_dir_all(dir).unwrap();
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

#[test]
fn matrixmultiply_is_checked_and_timed() {
    let t = peers::time_matrixmultiply(Shape::new(67, 45, 33)).expect("checked");
    assert!(t.device_ms > 0.0 && t.reps >= 3, "{t:?}");
    assert_eq!(t.checked, t.reps, "every timed call is checked");
}
