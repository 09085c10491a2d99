//! The harness around the graders: a missing file, an unknown device, a machine without
//! OpenCL and a flood of printing each get a clear answer. (Lesson 04's kernels that are
//! wrong on purpose are cases of its grader: tests/cases/04_naive_kernel.rs.)

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn a_missing_file_is_reported_not_a_crash() {
    let lesson = lab::ladder::get("04");
    let v = lab::grade::grade(
        lesson,
        &lab::grade::Source::File("tests/wrong/nowhere.cl".into()),
        &g().opts,
    );
    assert_eq!(
        v.kind(),
        Some(FailKind::Missing),
        "{}",
        lab::report::verdict(&v)
    );
    assert!(v.message().contains("nowhere.cl"));
}

#[test]
fn an_unknown_device_is_a_clear_error() {
    let err = lab::harness::device::pick(Some("no-such-device-anywhere"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no device matches"), "{err}");
    let err = lab::harness::device::pick(Some("999"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("there is no device 999"), "{err}");
}

#[test]
fn no_opencl_platform_is_one_clear_message_and_a_failing_exit() {
    // The ICD loader reads its drivers from OCL_ICD_VENDORS when set: an empty folder is a
    // machine with the loader installed and no driver.
    let tmp = lab::harness::child::Scratch::new("no-vendors").unwrap();
    let empty = tmp.dir.clone();
    std::fs::create_dir_all(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
        .env("OCL_ICD_VENDORS", &empty)
        .output()
        .expect("the scoreboard binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit status {:?}", out.status);
    assert!(stderr.contains("found no platform"), "{stderr}");
    assert!(
        stderr.contains("sudo apt-get install pocl-opencl-icd"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_flood_of_printf_still_gets_its_real_verdict() {
    let g = g().with(|o| {
        o.shapes = Some(vec![
            lab::harness::matrix::Shape::new(7, 13, 5),
            lab::harness::matrix::Shape::new(131, 97, 150),
        ])
    });
    let v = g.grade_file("04", g.right("04", "prints_every_multiply_add"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(v.printed.contains("acc"), "{v:?}");
    assert!(
        v.printed.contains("bytes in all"),
        "the flood is shortened: {v:?}"
    );
    assert!(v.printed.lines().count() < 40, "{}", v.printed);
}
