//! Building a kernel file into a program, and checking a kernel's signature before any
//! argument is set (so a wrong signature is a message, not a panic or a crash).

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::program::Program;

use crate::harness::device::Gpu;
use crate::harness::{oclgrind, paths, ptx_patch};

/// A `-D NAME=VALUE` define passed to the OpenCL compiler.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Define {
    pub name: String,
    pub value: String,
}

impl Define {
    pub fn new(name: &str, value: impl fmt::Display) -> Define {
        Define {
            name: name.to_string(),
            value: value.to_string(),
        }
    }
}

/// Formats defines as compiler options.
// ANCHOR: options
pub fn options(defines: &[Define], extra: &str) -> String {
    let mut opts: Vec<String> = defines
        .iter()
        .map(|d| format!("-D {}={}", d.name, d.value))
        .collect();
    // Argument names and types let the harness check a kernel's signature.
    opts.push("-cl-kernel-arg-info".into());
    if !extra.is_empty() {
        opts.push(extra.to_string());
    }
    opts.join(" ")
}
// ANCHOR_END: options

/// The kernel file did not compile; carries the compiler's full log.
#[derive(Debug)]
pub struct BuildFailed {
    pub path: PathBuf,
    pub device: String,
    pub options: String,
    pub log: String,
}

impl fmt::Display for BuildFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} did not compile on {} (options: {}). The compiler said:",
            paths::display(&self.path),
            self.device,
            self.options
        )?;
        let log = self.log.trim();
        if log.is_empty() {
            write!(f, "  (the compiler gave no log)")
        } else {
            for line in log.lines() {
                writeln!(f, "  | {line}")?;
            }
            Ok(())
        }
    }
}

impl std::error::Error for BuildFailed {}

/// Reads and builds a kernel file for the device.
pub fn build_file(gpu: &Gpu, path: &Path, defines: &[Define], extra: &str) -> Result<Program> {
    let source = std::fs::read_to_string(path)
        .with_context(|| format!("reading the kernel file {}", paths::display(path)))?;
    build_source(gpu, path, &source, defines, extra)
}

/// Builds kernel source that came from `path` (the path is used in messages only).
// ANCHOR: build
pub fn build_source(
    gpu: &Gpu,
    path: &Path,
    source: &str,
    defines: &[Define],
    extra: &str,
) -> Result<Program> {
    let opts = options(defines, extra);
    // A kernel with an instruction the compiler refuses takes a second step through its PTX.
    if ptx_patch::wanted(source) {
        return build_patched(gpu, path, source, &opts);
    }
    build_source_with(gpu, path, source, &opts)
}
// ANCHOR_END: build

/// Builds `source` with compiler options `opts` as they are.
fn build_source_with(gpu: &Gpu, path: &Path, source: &str, opts: &str) -> Result<Program> {
    let program = Program::create_from_source(&gpu.context, source)
        .with_context(|| format!("creating a program from {}", paths::display(path)))?;
    let program = finish(gpu, path, program, opts, opts)?;
    Ok(lowered_for_the_simulator(gpu, path, program, opts))
}

/// On Oclgrind, `program` with the optimiser's intrinsics that the simulator cannot run
/// written out ([`oclgrind::lower`]), so that it runs the build the device runs; `program`
/// itself everywhere else, where nothing needs it, or where the lowering fails (the simulator
/// then says which function it lacks, and the grader runs the unoptimised build instead).
fn lowered_for_the_simulator(gpu: &Gpu, path: &Path, program: Program, opts: &str) -> Program {
    if !gpu.info.platform.contains("Oclgrind") {
        return program;
    }
    let Some(bitcode) = program
        .get_binaries()
        .ok()
        .and_then(|b| b.into_iter().next())
    else {
        return program;
    };
    if !oclgrind::lower::needed(&bitcode) {
        return program;
    }
    let lowered = match oclgrind::lower::lower(&bitcode) {
        Ok(l) => l,
        Err(_) => return program,
    };
    // SAFETY: the binary is the simulator's own bitcode of this build, its intrinsics
    // written out; the simulator parses it as it parses every program binary.
    let rebuilt = unsafe {
        Program::create_from_binary(&gpu.context, &[gpu.device.id()], &[lowered.as_slice()])
    };
    match rebuilt
        .map_err(anyhow::Error::from)
        .and_then(|p| finish(gpu, path, p, "", opts))
    {
        Ok(p) => p,
        Err(_) => program,
    }
}

