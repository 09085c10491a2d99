//! Running kernels under Oclgrind, the OpenCL device simulator, and reading what it says.
//!
//! PoCL runs a work-group's work-items in lock-step between barriers, so a missing or
//! misplaced barrier still gives the right numbers there. Oclgrind checks every access: data
//! races, reads and writes outside a buffer or array, uninitialised values, barriers that only
//! some work-items reach. It also counts the instructions a kernel executes, which tells what
//! the kernel does (global loads per multiply-add, vector or image accesses) whatever way it
//! is written.
//!
//! This module is self-contained: it finds Oclgrind's ICD library, prepares the environment
//! of a child process that sees Oclgrind as its only OpenCL platform, parses Oclgrind's
//! output into findings and instruction counts, and renders a finding in the student's terms.
//! Written against Oclgrind 21.10.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------
// Finding Oclgrind and preparing a child's environment

/// `liboclgrind-rt-icd.so` on Linux: the library an ICD loader can load as a platform.
pub fn icd_file_name() -> String {
    format!(
        "{}oclgrind-rt-icd{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// Oclgrind's ICD library, next to the `oclgrind` found on `PATH` or in a usual place.
pub fn find_icd() -> Option<PathBuf> {
    find_icd_with(std::env::var_os("PATH").as_deref())
}

/// [`find_icd`] with a given `PATH`.
pub fn find_icd_with(path_var: Option<&OsStr>) -> Option<PathBuf> {
    icd_candidates(path_var).into_iter().find(|p| p.is_file())
}

/// Where the ICD library may be, most specific first.
fn icd_candidates(path_var: Option<&OsStr>) -> Vec<PathBuf> {
    let file = icd_file_name();
    let multiarch = format!("{}-linux-gnu", std::env::consts::ARCH);
    let mut prefixes: Vec<PathBuf> = Vec::new();
    if let Some(path_var) = path_var {
        for dir in std::env::split_paths(path_var) {
            let exe = dir.join("oclgrind");
            if !exe.is_file() {
                continue;
            }
            // The wrapper finds its libraries relative to its own resolved location, so do
            // the same: /usr/bin/oclgrind -> /usr.
            let exe = exe.canonicalize().unwrap_or(exe);
            if let Some(prefix) = exe.parent().and_then(Path::parent) {
                prefixes.push(prefix.to_path_buf());
            }
        }
    }
    for p in ["/usr", "/usr/local", "/opt/oclgrind", "/opt/homebrew"] {
        prefixes.push(PathBuf::from(p));
    }
    let mut out = Vec::new();
    for prefix in prefixes {
        // Debian and Ubuntu install into lib/oclgrind; upstream's CMake into lib or lib64.
        for sub in [
            "lib/oclgrind".to_string(),
            "lib".to_string(),
            "lib64".to_string(),
            format!("lib/{multiarch}"),
            format!("lib/{multiarch}/oclgrind"),
        ] {
            let candidate = prefix.join(sub).join(&file);
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// What Oclgrind checks and reports in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Data races in local and global memory (`OCLGRIND_DATA_RACES`).
    pub races: bool,
    /// Uses of uninitialised values (`OCLGRIND_UNINITIALIZED`). Leave it off for kernels
    /// that read images: Oclgrind 21.10 marks every `read_imagef` result as uninitialised,
    /// and can crash on such kernels with this check on.
    pub uninitialized: bool,
    /// Failed OpenCL API calls, printed on stderr (`OCLGRIND_CHECK_API`).
    pub api: bool,
    /// Instruction counts per kernel, printed on stdout (`OCLGRIND_INST_COUNTS`).
    pub inst_counts: bool,
    /// Messages printed before Oclgrind stops reporting (`OCLGRIND_MAX_ERRORS`, counted
    /// over the whole process); the kernel still runs to its end.
    pub max_errors: u32,
    /// Build without optimisation (`OCLGRIND_BUILD_OPTIONS=-cl-opt-disable`).
    pub disable_optimization: bool,
    /// Worker threads (`OCLGRIND_NUM_THREADS`); `None` leaves Oclgrind's default, one per
    /// hardware thread.
    pub threads: Option<u32>,
    /// Only the first and the last work-group (`OCLGRIND_QUICK`).
    pub quick: bool,
}

impl Options {
    /// The sanitizer pass: races, uninitialised values and API errors (out-of-bounds
    /// checks are always on).
    ///
    /// The uninitialised-value checker of Oclgrind 21.10 aborts the kernel on LLVM's
    /// `freeze` instruction, which the default `-Oz` emits for integer division and
    /// remainder; without optimisation there is none. One thread makes the order of the
    /// messages reproducible. The error limit stays at Oclgrind's default of 1000: the
    /// uninitialised values a race causes are printed as they happen, the race only when
    /// its work-group ends, so a low limit can leave out the cause.
    pub fn sanitizer() -> Options {
        Options {
            races: true,
            uninitialized: true,
            api: true,
            inst_counts: false,
            max_errors: 1000,
            disable_optimization: true,
            threads: Some(1),
            quick: false,
        }
    }

    /// Technique metrics: instruction counts of the kernel as Oclgrind's default `-Oz`
    /// compiles it (unoptimised code re-reads values a compiler keeps in registers), with
    /// races still checked since they cost little.
    pub fn metrics() -> Options {
        Options {
            races: true,
            uninitialized: false,
            api: true,
            inst_counts: true,
            max_errors: 1000,
            disable_optimization: false,
            threads: Some(1),
            quick: false,
        }
    }
}

/// Variables to remove from a child's environment: they would add other platforms, send
/// Oclgrind's messages elsewhere or load plugins the parser does not know.
pub const REMOVE_FROM_ENVIRONMENT: &[&str] = &[
    "OCL_ICD_FILENAMES",
    "OCL_ICD_DEFAULT_PLATFORM",
    "OPENCL_LAYERS",
    "OCLGRIND_LOG",
    "OCLGRIND_PLUGINS",
    "OCLGRIND_INTERACTIVE",
    "OCLGRIND_UNIFORM_WRITES",
];

/// The environment that makes a child process see Oclgrind (the library `icd`) as its only
/// OpenCL platform, with the checks of `options`. Writes `folder/oclgrind.icd`, creating
/// the folder if needed; the folder must outlive the child. Also remove
/// [`REMOVE_FROM_ENVIRONMENT`] from the child's environment.
pub fn environment(icd: &Path, folder: &Path, options: &Options) -> Result<Vec<(String, String)>> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("creating the folder {}", folder.display()))?;
    let entry = folder.join("oclgrind.icd");
    std::fs::write(&entry, format!("{}\n", icd.display()))
        .with_context(|| format!("writing {}", entry.display()))?;
    let flag = |on: bool| if on { "1" } else { "0" }.to_string();
    let vendors = folder.display().to_string();
    let mut env = vec![
        // ocl-icd and the Khronos loader both read OCL_ICD_VENDORS as the folder to scan
        // instead of /etc/OpenCL/vendors; older ocl-icd read OPENCL_VENDOR_PATH.
        // OCL_ICD_FILENAMES is no substitute: the ocl-icd 2.3.1 of Debian 12 ignores it, and
        // the Khronos loader loads its entries in addition to the vendors folder.
        ("OCL_ICD_VENDORS".to_string(), vendors.clone()),
        ("OPENCL_VENDOR_PATH".to_string(), vendors),
        // Oclgrind prints instruction counts with the user's locale (thousands separators),
        // and aborts when the locale named by LANG is not installed.
        ("LC_ALL".to_string(), "C".to_string()),
        // Set explicitly, so that values inherited from the parent cannot turn checks on or
        // off: Oclgrind takes "1" as on and anything else as off.
        ("OCLGRIND_DATA_RACES".to_string(), flag(options.races)),
        (
            "OCLGRIND_UNINITIALIZED".to_string(),
            flag(options.uninitialized),
        ),
        ("OCLGRIND_CHECK_API".to_string(), flag(options.api)),
        (
            "OCLGRIND_INST_COUNTS".to_string(),
            flag(options.inst_counts),
        ),
        ("OCLGRIND_QUICK".to_string(), flag(options.quick)),
        (
            "OCLGRIND_MAX_ERRORS".to_string(),
            options.max_errors.to_string(),
        ),
        (
            "OCLGRIND_BUILD_OPTIONS".to_string(),
            if options.disable_optimization {
                "-cl-opt-disable".to_string()
            } else {
                String::new()
            },
        ),
    ];
    if let Some(threads) = options.threads {
        // Oclgrind aborts on 0.
        env.push((
            "OCLGRIND_NUM_THREADS".to_string(),
            threads.max(1).to_string(),
        ));
    }
    Ok(env)
}

// ---------------------------------------------------------------------------------------
// What Oclgrind reports

/// An OpenCL address space, as Oclgrind names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Space {
    Private,
    Global,
    Constant,
    Local,
    Unknown,
}

impl Space {
    fn parse(s: &str) -> Space {
        match s {
            "private" => Space::Private,
            "global" => Space::Global,
            "constant" => Space::Constant,
            "local" => Space::Local,
            _ => Space::Unknown,
        }
    }

    /// SPIR's numbering, used in `addrspace(N)` and in mangled names (`PU3AS1`).
    fn from_number(n: u32) -> Space {
        match n {
            0 => Space::Private,
            1 => Space::Global,
            2 => Space::Constant,
            3 => Space::Local,
            _ => Space::Unknown,
        }
    }

    /// The OpenCL C qualifier: `__local`, `__global`, ...
    pub fn qualifier(self) -> &'static str {
        match self {
            Space::Private => "private",
            Space::Global => "__global",
            Space::Constant => "__constant",
            Space::Local => "__local",
            Space::Unknown => "unknown",
        }
    }

    /// Bits of an Oclgrind address that number the buffer (the rest is the offset): 16 for
    /// global, constant and local memory, 32 for private memory, on a 64-bit host.
    fn buffer_bits(self) -> u32 {
        match self {
            Space::Private => 32,
            _ => 16,
        }
    }
}

