//! The optimiser's intrinsics that Oclgrind 21.10 cannot run, written out as plain
//! instructions, so that the simulator runs the optimised build the device runs.
//!
//! Oclgrind builds a kernel at `-Oz` with its own LLVM (14 on Debian bookworm), whose optimiser
//! turns common code into intrinsics: `(k & (k - 1)) == 0` into `llvm.ctpop`, a helper with
//! `restrict` pointers inlined into `llvm.experimental.noalias.scope.decl`, `x < 0 ? -x : x`
//! into `llvm.abs`, a rotate into `llvm.fshl`, `a > b ? a - b : 0` into `llvm.usub.sat`.
//! Oclgrind 21.10 implements none of them and refuses to create the kernel ("Undefined
//! external function"). Such a kernel is correct, and the device runs its optimised build: the
//! simulator must run that build too, or a kernel could behave one way there and another where
//! the simulator looks (an undefined operation the optimiser folds away).
//!
//! The optimised build's binary is the program's LLVM bitcode. This module reads it with the
//! LLVM that Oclgrind itself loaded (its C interface, found in this process: nothing to
//! install), replaces each call of those intrinsics by the instructions it stands for, lane by
//! lane for vectors, and hands the bitcode back to Oclgrind as the program's binary. Hints
//! (`llvm.assume`, the alias-scope declarations) are dropped: they change no value.

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CString};
use std::sync::OnceLock;

use anyhow::{bail, Result};

/// The intrinsics this module writes out, as the bitcode's string table names them (a byte
/// search of the binary finds whether a build needs it at all).
pub const LOWERED: &[&str] = &[
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.abs.",
    "llvm.uadd.sat.",
    "llvm.usub.sat.",
    "llvm.sadd.sat.",
    "llvm.ssub.sat.",
    "llvm.uadd.with.overflow.",
    "llvm.usub.with.overflow.",
    "llvm.sadd.with.overflow.",
    "llvm.ssub.with.overflow.",
    "llvm.umul.with.overflow.",
    "llvm.smul.with.overflow.",
    "llvm.assume",
    "llvm.experimental.noalias.scope.decl",
];

/// Whether a program binary (LLVM bitcode) calls an intrinsic of [`LOWERED`].
pub fn needed(bitcode: &[u8]) -> bool {
    LOWERED
        .iter()
        .any(|name| bitcode.windows(name.len()).any(|w| w == name.as_bytes()))
}

type Ref = *mut c_void;

/// The functions of LLVM's C interface this module calls (llvm-c/Core.h, BitReader.h,
/// BitWriter.h), as LLVM 14 declares them.
struct Llvm {
    context_create: unsafe extern "C" fn() -> Ref,
    context_dispose: unsafe extern "C" fn(Ref),
    buffer_copy: unsafe extern "C" fn(*const c_char, usize, *const c_char) -> Ref,
    buffer_dispose: unsafe extern "C" fn(Ref),
    buffer_start: unsafe extern "C" fn(Ref) -> *const c_char,
    buffer_size: unsafe extern "C" fn(Ref) -> usize,
    parse: unsafe extern "C" fn(Ref, Ref, *mut Ref) -> c_int,
    write: unsafe extern "C" fn(Ref) -> Ref,
    module_dispose: unsafe extern "C" fn(Ref),
    first_function: unsafe extern "C" fn(Ref) -> Ref,
    next_function: unsafe extern "C" fn(Ref) -> Ref,
    delete_function: unsafe extern "C" fn(Ref),
    value_name: unsafe extern "C" fn(Ref, *mut usize) -> *const c_char,
    first_use: unsafe extern "C" fn(Ref) -> Ref,
    user: unsafe extern "C" fn(Ref) -> Ref,
    is_call: unsafe extern "C" fn(Ref) -> Ref,
    operand: unsafe extern "C" fn(Ref, c_uint) -> Ref,
    type_of: unsafe extern "C" fn(Ref) -> Ref,
    type_kind: unsafe extern "C" fn(Ref) -> c_int,
    int_width: unsafe extern "C" fn(Ref) -> c_uint,
    element_type: unsafe extern "C" fn(Ref) -> Ref,
    vector_size: unsafe extern "C" fn(Ref) -> c_uint,
    const_int: unsafe extern "C" fn(Ref, c_ulonglong, c_int) -> Ref,
    const_vector: unsafe extern "C" fn(*mut Ref, c_uint) -> Ref,
    builder_create: unsafe extern "C" fn(Ref) -> Ref,
    builder_dispose: unsafe extern "C" fn(Ref),
    position_before: unsafe extern "C" fn(Ref, Ref),
    replace_uses: unsafe extern "C" fn(Ref, Ref),
    erase: unsafe extern "C" fn(Ref),
    binop: unsafe extern "C" fn(Ref, c_int, Ref, Ref, *const c_char) -> Ref,
    icmp: unsafe extern "C" fn(Ref, c_int, Ref, Ref, *const c_char) -> Ref,
    select: unsafe extern "C" fn(Ref, Ref, Ref, Ref, *const c_char) -> Ref,
    cast: unsafe extern "C" fn(Ref, c_int, Ref, Ref, *const c_char) -> Ref,
    insert_value: unsafe extern "C" fn(Ref, Ref, Ref, c_uint, *const c_char) -> Ref,
    undef: unsafe extern "C" fn(Ref) -> Ref,
    int_type: unsafe extern "C" fn(Ref, c_uint) -> Ref,
    type_context: unsafe extern "C" fn(Ref) -> Ref,
    vector_type: unsafe extern "C" fn(Ref, c_uint) -> Ref,
}

