//! A lesson's kernel, ready to run: the one place that resolves a lesson's defines, reads a
//! kernel file, puts the lesson's prelude before it, builds it for the device and checks its
//! signature. Grading, the simulator's probes, the lesson programs, the bench's tools, the
//! tuner and the chapters' variants all prepare kernels here, so that a kernel is built the
//! same way wherever it runs, and a test can count how often it was built.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context as _, Result};
use opencl3::program::Program;

use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::harness::paths;
use crate::harness::program::{self, Define, Kernels, Signature};
use crate::lesson::{with_overrides, Ctx, OclLesson, StandIn};

/// A lesson's defines, resolved: the device's own, then the tuned set recorded for `at` (a
/// lesson program, the ladder or the bench at one size; grading passes `None` and keeps the
/// device's own), then the `-D` overrides, checked against the lesson's rules. The only place
/// the three layers meet; `tests/one_pipeline.rs` checks that nothing else lays them.
pub fn defines(
    ocl: &OclLesson,
    ctx: &Ctx,
    at: Option<Shape>,
    overrides: &[Define],
) -> Result<Vec<Define>, String> {
    let mut d = (ocl.defines)(ctx);
    if let Some(tuned) = at.and_then(|s| ocl.sized.and_then(|f| f(ctx, s))) {
        d = with_overrides(d, &tuned);
    }
    let d = with_overrides(d, overrides);
    (ocl.check_defines)(&d)?;
    Ok(d)
}

/// A kernel built for a device: its program (kept alive for the kernel), the kernel with its
/// signature checked, and the defines it was built with. For a lesson of several kernels per
/// multiplication (its host declares them, [`crate::lesson::Host::kernels`]) the further ones
/// are built with it, each checked the same way, and held by name.
pub struct Prepared {
    pub file: PathBuf,
    pub defines: Vec<Define>,
    /// The lesson's kernel (what `kernel` dereferences to), and its further kernels by name.
    pub kernel: Kernels,
    /// The built program (its build log and binaries are what `lab-bench evidence` keeps).
    /// Declared after the kernel, so that the kernel is released first.
    pub program: Program,
}

impl Prepared {
    /// Builds `text`, the kernel's own source as read from `file`, for the lesson: the prelude
    /// the device needs goes first (lines still numbered from the file's own line 1), then the
    /// build with `defines` and `options`, then the kernel's signature is checked.
    pub fn build(
        gpu: &Gpu,
        ocl: &OclLesson,
        file: &Path,
        text: &str,
        defines: &[Define],
        options: &str,
    ) -> Result<Prepared> {
        Self::build_as(gpu, ocl, file, &ocl.source(gpu, text), defines, options)
    }

    /// Reads `file` and builds it as [`Prepared::build`] does.
    pub fn read(
        gpu: &Gpu,
        ocl: &OclLesson,
        file: &Path,
        defines: &[Define],
        options: &str,
    ) -> Result<Prepared> {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("reading the kernel file {}", paths::display(file)))?;
        Self::build(gpu, ocl, file, &text, defines, options)
    }

    /// Builds `text` as the sanitizer runs it where the lesson has a stand-in for a memory
    /// object the simulator cannot follow ([`StandIn`]): the stand-in's own source, then the
    /// device's prelude and the file's text with the object's type words replaced, under the
    /// stand-in's arguments.
    pub fn stand_in(
        gpu: &Gpu,
        ocl: &OclLesson,
        stand_in: &StandIn,
        file: &Path,
        text: &str,
        defines: &[Define],
        options: &str,
    ) -> Result<Prepared> {
        let source = (stand_in.source)(&ocl.source(gpu, text));
        let main = Signature {
            name: ocl.kernel,
            args: stand_in.args,
        };
        Self::built(gpu, main, ocl, file, &source, defines, options)
    }

    /// Builds source that is already whole (a chapter's variant made from the lesson's file,
    /// the prelude already in it or not needed), under the lesson's kernel name and arguments.
    pub fn build_as(
        gpu: &Gpu,
        ocl: &OclLesson,
        file: &Path,
        source: &str,
        defines: &[Define],
        options: &str,
    ) -> Result<Prepared> {
        Self::built(gpu, ocl.signature(), ocl, file, source, defines, options)
    }

    /// The one build: counted, built, the kernel `main` and the lesson's further kernels
    /// created, each checked against its arguments.
    fn built(
        gpu: &Gpu,
        main: Signature,
        ocl: &OclLesson,
        file: &Path,
        source: &str,
        defines: &[Define],
        options: &str,
    ) -> Result<Prepared> {
        let compiled = ocl.compiled(defines);
        count(file, &compiled, options);
        let program = program::build_source(gpu, file, source, &compiled, options)?;
        let kernel = Kernels::create(&program, file, main, ocl.host.kernels)?;
        Ok(Prepared {
            file: file.to_path_buf(),
            defines: defines.to_vec(),
            kernel,
            program,
        })
    }
}

/// How often each (file, build options) was built in this process: a test grades a kernel
/// and asks that none was built twice for one verdict.
static BUILDS: Mutex<Option<HashMap<(PathBuf, String), usize>>> = Mutex::new(None);

fn count(file: &Path, defines: &[Define], options: &str) {
    // A build for a window of a launch is another program of the same options.
    let window = match crate::harness::groups::window() {
        Some(_) => " (a window)",
        None => "",
    };
    let key = (
        file.to_path_buf(),
        format!("{}{window}", program::options(defines, options)),
    );
    let mut builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    *builds
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_default() += 1;
}

/// Every build of `file` in this process so far: its build options and how often.
pub fn builds_of(file: &Path) -> Vec<(String, usize)> {
    let builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
    let mut out: Vec<(String, usize)> = builds
        .iter()
        .flatten()
        .filter(|((f, _), _)| f == file)
        .map(|((_, o), &n)| (o.clone(), n))
        .collect();
    out.sort();
    out
}