/// Builds `program` for the device with `opts`, the compiler's log in the error where it fails
/// (`shown`: the options as the message names them).
fn finish(
    gpu: &Gpu,
    path: &Path,
    mut program: Program,
    opts: &str,
    shown: &str,
) -> Result<Program> {
    if program.build(&[gpu.device.id()], opts).is_err() {
        let log = program
            .get_build_log(gpu.device.id())
            .unwrap_or_else(|e| format!("(no build log: {e})"));
        return Err(BuildFailed {
            path: path.to_path_buf(),
            device: gpu.info.name.clone(),
            options: shown.to_string(),
            log,
        }
        .into());
    }
    Ok(program)
}

/// The two-step build of [`ptx_patch`] for `source` (from `path`, for messages) with compiler options `opts`.
fn build_patched(gpu: &Gpu, path: &Path, source: &str, opts: &str) -> Result<Program> {
    // Only NVIDIA's driver takes PTX as a binary, and only compute capability 9.0 runs sm_90a.
    if gpu.tensor_cores().is_none_or(|(major, _)| major != 9) {
        bail!(
            "{} asks for a build through NVIDIA's PTX (`{}`), which only a GPU of compute capability 9.0 runs; {} is not one",
            paths::display(path),
            ptx_patch::MARK,
            gpu.info.name
        );
    }
    let stub_opts = format!("{opts} -D WG_STUB=1");
    let first = build_source_with(gpu, path, source, &stub_opts)?;
    let binaries = first
        .get_binaries()
        .context("taking the PTX of the first build back from the driver")?;
    let Some(bytes) = binaries.first() else {
        bail!(
            "the driver gave no binary for the first build of {}",
            path.display()
        );
    };
    let ptx: String = String::from_utf8_lossy(bytes).replace('\0', "");
    let patched = ptx_patch::patch(&ptx).map_err(|e| {
        anyhow::anyhow!(
            "{}: the PTX of the first build cannot be patched: {e}",
            path.display()
        )
    })?;
    // SAFETY: the binary is PTX text the driver itself produced, patched as above; the driver
    // parses and checks it in the build that follows.
    let program = unsafe {
        Program::create_from_binary(&gpu.context, &[gpu.device.id()], &[patched.as_bytes()])
    }
    .context("handing the patched PTX to the driver")?;
    finish(
        gpu,
        path,
        program,
        "",
        &format!("{stub_opts}, then the patched PTX"),
    )
}