// LLVMOpcode values (llvm-c/Core.h) of the binary operations built here.
const ADD: c_int = 8;
const SUB: c_int = 10;
const MUL: c_int = 12;
const UREM: c_int = 17;
const SHL: c_int = 20;
const LSHR: c_int = 21;
const AND: c_int = 23;
const OR: c_int = 24;
const XOR: c_int = 25;
const TRUNC: c_int = 30;
const ZEXT: c_int = 31;
const SEXT: c_int = 32;
// LLVMIntPredicate values.
const EQ: c_int = 32;
const NE: c_int = 33;
const ULT: c_int = 36;
const SLT: c_int = 40;
// LLVMTypeKind values.
const INTEGER: c_int = 8;
const VECTOR: c_int = 13;

/// The LLVM that Oclgrind loaded into this process, once: `None` where none is loaded (no
/// Oclgrind platform in this process) or a function is missing.
fn llvm() -> Option<&'static Llvm> {
    static LLVM: OnceLock<Option<Llvm>> = OnceLock::new();
    LLVM.get_or_init(load).as_ref()
}

/// The path of the LLVM library mapped into this process, from `/proc/self/maps`: only where
/// Oclgrind's library is mapped too and one LLVM alone (a process that also loaded another
/// platform, PoCL with its own LLVM, could not tell which one built the bitcode).
fn loaded_llvm() -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let files = |prefix: &str| {
        let mut found: Vec<&str> = (maps.lines())
            .filter_map(|l| l.split_whitespace().nth(5))
            .filter(|p| {
                let file = p.rsplit('/').next().unwrap_or("");
                file.starts_with(prefix) && file.contains(".so")
            })
            .collect();
        found.dedup();
        found
    };
    match (files("liboclgrind").is_empty(), files("libLLVM").as_slice()) {
        (false, [one]) => Some(one.to_string()),
        _ => None,
    }
}

// Each symbol is transmuted to the type of the field it fills, which names its signature.
#[allow(clippy::missing_transmute_annotations)]
fn load() -> Option<Llvm> {
    let path = CString::new(loaded_llvm()?).ok()?;
    // SAFETY: RTLD_NOLOAD only returns the library already mapped (Oclgrind's), never loads
    // one; the handle is kept for the life of the process.
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    if handle.is_null() {
        return None;
    }
    macro_rules! f {
        ($name:literal) => {{
            let name = concat!($name, "\0");
            // SAFETY: the name is NUL-terminated; the symbol, where found, is the C function
            // LLVM 14 declares under it, with the signature of the field it is stored in.
            let p = unsafe { libc::dlsym(handle, name.as_ptr() as *const c_char) };
            if p.is_null() {
                return None;
            }
            unsafe { std::mem::transmute::<*mut c_void, _>(p) }
        }};
    }
    Some(Llvm {
        context_create: f!("LLVMContextCreate"),
        context_dispose: f!("LLVMContextDispose"),
        buffer_copy: f!("LLVMCreateMemoryBufferWithMemoryRangeCopy"),
        buffer_dispose: f!("LLVMDisposeMemoryBuffer"),
        buffer_start: f!("LLVMGetBufferStart"),
        buffer_size: f!("LLVMGetBufferSize"),
        parse: f!("LLVMParseBitcodeInContext2"),
        write: f!("LLVMWriteBitcodeToMemoryBuffer"),
        module_dispose: f!("LLVMDisposeModule"),
        first_function: f!("LLVMGetFirstFunction"),
        next_function: f!("LLVMGetNextFunction"),
        delete_function: f!("LLVMDeleteFunction"),
        value_name: f!("LLVMGetValueName2"),
        first_use: f!("LLVMGetFirstUse"),
        user: f!("LLVMGetUser"),
        is_call: f!("LLVMIsACallInst"),
        operand: f!("LLVMGetOperand"),
        type_of: f!("LLVMTypeOf"),
        type_kind: f!("LLVMGetTypeKind"),
        int_width: f!("LLVMGetIntTypeWidth"),
        element_type: f!("LLVMGetElementType"),
        vector_size: f!("LLVMGetVectorSize"),
        const_int: f!("LLVMConstInt"),
        const_vector: f!("LLVMConstVector"),
        builder_create: f!("LLVMCreateBuilderInContext"),
        builder_dispose: f!("LLVMDisposeBuilder"),
        position_before: f!("LLVMPositionBuilderBefore"),
        replace_uses: f!("LLVMReplaceAllUsesWith"),
        erase: f!("LLVMInstructionEraseFromParent"),
        binop: f!("LLVMBuildBinOp"),
        icmp: f!("LLVMBuildICmp"),
        select: f!("LLVMBuildSelect"),
        cast: f!("LLVMBuildCast"),
        insert_value: f!("LLVMBuildInsertValue"),
        undef: f!("LLVMGetUndef"),
        int_type: f!("LLVMIntTypeInContext"),
        type_context: f!("LLVMGetTypeContext"),
        vector_type: f!("LLVMVectorType"),
    })
}