/// A read or a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Access {
    Read,
    Write,
}

/// Which accesses raced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RaceKind {
    /// One work-item wrote what another read.
    ReadWrite,
    /// Two work-items wrote the same address.
    WriteWrite,
}

/// How an uninitialised value showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Uninit {
    /// An uninitialised value was stored to memory.
    ValueWritten(Space),
    /// An address computed from an uninitialised value was read from or written to.
    Address(Access, Space),
    /// A branch or loop condition depended on an uninitialised value.
    ControlFlow,
    /// An array index depended on an uninitialised value.
    Index,
}

/// Where Oclgrind says something happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// The file in the message: `input.cl` for a program built from a string.
    pub file: String,
    pub line: u32,
    pub column: u32,
    /// The source line as Oclgrind quotes it (leading blanks removed).
    pub source: Option<String>,
    /// The LLVM instruction, which tells a load from a store and the address space.
    pub instruction: Option<String>,
}

impl Location {
    /// Whether the instruction is a store (or a `vstoreN` call).
    fn is_store(&self) -> bool {
        self.instruction.as_deref().is_some_and(|i| {
            let i = i.trim_start();
            i.starts_with("store ") || i.contains("vstore")
        })
    }

    /// The access and address space, read from the LLVM instruction.
    fn access(&self) -> Option<(Access, Space)> {
        let i = self.instruction.as_deref()?;
        let access = if i.trim_start().starts_with("store ") {
            Access::Write
        } else if i.contains(" = load ") {
            Access::Read
        } else {
            return None;
        };
        let space = match i.find("addrspace(") {
            Some(p) => {
                let n: String = i[p + 10..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                Space::from_number(n.parse().unwrap_or(99))
            }
            None => Space::Private,
        };
        Some((access, space))
    }
}

/// A work-item or work-group named in a message, as (x, y, z) ids.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    pub global: Option<[u64; 3]>,
    pub local: Option<[u64; 3]>,
    pub group: Option<[u64; 3]>,
}

impl Entity {
    fn parse(s: &str) -> Option<Entity> {
        let ids = |tag: &str| -> Option<[u64; 3]> {
            let start = s.find(&format!("{tag}("))? + tag.len() + 1;
            let end = start + s[start..].find(')')?;
            let v: Vec<u64> = s[start..end]
                .split(',')
                .filter_map(|x| x.trim().parse().ok())
                .collect();
            (v.len() == 3).then(|| [v[0], v[1], v[2]])
        };
        let e = Entity {
            global: ids("Global"),
            local: ids("Local"),
            group: ids("Group"),
        };
        (e != Entity::default()).then_some(e)
    }

    /// `work-item (1,0) of work-group (0,0)`, dimension 0 first, z left out.
    pub fn describe(&self) -> String {
        let xy = |v: [u64; 3]| format!("({},{})", v[0], v[1]);
        match (self.local, self.group, self.global) {
            (Some(l), Some(g), _) => format!("work-item {} of work-group {}", xy(l), xy(g)),
            (None, Some(g), _) => format!("work-group {}", xy(g)),
            (_, None, Some(gl)) => format!("work-item {}", xy(gl)),
            _ => "an unknown work-item".to_string(),
        }
    }
}

/// What kind of problem a finding is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// Two work-items accessed one address, at least one writing, with no barrier between.
    /// `at` is the write, `other` the other access.
    Race { kind: RaceKind, space: Space },
    /// A load or store outside every buffer or array (`address` is of the first occurrence).
    InvalidAccess {
        access: Access,
        space: Space,
        size: u32,
        address: u64,
    },
    /// A constant-size array indexed past its end (one dimension of it).
    IndexOutOfRange {
        index: u64,
        size: u64,
        access: Option<Access>,
        space: Option<Space>,
    },
    /// A vector access through a pointer not aligned to the vector's size.
    Unaligned { access: Access },
    /// An uninitialised value was used.
    Uninitialized(Uninit),
    /// Work-items of one work-group did not all reach the same barrier. `reached` is
    /// (work-items that reached it, work-items in the group) when Oclgrind says; `other` is
    /// the barrier the others reached, when they reached a different one.
    Divergence {
        what: String,
        reached: Option<(u32, u32)>,
    },
    /// An OpenCL call returned an error (`OCLGRIND_CHECK_API`).
    Api {
        function: String,
        error: String,
        info: Option<String>,
    },
    /// Oclgrind itself failed and stopped running the kernel: not the kernel's fault.
    SimulatorFailure { message: String },
    /// Any other message about the kernel.
    Other { message: String },
}

impl Kind {
    /// Order of importance, causes before their effects: a race on a tile or a divergent
    /// barrier leaves garbage that shows later as uninitialised values; a store past the
    /// end of a row of C lands on the next row, which shows as a race on global memory.
    fn rank(&self) -> u8 {
        match self {
            Kind::Race {
                space: Space::Local,
                ..
            } => 0,
            Kind::Divergence { .. } => 1,
            Kind::InvalidAccess { .. } | Kind::IndexOutOfRange { .. } => 2,
            Kind::Unaligned { .. } => 3,
            Kind::Race { .. } => 4,
            Kind::Api { .. } => 5,
            Kind::Uninitialized(_) => 6,
            Kind::SimulatorFailure { .. } => 7,
            Kind::Other { .. } => 8,
        }
    }

    /// What makes two messages the same finding; addresses and work-items vary.
    fn key(&self) -> String {
        match self {
            Kind::InvalidAccess {
                access,
                space,
                size,
                ..
            } => format!("invalid {access:?} {space:?} {size}"),
            Kind::IndexOutOfRange { size, .. } => format!("index {size}"),
            Kind::Divergence { what, .. } => format!("divergence {what}"),
            other => format!("{other:?}"),
        }
    }
}

/// One problem, with every identical message merged into it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: Kind,
    /// The kernel function.
    pub kernel: Option<String>,
    /// The main location (for a race, the write).
    pub at: Option<Location>,
    /// The second location: the other access of a race, the other barrier of a divergence.
    pub other: Option<Location>,
    /// Who did it, at the first occurrence.
    pub entity: Option<Entity>,
    pub other_entity: Option<Entity>,
    /// How many messages were merged into this finding.
    pub count: usize,
}

impl Finding {
    /// Whether the finding is about the kernel (everything but a simulator failure).
    pub fn is_kernel_fault(&self) -> bool {
        !matches!(self.kind, Kind::SimulatorFailure { .. })
    }

    /// The buffer number and byte offset of an invalid access's address. A negative offset
    /// is an access before the start of that buffer. Buffers are numbered from 1 in the
    /// order the program created them (images count as buffers), within their space.
    pub fn buffer_offset(&self) -> Option<(u64, i64)> {
        match self.kind {
            Kind::InvalidAccess { space, address, .. } => Some(split_address(space, address)),
            _ => None,
        }
    }

    fn key(&self) -> String {
        let loc = |l: &Option<Location>| {
            l.as_ref()
                .map(|l| format!("{}:{}:{}", l.file, l.line, l.column))
                .unwrap_or_default()
        };
        format!("{}|{}|{}", self.kind.key(), loc(&self.at), loc(&self.other))
    }
}

/// An Oclgrind address as (buffer, offset in bytes). Offsets within the last 2^(n-1) bytes
/// of a buffer's range are negative offsets from the next buffer: Oclgrind packs the buffer
/// number into the high bits, so an index of -1 lands just below the buffer's base.
pub fn split_address(space: Space, address: u64) -> (u64, i64) {
    let offset_bits = 64 - space.buffer_bits();
    let buffer = address >> offset_bits;
    let offset = address & ((1u64 << offset_bits) - 1);
    if offset >= 1u64 << (offset_bits - 1) {
        (buffer + 1, offset as i64 - (1i64 << offset_bits))
    } else {
        (buffer, offset as i64)
    }
}

/// Bytes moved by a kind of memory access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Traffic {
    /// Accesses executed (by all work-items together).
    pub count: u64,
    pub bytes: u64,
}

impl Traffic {
    /// Mean bytes per access: 4 for scalar floats, 16 for float4; 0 with no access.
    pub fn bytes_per_access(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.bytes as f64 / self.count as f64
        }
    }

    fn add(self, other: Traffic) -> Traffic {
        Traffic {
            count: self.count + other.count,
            bytes: self.bytes + other.bytes,
        }
    }
}

