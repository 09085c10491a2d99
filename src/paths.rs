//! Where the course's files live.
//!
//! Files are found from the crate, never from the current directory, so a lesson binary
//! works wherever it is started. `LAB_ROOT` points a built binary at another copy of the
//! repository; `LAB_KERNELS` (or `--kernels DIR`) points the grader at any folder of kernels.

use std::path::{Path, PathBuf};

/// The repository root: `LAB_ROOT` if set, else the crate's own folder.
pub fn root() -> PathBuf {
    match std::env::var_os("LAB_ROOT") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    }
}

/// The folder of the student's kernels: `LAB_KERNELS` if set, else `kernels/` under the root.
pub fn kernels_dir() -> PathBuf {
    match std::env::var_os("LAB_KERNELS") {
        Some(dir) if !dir.is_empty() => absolute(Path::new(&dir)),
        _ => root().join("kernels"),
    }
}

/// The folder of the reference answers.
pub fn solutions_dir() -> PathBuf {
    root().join("solutions")
}

/// The folder of recorded measurements.
pub fn results_dir() -> PathBuf {
    root().join("results")
}

/// The folder the CPU lessons (Rust code, compiled into the crate) were built from.
pub fn compiled_cpu_kernels_dir() -> PathBuf {
    PathBuf::from(env!("LAB_CPU_KERNELS_DIR"))
}

/// `path` made absolute against the current directory, without touching the file system.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}

/// A path shown to the user: relative to the repository root when it lies inside it.
pub fn display(path: &Path) -> String {
    let root = root();
    let root = root.canonicalize().unwrap_or(root);
    let full = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    match full.strip_prefix(&root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// Whether two folders are the same folder on disk.
pub fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