/// `bitcode` with every call of an intrinsic of [`LOWERED`] written out; an error where this
/// process has no LLVM of Oclgrind's or the bitcode cannot be read.
pub fn lower(bitcode: &[u8]) -> Result<Vec<u8>> {
    let Some(l) = llvm() else {
        bail!("no LLVM library of the simulator's is loaded in this process");
    };
    // SAFETY: every handle below is made here from LLVM's own functions, used only while its
    // context lives, and disposed of once; the bitcode buffer is a copy LLVM owns.
    unsafe {
        let ctx = (l.context_create)();
        let buf = (l.buffer_copy)(
            bitcode.as_ptr() as *const c_char,
            bitcode.len(),
            c"lab".as_ptr(),
        );
        let mut module: Ref = std::ptr::null_mut();
        let failed = (l.parse)(ctx, buf, &mut module) != 0;
        (l.buffer_dispose)(buf);
        if failed || module.is_null() {
            (l.context_dispose)(ctx);
            bail!("the simulator's build could not be read back as LLVM bitcode");
        }
        let builder = (l.builder_create)(ctx);
        let mut f = (l.first_function)(module);
        while !f.is_null() {
            let next = (l.next_function)(f);
            let mut len = 0usize;
            let name = (l.value_name)(f, &mut len);
            let name = String::from_utf8_lossy(std::slice::from_raw_parts(name as *const u8, len));
            if let Some(kind) = LOWERED.iter().find(|k| name.starts_with(**k)) {
                let mut all = true;
                loop {
                    let u = (l.first_use)(f);
                    if u.is_null() {
                        break;
                    }
                    let call = (l.is_call)((l.user)(u));
                    if call.is_null() {
                        all = false;
                        break;
                    }
                    let b = Build { l, builder };
                    if !b.lowerable(kind, call) {
                        all = false;
                        break;
                    }
                    (l.position_before)(builder, call);
                    // A hint has no value, and nothing uses it.
                    if let Some(v) = b.expand(kind, call) {
                        (l.replace_uses)(call, v);
                    }
                    (l.erase)(call);
                }
                if all {
                    (l.delete_function)(f);
                }
            }
            f = next;
        }
        (l.builder_dispose)(builder);
        let out = (l.write)(module);
        let bytes =
            std::slice::from_raw_parts((l.buffer_start)(out) as *const u8, (l.buffer_size)(out))
                .to_vec();
        (l.buffer_dispose)(out);
        (l.module_dispose)(module);
        (l.context_dispose)(ctx);
        Ok(bytes)
    }
}

/// Instructions built before one call.
struct Build {
    l: &'static Llvm,
    builder: Ref,
}

impl Build {
    unsafe fn op(&self, op: c_int, a: Ref, b: Ref) -> Ref {
        (self.l.binop)(self.builder, op, a, b, c"".as_ptr())
    }
    unsafe fn cmp(&self, pred: c_int, a: Ref, b: Ref) -> Ref {
        (self.l.icmp)(self.builder, pred, a, b, c"".as_ptr())
    }
    unsafe fn sel(&self, c: Ref, a: Ref, b: Ref) -> Ref {
        (self.l.select)(self.builder, c, a, b, c"".as_ptr())
    }

