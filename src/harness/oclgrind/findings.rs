//! What Oclgrind reports: findings about a kernel and the instructions it executed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
    pub(crate) fn parse(s: &str) -> Space {
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
    pub(crate) fn is_store(&self) -> bool {
        self.instruction.as_deref().is_some_and(|i| {
            let i = i.trim_start();
            i.starts_with("store ") || i.contains("vstore")
        })
    }

    /// The access and address space, read from the LLVM instruction.
    pub(crate) fn access(&self) -> Option<(Access, Space)> {
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
    pub(crate) fn parse(s: &str) -> Option<Entity> {
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
    pub(crate) fn rank(&self) -> u8 {
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
    pub(crate) fn key(&self) -> String {
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

    pub(crate) fn key(&self) -> String {
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
    /// Whether the output the counts were read from is one the kernel wrote to: it called
    /// `printf` (Oclgrind prints a kernel's text on the same stream as its counts, so a kernel
    /// could print counts of its own), or a count was larger than any run executes. Counts
    /// read from such an output say nothing of the kernel.
    #[serde(default)]
    pub printed: bool,
    /// The lanes past the first of the vector float multiplications and divisions the
    /// lesson's programs ran, as the course's plugin counted them (`super::coverage::lanes`):
    /// the simulator's own count names an `fmul` once whatever its width. `None` where the
    /// plugin did not run.
    #[serde(default)]
    pub wide_lanes: Option<u64>,
}

impl Counts {
    /// Every count and byte total times `factor`, rounded: the counts of a whole launch from
    /// those of some of its work-groups, where every work-group does the same work.
    pub fn scaled(&self, factor: f64) -> Counts {
        let times = |m: &BTreeMap<String, u64>| {
            m.iter()
                .map(|(k, &v)| (k.clone(), (v as f64 * factor).round() as u64))
                .collect()
        };
        Counts {
            kernels: self.kernels.clone(),
            ops: times(&self.ops),
            bytes: times(&self.bytes),
            printed: self.printed,
            wide_lanes: (self.wide_lanes).map(|n| (n as f64 * factor).round() as u64),
        }
    }

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
                    return Some(n * intrinsic_lanes(ty));
                }
                let base = base_name(f);
                (base == "mad" || base == "fma").then(|| n * mangled_lanes(f))
            })
            .sum()
    }

    /// Float multiplications (and divisions, which multiply by a reciprocal), counted per lane
    /// where the simulator's name tells the lanes: fused multiply-adds of every width
    /// ([`Counts::multiply_adds`], `llvm.fma` too), and calls of `dot`, `cross`, `mix`,
    /// `native_divide` and `half_divide`. A plain `fmul` or `fdiv` counts once in the
    /// simulator's count, which names instructions alone; the lanes past the first are the
    /// course's plugin's ([`Counts::wide_lanes`]), where it ran.
    pub fn float_multiplies(&self) -> u64 {
        let by_call: u64 = (self.ops.iter())
            .filter_map(|(name, &n)| {
                let f = name.strip_prefix("call ")?.trim_end_matches("()");
                if let Some(ty) = f.strip_prefix("llvm.fma.") {
                    return Some(n * intrinsic_lanes(ty));
                }
                match base_name(f) {
                    "dot" | "mix" | "native_divide" | "half_divide" => Some(n * mangled_lanes(f)),
                    "cross" => Some(n * 6),
                    _ => None,
                }
            })
            .sum();
        let wide = self.wide_lanes.unwrap_or(0);
        self.multiply_adds() + by_call + self.count("fmul") + self.count("fdiv") + wide
    }
}

/// Lanes of an LLVM intrinsic's type suffix: `f32` 1, `v4f32` 4, `v2f64` 2.
fn intrinsic_lanes(ty: &str) -> u64 {
    ty.strip_prefix('v')
        .and_then(|t| t.split('f').next())
        .and_then(|w| w.parse::<u64>().ok())
        .unwrap_or(1)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_scale_to_a_whole_launch() {
        let mut c = Counts::default();
        c.ops.insert("load global".into(), 3);
        c.bytes.insert("load global".into(), 12);
        let whole = c.scaled(128.0);
        assert_eq!(whole.count("load global"), 384);
        assert_eq!(whole.loads(Space::Global).bytes, 1536);
        assert_eq!(c.scaled(2.5).count("load global"), 8, "rounded to nearest");
    }

    #[test]
    fn multiplications_per_lane_where_the_name_tells_the_lanes() {
        let mut c = Counts::default();
        for (name, n) in [
            ("call llvm.fmuladd.v4f32()", 10), // 40
            ("call _Z3fmaddd()", 3),           // 3
            ("call llvm.fma.v2f64()", 5),      // 10
            ("call _Z3dotDv4_fS_()", 2),       // 8
            ("call _Z3madDv8_fS_S_()", 1),     // 8
            ("fmul", 7),                       // 7, whatever the width
            ("fdiv", 1),                       // 1
            ("fadd", 100),
            ("mul", 100),
        ] {
            c.ops.insert(name.into(), n);
        }
        assert_eq!(c.multiply_adds(), 40 + 3 + 8);
        assert_eq!(c.float_multiplies(), 40 + 3 + 10 + 8 + 8 + 7 + 1);
        // The lanes past the first of vector `fmul` and `fdiv`, from the course's plugin,
        // scaled with the rest.
        c.wide_lanes = Some(21);
        assert_eq!(c.float_multiplies(), 40 + 3 + 10 + 8 + 8 + 7 + 1 + 21);
        assert_eq!(c.scaled(2.0).wide_lanes, Some(42));
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
    }
}
