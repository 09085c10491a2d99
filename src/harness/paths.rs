//! Where the course's files live.
//!
//! Files are found from the course's root folder, never from the current directory, so a
//! program works wherever it is started. The root is read once, at the edge of each program
//! ([`Course::from_env`]: `LAB_ROOT`, else the crate's own folder), and passed down.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The course's root folder and the folders in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Course {
    root: PathBuf,
}

impl Course {
    pub fn new(root: impl Into<PathBuf>) -> Course {
        Course { root: root.into() }
    }

    /// `LAB_ROOT` if set (a built binary pointed at another copy of the repository), else the
    /// folder this crate was built from. For `main` functions and tests only.
    pub fn from_env() -> Course {
        match std::env::var_os("LAB_ROOT") {
            Some(dir) if !dir.is_empty() => Course::new(absolute(Path::new(&dir))),
            _ => Course::new(env!("CARGO_MANIFEST_DIR")),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The student's folder: the starters, as edited.
    pub fn kernels(&self) -> PathBuf {
        self.root.join("kernels")
    }

    /// The reference answers.
    pub fn solutions(&self) -> PathBuf {
        self.root.join("solutions")
    }

    /// Recorded measurements.
    pub fn results(&self) -> PathBuf {
        self.root.join("results")
    }

    /// The graders and their wrong-on-purpose kernels.
    pub fn tests(&self) -> PathBuf {
        self.root.join("tests")
    }

    /// The lessons' programs and host code.
    pub fn lessons(&self) -> PathBuf {
        self.root.join("lessons")
    }

    /// The book's sources.
    pub fn book(&self) -> PathBuf {
        self.root.join("book").join("src")
    }

    /// The course's lockfile: a student's CPU crate is built with the same versions.
    pub fn lockfile(&self) -> PathBuf {
        self.root.join("Cargo.lock")
    }

    /// Where student CPU crates are built and cached: `target/lab-student` under the root.
    pub fn student_builds(&self) -> PathBuf {
        self.root.join("target").join("lab-student")
    }
}

/// The file `name` in the first folder of `PATH` that has it.
pub fn on_path(name: &str) -> Option<PathBuf> {
    on_path_in(std::env::var_os("PATH").as_deref(), name)
}

/// [`on_path`] with a given `PATH`.
pub fn on_path_in(path_var: Option<&std::ffi::OsStr>, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
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

/// A path as shown to the user: relative to the current directory when it lies inside it
/// (`kernels/05_local_tiling.cl` for someone working in the repository), else in full.
pub fn display(path: &Path) -> String {
    let full = path.canonicalize().unwrap_or_else(|_| absolute(path));
    let here = std::env::current_dir().and_then(|d| d.canonicalize());
    match here {
        Ok(here) => match full.strip_prefix(&here) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => path.display().to_string(),
        },
        Err(_) => path.display().to_string(),
    }
}

/// Whether two paths name the same file or folder on disk.
pub fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_hang_off_the_root() {
        let c = Course::new("/x/course");
        assert_eq!(c.kernels(), PathBuf::from("/x/course/kernels"));
        assert_eq!(c.solutions(), PathBuf::from("/x/course/solutions"));
        assert_eq!(c.book(), PathBuf::from("/x/course/book/src"));
        assert_eq!(
            c.student_builds(),
            PathBuf::from("/x/course/target/lab-student")
        );
    }

    #[test]
    fn display_is_relative_inside_the_current_directory() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(display(&here.join("Cargo.toml")), "Cargo.toml");
        assert_eq!(display(Path::new("/nonexistent/x.cl")), "/nonexistent/x.cl");
    }

    #[test]
    fn a_program_is_found_in_the_first_folder_of_path_that_has_it() {
        let tmp = crate::harness::child::Scratch::new("path").unwrap();
        let (a, b) = (tmp.dir.join("a"), tmp.dir.join("b"));
        for d in [&a, &b] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("tool"), "").unwrap();
        }
        std::fs::create_dir_all(a.join("dir")).unwrap();
        let path = std::env::join_paths([&a, &b]).unwrap();
        assert_eq!(on_path_in(Some(&path), "tool"), Some(a.join("tool")));
        // A folder of that name is not the program.
        std::fs::create_dir_all(b.join("dir")).unwrap();
        assert_eq!(on_path_in(Some(&path), "dir"), None);
        assert_eq!(on_path_in(Some(&path), "absent"), None);
        assert_eq!(on_path_in(None, "tool"), None);
    }
}
