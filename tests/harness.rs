//! The harness rejects broken kernels, each with a message that says where and what.
//! The kernels are lesson 04's, wrong on purpose, in tests/wrong/04_naive_kernel/.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn rejects_a_write_out_of_bounds() {
    let v = g().rejects(
        "04",
        "out_of_bounds",
        FailKind::OutOfBounds,
        &["outside C", "past the end", "row"],
    );
    println!("{}", v.message());
}

#[test]
fn rejects_a_kernel_that_never_writes_c() {
    g().rejects(
        "04",
        "never_writes",
        FailKind::Unwritten,
        &["never wrote C", "NaN"],
    );
}

#[test]
fn rejects_a_wrong_index_naming_the_first_wrong_element() {
    g().rejects(
        "04",
        "wrong_index",
        FailKind::Wrong,
        &["row 0, column 0", "expected", "got", "max relative error"],
    );
}

#[test]
fn rejects_a_kernel_that_never_finishes() {
    let t = std::time::Instant::now();
    g().impatient(20).rejects(
        "04",
        "never_finishes",
        FailKind::Hang,
        &["did not finish", "running"],
    );
    assert!(
        t.elapsed().as_secs() < 120,
        "the watchdog let the kernel run for {:?}",
        t.elapsed()
    );
}

#[test]
fn rejects_a_kernel_that_does_not_compile_and_shows_the_build_log() {
    let v = g().rejects(
        "04",
        "does_not_compile",
        FailKind::Build,
        &["does_not_compile.cl", "did not compile", "acc"],
    );
    // The whole log is shown, line by line.
    assert!(
        v.message()
            .lines()
            .filter(|l| l.starts_with("  | "))
            .count()
            >= 1,
        "{}",
        v.message()
    );
}

#[test]
fn rejects_a_wrong_argument_list_without_panicking() {
    g().rejects(
        "04",
        "wrong_arguments",
        FailKind::Signature,
        &["takes 5 argument", "passes 6", "const int K"],
    );
}

#[test]
fn rejects_a_kernel_with_another_name() {
    g().rejects(
        "04",
        "wrong_name",
        FailKind::Signature,
        &["no kernel named `matmul`", "`gemm`"],
    );
}

#[test]
fn rejects_a_kernel_that_writes_into_its_inputs() {
    g().rejects(
        "04",
        "writes_into_b",
        FailKind::InputsChanged,
        &["wrote into B", "row 0, column 0"],
    );
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
    let empty = std::env::temp_dir().join(format!("lab-no-vendors-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
        .env("OCL_ICD_VENDORS", &empty)
        .output()
        .expect("the scoreboard binary runs");
    let _ = std::fs::remove_dir_all(&empty);
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
fn printed_lines_cannot_forge_a_verdict() {
    let v = g().rejects(
        "04",
        "prints_a_forged_verdict",
        FailKind::Wrong,
        &["expected", "got 1.0"],
    );
    assert!(v.printed.contains("LAB-EVENT"), "{v:?}");
}

#[test]
fn a_flood_of_printf_still_gets_its_real_verdict() {
    let g = g().with(|o| {
        o.shapes = Some(vec![
            lab::harness::matrix::Shape::new(7, 13, 5),
            lab::harness::matrix::Shape::new(131, 97, 150),
        ])
    });
    let v = g.grade_file("04", g.wrong("04", "prints_every_multiply_add"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(v.printed.contains("acc"), "{v:?}");
    assert!(
        v.printed.contains("bytes in all"),
        "the flood is shortened: {v:?}"
    );
    assert!(v.printed.lines().count() < 40, "{}", v.printed);
}