    /// The constant `v` of type `ty` (an integer, or a vector of them: every lane `v`).
    unsafe fn k(&self, ty: Ref, v: u64) -> Ref {
        let l = self.l;
        if (l.type_kind)(ty) == VECTOR {
            let lane = (l.const_int)((l.element_type)(ty), v, 0);
            let mut lanes = vec![lane; (l.vector_size)(ty) as usize];
            (l.const_vector)(lanes.as_mut_ptr(), lanes.len() as c_uint)
        } else {
            (l.const_int)(ty, v, 0)
        }
    }

    /// The bits of one lane of `ty`.
    unsafe fn width(&self, ty: Ref) -> u32 {
        let l = self.l;
        let lane = match (l.type_kind)(ty) {
            VECTOR => (l.element_type)(ty),
            _ => ty,
        };
        match (l.type_kind)(lane) {
            INTEGER => (l.int_width)(lane),
            _ => 0,
        }
    }

    /// The bits set in `x`: the population count by halves (Hacker's Delight 5-1), for lanes
    /// of up to 64 bits.
    unsafe fn ctpop(&self, x: Ref, ty: Ref, w: u32) -> Ref {
        let mask = |m: u64| if w >= 64 { m } else { m & ((1u64 << w) - 1) };
        let mut x = x;
        let mut shift = 1u32;
        let patterns = [
            0x5555_5555_5555_5555u64,
            0x3333_3333_3333_3333,
            0x0f0f_0f0f_0f0f_0f0f,
            0x00ff_00ff_00ff_00ff,
            0x0000_ffff_0000_ffff,
            0x0000_0000_ffff_ffff,
        ];
        for p in patterns {
            if shift >= w {
                break;
            }
            let m = self.k(ty, mask(p));
            let lo = self.op(AND, x, m);
            let hi = self.op(AND, self.op(LSHR, x, self.k(ty, shift as u64)), m);
            x = self.op(ADD, lo, hi);
            shift *= 2;
        }
        x
    }

    /// Whether this module writes out `call`: a hint, or integer lanes of 1 to 64 bits (the
    /// widths OpenCL C has; the products with overflow up to 32, whose lanes double). A call
    /// it does not is left, and the simulator says that it lacks the function.
    unsafe fn lowerable(&self, kind: &str, call: Ref) -> bool {
        if kind == "llvm.assume" || kind.starts_with("llvm.experimental.") {
            return true;
        }
        let w = self.width((self.l.type_of)((self.l.operand)(call, 0)));
        let most = if kind.contains("mul.with.overflow.") {
            32
        } else {
            64
        };
        (1..=most).contains(&w)
    }

    /// `a + b` (`add`) or `a - b`, and whether it overflowed (`signed` or not): by the signs
    /// of the operands and the result, or by the carry.
    unsafe fn sum(&self, add: bool, signed: bool, a: Ref, b: Ref) -> (Ref, Ref) {
        let zero = self.k((self.l.type_of)(a), 0);
        let r = self.op(if add { ADD } else { SUB }, a, b);
        let over = match (signed, add) {
            (true, true) => self.op(AND, self.op(XOR, a, r), self.op(XOR, b, r)),
            (true, false) => self.op(AND, self.op(XOR, a, b), self.op(XOR, a, r)),
            (false, true) => return (r, self.cmp(ULT, r, a)),
            (false, false) => return (r, self.cmp(ULT, a, b)),
        };
        (r, self.cmp(SLT, over, zero))
    }

    /// `{ a op b, whether it overflowed }` (`pair`, the call's type) for the intrinsics
    /// `llvm.[us](add|sub|mul).with.overflow`: sums and differences by their signs and
    /// carries, products in lanes twice as wide.
    unsafe fn with_overflow(&self, kind: &str, a: Ref, b: Ref, pair: Ref) -> Ref {
        let l = self.l;
        let ty = (l.type_of)(a);
        let w = self.width(ty);
        let signed = kind.starts_with("llvm.s");
        let (r, over) = if !kind.contains("mul.") {
            self.sum(kind.contains("add."), signed, a, b)
        } else {
            // Products: in lanes of 2w bits, overflowed where the wide product does not
            // survive the way back to w bits.
            let ctx = (l.type_context)(ty);
            let wide_lane = (l.int_type)(ctx, 2 * w);
            let wide = match (l.type_kind)(ty) {
                VECTOR => (l.vector_type)(wide_lane, (l.vector_size)(ty)),
                _ => wide_lane,
            };
            let ext = if signed { SEXT } else { ZEXT };
            let cast = |op: c_int, v: Ref, to: Ref| (l.cast)(self.builder, op, v, to, c"".as_ptr());
            let p = self.op(MUL, cast(ext, a, wide), cast(ext, b, wide));
            let r = cast(TRUNC, p, ty);
            let back = cast(ext, r, wide);
            (r, self.cmp(NE, back, p))
        };
        let first = (l.insert_value)(self.builder, (l.undef)(pair), r, 0, c"".as_ptr());
        (l.insert_value)(self.builder, first, over, 1, c"".as_ptr())
    }

