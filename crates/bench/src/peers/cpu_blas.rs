//! The CPU peers besides matrixmultiply: OpenBLAS's SGEMM, loaded at run time like CLBlast
//! (Debian and Ubuntu: `sudo apt-get install libopenblas0-pthread`), and the `gemm` crate's,
//! with the kernel each one runs on this CPU named, since that is what a comparison with them
//! means: a library that picks its 256-bit kernel on a CPU with 512-bit vectors runs at half
//! the speed it could.
//!
//! OpenBLAS picks its kernel ("core type") when it is loaded, from the CPU it recognises, and
//! `OPENBLAS_CORETYPE` overrides the pick (a machine's environment may set it: one the course
//! was measured on set it to Haswell, where 0.3.21's own pick on that Zen 5 is Cooperlake).
//! The ladder times the kernel it runs in the ladder's process, and, where that leaves AVX-512
//! unused on a CPU that has it, the SkylakeX kernel too ([`AVX512_CORE`]), both in the CPU
//! lessons' driver ([`super::cpu_served`]).

use std::ffi::{c_char, c_void, CStr};

use super::{open, Absent};

type NameFn = unsafe extern "C" fn() -> *const c_char;

/// The names tried when no path is given.
pub const NAMES: &[&str] = &[
    "libopenblas.so.0",
    "libopenblas.so",
    "libopenblas.dylib",
    "libopenblas.dll",
];

/// The core type the ladder also times where OpenBLAS's own pick leaves AVX-512 unused: the
/// AVX-512 kernels every DYNAMIC_ARCH build since 0.3.0 has.
pub const AVX512_CORE: &str = "SkylakeX";

/// A loaded OpenBLAS.
pub struct OpenBlas {
    /// Where it was found.
    pub path: String,
    corename: NameFn,
    config: NameFn,
}

fn text(f: NameFn) -> String {
    // SAFETY: OpenBLAS returns a pointer to a static NUL-terminated string.
    let p = unsafe { f() };
    if p.is_null() {
        return "?".into();
    }
    unsafe { CStr::from_ptr(p) }
        .to_string_lossy()
        .trim()
        .to_string()
}

/// Loads OpenBLAS from `path`, or by its usual names if that is `None` or empty.
pub fn load(path: Option<&str>) -> Result<OpenBlas, Absent> {
    let given = path.filter(|s| !s.trim().is_empty());
    let candidates: Vec<&str> = match given {
        Some(p) => vec![p],
        None => NAMES.to_vec(),
    };
    let mut errors = Vec::new();
    for name in candidates {
        let lib = match open(name) {
            Ok(lib) => lib,
            Err(e) => {
                errors.push(format!("{name}: {e}"));
                continue;
            }
        };
        let missing = |what: &str, e: libloading::Error| {
            Absent(format!(
                "{name} was loaded but has no {what} ({e}): is it OpenBLAS?"
            ))
        };
        // The ladder's driver calls these two (`super::cpu_served`): a library without them
        // is refused here, where the message can say so.
        for symbol in ["cblas_sgemm", "openblas_set_num_threads"] {
            // SAFETY: only whether the symbol exists is asked; it is not called.
            if let Err(e) = unsafe { lib.get::<*const c_void>(symbol.as_bytes()) } {
                return Err(missing(symbol, e));
            }
        }
        // SAFETY: the types are those of OpenBLAS's openblas_config.h.
        unsafe {
            return Ok(OpenBlas {
                path: name.to_string(),
                corename: *lib
                    .get::<NameFn>(b"openblas_get_corename\0")
                    .map_err(|e| missing("openblas_get_corename", e))?,
                config: *lib
                    .get::<NameFn>(b"openblas_get_config\0")
                    .map_err(|e| missing("openblas_get_config", e))?,
            });
        }
    }
    Err(Absent(format!(
        "OpenBLAS not available: {} (Debian/Ubuntu: sudo apt-get install libopenblas0-pthread).",
        errors.join("; ")
    )))
}

impl OpenBlas {
    /// The kernel it runs on this CPU, e.g. "Haswell", "SkylakeX".
    pub fn corename(&self) -> String {
        text(self.corename)
    }

    /// Its build, e.g. "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
    pub fn config(&self) -> String {
        text(self.config)
    }

    /// Its version, from its build line ("0.3.21").
    pub fn version(&self) -> String {
        let config = self.config();
        config.split_whitespace().nth(1).unwrap_or("?").to_string()
    }
}

/// Whether a core type of OpenBLAS uses AVX-512 (its x86 kernels that do).
pub fn uses_avx512(core: &str) -> bool {
    ["SkylakeX", "Cooperlake", "SapphireRapids", "Zen4", "Zen5"]
        .iter()
        .any(|c| c.eq_ignore_ascii_case(core))
}

/// Whether this CPU has AVX-512 (the foundation and the subsets every AVX-512 GEMM kernel,
/// OpenBLAS's SkylakeX and `gemm`'s x86-v4, needs).
pub fn cpu_has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        has!("avx512f") && has!("avx512bw") && has!("avx512dq") && has!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The kernel family `gemm` 0.19 (built with its `x86-v4` feature) dispatches to here: it
/// checks the CPU once, as this does, and takes the widest level the CPU has.
pub fn gemm_crate_kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if cpu_has_avx512() && has!("avx512cd") {
            "x86-v4 (AVX-512)"
        } else if has!("avx2") && has!("fma") {
            "x86-v3 (AVX2+FMA)"
        } else {
            "scalar/SSE"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        "NEON"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "portable"
    }
}

/// The kernel matrixmultiply 0.3.11 selects here for f32: its AVX-512 kernel where the CPU has
/// AVX-512F, else FMA (with AVX2), AVX, SSE2.
pub fn matrixmultiply_kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") {
            "avx512"
        } else if has!("fma") && has!("avx2") {
            "fma (AVX2)"
        } else if has!("avx") {
            "avx"
        } else {
            "sse2"
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        "neon"
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        "fallback"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avx512_cores_are_told_from_the_others() {
        assert!(uses_avx512("SkylakeX"));
        assert!(uses_avx512("skylakex"));
        assert!(!uses_avx512("Haswell"));
        assert!(!uses_avx512("Zen"));
    }

    #[test]
    fn a_missing_library_is_a_clear_error() {
        let why = load(Some("/nonexistent/libopenblas.so.0"))
            .err()
            .expect("no such file");
        assert!(why.0.contains("/nonexistent/libopenblas.so.0"), "{why}");
        assert!(why.0.contains("apt-get install"), "{why}");
    }
}