/// Instructions executed by a kernel (`OCLGRIND_INST_COUNTS`), all work-items together.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// The kernels the counts are for (summed when the output has several).
    pub kernels: Vec<String>,
    /// Count per name as Oclgrind prints it, without the byte total: `br`, `load global`,
    /// `call _Z7barrierj()`, `call llvm.fmuladd.v4f32()`.
    pub ops: BTreeMap<String, u64>,
    /// Bytes moved, for `load SPACE` and `store SPACE`.
    pub bytes: BTreeMap<String, u64>,
}

impl Counts {
    /// Executions of one name, 0 if absent.
    pub fn count(&self, name: &str) -> u64 {
        self.ops.get(name).copied().unwrap_or(0)
    }

    fn memory(&self, op: &str, space: Space) -> Traffic {
        let name = format!("{op} {}", space_name(space));
        Traffic {
            count: self.count(&name),
            bytes: self.bytes.get(&name).copied().unwrap_or(0),
        }
    }

    /// Load instructions in a space. `vloadN` calls are not load instructions: see
    /// [`Counts::loads_with_vectors`].
    pub fn loads(&self, space: Space) -> Traffic {
        self.memory("load", space)
    }

    /// Store instructions in a space (not `vstoreN` calls).
    pub fn stores(&self, space: Space) -> Traffic {
        self.memory("store", space)
    }

    /// Calls of `vloadN` (or `vstoreN` when `store`) through a pointer to `space`, with the
    /// bytes they move.
    pub fn vector_calls(&self, store: bool, space: Space) -> Traffic {
        let mut t = Traffic::default();
        for (name, &n) in &self.ops {
            let Some(v) = name.strip_prefix("call ").and_then(VectorCall::parse) else {
                continue;
            };
            if v.store == store && v.space == space {
                t.count += n;
                t.bytes += n * v.bytes;
            }
        }
        t
    }

    /// Loads in a space, whether load instructions or `vloadN` calls (Oclgrind implements
    /// `vloadN` as a built-in function, so it does not count it as a load).
    pub fn loads_with_vectors(&self, space: Space) -> Traffic {
        self.loads(space).add(self.vector_calls(false, space))
    }

    /// Stores in a space, whether store instructions or `vstoreN` calls.
    pub fn stores_with_vectors(&self, space: Space) -> Traffic {
        self.stores(space).add(self.vector_calls(true, space))
    }

    /// Global loads, `vloadN` included.
    pub fn global_loads(&self) -> Traffic {
        self.loads_with_vectors(Space::Global)
    }

    /// Global stores, `vstoreN` included.
    pub fn global_stores(&self) -> Traffic {
        self.stores_with_vectors(Space::Global)
    }

    /// Local loads, `vloadN` included.
    pub fn local_loads(&self) -> Traffic {
        self.loads_with_vectors(Space::Local)
    }

    /// Local stores, `vstoreN` included.
    pub fn local_stores(&self) -> Traffic {
        self.stores_with_vectors(Space::Local)
    }

    /// Private loads: depend on the optimisation level far more than the others.
    pub fn private_loads(&self) -> Traffic {
        self.loads_with_vectors(Space::Private)
    }

    pub fn private_stores(&self) -> Traffic {
        self.stores_with_vectors(Space::Private)
    }

    /// Executions of calls whose function, demangled, satisfies `pred`.
    fn calls(&self, pred: impl Fn(&str) -> bool) -> u64 {
        self.ops
            .iter()
            .filter_map(|(name, &n)| {
                let f = name.strip_prefix("call ")?.trim_end_matches("()");
                pred(base_name(f)).then_some(n)
            })
            .sum()
    }

    /// `read_imagef` / `read_imagei` / `read_imageui` calls.
    pub fn image_reads(&self) -> u64 {
        self.calls(|f| f.starts_with("read_image"))
    }

    pub fn image_writes(&self) -> u64 {
        self.calls(|f| f.starts_with("write_image"))
    }

    /// Barriers executed, counted once per work-item that reaches one.
    pub fn barriers(&self) -> u64 {
        self.calls(|f| f == "barrier" || f == "work_group_barrier")
    }

    /// Fused multiply-adds, counted per lane (a float4 `mad` is 4): `llvm.fmuladd` (what
    /// `a * b + c` and `acc += a * b` compile to), `mad` and `fma`. A kernel may also use a
    /// separate `fmul` and `fadd`, so for a ratio per multiply-add divide by M·N·K instead.
    pub fn multiply_adds(&self) -> u64 {
        self.ops
            .iter()
            .filter_map(|(name, &n)| {
                let f = name.strip_prefix("call ")?.trim_end_matches("()");
                if let Some(ty) = f.strip_prefix("llvm.fmuladd.") {
                    // f32, v4f32, ...
                    let lanes = ty
                        .strip_prefix('v')
                        .and_then(|t| t.split('f').next())
                        .and_then(|w| w.parse::<u64>().ok())
                        .unwrap_or(1);
                    return Some(n * lanes);
                }
                let base = base_name(f);
                (base == "mad" || base == "fma").then(|| n * mangled_lanes(f))
            })
            .sum()
    }
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Private => "private",
        Space::Global => "global",
        Space::Constant => "constant",
        Space::Local => "local",
        Space::Unknown => "(unknown)",
    }
}

/// The function name inside an Itanium-mangled name (`_Z7barrierj` -> `barrier`); other
/// names as they are.
fn base_name(mangled: &str) -> &str {
    let Some(rest) = mangled.strip_prefix("_Z") else {
        return mangled;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    match rest[..digits].parse::<usize>() {
        Ok(len) if rest.len() >= digits + len => &rest[digits..digits + len],
        _ => mangled,
    }
}

/// Lanes of the first parameter of a mangled built-in (`Dv4_f` -> 4), 1 for a scalar.
fn mangled_lanes(mangled: &str) -> u64 {
    let base = base_name(mangled);
    let params = mangled
        .find(base)
        .map(|p| &mangled[p + base.len()..])
        .unwrap_or("");
    params
        .strip_prefix("Dv")
        .and_then(|p| p.split('_').next())
        .and_then(|w| w.parse().ok())
        .unwrap_or(1)
}

/// A `vloadN` / `vstoreN` built-in call, from its mangled name.
struct VectorCall {
    store: bool,
    space: Space,
    bytes: u64,
}

impl VectorCall {
    fn parse(name: &str) -> Option<VectorCall> {
        let mangled = name.trim_end_matches("()");
        let base = base_name(mangled);
        let (store, width) = if let Some(w) = base.strip_prefix("vload") {
            (false, w)
        } else if let Some(w) = base.strip_prefix("vstore") {
            (true, w)
        } else {
            return None;
        };
        // vload_half and friends are not float vectors.
        let lanes: u64 = width.parse().ok()?;
        let params = &mangled[mangled.find(base)? + base.len()..];
        let space = match params.find("U3AS") {
            Some(p) => Space::from_number(
                params[p + 4..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse()
                    .ok()?,
            ),
            None => Space::Private,
        };
        let elem = match params.chars().last()? {
            'c' | 'a' | 'h' => 1,
            's' | 't' => 2,
            'i' | 'j' | 'f' => 4,
            'l' | 'm' | 'd' => 8,
            _ => 4,
        };
        Some(VectorCall {
            store,
            space,
            bytes: lanes * elem,
        })
    }
}

/// Everything Oclgrind printed in one run, understood.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Distinct findings, causes first (races, divergent barriers, bad accesses, ...,
    /// uninitialised values), each in order of first appearance within its kind.
    pub findings: Vec<Finding>,
    /// Oclgrind stopped printing messages (`OCLGRIND_MAX_ERRORS` reached): more problems
    /// may exist than are listed.
    pub suppressed: bool,
    /// Instruction counts, when the output has them.
    pub counts: Option<Counts>,
}

impl Report {
    /// No finding about the kernel, and the simulator ran it to the end.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }

    /// Oclgrind gave up on the kernel: the findings (and counts) cover part of it only.
    pub fn simulator_failed(&self) -> bool {
        self.findings
            .iter()
            .any(|f| matches!(f.kind, Kind::SimulatorFailure { .. }))
    }

    /// The findings that are the kernel's fault.
    pub fn kernel_faults(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.is_kernel_fault())
    }
}

/// One message of Oclgrind's output: a header line, maybe more unindented lines right after
/// it, then indented lines.
struct Message<'a> {
    header: Vec<&'a str>,
    body: Vec<&'a str>,
}

/// How Oclgrind's own messages begin: such a line starts a message even when the program's
/// output runs straight into it.
const HEADERS: &[&str] = &[
    "Instructions executed for kernel",
    "Read-write data race at ",
    "Write-write data race at ",
    "Invalid read of size ",
    "Invalid write of size ",
    "Invalid memory load",
    "Invalid memory store",
    "Index (",
    "Unaligned address on ",
    "Uninitialized ",
    "Controlflow depends on uninitialized",
    "Instruction depends on an uninitialized",
    "Work-group divergence detected",
    "Oclgrind - OpenCL runtime error detected",
    "OCLGRIND FATAL ERROR",
    "Oclgrind: ",
];