    /// The value the call `call` of the intrinsic `kind` computes, built before it; `None`
    /// for a hint that computes nothing.
    unsafe fn expand(&self, kind: &str, call: Ref) -> Option<Ref> {
        let l = self.l;
        if kind == "llvm.assume" || kind.starts_with("llvm.experimental.") {
            return None;
        }
        let a = (l.operand)(call, 0);
        if kind.contains(".with.overflow.") {
            return Some(self.with_overflow(kind, a, (l.operand)(call, 1), (l.type_of)(call)));
        }
        let ty = (l.type_of)(call);
        let w = self.width(ty);
        let zero = self.k(ty, 0);
        let ones = self.k(ty, if w >= 64 { u64::MAX } else { (1u64 << w) - 1 });
        let top = self.k(ty, 1u64 << (w - 1));
        Some(match kind {
            "llvm.ctpop." => self.ctpop(a, ty, w),
            "llvm.ctlz." => {
                // Smear the highest set bit down, then count the bits below it.
                let mut x = a;
                let mut s = 1u32;
                while s < w {
                    x = self.op(OR, x, self.op(LSHR, x, self.k(ty, s as u64)));
                    s *= 2;
                }
                self.op(SUB, self.k(ty, w as u64), self.ctpop(x, ty, w))
            }
            "llvm.cttz." => {
                // The bits below the lowest set one: all of them for zero.
                let below = self.op(SUB, self.op(AND, a, self.op(SUB, zero, a)), self.k(ty, 1));
                self.ctpop(below, ty, w)
            }
            "llvm.fshl." | "llvm.fshr." => {
                // Funnel shifts: the shift taken modulo the width; no shift by the width.
                let b = (l.operand)(call, 1);
                let s = self.op(UREM, (l.operand)(call, 2), self.k(ty, w as u64));
                let rest = self.op(SUB, self.k(ty, w as u64 - 1), s);
                let none = self.cmp(EQ, s, zero);
                if kind == "llvm.fshl." {
                    let hi = self.op(SHL, a, s);
                    let lo = self.op(LSHR, self.op(LSHR, b, self.k(ty, 1)), rest);
                    self.sel(none, a, self.op(OR, hi, lo))
                } else {
                    let lo = self.op(LSHR, b, s);
                    let hi = self.op(SHL, self.op(SHL, a, self.k(ty, 1)), rest);
                    self.sel(none, b, self.op(OR, hi, lo))
                }
            }
            "llvm.abs." => self.sel(self.cmp(SLT, a, zero), self.op(SUB, zero, a), a),
            "llvm.uadd.sat." | "llvm.usub.sat." | "llvm.sadd.sat." | "llvm.ssub.sat." => {
                let signed = kind.starts_with("llvm.s");
                let (r, over) = self.sum(kind.contains("add."), signed, a, (l.operand)(call, 1));
                // On overflow the bound it passed: unsigned, all ones or zero; signed, the
                // most negative or the most positive, on a's side.
                let bound = match (signed, kind.contains("add.")) {
                    (false, true) => ones,
                    (false, false) => zero,
                    (true, _) => self.sel(self.cmp(SLT, a, zero), top, self.op(XOR, ones, top)),
                };
                self.sel(over, bound, r)
            }
            _ => unreachable!("{kind} is not lowered"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_is_searched_for_every_lowered_name() {
        assert!(needed(b"\x00\x01llvm.ctpop.i32\x00"));
        assert!(needed(b"..llvm.experimental.noalias.scope.decl.."));
        assert!(!needed(b"llvm.smax.i32 llvm.fmuladd.f32 llvm.memcpy"));
    }

    #[test]
    fn without_the_simulator_in_the_process_lowering_says_so() {
        // A unit test's process never loads Oclgrind's platform.
        let e = lower(b"BC").unwrap_err().to_string();
        assert!(e.contains("no LLVM library"), "{e}");
    }
}
