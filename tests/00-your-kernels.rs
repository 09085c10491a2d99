//! Every lesson's file in your folder, graded as `cargo lab` grades it: `cargo test -- --ignored`
//! runs this program first and grades every lesson here (cargo stops at the first test program
//! that fails, so a lesson's own test file would show only the first lesson that does not pass).
//! One lesson: `cargo test --test 05_local_tiling -- --ignored`. Written from the ladder
//! (src/ladder.rs) by `cargo run -- layout --write`.

mod common;

use common::student::{your_kernel, NotPassed};

#[test]
#[ignore]
fn lesson_01() -> Result<(), NotPassed> {
    your_kernel("01")
}

#[test]
#[ignore]
fn lesson_02() -> Result<(), NotPassed> {
    your_kernel("02")
}

#[test]
#[ignore]
fn lesson_03() -> Result<(), NotPassed> {
    your_kernel("03")
}

#[test]
#[ignore]
fn lesson_03b() -> Result<(), NotPassed> {
    your_kernel("03b")
}

#[test]
#[ignore]
fn lesson_04() -> Result<(), NotPassed> {
    your_kernel("04")
}

#[test]
#[ignore]
fn lesson_05() -> Result<(), NotPassed> {
    your_kernel("05")
}

#[test]
#[ignore]
fn lesson_06() -> Result<(), NotPassed> {
    your_kernel("06")
}

#[test]
#[ignore]
fn lesson_07() -> Result<(), NotPassed> {
    your_kernel("07")
}

#[test]
#[ignore]
fn lesson_08() -> Result<(), NotPassed> {
    your_kernel("08")
}

#[test]
#[ignore]
fn lesson_09() -> Result<(), NotPassed> {
    your_kernel("09")
}

#[test]
#[ignore]
fn lesson_10() -> Result<(), NotPassed> {
    your_kernel("10")
}

#[test]
#[ignore]
fn lesson_11() -> Result<(), NotPassed> {
    your_kernel("11")
}

#[test]
#[ignore]
fn lesson_12() -> Result<(), NotPassed> {
    your_kernel("12")
}
