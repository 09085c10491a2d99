//! Building a student's CPU lesson file as a crate of its own, at grading time, and running
//! it on one problem.
//!
//! Each lesson file becomes a tiny package (rayon its only dependency, pinned by the
//! course's own lockfile and built `--offline`) whose `main` is [`super::cpu_driver`]. The
//! file is never compiled into the course: a syntax error fails that lesson alone, and the
//! student's code can reach neither the course's solutions nor its other dependencies. All
//! packages share one target folder, so rayon is built once, and cargo's own fingerprints
//! make re-grading an unchanged file a no-op.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};

use super::callgrind::{self, Counts as CallgrindCounts};
use super::child::{self, Captured, Scratch};
use super::cpu_driver::{self, Mode};
use super::cpu_session::{self, Called, Launch, Session};
use super::matrix::{Problem, Shape};
use super::paths;
use super::sandbox::View;

/// The code generation flags of the build of a student crate that is run, checked and timed
/// (as CARGO_ENCODED_RUSTFLAGS, separated by 0x1f): the machine's own CPU, so that the
/// compiler may use every vector instruction it has (AVX-512 where present, else AVX2 and
/// FMA on a recent x86-64), as a BLAS library picks its kernels at run time. matrixmultiply,
/// OpenBLAS and the `gemm` crate, the course's CPU peers, all use AVX-512 where the CPU has it.
pub const RUSTFLAGS: &str = "-Ctarget-cpu=native";

/// The flags of the second build, the one valgrind runs for the cache checks of lessons 02 and
/// 03b: the same CPU without AVX-512, whose instructions valgrind cannot decode (it stops at
/// the first one). Its cache behaviour is that of the same loops at half the vector width.
pub const SIMULATED_RUSTFLAGS: &str = "-Ctarget-cpu=native\x1f-Ctarget-feature=-avx512f";

/// The vector instructions a build with [`RUSTFLAGS`] may use on this machine and their
/// width in bits (("AVX-512", 512) on a CPU that has it), as the reports name them: read from
/// the CPU the grader runs on, which is the one `native` means.
pub fn simd() -> (&'static str, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            ("AVX-512", 512)
        } else if std::arch::is_x86_feature_detected!("avx") {
            ("AVX", 256)
        } else {
            ("SSE2", 128)
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        ("NEON", 128)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        ("scalar", 32)
    }
}

/// Whether the simulator's build differs from the timed one here: only where the CPU has
/// AVX-512; elsewhere one build serves both.
fn simulator_needs_its_own_build() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which of the two builds of a student crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// Run, checked and timed: [`RUSTFLAGS`].
    Timed,
    /// Run under valgrind: [`SIMULATED_RUSTFLAGS`].
    Simulated,
}

impl Flavour {
    fn rustflags(self) -> &'static str {
        match self {
            Flavour::Timed => RUSTFLAGS,
            Flavour::Simulated => SIMULATED_RUSTFLAGS,
        }
    }

    /// The target folder of this build, under the shared cache: apart, because cargo keeps
    /// one artifact per package and profile, and different flags would rebuild rayon each
    /// time the grader switched.
    fn target(self) -> &'static str {
        match self {
            Flavour::Timed => "target",
            Flavour::Simulated => "target-valgrind",
        }
    }
}

/// Where and how student crates are built.
#[derive(Clone, Debug)]
pub struct Builder {
    /// Shared folder of the packages and their target folder.
    pub cache: PathBuf,
    /// The course's Cargo.lock: the student's rayon is the course's rayon.
    pub lockfile: PathBuf,
    /// Folders the student's running code must not see (the course's answers).
    pub hidden: Vec<PathBuf>,
}

/// The student's file did not compile; carries rustc's messages.
#[derive(Debug)]
pub struct RustBuildFailed {
    pub path: PathBuf,
    pub messages: String,
}

