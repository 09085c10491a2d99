//! The CPU peers timed exactly as the CPU lessons are. A lesson's function runs in a driver
//! process of its own, confined, and is timed from the grader's `go` to the moment every
//! thread of that process is paused, on inputs the driver draws fresh for each call
//! ([`lab::grade::cpu::time_at`]). A peer timed inside the ladder's own process would skip
//! all of that, and a comparison of the two would charge the protocol to the lesson alone. So
//! the peers are a lesson file too ([`SOURCE`]), built by the same builder with the course's
//! own matrixmultiply, `gemm` and libc beside rayon, and served by the same driver.

use std::time::Duration;

use anyhow::{Context as _, Result};

use lab::harness::cpu_crate::{write_if_changed, Builder, Built, Flavour};
use lab::harness::matrix::Shape;
use lab::harness::timing::Timing;

/// The peers' lesson file, without the two constants [`build`] appends.
pub const SOURCE: &str = include_str!("cpu_served_peers.rs");

/// The functions it serves, in the driver's order.
pub const FUNCTIONS: [&str; 4] = ["openblas", "openblas_avx512", "matrixmultiply", "gemm"];

/// The crates beside rayon, with the features the course's own build of them has (its
/// Cargo.toml; matrixmultiply's defaults, `std` and `avx512`, written out).
const CRATES: &[(&str, &str)] = &[
    ("matrixmultiply", "\"std\", \"avx512\", \"threading\""),
    ("gemm", "\"std\", \"rayon\", \"x86-v4\""),
    ("libc", "\"std\""),
];

/// OpenBLAS as the peers' file loads it.
pub struct OpenBlasAt<'a> {
    /// A path, or a name the loader finds.
    pub library: &'a str,
    /// The core type of function `openblas`.
    pub own_core: &'a str,
    /// The core type of function `openblas_avx512`.
    pub avx512_core: &'a str,
}

/// The peers' file, written into the builder's folder and built for timing.
pub fn build(builder: &Builder, openblas: &OpenBlasAt) -> Result<Built> {
    let dir = builder.cache.join("peers");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = dir.join("peers.rs");
    let text = format!(
        "{SOURCE}\n/// Where OpenBLAS is loaded from.\nconst OPENBLAS: &str = {:?};\n/// The core type it runs in the ladder's process.\nconst OWN_CORE: &str = {:?};\n/// Its core type with AVX-512 kernels.\nconst AVX512_CORE: &str = {:?};\n",
        openblas.library,
        openblas.own_core,
        openblas.avx512_core
    );
    write_if_changed(&file, &text)?;
    builder
        .build_with(&file, &FUNCTIONS, Flavour::Timed, CRATES)
        .context("building the CPU peers into a driver like the lessons'")
}

/// Times peer `function` of the built file at `shape` on a pool of `threads`, with the
/// lessons' protocol, every call's C checked.
pub fn time(
    built: &Built,
    function: &str,
    shape: Shape,
    threads: usize,
    limit: Duration,
) -> Result<Timing> {
    lab::grade::cpu::time_at(built, function, shape, threads, limit)
        .map_err(|f| anyhow::anyhow!("{}", f.message))
}
