//! Confinement for the student's CPU code: where bubblewrap (`bwrap`) is installed and works,
//! the student's program sees the file system read-only except its own scratch folder, a
//! private /tmp, and no network. Elsewhere it runs with the grader's rights, and the verdict
//! says so in one line.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// How the student's CPU code is run.
#[derive(Clone, Debug)]
pub enum Confinement {
    Bubblewrap(PathBuf),
    /// Not confined, and why.
    Open(String),
}

impl Confinement {
    /// One line for the verdict when the code ran unconfined.
    pub fn notice(&self) -> Option<String> {
        match self {
            Confinement::Bubblewrap(_) => None,
            Confinement::Open(why) => Some(format!(
                "your CPU code ran without a sandbox ({why}); install bubblewrap (`sudo apt-get install bubblewrap`) to confine it"
            )),
        }
    }
}

/// Finds a working bubblewrap once per process.
pub fn detect() -> &'static Confinement {
    static FOUND: OnceLock<Confinement> = OnceLock::new();
    FOUND.get_or_init(|| {
        if !cfg!(target_os = "linux") {
            return Confinement::Open("bubblewrap is Linux only".into());
        }
        let Some(bwrap) = crate::harness::paths::on_path("bwrap") else {
            return Confinement::Open("bubblewrap is not installed".into());
        };
        // Some containers forbid the namespaces bubblewrap needs: try it once.
        let ok = Command::new(&bwrap)
            .args(base_args())
            .arg("true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            Confinement::Bubblewrap(bwrap)
        } else {
            Confinement::Open("bubblewrap is installed but cannot create a sandbox here".into())
        }
    })
}

fn base_args() -> Vec<&'static str> {
    vec![
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--unshare-net",
        "--unshare-ipc",
        "--die-with-parent",
        "--new-session",
    ]
}

/// A command that runs `program` with `args` in `cwd`, confined as `confinement` says:
/// `writable` folders stay writable, `program` and the `readable` paths stay readable
/// (the rest of the file system is read-only, and /tmp is private).
pub fn command(
    confinement: &Confinement,
    program: &Path,
    args: &[impl AsRef<OsStr>],
    cwd: &Path,
    readable: &[&Path],
    writable: &[&Path],
) -> Command {
    match confinement {
        Confinement::Bubblewrap(bwrap) => {
            let mut cmd = Command::new(bwrap);
            cmd.args(base_args());
            // The private /tmp hides whatever lay under /tmp, a course cloned there
            // included: bind back what the program needs.
            for r in std::iter::once(&program).chain(readable) {
                cmd.arg("--ro-bind").arg(r).arg(r);
            }
            for w in writable {
                cmd.arg("--bind").arg(w).arg(w);
            }
            cmd.arg("--chdir")
                .arg(cwd)
                .arg("--")
                .arg(program)
                .args(args);
            cmd
        }
        Confinement::Open(_) => {
            let mut cmd = Command::new(program);
            cmd.args(args).current_dir(cwd);
            cmd
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A program under /tmp (a course cloned there) still runs in the sandbox, reading a
    /// file beside it and writing to its scratch folder.
    #[test]
    fn runs_a_program_that_lies_under_tmp() {
        let Confinement::Bubblewrap(_) = detect() else {
            eprintln!("bubblewrap cannot run here: nothing to check");
            return;
        };
        let tmp = crate::harness::child::Scratch::new("sandbox").unwrap();
        let dir = tmp.dir.clone();
        let scratch = dir.join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let program = dir.join("copy");
        std::fs::copy("/bin/cp", &program).unwrap();
        let input = dir.join("input");
        std::fs::write(&input, "42").unwrap();
        let output = scratch.join("output");
        let status = command(
            detect(),
            &program,
            &[input.as_os_str(), output.as_os_str()],
            &scratch,
            &[&input],
            &[&scratch],
        )
        .status()
        .unwrap();
        let copied = std::fs::read_to_string(&output);
        assert!(status.success(), "{status}");
        assert_eq!(copied.unwrap(), "42");
    }
}
