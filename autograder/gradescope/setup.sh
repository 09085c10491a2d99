#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: the course's own
# set-up script (OpenCL on the CPU with PoCL, the graders' tools, Rust), then the course's
# grader (the teacher's program, lab-teacher) built from /autograder/source. AUTOGRADER_ROOT
# stands for /autograder when tried elsewhere.
set -euo pipefail
root=${AUTOGRADER_ROOT:-/autograder}

bash "$root/source/scripts/setup.sh" --rust
command -v cargo >/dev/null || export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

cd "$root/source"
cargo build --release --locked -p lab-teacher
# The grader builds each student's CPU code against the course's crate: build that once here,
# with the course's own program grading one CPU lesson, so that a submission does not pay for it.
cargo build --release --locked --bin lab
target/release/lab --kernels solutions --lesson 1 --size 64 >/dev/null 2>&1 || true