/// Splits output into messages. Oclgrind prints each message after an empty line with its
/// body indented by tabs; lines that belong to no message (the program's own output) are
/// dropped later because no header matches them.
fn messages(text: &str) -> Vec<Message<'_>> {
    let mut out: Vec<Message> = Vec::new();
    let mut previous_blank = true;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() && !line.starts_with('\t') {
            previous_blank = true;
            continue;
        }
        let indented = line.starts_with('\t') || line.starts_with(' ');
        let known = !indented && HEADERS.iter().any(|h| line.starts_with(h));
        match out.last_mut() {
            Some(m) if indented => m.body.push(line),
            // An unindented line right after a header (a fatal error's explanation).
            Some(m) if !known && !previous_blank && m.body.is_empty() => m.header.push(line),
            _ if indented => {}
            _ => out.push(Message {
                header: vec![line],
                body: Vec::new(),
            }),
        }
        previous_blank = false;
    }
    out
}

/// Reads the locations and entities of a message body, in order.
struct Body {
    kernel: Option<String>,
    /// (entity line, instruction, location) in order of appearance.
    places: Vec<(Option<Entity>, Option<Location>)>,
    lines: Vec<String>,
}

fn body(lines: &[&str]) -> Body {
    let lines: Vec<String> = lines.iter().map(|l| l.trim().to_string()).collect();
    let mut kernel = None;
    let mut places: Vec<(Option<Entity>, Option<Location>)> = Vec::new();
    let mut entity: Option<Entity> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        if let Some(k) = l.strip_prefix("Kernel:") {
            kernel = Some(k.trim().to_string());
        } else if l.starts_with("Entity:")
            || l.starts_with("First entity:")
            || l.starts_with("Second entity:")
            || l.starts_with("Work-item:")
        {
            entity = Entity::parse(l);
        } else if let Some(loc) = parse_at(l) {
            let instruction = (i > 0).then(|| lines[i - 1].clone());
            let source = lines
                .get(i + 1)
                .filter(|s| s.as_str() != "(source not available)")
                .cloned();
            places.push((
                entity.take(),
                Some(Location {
                    instruction,
                    source,
                    ..loc
                }),
            ));
            i += 1;
        } else if l == "Debugging information not available." {
            places.push((entity.take(), None));
        }
        i += 1;
    }
    if places.is_empty() {
        if let Some(e) = entity {
            places.push((Some(e), None));
        }
    }
    Body {
        kernel,
        places,
        lines,
    }
}

