//! Confinement for the student's CPU code: where bubblewrap (`bwrap`) is installed and works,
//! the student's program runs in namespaces of its own (user, process ids, mounts, network,
//! IPC, host name): it sees only its own processes in its own /proc (never the grader, whose
//! files `/proc/<pid>/root` would reach), the file system read-only except its own scratch
//! folder, a private /tmp, the grader's scratch folders and the course's answers hidden, and
//! no network. Elsewhere it runs with the grader's rights, and the verdict says so in one
//! line.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// How the student's CPU code is run.
#[derive(Clone, Debug)]
pub enum Confinement {
    /// bubblewrap, and the namespace flags this machine allows.
    Bubblewrap(PathBuf, &'static [&'static str]),
    /// Not confined, and why.
    Open(String),
}

impl Confinement {
    /// One line for the verdict when the code ran unconfined.
    pub fn notice(&self) -> Option<String> {
        match self {
            Confinement::Bubblewrap(..) => None,
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
        // Some containers forbid the namespaces bubblewrap needs: try it once, with the
        // strongest set of namespaces first.
        for &namespaces in NAMESPACES {
            let ok = Command::new(&bwrap)
                .args(namespaces)
                .args(base_args())
                .arg("true")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if ok {
                return Confinement::Bubblewrap(bwrap, namespaces);
            }
        }
        Confinement::Open(
            "bubblewrap is installed but cannot create a sandbox with its own process ids here"
                .into(),
        )
    })
}

/// The namespaces asked of bubblewrap, strongest first. Every set has its own process ids
/// (and so its own /proc): without them the student's program could find the grader among
/// its ancestors and reach its files through `/proc/<pid>/root`.
const NAMESPACES: &[&[&str]] = &[
    &["--unshare-user", "--unshare-all", "--disable-userns"],
    &["--unshare-user", "--unshare-all"],
    &[
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
    ],
];

fn base_args() -> Vec<&'static str> {
    vec![
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        // Read-only: /proc/self/mem, open for writing, lets a program rewrite its own code at
        // run time, valgrind's client requests included (the cache simulator's counting
        // switched off), with nothing of them in its source or its binary.
        "--remount-ro",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--die-with-parent",
        "--new-session",
    ]
}

/// Folders the student's program must not see, besides /tmp: the grader's scratch folders
/// (the system's temporary folder, where it is not /tmp) and `extra` (the course's answers).
fn hidden(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let temp = std::env::temp_dir();
    if !temp.starts_with("/tmp") && temp != Path::new("/") {
        out.push(temp);
    }
    out.extend(extra.iter().cloned());
    out.retain(|p| p.is_dir());
    out
}

/// What a confined program may see beyond the read-only file system.
pub struct View<'a> {
    /// Stay readable even under a hidden folder or /tmp.
    pub readable: &'a [&'a Path],
    /// Stay writable.
    pub writable: &'a [&'a Path],
    /// Emptied (the course's answers).
    pub hidden: &'a [PathBuf],
}

/// A command that runs `program` with `args` in `cwd`, confined as `confinement` says:
/// `view.writable` folders stay writable, `program` and the `view.readable` paths stay
/// readable, `view.hidden` folders look empty (the rest of the file system is read-only, and
/// /tmp is private).
pub fn command(
    confinement: &Confinement,
    program: &Path,
    args: &[impl AsRef<OsStr>],
    cwd: &Path,
    view: &View,
) -> Command {
    let (readable, writable) = (view.readable, view.writable);
    match confinement {
        Confinement::Bubblewrap(bwrap, namespaces) => {
            let mut cmd = Command::new(bwrap);
            cmd.args(*namespaces).args(base_args());
            for h in hidden(view.hidden) {
                cmd.arg("--tmpfs").arg(h);
            }
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

    /// The confined program reads its own /proc but cannot open its memory for writing,
    /// which would let it rewrite its own code.
    #[test]
    fn its_own_memory_cannot_be_written_through_proc() {
        let Confinement::Bubblewrap(..) = detect() else {
            eprintln!("bubblewrap cannot run here: nothing to check");
            return;
        };
        let tmp = crate::harness::child::Scratch::new("sandbox-mem").unwrap();
        let out = command(
            detect(),
            Path::new("/bin/sh"),
            &[
                "-c",
                "head -n 1 /proc/self/status; exec 3<>/proc/self/mem && echo opened for writing",
            ],
            &tmp.dir,
            &View {
                readable: &[],
                writable: &[&tmp.dir],
                hidden: &[],
            },
        )
        .output()
        .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let errors = String::from_utf8_lossy(&out.stderr);
        assert!(text.starts_with("Name:"), "{text}{errors}");
        assert!(!text.contains("opened for writing"), "{text}");
    }

    /// A program under /tmp (a course cloned there) still runs in the sandbox, reading a
    /// file beside it and writing to its scratch folder.
    #[test]
    fn runs_a_program_that_lies_under_tmp() {
        let Confinement::Bubblewrap(..) = detect() else {
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
            &View {
                readable: &[&input],
                writable: &[&scratch],
                hidden: &[],
            },
        )
        .status()
        .unwrap();
        let copied = std::fs::read_to_string(&output);
        assert!(status.success(), "{status}");
        assert_eq!(copied.unwrap(), "42");
    }

    /// The confined program sees its own processes only, and no way to the files of the
    /// process that started it; a hidden folder reads empty.
    #[test]
    fn the_program_sees_neither_the_grader_nor_hidden_folders() {
        let Confinement::Bubblewrap(..) = detect() else {
            eprintln!("bubblewrap cannot run here: nothing to check");
            return;
        };
        // Outside /tmp, which the sandbox hides anyway.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join(format!("lab-sandbox-pid-{}", std::process::id()));
        let secret = dir.join("secret");
        std::fs::create_dir_all(&secret).unwrap();
        std::fs::write(secret.join("answer"), "42").unwrap();
        let script = format!(
            "ls /proc | grep -c '^[0-9]'; ls {} | wc -l; kill -0 {} 2>/dev/null && echo reached",
            secret.display(),
            std::process::id()
        );
        let out = command(
            detect(),
            Path::new("/bin/sh"),
            &["-c", &script],
            Path::new("/"),
            &View {
                readable: &[],
                writable: &[],
                hidden: std::slice::from_ref(&secret),
            },
        )
        .output()
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        // sh, ls and grep at most, and perhaps bubblewrap's own first process.
        let procs: usize = lines[0].trim().parse().unwrap();
        assert!(procs <= 5, "{text}");
        assert_eq!(lines[1].trim(), "0", "the hidden folder is empty: {text}");
        assert!(!text.contains("reached"), "{text}");
    }
}