/// The kind of each argument a lesson passes to its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// `const int` (a `cl_int` on the host).
    Int(&'static str),
    /// `const __global float*`, read only by the kernel.
    GlobalIn(&'static str),
    /// `__global float*` written by the kernel.
    GlobalOut(&'static str),
    /// `__read_only image2d_t`.
    Image(&'static str),
    /// `__global int*` (or `uint*`), read or written: what one kernel of a lesson of several
    /// leaves for the next (lesson 12's exponents).
    GlobalInts(&'static str),
    /// `__global char*` (or `uchar*`), read or written: bytes one kernel leaves for the next
    /// (lesson 12's residues).
    GlobalBytes(&'static str),
}

impl Arg {
    fn c_decl(self) -> String {
        match self {
            Arg::Int(n) => format!("const int {n}"),
            Arg::GlobalIn(n) => format!("const __global float* {n}"),
            Arg::GlobalOut(n) => format!("__global float* {n}"),
            Arg::Image(n) => format!("__read_only image2d_t {n}"),
            Arg::GlobalInts(n) => format!("__global int* {n}"),
            Arg::GlobalBytes(n) => format!("__global char* {n}"),
        }
    }
}

/// The C declaration of a kernel with these arguments, for messages and the book.
pub fn signature(kernel: &str, args: &[Arg]) -> String {
    let list: Vec<String> = args.iter().map(|a| a.c_decl()).collect();
    format!("__kernel void {kernel}({})", list.join(", "))
}

/// The kernel's argument list does not match what the lesson passes.
#[derive(Debug)]
pub struct SignatureMismatch {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for SignatureMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", paths::display(&self.path), self.message)
    }
}

impl std::error::Error for SignatureMismatch {}

/// Creates `name` from the program and checks its arguments against `args`.
pub fn kernel(program: &Program, path: &Path, name: &str, args: &[Arg]) -> Result<Kernel> {
    let mismatch = |message: String| SignatureMismatch {
        path: path.to_path_buf(),
        message,
    };
    let kernel = match Kernel::create(program, name) {
        Ok(k) => k,
        Err(_) => {
            let found = program.kernel_names().trim().to_string();
            let found = if found.is_empty() {
                "no kernel at all".to_string()
            } else {
                format!("only `{}`", found.replace(';', "`, `"))
            };
            return Err(mismatch(format!(
                "there is no kernel named `{name}` (the file defines {found}). The lesson expects:\n  {}",
                signature(name, args)
            ))
            .into());
        }
    };
    let expected = signature(name, args);
    let count = kernel
        .num_args()
        .context("asking the kernel for its argument count")? as usize;
    if count != args.len() {
        let mut have = Vec::new();
        for i in 0..count as u32 {
            let ty = kernel.get_arg_type_name(i).unwrap_or_default();
            let an = kernel.get_arg_name(i).unwrap_or_default();
            have.push(format!("{ty} {an}").trim().to_string());
        }
        return Err(mismatch(format!(
            "`{name}` takes {count} argument(s) ({}), but the lesson passes {}. The lesson expects:\n  {expected}",
            have.join(", "),
            args.len()
        ))
        .into());
    }
    for (i, arg) in args.iter().enumerate() {
        // Drivers without argument info answer with an error: then the count is all we check.
        let Ok(ty) = kernel.get_arg_type_name(i as u32) else {
            continue;
        };
        let ty = ty.replace(' ', "");
        let ok = match arg {
            Arg::Int(_) => ty == "int" || ty == "uint",
            Arg::GlobalIn(_) | Arg::GlobalOut(_) => ty.starts_with("float") && ty.ends_with('*'),
            Arg::Image(_) => ty.contains("image2d_t"),
            Arg::GlobalInts(_) => {
                (ty.starts_with("int") || ty.starts_with("uint")) && ty.ends_with('*')
            }
            Arg::GlobalBytes(_) => {
                (ty.starts_with("char") || ty.starts_with("uchar")) && ty.ends_with('*')
            }
        };
        if !ok {
            return Err(mismatch(format!(
                "argument {} of `{name}` has type `{ty}`, but the lesson passes {}. The lesson expects:\n  {expected}",
                i + 1,
                arg.c_decl()
            ))
            .into());
        }
    }
    Ok(kernel)
}

/// A kernel by name and the arguments the host passes it: a further kernel of a lesson that
/// takes several per multiplication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: &'static str,
    pub args: &'static [Arg],
}

/// The kernels of a built program that a lesson runs: its own kernel, then the further ones it
/// names, each created and checked against its arguments when the program is built, so that a
/// file lacking one fails there, naming it. It dereferences to the lesson's own kernel: the
/// host code of a lesson of one kernel reads as if it held that kernel alone.
pub struct Kernels {
    main: Kernel,
    further: Vec<(&'static str, Kernel)>,
}

impl Kernels {
    /// Creates `main` and every one of `further` from `program` (built from `path`), each
    /// checked against its arguments ([`kernel`]).
    pub fn create(
        program: &Program,
        path: &Path,
        main: Signature,
        further: &[Signature],
    ) -> Result<Kernels> {
        let main = kernel(program, path, main.name, main.args)?;
        let further = further
            .iter()
            .map(|s| Ok((s.name, kernel(program, path, s.name, s.args)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Kernels { main, further })
    }

    /// The lesson's own kernel.
    pub fn main(&self) -> &Kernel {
        &self.main
    }

    /// A further kernel by the name the lesson declared it with.
    pub fn get(&self, name: &str) -> Result<&Kernel> {
        self.further
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k)
            .ok_or_else(|| {
                let declared: Vec<&str> = self.further.iter().map(|(n, _)| *n).collect();
                anyhow::anyhow!(
                    "the host asked for a kernel `{name}` that the lesson does not declare (it declares {})",
                    if declared.is_empty() {
                        "no further kernel".to_string()
                    } else {
                        format!("`{}`", declared.join("`, `"))
                    }
                )
            })
    }

    /// The names of the further kernels, in the order the lesson declared them.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.further.iter().map(|(n, _)| *n)
    }
}

impl std::ops::Deref for Kernels {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        &self.main
    }
}

/// The OpenCL C versions a kernel can be asked to build as (`--cl-std`, `LAB_CL_STD`).
pub const CL_STD_VERSIONS: &[&str] = &["1.1", "1.2", "2.0", "3.0"];

/// Parses an OpenCL C version, `1.2` or `CL1.2`, into its number (`1.2`).
pub fn parse_cl_std(s: &str) -> std::result::Result<String, String> {
    let v = s.trim();
    let v = v
        .strip_prefix("CL")
        .or_else(|| v.strip_prefix("cl"))
        .unwrap_or(v);
    if CL_STD_VERSIONS.contains(&v) {
        Ok(v.to_string())
    } else {
        Err(format!(
            "`{s}` is not an OpenCL C version the compiler takes: one of {}",
            CL_STD_VERSIONS.join(", ")
        ))
    }
}

/// The compiler option that builds a kernel as OpenCL C `version` (`1.2`: `-cl-std=CL1.2`).
pub fn cl_std_option(version: &str) -> String {
    format!("-cl-std=CL{version}")
}

/// Whether two lists hold the same defines, in whatever order they were laid.
pub fn same(a: &[Define], b: &[Define]) -> bool {
    fn set(d: &[Define]) -> std::collections::BTreeSet<(&str, &str)> {
        d.iter()
            .map(|x| (x.name.as_str(), x.value.as_str()))
            .collect()
    }
    set(a) == set(b)
}

/// Defines as one line of `NAME=VALUE` words, `TSM=128 TSN=64`: how the course prints and
/// records them (results files, reports); [`parse_line`] reads it back.
pub fn line(defines: &[Define]) -> String {
    defines
        .iter()
        .map(|d| format!("{}={}", d.name, d.value))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads a [`line`] of defines, or says which word is not `NAME=VALUE`.
pub fn parse_line(text: &str) -> std::result::Result<Vec<Define>, String> {
    text.split_whitespace().map(parse_define).collect()
}

/// Parses `NAME=VALUE`.
pub fn parse_define(s: &str) -> std::result::Result<Define, String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE (for example TS=16)"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a valid define name"));
    }
    let value = value.trim();
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c == '"') {
        return Err(format!(
            "`{value}` is not a valid value for {name}: one word, such as 16"
        ));
    }
    Ok(Define::new(name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_defines_reads_back_and_a_bad_word_is_named() {
        let d = vec![Define::new("TSM", 128), Define::new("ALONGK", 0)];
        assert_eq!(line(&d), "TSM=128 ALONGK=0");
        assert_eq!(parse_line(&line(&d)).unwrap(), d);
        assert_eq!(line(&[]), "");
        let why = parse_line("TSM=128 WPTM").unwrap_err();
        assert!(why.contains("`WPTM` is not NAME=VALUE"), "{why}");
    }
}
