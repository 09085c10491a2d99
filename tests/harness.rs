//! The harness rejects broken kernels, each with a message that says where and what.
//! The kernels are lesson 04's, wrong on purpose, in tests/wrong/04_naive_kernel/.

use lab::grade::FailKind;
use lab::testing::{assert_rejected, assert_rejected_with, impatient};

#[test]
fn rejects_a_write_out_of_bounds() {
    let v = assert_rejected(
        4,
        "out_of_bounds",
        FailKind::OutOfBounds,
        &["outside C", "past the end", "row"],
    );
    println!("{}", v.message());
}

#[test]
fn rejects_a_kernel_that_never_writes_c() {
    assert_rejected(
        4,
        "never_writes",
        FailKind::Unwritten,
        &["never wrote C", "NaN"],
    );
}

#[test]
fn rejects_a_wrong_index_naming_the_first_wrong_element() {
    assert_rejected(
        4,
        "wrong_index",
        FailKind::Wrong,
        &["row 0, column 0", "expected", "got", "max relative error"],
    );
}

#[test]
fn rejects_a_kernel_that_never_finishes() {
    let t = std::time::Instant::now();
    assert_rejected_with(
        4,
        "never_finishes",
        FailKind::Hang,
        &["did not finish", "running"],
        &impatient(5),
    );
    assert!(
        t.elapsed().as_secs() < 120,
        "the watchdog let the kernel run for {:?}",
        t.elapsed()
    );
}

#[test]
fn rejects_a_kernel_that_does_not_compile_and_shows_the_build_log() {
    let v = assert_rejected(
        4,
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
    assert_rejected(
        4,
        "wrong_arguments",
        FailKind::Signature,
        &["takes 5 argument", "passes 6", "const int K"],
    );
}

#[test]
fn rejects_a_kernel_with_another_name() {
    assert_rejected(
        4,
        "wrong_name",
        FailKind::Signature,
        &["no kernel named `matmul`", "`gemm`"],
    );
}

#[test]
fn rejects_a_kernel_that_writes_into_its_inputs() {
    assert_rejected(
        4,
        "writes_into_b",
        FailKind::InputsChanged,
        &["wrote into B", "row 0, column 0"],
    );
}

#[test]
fn a_missing_file_is_reported_not_a_crash() {
    let lesson = lab::lessons::get(4);
    let v = lab::grade::grade(
        lesson,
        &lab::grade::Source::File("tests/wrong/nowhere.cl".into()),
        &lab::testing::options(),
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
    let err = lab::device::pick(Some("no-such-device-anywhere"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("no device matches"), "{err}");
    let err = lab::device::pick(Some("999")).unwrap_err().to_string();
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