impl fmt::Display for RustBuildFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} did not compile. The Rust compiler said:",
            paths::display(&self.path)
        )?;
        for line in self.messages.trim_end().lines() {
            writeln!(f, "  | {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RustBuildFailed {}

/// A built student file.
#[derive(Clone, Debug)]
pub struct Built {
    pub binary: PathBuf,
    pub source: PathBuf,
    pub functions: Vec<String>,
    /// Folders hidden from it when it runs.
    pub hidden: Vec<PathBuf>,
    /// Which build this is.
    pub flavour: Flavour,
    /// The builder that made it, for the other build.
    builder: Builder,
}

/// A short stable name for a file: 16 hex digits of FNV-1a over its canonical path.
fn key(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in canonical.to_string_lossy().as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The version of `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == format!("name = \"{name}\"") {
            let v = lines.next()?.trim();
            return v
                .strip_prefix("version = \"")
                .and_then(|v| v.strip_suffix('"'))
                .map(str::to_string);
        }
    }
    None
}

/// Writes a file only when its content changes, through a rename so that a concurrent
/// reader never sees half of it, and cargo's fingerprints stay valid when nothing changed.
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    let part = path.with_extension(format!("part{}", std::process::id()));
    std::fs::write(&part, text).with_context(|| format!("writing {}", part.display()))?;
    std::fs::rename(&part, path).with_context(|| format!("writing {}", path.display()))
}

/// The `main` of a student crate: the student's file as module `student`, the driver beside
/// it, and the lesson's functions in order.
fn main_rs(source: &Path, driver: &Path, functions: &[&str]) -> String {
    let list: Vec<String> = functions
        .iter()
        .map(|f| format!("(\"{f}\", student::{f} as driver::Matmul)"))
        .collect();
    format!(
        "// Generated by the course's grader: builds your file with a driver that runs it.\n\
         #[path = {:?}]\nmod student;\n#[path = {:?}]\nmod driver;\n\n\
         fn main() -> std::process::ExitCode {{\n    \
         std::process::ExitCode::from(driver::main(&[{}]) as u8)\n}}\n",
        source.display().to_string(),
        driver.display().to_string(),
        list.join(", ")
    )
}

/// Pulls the rendered errors out of cargo's JSON messages, and explains the ones that point
/// into the generated `main` (a missing, private or mistyped function). `None`: cargo gave
/// no compiler message, so it failed before reaching the student's code.
fn errors(json: &str, functions: &[&str]) -> Option<String> {
    let mut out = Vec::new();
    let mut generated = false;
    for line in json.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
            continue;
        }
        let in_main = v["message"]["spans"].as_array().is_some_and(|s| {
            s.iter().any(|s| {
                s["is_primary"] == true
                    && s["file_name"]
                        .as_str()
                        .is_some_and(|f| f.ends_with("main.rs"))
            })
        });
        generated |= in_main;
        if let Some(r) = v["message"]["rendered"].as_str() {
            out.push(r.trim_end().to_string());
        }
    }
    let mut text = out.join("\n");
    if generated {
        let sig = "(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize)";
        let wanted: Vec<String> = functions
            .iter()
            .map(|f| format!("    pub fn {f}{sig}"))
            .collect();
        text = format!(
            "The lesson calls these functions, which your file must define, public and with exactly this signature:\n{}\n{text}",
            wanted.join("\n")
        );
    }
    (!text.is_empty()).then_some(text)
}

impl Builder {
    /// Builds `source` with `functions` as the lesson's entry points. A compile error is a
    /// [`RustBuildFailed`]; anything else (no cargo, no cached rayon) is a plain error.
    pub fn build(&self, source: &Path, functions: &[&str]) -> Result<Built> {
        self.build_as(source, functions, Flavour::Timed)
    }

    /// Builds `source` as [`Builder::build`] does, with the flags of `flavour`.
    pub fn build_as(&self, source: &Path, functions: &[&str], flavour: Flavour) -> Result<Built> {
        self.build_with(source, functions, flavour, &[])
    }

    /// Builds `source` as [`Builder::build_as`] does, with the course's own version of each
    /// crate of `extra` beside rayon (name, and the features wanted): the peers the ladder
    /// times in the same driver as the lessons (the bench's `peers::cpu_served`). A student's
    /// file never gets more than rayon.
    pub fn build_with(
        &self,
        source: &Path,
        functions: &[&str],
        flavour: Flavour,
        extra: &[(&str, &str)],
    ) -> Result<Built> {
        let source = source
            .canonicalize()
            .with_context(|| format!("reading {}", source.display()))?;
        let id = key(&source);
        let dir = self.cache.join(format!("s{id}"));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let lock = std::fs::read_to_string(&self.lockfile)
            .with_context(|| format!("reading the course's {}", self.lockfile.display()))?;
        let rayon =
            locked_version(&lock, "rayon").context("the course's Cargo.lock does not pin rayon")?;
        let mut more = String::new();
        for (name, features) in extra {
            let v = locked_version(&lock, name)
                .with_context(|| format!("the course's Cargo.lock does not pin {name}"))?;
            more.push_str(&format!(
                "{name} = {{ version = \"={v}\", default-features = false, features = [{features}] }}\n"
            ));
        }
        write_if_changed(
            &dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"s{id}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
                 [[bin]]\nname = \"s{id}\"\npath = \"main.rs\"\n\n\
                 [dependencies]\nrayon = \"={rayon}\"\n{more}\n\
                 [profile.release]\ndebug = \"line-tables-only\"\n\n\
                 # Not part of any enclosing workspace.\n[workspace]\n"
            ),
        )?;
        // The course's lockfile pins rayon's own dependencies; cargo drops the other entries.
        if !dir.join("Cargo.lock").is_file() {
            write_if_changed(&dir.join("Cargo.lock"), &lock)?;
        }
        let driver = dir.join("driver.rs");
        write_if_changed(&driver, include_str!("cpu_driver.rs"))?;
        write_if_changed(&dir.join("main.rs"), &main_rs(&source, &driver, functions))?;

        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(&cargo);
        cmd.current_dir(&dir)
            .args(["build", "--release", "--offline", "--message-format=json"])
            .arg("--target-dir")
            .arg(self.cache.join(flavour.target()))
            .env("CARGO_ENCODED_RUSTFLAGS", flavour.rustflags())
            .env("CARGO_TERM_COLOR", "never")
            .env_remove("RUSTFLAGS");
        // cargo's JSON is read whole: a compiler message may sit between artifact lines.
        let ended =
            child::run_with_limit(cmd, Duration::from_secs(600), 64 << 20).with_context(|| {
                format!(
                    "running cargo ({}) to build your CPU code: is Rust installed?",
                    cargo.to_string_lossy()
                )
            })?;
        let json = &ended.stdout.head;
        match ended.status {
            None => bail!("building {} took more than 10 minutes", source.display()),
            Some(s) if s.success() => {}
            Some(_) => {
                let Some(errs) = errors(json, functions) else {
                    // No compiler message: not the student's code, cargo itself could not
                    // run (offline, no rayon).
                    bail!(
                        "cargo could not build the CPU lessons' crate: {}\n(The grader builds offline with the course's versions; run `cargo build --release` in the course once with network access.)",
                        ended.stderr.shortened(10)
                    );
                };
                return Err(RustBuildFailed {
                    path: source,
                    messages: errs,
                }
                .into());
            }
        }
        let binary = self
            .cache
            .join(flavour.target())
            .join("release")
            .join(format!("s{id}{}", std::env::consts::EXE_SUFFIX));
        Ok(Built {
            binary,
            source,
            functions: functions.iter().map(|f| f.to_string()).collect(),
            hidden: self.hidden.clone(),
            flavour,
            builder: self.clone(),
        })
    }
}

impl Built {
    /// The build of the same file that valgrind can run: this one where the CPU has no
    /// AVX-512, else a second build without it (cargo makes a repeat a no-op).
    pub fn for_simulator(&self) -> Result<Built> {
        if self.flavour == Flavour::Simulated || !simulator_needs_its_own_build() {
            return Ok(self.clone());
        }
        let functions: Vec<&str> = self.functions.iter().map(String::as_str).collect();
        self.builder
            .build_as(&self.source, &functions, Flavour::Simulated)
            .context("building the file a second time without AVX-512, for the cache simulator")
    }
}

/// A student's function served by its driver, confined, in a scratch folder of its own.
pub struct Driver {
    session: Session,
    _scratch: Scratch,
}

/// What the driver may see: the built program, its scratch folder, nothing of the course's
/// answers.
fn view<'a>(built: &'a Built, readable: &'a [&'a Path], writable: &'a [&'a Path]) -> View<'a> {
    View {
        readable,
        writable,
        hidden: &built.hidden,
    }
}

impl Driver {
    /// Starts `function` of a built file on a pool of `threads` rayon threads (0: rayon's
    /// default).
    pub fn start(built: &Built, function: &str, threads: usize) -> Result<Driver> {
        let index = index(built, function)?;
        let scratch = Scratch::new("cpu")?;
        let work = scratch.dir.join("work");
        std::fs::create_dir_all(&work).context("creating a scratch folder")?;
        let args = cpu_session::driver_args(Mode::Serve, index, threads);
        let session = Session::start(Launch {
            program: &built.binary,
            args,
            cwd: &work,
            view: view(built, &[], &[&work]),
        })?;
        Ok(Driver {
            session,
            _scratch: scratch,
        })
    }

    /// One call on a fresh problem of `shape` made from `seed`; `watch` also measures where
    /// its CPU time went.
    pub fn call(
        &mut self,
        shape: Shape,
        seed: u64,
        limit: Duration,
        watch: bool,
    ) -> (Problem, Called) {
        let (p, gen_ms) = cpu_session::problem(shape, seed);
        let called = self.call_on(&p, seed, gen_ms, limit, watch);
        (p, called)
    }

    /// One call on `p`, which the driver draws again from `seed` (drawing it took `gen_ms`
    /// here).
    pub fn call_on(
        &mut self,
        p: &Problem,
        seed: u64,
        gen_ms: f64,
        limit: Duration,
        watch: bool,
    ) -> Called {
        self.session.call(p, seed, gen_ms, limit, watch)
    }

    /// The driver's process id as the grader sees it.
    pub fn pid(&mut self) -> Option<u32> {
        self.session.process()
    }

    /// Ends the driver; what the student's code printed.
    pub fn finish(self) -> Captured {
        self.session.finish(Duration::from_secs(2)).0
    }
}

fn index(built: &Built, function: &str) -> Result<usize> {
    built
        .functions
        .iter()
        .position(|f| f == function)
        .with_context(|| format!("{} was not built with `{function}`", built.source.display()))
}

/// The driver's function type, re-exported for the generated `main`.
pub use cpu_driver::Matmul;

/// The simulated caches of a callgrind run: (size, associativity, line) of L1 data and
/// instructions and the last level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    pub l1: (u32, u32, u32),
    pub ll: (u32, u32, u32),
}

impl Caches {
    fn args(&self) -> Vec<String> {
        let f = |(s, a, l): (u32, u32, u32)| format!("{s},{a},{l}");
        vec![
            format!("--I1={}", f(self.l1)),
            format!("--D1={}", f(self.l1)),
            format!("--LL={}", f(self.ll)),
        ]
    }

    /// How the caches read in a message: "32 KiB L1, 1 MiB last level".
    pub fn describe(&self) -> String {
        let size = |b: u32| {
            if b >= 1 << 20 {
                format!("{} MiB", b >> 20)
            } else {
                format!("{} KiB", b >> 10)
            }
        };
        format!("{} L1, {} last level", size(self.l1.0), size(self.ll.0))
    }
}

/// valgrind's version (`valgrind-3.19.0`), or why it cannot be used.
pub fn valgrind() -> Result<String, String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .map_err(|_| {
            "valgrind is not installed (Debian/Ubuntu: sudo apt-get install valgrind)".to_string()
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match callgrind::unavailable(std::env::consts::OS, Some(&version)) {
        Some(why) => Err(why),
        None => Ok(version),
    }
}

/// What one call did under callgrind's simulated caches.
pub enum Simulated {
    /// The counts of the call, and its C.
    Counted(CallgrindCounts, Problem, Vec<f32>),
    /// The run could not be measured (the sentence says why), or did not finish.
    NotMeasured(String),
    /// The student's code failed: a panic, a crash, garbled answers.
    Failed(Called, Captured),
}

/// Runs one call of `function` on a fresh problem of `shape` from `seed` under valgrind's
/// callgrind with `caches`, on a pool of `threads` rayon threads, and returns the event totals
/// of the call alone.
/// It runs the build valgrind can decode ([`Built::for_simulator`]).
pub fn run_callgrind(
    built: &Built,
    function: &str,
    shape: Shape,
    seed: u64,
    caches: Caches,
    threads: usize,
    limit: Duration,
) -> Result<Simulated> {
    let Some(valgrind) = crate::harness::paths::on_path("valgrind") else {
        return Ok(Simulated::NotMeasured(
            "valgrind is not installed (Debian/Ubuntu: sudo apt-get install valgrind)".into(),
        ));
    };
    let built = &built.for_simulator()?;
    let index = index(built, function)?;
    let scratch = Scratch::new("cpu")?;
    let work = scratch.dir.join("work");
    std::fs::create_dir_all(&work).context("creating a scratch folder")?;
    let out = scratch.dir.join("callgrind.out");
    let mut args: Vec<String> = vec![
        "--tool=callgrind".into(),
        "--cache-sim=yes".into(),
        "--instr-atstart=no".into(),
        format!("--callgrind-out-file={}", out.display()),
    ];
    args.extend(caches.args());
    args.push(built.binary.display().to_string());
    args.extend(cpu_session::driver_args(Mode::Callgrind, index, threads));
    let mut session = Session::start(Launch {
        program: &valgrind,
        args,
        cwd: &work,
        view: view(built, &[&built.binary], &[&scratch.dir]),
    })?;
    let (p, gen_ms) = cpu_session::problem(shape, seed);
    // Valgrind makes the inputs fifty times slower than the grader does.
    let called = session.call(&p, seed, gen_ms * 100.0, limit, false);
    let (printed, status) = session.finish(limit);
    let stderr = format!("{}{}", printed.head, printed.tail);
    let c = match called {
        Called::Done { c, .. } => c,
        Called::TimedOut => {
            return Ok(Simulated::NotMeasured(format!(
                "the run under valgrind did not finish within {:.0} s",
                limit.as_secs_f64()
            )))
        }
        other => {
            if let Some(why) = callgrind::run_problem(&stderr, false) {
                return Ok(Simulated::NotMeasured(why));
            }
            return Ok(Simulated::Failed(other, printed));
        }
    };
    let ok = status.is_some_and(|s| s.success());
    if let Some(why) = callgrind::run_problem(&stderr, ok) {
        return Ok(Simulated::NotMeasured(why));
    }
    let text = std::fs::read_to_string(&out).context("reading callgrind's output")?;
    match callgrind::parse_totals(&text) {
        Ok(counts) => Ok(Simulated::Counted(counts, p, c)),
        Err(e) => Ok(Simulated::NotMeasured(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lockfile_versions_are_found() {
        let lock = "[[package]]\nname = \"rayon\"\nversion = \"1.11.0\"\n";
        assert_eq!(locked_version(lock, "rayon").as_deref(), Some("1.11.0"));
        assert_eq!(locked_version(lock, "serde"), None);
    }

    #[test]
    fn generated_main_lists_the_functions() {
        let m = main_rs(
            Path::new("/s/02.rs"),
            Path::new("/c/driver.rs"),
            &["a", "b"],
        );
        assert!(m.contains("#[path = \"/s/02.rs\"]"));
        assert!(m.contains("(\"b\", student::b as driver::Matmul)"));
    }

    #[test]
    fn errors_in_the_generated_main_name_the_wanted_signature() {
        let json = r#"{"reason":"compiler-message","message":{"level":"error","rendered":"error[E0425]: cannot find function `b`","spans":[{"is_primary":true,"file_name":"/x/main.rs"}]}}"#;
        let e = errors(json, &["b"]).unwrap();
        assert!(e.contains("pub fn b(a: &[f32]"), "{e}");
        assert!(e.contains("E0425"), "{e}");
        // No compiler message at all: cargo's own failure, not a compile error.
        let artifact = r#"{"reason":"build-finished","success":false}"#;
        assert_eq!(errors(artifact, &["b"]), None);
    }
}