/// `At line 42 (column 20) of input.cl:`
fn parse_at(l: &str) -> Option<Location> {
    let rest = l.strip_prefix("At line ")?;
    let (line, rest) = rest.split_once(" (column ")?;
    let (column, rest) = rest.split_once(")")?;
    let file = rest.strip_prefix(" of ")?.strip_suffix(':')?;
    Some(Location {
        file: file.to_string(),
        line: line.trim().parse().ok()?,
        column: column.trim().parse().ok()?,
        source: None,
        instruction: None,
    })
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

/// Parses Oclgrind's output: stderr for the findings, stdout for instruction counts (pass
/// both, concatenated, when both are wanted). Lines that are not Oclgrind's are ignored.
pub fn parse(output: &str) -> Report {
    let mut report = Report::default();
    let mut found: Vec<Finding> = Vec::new();
    for m in messages(output) {
        let header = m.header[0].trim();
        if header.starts_with("Instructions executed for kernel") {
            let counts = report.counts.get_or_insert_with(Counts::default);
            if let Some(name) = header.split('\'').nth(1) {
                if !counts.kernels.iter().any(|k| k == name) {
                    counts.kernels.push(name.to_string());
                }
            }
            for line in &m.body {
                add_count(counts, line);
            }
            continue;
        }
        if header.starts_with("Oclgrind: ") && header.contains("suppressing further errors") {
            report.suppressed = true;
            continue;
        }
        let b = body(&m.body);
        if let Some(f) = finding(&m.header, b) {
            match found.iter_mut().find(|x| x.key() == f.key()) {
                Some(x) => x.count += 1,
                None => found.push(f),
            }
        }
    }
    // Oclgrind reports an index past the end of a kernel's array twice when the address
    // also falls outside the array's memory: one finding is enough.
    let indexed: Vec<(u32, u32)> = found
        .iter()
        .filter(|f| matches!(f.kind, Kind::IndexOutOfRange { .. }))
        .filter_map(|f| f.at.as_ref().map(|l| (l.line, l.column)))
        .collect();
    found.retain(|f| {
        let local = matches!(
            f.kind,
            Kind::InvalidAccess {
                space: Space::Local | Space::Private,
                ..
            }
        );
        !(local
            && f.at
                .as_ref()
                .is_some_and(|l| indexed.contains(&(l.line, l.column))))
    });
    // Stable: within a kind, first appearance first.
    found.sort_by_key(|f| f.kind.rank());
    report.findings = found;
    report
}

/// `           31488 - br` or `24576 - load local (98304 bytes)`; counts printed in another
/// locale carry separators, which are dropped.
fn add_count(counts: &mut Counts, line: &str) {
    let Some((n, name)) = line.trim().split_once(" - ") else {
        return;
    };
    let digits = |s: &str| -> Option<u64> {
        let d: String = s.chars().filter(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let Some(n) = digits(n) else {
        return;
    };
    let (name, bytes) = match name.rsplit_once(" (") {
        Some((op, b))
            if b.ends_with("bytes)") && (op.starts_with("load ") || op.starts_with("store ")) =>
        {
            (op.to_string(), digits(b))
        }
        _ => (name.to_string(), None),
    };
    *counts.ops.entry(name.clone()).or_insert(0) += n;
    if let Some(b) = bytes {
        *counts.bytes.entry(name).or_insert(0) += b;
    }
}

/// The finding a message describes, if it is one of Oclgrind's.
fn finding(header: &[&str], b: Body) -> Option<Finding> {
    let h = header[0].trim();
    let words: Vec<&str> = h.split_whitespace().collect();
    let first = b.places.first().cloned().unwrap_or((None, None));
    let second = b.places.get(1).cloned().unwrap_or((None, None));
    let mut f = Finding {
        kind: Kind::Other {
            message: h.to_string(),
        },
        kernel: b.kernel.clone(),
        at: first.1,
        other: None,
        entity: first.0,
        other_entity: None,
        count: 1,
    };
    if h.contains(" data race at ") {
        // "Read-write data race at local memory address 0x1000000000000"
        let kind = if h.starts_with("Write-write") {
            RaceKind::WriteWrite
        } else {
            RaceKind::ReadWrite
        };
        let space = Space::parse(words.get(4).copied().unwrap_or(""));
        f.kind = Kind::Race { kind, space };
        f.other = second.1;
        f.other_entity = second.0;
        // The write first, so the same pair of lines reads the same whichever work-item
        // Oclgrind named first; two writes in source order.
        let swap = match (&f.at, &f.other) {
            (Some(a), Some(o)) => match kind {
                RaceKind::ReadWrite => !a.is_store() && o.is_store(),
                RaceKind::WriteWrite => (o.line, o.column) < (a.line, a.column),
            },
            _ => false,
        };
        if swap {
            std::mem::swap(&mut f.at, &mut f.other);
            std::mem::swap(&mut f.entity, &mut f.other_entity);
        }
    } else if h.starts_with("Invalid read of size ") || h.starts_with("Invalid write of size ") {
        // "Invalid read of size 4 at global memory address 0x30000000003c0"
        f.kind = Kind::InvalidAccess {
            access: if words[1] == "write" {
                Access::Write
            } else {
                Access::Read
            },
            size: words.get(4).and_then(|s| s.parse().ok()).unwrap_or(0),
            space: Space::parse(words.get(6).copied().unwrap_or("")),
            address: words.get(9).and_then(|s| hex(s)).unwrap_or(0),
        };
    } else if let Some(rest) = h.strip_prefix("Index (") {
        // "Index (8) exceeds static array size (8)"
        let index = rest.split(')').next().and_then(|s| s.parse().ok())?;
        let size = h
            .rsplit('(')
            .next()
            .and_then(|s| s.trim_end_matches(')').parse().ok())?;
        let access = f.at.as_ref().and_then(Location::access);
        f.kind = Kind::IndexOutOfRange {
            index,
            size,
            access: access.map(|a| a.0),
            space: access.map(|a| a.1),
        };
    } else if h.starts_with("Invalid memory load - source pointer is not aligned")
        || h.starts_with("Invalid memory store - source pointer is not aligned")
        || h.starts_with("Unaligned address on ")
    {
        let store = h.starts_with("Invalid memory store") || h.contains("vstore");
        f.kind = Kind::Unaligned {
            access: if store { Access::Write } else { Access::Read },
        };
    } else if let Some(rest) = h.strip_prefix("Uninitialized value written to ") {
        f.kind = Kind::Uninitialized(Uninit::ValueWritten(Space::parse(
            rest.split_whitespace().next().unwrap_or(""),
        )));
    } else if let Some(rest) = h.strip_prefix("Uninitialized address used to ") {
        // "... read from global memory address 0x..." / "... write to local memory ..."
        let access = if rest.starts_with("write") {
            Access::Write
        } else {
            Access::Read
        };
        let space = rest.split_whitespace().nth(2).unwrap_or("");
        f.kind = Kind::Uninitialized(Uninit::Address(access, Space::parse(space)));
    } else if h.starts_with("Controlflow depends on uninitialized value") {
        f.kind = Kind::Uninitialized(Uninit::ControlFlow);
    } else if h.starts_with("Instruction depends on an uninitialized index value") {
        f.kind = Kind::Uninitialized(Uninit::Index);
    } else if let Some(rest) = h.strip_prefix("Work-group divergence detected (") {
        let what = rest.trim_end_matches(')').to_string();
        // "Only 32 out of 64 work-items executed barrier"
        let reached = b.lines.iter().find_map(|l| {
            let rest = l.strip_prefix("Only ")?;
            let w: Vec<&str> = rest.split_whitespace().collect();
            Some((w.first()?.parse().ok()?, w.get(3)?.parse().ok()?))
        });
        f.kind = Kind::Divergence { what, reached };
        f.other = second.1;
        if f.entity.is_none() {
            f.entity = b
                .lines
                .iter()
                .find_map(|l| l.strip_prefix("Work-group:"))
                .and_then(|g| Entity::parse(&format!("Group{}", g.trim())));
        }
    } else if h == "Oclgrind - OpenCL runtime error detected" {
        let field = |name: &str| {
            b.lines
                .iter()
                .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
        };
        let info = b
            .lines
            .iter()
            .find(|l| !l.starts_with("Function:") && !l.starts_with("Error:") && !l.is_empty())
            .cloned();
        f.kind = Kind::Api {
            function: field("Function:").unwrap_or_default(),
            error: field("Error:").unwrap_or_default(),
            info,
        };
    } else if h.starts_with("OCLGRIND FATAL ERROR") {
        f.kind = Kind::SimulatorFailure {
            message: header[1..].join(" ").trim().to_string(),
        };
    } else if b.kernel.is_none() {
        // Not a message about a kernel: the program's own output.
        return None;
    }
    Some(f)
}

// ---------------------------------------------------------------------------------------
// Telling the student

/// The identifier an access at `column` (1-based) of a source line is about: for a load,
/// the array or pointer at that column; for a store, Oclgrind points at the `=`, so the
/// target left of it; for `vloadN`/`vstoreN`, the pointer argument.
pub fn operand(line: &str, column: u32) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let ident_at = |mut i: usize| -> Option<(String, usize)> {
        if i >= chars.len() || !(chars[i].is_ascii_alphabetic() || chars[i] == '_') {
            return None;
        }
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        Some((chars[start..i].iter().collect(), i))
    };
    let i = (column as usize).checked_sub(1)?;
    if i >= chars.len() {
        return None;
    }
    if let Some((name, end)) = ident_at(i) {
        if (name.starts_with("vload") || name.starts_with("vstore")) && chars.get(end) == Some(&'(')
        {
            // The pointer is the last argument: vload4(0, A + i), vstore4(v, 0, C + i).
            let mut depth = 0;
            let mut last_arg = end + 1;
            for (j, &c) in chars.iter().enumerate().skip(end + 1) {
                match c {
                    '(' | '[' => depth += 1,
                    ')' | ']' if depth > 0 => depth -= 1,
                    ')' => break,
                    ',' if depth == 0 => last_arg = j + 1,
                    _ => {}
                }
            }
            let mut j = last_arg;
            while j < chars.len() && !(chars[j].is_ascii_alphabetic() || chars[j] == '_') {
                j += 1;
            }
            return ident_at(j).map(|(n, _)| n).or(Some(name));
        }
        return Some(name);
    }
    match chars[i] {
        // `*(const __global float4*)p`: skip the dereference and the cast.
        '*' | '(' => {
            let mut j = i;
            if chars[j] == '*' {
                j += 1;
            }
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            if j < chars.len() && chars[j] == '(' {
                let mut depth = 0;
                while j < chars.len() {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                j += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            while j < chars.len() && !(chars[j].is_ascii_alphabetic() || chars[j] == '_') {
                j += 1;
            }
            ident_at(j).map(|(n, _)| n)
        }
        // A store: `Asub[tr][tc] = ...`, `acc[i] += ...`; walk left over the subscripts.
        _ => {
            let mut j = i;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                match chars[j] {
                    ' ' | '\t' | '+' | '-' | '*' | '/' | '|' | '&' | '^' => continue,
                    ']' => {
                        let mut depth = 1;
                        while depth > 0 {
                            if j == 0 {
                                return None;
                            }
                            j -= 1;
                            match chars[j] {
                                ']' => depth += 1,
                                '[' => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    c if is_ident(c) => {
                        let end = j + 1;
                        while j > 0 && is_ident(chars[j - 1]) {
                            j -= 1;
                        }
                        return Some(chars[j..end].iter().collect());
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// Renders a finding for the student: what happened and where, the source line(s) quoted
/// from the kernel file (`path` as it should be shown, `source` its text) with a caret at
/// the column, and a hint. Oclgrind calls every program built from a string `input.cl`;
/// that name is replaced by `path`.
pub fn render(finding: &Finding, path: &str, source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let text_of = |l: &Location| -> Option<String> {
        if l.file == "input.cl" || l.file.is_empty() {
            lines
                .get((l.line as usize).checked_sub(1)?)
                .map(|s| s.to_string())
        } else {
            l.source.clone()
        }
    };
    let name_of = |l: &Option<Location>| -> Option<String> {
        let l = l.as_ref()?;
        operand(&text_of(l)?, l.column)
    };
    let file_of = |l: &Location| -> String {
        if l.file == "input.cl" || l.file.is_empty() {
            path.to_string()
        } else {
            l.file.clone()
        }
    };
    let line_no = |l: &Option<Location>| l.as_ref().map(|l| l.line);
    let verb = |l: &Option<Location>| {
        if l.as_ref().is_some_and(Location::is_store) {
            "writes"
        } else {
            "reads"
        }
    };
    let named = |n: Option<String>| n.map(|n| format!(" {n}")).unwrap_or_default();

    let what = match &finding.kind {
        Kind::Race { kind, space } => {
            let target = named(name_of(&finding.at).or_else(|| name_of(&finding.other)));
            let between = match (line_no(&finding.at), line_no(&finding.other)) {
                (Some(a), Some(o)) if a == o && *kind == RaceKind::WriteWrite => {
                    format!("two work-items write the same element at line {a}")
                }
                (Some(a), Some(o)) if a == o => format!(
                    "line {a} {} it in one work-item while another work-item {} it",
                    verb(&finding.at),
                    verb(&finding.other)
                ),
                (Some(a), Some(o)) => format!(
                    "line {a} {} it while line {o} {} it in another work-item",
                    verb(&finding.at),
                    verb(&finding.other)
                ),
                _ => "two work-items access it".to_string(),
            };
            // Only work-items of one group can be ordered, and only by a barrier.
            let unordered = if *space == Space::Local {
                ", with no barrier between them"
            } else {
                ""
            };
            let kind = match kind {
                RaceKind::ReadWrite => "read-write",
                RaceKind::WriteWrite => "write-write",
            };
            format!(
                "data race ({kind}) on {}{target}: {between}{unordered}",
                space.qualifier()
            )
        }
        Kind::InvalidAccess {
            access,
            space,
            size,
            ..
        } => {
            let verb = match access {
                Access::Read => "read",
                Access::Write => "write",
            };
            let target = name_of(&finding.at);
            let place = match (finding.buffer_offset(), space) {
                (Some((_, off)), Space::Global | Space::Constant) if off < 0 => format!(
                    "before the start of{}, at index {} counting floats from its start",
                    named(target.clone()),
                    off / 4
                ),
                (Some((_, off)), Space::Global | Space::Constant) => format!(
                    "past the end of{}, at index {} counting floats from its start",
                    named(target.clone()),
                    off / 4
                ),
                _ => format!(
                    "outside the {} array{}",
                    space.qualifier(),
                    named(target.clone())
                ),
            };
            format!("{verb} of {size} bytes {place}")
        }
        Kind::IndexOutOfRange {
            index,
            size,
            access,
            space,
        } => {
            let target = named(name_of(&finding.at));
            let verb = match access {
                Some(Access::Write) => "write to",
                _ => "read from",
            };
            let space = space.map(|s| format!("{} ", s.qualifier())).unwrap_or_default();
            format!(
                "{verb} the {space}array{target} at index {index}, but that dimension has {size} elements (0 to {})",
                size.saturating_sub(1)
            )
        }
        Kind::Unaligned { access } => {
            let target = named(name_of(&finding.at));
            let verb = match access {
                Access::Read => "load from",
                Access::Write => "store to",
            };
            format!("vector {verb}{target} at an address that is not a multiple of the vector's size")
        }
        Kind::Uninitialized(u) => match u {
            Uninit::ValueWritten(space) => format!(
                "a value that was never initialised is stored into {}{}",
                space.qualifier(),
                named(name_of(&finding.at))
            ),
            Uninit::Address(access, space) => format!(
                "an address computed from an uninitialised value is used to {} {} memory",
                match access {
                    Access::Read => "read",
                    Access::Write => "write",
                },
                space.qualifier()
            ),
            Uninit::ControlFlow => {
                "a branch or loop condition depends on an uninitialised value".to_string()
            }
            Uninit::Index => "an array index depends on an uninitialised value".to_string(),
        },
        Kind::Divergence { what, reached } => {
            let group = finding
                .entity
                .as_ref()
                .and_then(|e| e.group)
                .map(|g| format!(" of work-group ({},{})", g[0], g[1]))
                .unwrap_or_default();
            match (reached, line_no(&finding.other)) {
                (Some((n, of)), _) => {
                    format!("only {n} of the {of} work-items{group} reached this {what}")
                }
                (None, Some(o)) => format!(
                    "work-items{group} waited at different {what}s: this one and the one at line {o}"
                ),
                _ => format!("the work-items{group} did not all reach the same {what}"),
            }
        }
        Kind::Api {
            function,
            error,
            info,
        } => {
            let info = info.as_ref().map(|i| format!(" ({i})")).unwrap_or_default();
            format!("the OpenCL call {function} failed with {error}{info}")
        }
        Kind::SimulatorFailure { message } => format!(
            "the simulator could not run this kernel to its end ({message}); this is a limit of Oclgrind, not necessarily a bug in the kernel"
        ),
        Kind::Other { message } => message.clone(),
    };

    let mut out = String::new();
    let head = match &finding.at {
        Some(l) => format!("{}:{}:{}", file_of(l), l.line, l.column),
        None => path.to_string(),
    };
    let _ = write!(out, "{head}: {what}");
    if let Some(e) = &finding.entity {
        if !matches!(finding.kind, Kind::Divergence { .. }) {
            let who = match &finding.other_entity {
                Some(o) if o.group.is_some() && o.group == e.group && o.local.is_some() => {
                    let xy = |v: [u64; 3]| format!("({},{})", v[0], v[1]);
                    format!(
                        "work-items {} and {} of work-group {}",
                        e.local.map(xy).unwrap_or_default(),
                        o.local.map(xy).unwrap_or_default(),
                        e.group.map(xy).unwrap_or_default()
                    )
                }
                Some(o) => format!("{} and {}", e.describe(), o.describe()),
                None => e.describe(),
            };
            let _ = write!(out, " (first seen in {who}");
            out.push(')');
        }
    }
    if finding.count > 1 {
        let _ = write!(out, "; reported {} times", finding.count);
    }
    out.push('\n');

    // Quote the lines in source order, each once, with a caret under each column.
    let mut places: Vec<&Location> = [&finding.at, &finding.other]
        .into_iter()
        .flatten()
        .collect();
    places.sort_by_key(|l| (l.line, l.column));
    let width = places
        .iter()
        .map(|l| l.line.to_string().len())
        .max()
        .unwrap_or(1);
    let mut i = 0;
    while i < places.len() {
        let l = places[i];
        let mut columns = vec![l.column];
        while i + 1 < places.len() && places[i + 1].line == l.line {
            i += 1;
            columns.push(places[i].column);
        }
        i += 1;
        let Some(text) = text_of(l) else {
            continue;
        };
        let _ = writeln!(out, "  {:>width$} | {}", l.line, text.trim_end());
        let mut marks: Vec<char> = Vec::new();
        for c in columns {
            let c = c as usize;
            if c == 0 {
                continue;
            }
            if marks.len() < c {
                marks.resize(c, ' ');
            }
            marks[c - 1] = '^';
        }
        if !marks.is_empty() {
            // Tabs in the line keep the caret aligned only if copied.
            let prefix: String = text
                .chars()
                .take(marks.len())
                .zip(&marks)
                .map(|(t, &m)| {
                    if m == '^' {
                        '^'
                    } else if t == '\t' {
                        '\t'
                    } else {
                        ' '
                    }
                })
                .collect();
            let _ = writeln!(out, "  {:>width$} | {}", "", prefix.trim_end());
        }
    }
    let _ = writeln!(out, "  hint: {}", hint(finding));
    out
}

/// Why such a finding happens and what usually fixes it.
pub fn hint(finding: &Finding) -> &'static str {
    match &finding.kind {
        Kind::Race {
            space: Space::Local,
            ..
        } => "work-items of a group run in no fixed order, so one may read a tile element before another has written it, or overwrite it while others still read it. Put barrier(CLK_LOCAL_MEM_FENCE) after the loads that fill a tile (before anyone reads it) and another after the reads (before the next tile overwrites it). PoCL and many GPUs happen to hide this; other devices give wrong numbers.",
        Kind::Race {
            kind: RaceKind::WriteWrite,
            ..
        } => "two work-items wrote the same element: the index formula maps two (row, column) pairs to one address, or two work-groups cover the same part of C. Check that every element of C is written by exactly one work-item.",
        Kind::Race { .. } => "one work-item read an element that another wrote, with nothing ordering the two: work-items of different groups never synchronise, and those of one group only at a barrier. Read only what you wrote yourself, or what the group wrote before a barrier.",
        Kind::InvalidAccess {
            space: Space::Global | Space::Constant,
            access: Access::Read,
            ..
        } => "an index went outside the matrix. Check the loop bounds (k < K, not k <= K), the row stride (K for A, N for B and C), and, where tiles hang over the edges of the matrices, that loads outside A or B read 0.0f instead of memory.",
        Kind::InvalidAccess {
            space: Space::Global | Space::Constant,
            access: Access::Write,
            ..
        } => "an index into C went outside it. Check the row stride (C is M×N: element (row, col) is C[row * N + col]) and, where tiles hang over the edges, skip the stores with row >= M or col >= N. On a GPU such a write silently corrupts other data.",
        Kind::InvalidAccess { .. } | Kind::IndexOutOfRange { .. } => "an index went past the end of an array declared in the kernel. Check which define sizes each dimension (TSM, TSN, TSK, WPTM, WPTN, padding) and that the index stays below it for every work-item.",
        Kind::Unaligned { .. } => "a floatN access must start at an address that is a multiple of its size: casting A + i to float4* when i is not a multiple of 4 (a row length K or N that is not a multiple of 4) breaks that. Use the vector path only where every row starts on a vector boundary, or vloadN/vstoreN, which need only float alignment.",
        Kind::Uninitialized(_) => "a value was used before anything was stored in it: an accumulator declared without `= 0.0f`, an element of a __local tile that no work-item loaded (or read before the barrier that follows the loads), a private array only partly filled, or C read before the kernel wrote it (C is only an output: whatever it held before the launch is not the kernel's to read, add into or test).",
        Kind::Divergence { .. } => "every work-item of a group must reach every barrier, the same number of times. A barrier inside `if (row < M)` or after an early `return` is reached by only some of them: on a GPU that hangs or corrupts the tile. Keep all work-items in the loop, let those outside the matrix load zeros, and skip only their store.",
        Kind::Api { .. } => "an OpenCL call failed while the simulator ran the program. If it is the build, the compiler's log above says why; Oclgrind's compiler is stricter than some drivers.",
        Kind::SimulatorFailure { .. } => "re-run without the uninitialised-value check (OCLGRIND_UNINITIALIZED=0), or with -cl-opt-disable, to check the rest; the numbers from this run are not meaningful.",
        Kind::Other { .. } => "see Oclgrind's message for details.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            (
                include_str!(concat!("../../tests/fixtures/oclgrind/", $name, ".txt")),
                include_str!(concat!("../../tests/fixtures/oclgrind/", $name, ".cl")),
            )
        };
    }

    fn lines(f: &Finding) -> (Option<u32>, Option<u32>) {
        (
            f.at.as_ref().map(|l| l.line),
            f.other.as_ref().map(|l| l.line),
        )
    }

    #[test]
    fn missing_barrier_is_a_local_race_between_the_store_and_the_reads() {
        let (out, src) = fixture!("race_missing_barrier");
        let r = parse(out);
        assert!(r.suppressed, "50 messages, then Oclgrind stops");
        assert!(r.counts.is_none());
        assert!(!r.findings.is_empty());
        for f in &r.findings {
            assert_eq!(
                f.kind,
                Kind::Race {
                    kind: RaceKind::ReadWrite,
                    space: Space::Local
                }
            );
            assert_eq!(f.kernel.as_deref(), Some("matmul"));
        }
        // The stores of the tiles (lines 36, 37) race with the reads in the loop (line 42).
        let pairs: Vec<_> = r.findings.iter().map(lines).collect();
        assert_eq!(pairs, vec![(Some(36), Some(42)), (Some(37), Some(42))]);
        assert_eq!(r.findings.iter().map(|f| f.count).sum::<usize>(), 50);
        let first = &r.findings[0];
        assert_eq!(first.at.as_ref().unwrap().column, 22);
        assert_eq!(first.other.as_ref().unwrap().column, 20);
        assert_eq!(
            first.other.as_ref().unwrap().source.as_deref(),
            Some("acc += Asub[tr][k] * Bsub[k][tc];")
        );

        let text = render(first, "kernels/05_local_tiling.cl", src);
        assert!(
            text.starts_with("kernels/05_local_tiling.cl:36:22: data race (read-write) on __local Asub: line 36 writes it while line 42 reads it in another work-item, with no barrier between them (first seen in work-items (0,0) and (1,0) of work-group (0,0)); reported 43 times\n"),
            "{text}"
        );
        assert!(text.contains("  36 |         Asub[tr][tc] = A[row * K + t * TS + tc];\n"));
        assert!(text.contains("  42 |             acc += Asub[tr][k] * Bsub[k][tc];\n"));
        assert!(text.contains("     |                    ^\n"), "{text}");
        assert!(text.contains("hint: work-items of a group run in no fixed order"));
        let second = render(&r.findings[1], "kernels/05_local_tiling.cl", src);
        assert!(second.contains("__local Bsub"), "{second}");
    }

    #[test]
    fn misplaced_barrier_races_on_the_tile_written_after_it() {
        let (out, src) = fixture!("race_misplaced_barrier");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Race {
                kind: RaceKind::ReadWrite,
                space: Space::Local
            }
        );
        assert_eq!(lines(f), (Some(38), Some(41)));
        let text = render(f, "k.cl", src);
        assert!(text.contains("on __local Bsub"), "{text}");
        assert!(text.contains("  38 |         Bsub[tr][tc] = B[(t * TS + tr) * N + col];"));
    }

    #[test]
    fn races_come_before_the_uninitialised_values_they_cause() {
        let (out, src) = fixture!("race_and_uninitialised");
        let r = parse(out);
        assert!(!r.suppressed);
        // Oclgrind printed the uninitialised stores first: they happen while the work-items
        // run, races are reported when the work-group ends. The race is the cause.
        assert!(out
            .trim_start()
            .starts_with("Uninitialized value written to global"));
        let kinds: Vec<u8> = r.findings.iter().map(|f| f.kind.rank()).collect();
        assert_eq!(kinds, vec![0, 0, 6]);
        assert_eq!(lines(&r.findings[0]), (Some(36), Some(41)));
        assert_eq!(lines(&r.findings[1]), (Some(37), Some(41)));
        let last = r.findings.last().unwrap();
        assert_eq!(
            last.kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
        assert_eq!(lines(last), (Some(48), None));
        assert!(render(&r.findings[1], "k.cl", src).contains("__local Bsub"));
    }

    #[test]
    fn a_low_error_limit_can_hide_the_race_behind_its_effects() {
        let (out, _) = fixture!("suppressed_before_race");
        let r = parse(out);
        assert!(r.suppressed);
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
    }

    #[test]
    fn two_work_items_writing_one_element_of_c() {
        let (out, src) = fixture!("race_global_write_write");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Race {
                kind: RaceKind::WriteWrite,
                space: Space::Global
            }
        );
        assert_eq!(f.count, 6);
        assert_eq!(lines(f), (Some(21), Some(21)));
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with("kernels/04_naive_kernel.cl:21:26: data race (write-write) on __global C: two work-items write the same element at line 21 (first seen in work-item (0,0) of work-group (1,0) and work-item (0,0) of work-group (0,0)); reported 6 times\n"),
            "{text}"
        );
        assert_eq!(text.matches("  21 |").count(), 1, "the line is quoted once");
        assert!(text.contains("hint: two work-items wrote the same element"));
    }

    #[test]
    fn an_unguarded_edge_store_comes_before_the_races_it_causes() {
        let (out, src) = fixture!("store_without_column_guard");
        let r = parse(out);
        // Oclgrind printed 11 invalid writes and 45 races on C, interleaved.
        assert_eq!(out.matches("Write-write data race at global").count(), 45);
        let f = &r.findings[0];
        assert!(matches!(
            f.kind,
            Kind::InvalidAccess {
                access: Access::Write,
                space: Space::Global,
                ..
            }
        ));
        assert_eq!(f.count, 11);
        let text = render(f, "kernels/08_padding.cl", src);
        assert!(
            text.contains(":180:30: write of 4 bytes past the end of C"),
            "{text}"
        );
        assert!(text.contains("C[row * N + col + w] = out.s[w];"));
        assert!(r.findings[1..].iter().all(|f| matches!(
            f.kind,
            Kind::Race {
                kind: RaceKind::WriteWrite,
                space: Space::Global
            }
        )));
    }

    #[test]
    fn reading_past_the_end_names_the_matrix_and_the_index() {
        let (out, src) = fixture!("read_past_end");
        let r = parse(out);
        let reads: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::InvalidAccess { .. }))
            .collect();
        assert_eq!(reads.len(), 2, "{:#?}", r.findings);
        // B (column 33) overruns first, then A (column 16) on the last row.
        let b = reads[0];
        assert!(matches!(
            b.kind,
            Kind::InvalidAccess {
                access: Access::Read,
                space: Space::Global,
                size: 4,
                ..
            }
        ));
        assert_eq!(
            (b.at.as_ref().unwrap().line, b.at.as_ref().unwrap().column),
            (19, 33)
        );
        // B is 5×3: index 15 is one past its end.
        assert_eq!(b.buffer_offset().map(|(_, o)| o), Some(60));
        let text = render(b, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with("kernels/04_naive_kernel.cl:19:33: read of 4 bytes past the end of B, at index 15 counting floats from its start (first seen in work-item (0,0) of work-group (0,0)); reported"),
            "{text}"
        );
        assert!(text.contains("hint: an index went outside the matrix"));
        let a = render(reads[1], "k.cl", src);
        assert!(a.contains("past the end of A, at index 20"), "{a}");
        // The garbage read is then stored: reported, after the cause.
        assert!(matches!(
            r.findings.last().unwrap().kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        ));
    }

    #[test]
    fn writing_past_the_end_of_c() {
        let (out, src) = fixture!("write_past_end");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert!(matches!(
            f.kind,
            Kind::InvalidAccess {
                access: Access::Write,
                space: Space::Global,
                size: 4,
                ..
            }
        ));
        assert_eq!(f.count, 6);
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with(
                "kernels/04_naive_kernel.cl:21:22: write of 4 bytes past the end of C, at index 20"
            ),
            "{text}"
        );
        assert!(text.contains("  21 |     C[row * K + col] = acc;\n"));
        assert!(text.contains("hint: an index into C went outside it"));
    }

    #[test]
    fn writing_before_the_start_of_c() {
        let (out, src) = fixture!("write_before_start");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(f.buffer_offset(), Some((1, -4)));
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("before the start of C, at index -1"),
            "{text}"
        );
    }

    #[test]
    fn uninitialised_accumulator_shows_at_the_store() {
        let (out, src) = fixture!("uninitialised");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
        assert_eq!(f.count, 9, "one per element of the 3×3 C");
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.contains("never initialised is stored into __global C"),
            "{text}"
        );
        assert!(text.contains("declared without `= 0.0f`"));
    }

    #[test]
    fn early_return_leaves_barriers_half_reached() {
        let (out, src) = fixture!("divergence_early_return");
        let r = parse(out);
        let div: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::Divergence { .. }))
            .collect();
        assert_eq!(div.len(), 2);
        assert_eq!(
            div[0].kind,
            Kind::Divergence {
                what: "barrier".into(),
                reached: Some((32, 64))
            }
        );
        assert_eq!(lines(div[0]), (Some(43), None));
        assert_eq!(lines(div[1]), (Some(49), None));
        assert_eq!(
            div[0].entity.as_ref().and_then(|e| e.group),
            Some([0, 1, 0])
        );
        let text = render(div[0], "kernels/05_local_tiling.cl", src);
        assert!(
            text.starts_with("kernels/05_local_tiling.cl:43:9: only 32 of the 64 work-items of work-group (0,1) reached this barrier\n"),
            "{text}"
        );
        assert!(text.contains("  43 |         barrier(CLK_LOCAL_MEM_FENCE);"));
        assert!(text.contains("hint: every work-item of a group must reach every barrier"));
        assert_eq!(
            r.findings[0].kind, div[0].kind,
            "divergence before its effects"
        );
    }

    #[test]
    fn barrier_in_a_branch_pairs_the_two_barriers() {
        let (out, src) = fixture!("divergence_branch");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Divergence {
                what: "barrier".into(),
                reached: None
            }
        );
        assert_eq!(lines(f), (Some(39), Some(46)));
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("waited at different barriers: this one and the one at line 46"),
            "{text}"
        );
        assert!(text.contains("  46 |             barrier(CLK_LOCAL_MEM_FENCE);"));
    }

    #[test]
    fn out_of_range_indices_of_local_and_private_arrays() {
        let (out, src) = fixture!("local_out_of_bounds");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::IndexOutOfRange {
                index: 8,
                size: 8,
                access: Some(Access::Write),
                space: Some(Space::Local)
            }
        );
        let text = render(f, "k.cl", src);
        assert!(text.contains("write to the __local array Asub at index 8, but that dimension has 8 elements (0 to 7)"), "{text}");
        // The same stores, also reported as writes outside Asub's memory, are not repeated.
        assert!(out.contains("Invalid write of size 4 at local memory"));
        assert!(!r
            .findings
            .iter()
            .any(|f| matches!(f.kind, Kind::InvalidAccess { .. })));

        let (out, src) = fixture!("private_out_of_bounds");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::IndexOutOfRange {
                index: 4,
                size: 4,
                access: Some(Access::Read),
                space: Some(Space::Private)
            }
        );
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("read from the private array acc at index 4"),
            "{text}"
        );
        assert_eq!(
            r.findings.len(),
            2,
            "the index, then the garbage it stored into C"
        );

        let invalid = Finding {
            kind: Kind::InvalidAccess {
                access: Access::Read,
                space: Space::Private,
                size: 4,
                address: 0xc_0000_0020,
            },
            ..f.clone()
        };
        assert!(
            render(&invalid, "k.cl", src).contains("read of 4 bytes outside the private array acc")
        );
    }

    #[test]
    fn unaligned_vector_load_names_the_pointer() {
        let (out, src) = fixture!("unaligned_vector_load");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Unaligned {
                access: Access::Read
            }
        );
        assert_eq!(f.count, 50);
        let text = render(f, "kernels/10_tuned.cl", src);
        assert!(
            text.starts_with("kernels/10_tuned.cl:67:21: vector load from p at an address"),
            "{text}"
        );
    }

    #[test]
    fn simulator_failure_is_not_the_kernels_fault() {
        let (out, src) = fixture!("fatal_freeze");
        let r = parse(out);
        assert!(r.simulator_failed());
        assert_eq!(r.kernel_faults().count(), 0);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::SimulatorFailure {
                message: "Unsupported instruction: freeze".into()
            }
        );
        assert!(f.at.is_none());
        assert_eq!(f.count, 1, "one per worker thread, which then stops");
        let text = render(f, "kernels/06_register_tiling.cl", src);
        assert!(
            text.starts_with(
                "kernels/06_register_tiling.cl: the simulator could not run this kernel"
            ),
            "{text}"
        );
    }

    #[test]
    fn api_errors_and_foreign_lines() {
        let (out, src) = fixture!("api_build_failure");
        let r = parse(out);
        // "1 error generated." is the compiler's, not a finding.
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].kind,
            Kind::Api {
                function: "clBuildProgram".into(),
                error: "CL_BUILD_PROGRAM_FAILURE".into(),
                info: None
            }
        );
        assert!(render(&r.findings[0], "k.cl", src).contains("clBuildProgram failed"));
        assert!(parse("").is_clean());
        assert!(parse("Lesson 05 · Local-memory tiling\n  check passed\n").is_clean());
    }

    #[test]
    fn counts_of_the_tiled_kernel_and_its_decoy() {
        // 16×24×40 with TS = 8: 15360 multiply-adds.
        let mnk = 16.0 * 24.0 * 40.0;
        let (out, _) = fixture!("counts_05_solution");
        let r = parse(out);
        assert!(r.is_clean());
        let c = r.counts.unwrap();
        assert_eq!(c.kernels, vec!["matmul".to_string()]);
        assert_eq!(c.count("br"), 39168);
        assert_eq!(c.multiply_adds(), 15360);
        assert_eq!(c.global_loads().count as f64 / mnk, 0.25, "2 / TS");
        assert_eq!(c.global_loads().bytes_per_access(), 4.0);
        assert_eq!(c.local_loads().count as f64 / mnk, 2.0);
        assert_eq!(c.barriers(), 384 * 5 * 2, "work-items × tiles × 2");
        assert_eq!(c.global_stores().count, 384);

        let (out, _) = fixture!("counts_05_decoy");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.global_loads().count as f64 / mnk, 2.0);
        assert_eq!(c.local_loads().count, 0);
        assert_eq!(
            c.barriers(),
            384 * 5 * 2,
            "the decoy's barriers look the same"
        );
    }

    #[test]
    fn vector_loads_whether_pointers_or_vload() {
        let mnk = 16.0 * 32.0 * 24.0;
        let (out, _) = fixture!("counts_07_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.global_loads().bytes_per_access(), 16.0);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);
        let per_mad = c.global_loads().count as f64 / mnk;

        let (out, _) = fixture!("counts_07_vload4");
        let c = parse(out).counts.unwrap();
        assert_eq!(
            c.loads(Space::Global).count,
            0,
            "vload4 is a call, not a load"
        );
        assert_eq!(c.vector_calls(false, Space::Global).count, 576);
        assert_eq!(c.global_loads().bytes_per_access(), 16.0);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);
        assert_eq!(c.global_loads().count as f64 / mnk, per_mad);
        assert_eq!(c.multiply_adds() as f64, mnk);
    }

    #[test]
    fn image_reads_and_mad_calls() {
        let (out, _) = fixture!("counts_09_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.image_reads(), 1024);
        // 16×64×16 with RM = 4: one pixel read per 4·RM multiply-adds.
        assert_eq!(c.image_reads() as f64 / (16.0 * 64.0 * 16.0), 1.0 / 16.0);
        assert_eq!(c.vector_calls(true, Space::Global).count, 256);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);

        let (out, _) = fixture!("counts_10_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.multiply_adds(), 64 * 32 * 24, "float4 mad() counts 4");
        assert_eq!(c.local_loads().bytes_per_access(), 16.0);
        assert_eq!(c.barriers(), 192);
    }

    #[test]
    fn counts_in_another_locale_and_mixed_with_other_output() {
        let out = "PROBE ok\nInstructions executed for kernel 'matmul':\n       1,234,567 - load global (4.938.268 bytes)\n              12 - call _Z7barrierj()\n\nsomething else\n";
        let c = parse(out).counts.unwrap();
        assert_eq!(
            c.loads(Space::Global),
            Traffic {
                count: 1_234_567,
                bytes: 4_938_268
            }
        );
        assert_eq!(c.barriers(), 12);
    }

    #[test]
    fn names_and_addresses() {
        assert_eq!(
            base_name("_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i"),
            "read_imagef"
        );
        assert_eq!(base_name("llvm.fmuladd.f32"), "llvm.fmuladd.f32");
        let v = VectorCall::parse("_Z7vstore4Dv4_fmPU3AS1f()").unwrap();
        assert!(v.store && v.space == Space::Global && v.bytes == 16);
        let v = VectorCall::parse("_Z6vload2mPU3AS3Kf").unwrap();
        assert!(!v.store && v.space == Space::Local && v.bytes == 8);
        assert!(VectorCall::parse("_Z10vload_halfmPU3AS1KDh").is_none());
        assert_eq!(mangled_lanes("_Z3madDv4_fS_S_"), 4);
        assert_eq!(mangled_lanes("_Z3madfff"), 1);
        assert_eq!(split_address(Space::Global, 0x3_0000_0000_03c0), (3, 0x3c0));
        assert_eq!(split_address(Space::Global, 0xffff_ffff_fffc), (1, -4));
        assert_eq!(split_address(Space::Private, 0xc_0000_0020), (0xc, 0x20));
        assert_eq!(
            operand("    C[row * N + col] = acc;", 22).as_deref(),
            Some("C")
        );
        assert_eq!(operand("acc += A[i] * B[j];", 15).as_deref(), Some("B"));
        assert_eq!(
            operand("vstore4(acc[i][j], 0, out);", 1).as_deref(),
            Some("out")
        );
        assert_eq!(
            operand("a = vload4(0, A + r * K);", 5).as_deref(),
            Some("A")
        );
        assert_eq!(
            operand("ra[l] = *(const __global float4*)p;", 9).as_deref(),
            Some("p")
        );
        assert_eq!(operand("acc[wm][wn] += x;", 13).as_deref(), Some("acc"));
    }

    #[test]
    fn the_environment_points_the_loader_at_oclgrind_only() {
        let dir = std::env::temp_dir().join(format!("lab-oclgrind-test-{}", std::process::id()));
        let icd = Path::new("/usr/lib/oclgrind/liboclgrind-rt-icd.so");
        let env = environment(icd, &dir, &Options::sanitizer()).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCL_ICD_VENDORS"), Some(dir.to_str().unwrap()));
        assert_eq!(
            std::fs::read_to_string(dir.join("oclgrind.icd")).unwrap(),
            "/usr/lib/oclgrind/liboclgrind-rt-icd.so\n"
        );
        assert_eq!(get("OCLGRIND_DATA_RACES"), Some("1"));
        assert_eq!(get("OCLGRIND_UNINITIALIZED"), Some("1"));
        assert_eq!(get("OCLGRIND_INST_COUNTS"), Some("0"));
        assert_eq!(get("OCLGRIND_BUILD_OPTIONS"), Some("-cl-opt-disable"));
        assert_eq!(get("OCLGRIND_NUM_THREADS"), Some("1"));
        assert_eq!(get("LC_ALL"), Some("C"));
        let env = environment(icd, &dir, &Options::metrics()).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCLGRIND_INST_COUNTS"), Some("1"));
        assert_eq!(get("OCLGRIND_UNINITIALIZED"), Some("0"));
        assert_eq!(get("OCLGRIND_BUILD_OPTIONS"), Some(""));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn icd_candidates_follow_the_wrapper_on_path() {
        let c = icd_candidates(None);
        assert!(c.contains(&PathBuf::from(format!(
            "/usr/lib/oclgrind/{}",
            icd_file_name()
        ))));
        // Wherever it is installed, a library found is one of the candidates.
        if let Some(found) = find_icd() {
            assert!(found.is_file());
        }
    }
}
