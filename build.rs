//! Compiles the student's CPU lessons (Rust files in `kernels/`, or in `$LAB_KERNELS`) into the
//! crate. A missing file becomes a stub that reports "missing" instead of breaking the build.

use std::env;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The CPU lessons' files and the functions each must define.
const CPU_FILES: &[(&str, &str, &[&str])] = &[
    ("naive", "01_cpu_naive.rs", &["matmul"]),
    (
        "loop_order",
        "02_cpu_loop_order.rs",
        &["matmul_ikj", "matmul_blocked"],
    ),
    ("parallel", "03_cpu_parallel.rs", &["matmul_parallel"]),
];

fn main() {
    println!("cargo:rerun-if-env-changed=LAB_KERNELS");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let dir = match env::var_os("LAB_KERNELS") {
        Some(d) if !d.is_empty() => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                env::current_dir().unwrap().join(d)
            }
        }
        _ => manifest.join("kernels"),
    };
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rustc-env=LAB_CPU_KERNELS_DIR={}", dir.display());

    let mut out = String::new();
    for (module, file, functions) in CPU_FILES {
        let path = dir.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(out, "pub mod {module} {{").unwrap();
        if path.is_file() {
            writeln!(out, "    include!({:?});", path.display().to_string()).unwrap();
        } else {
            for f in *functions {
                writeln!(
                    out,
                    "    pub fn {f}(_: &[f32], _: &[f32], _: &mut [f32], _: usize, _: usize, _: usize) {{ \
                     panic!(\"LAB_MISSING_FILE {}\") }}",
                    path.display()
                )
                .unwrap();
            }
        }
        writeln!(out, "}}").unwrap();
    }
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    std::fs::write(out_dir.join("student_cpu.rs"), out).unwrap();
}
