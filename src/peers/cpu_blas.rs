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

use std::ffi::{c_char, c_int, CStr};

use anyhow::{ensure, Result};

use super::{open, Absent};
use crate::harness::matrix::{Problem, Shape};

/// `CblasRowMajor` and `CblasNoTrans` in cblas.h.
const ROW_MAJOR: c_int = 101;
const NO_TRANS: c_int = 111;

/// `cblas_sgemm` of an LP64 OpenBLAS (32-bit `blasint`, which `libopenblas.so.0` is).
type SgemmFn = unsafe extern "C" fn(
    order: c_int,
    trans_a: c_int,
    trans_b: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: f32,
    a: *const f32,
    lda: c_int,
    b: *const f32,
    ldb: c_int,
    beta: f32,
    c: *mut f32,
    ldc: c_int,
);
type NameFn = unsafe extern "C" fn() -> *const c_char;
type SetThreadsFn = unsafe extern "C" fn(c_int);

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
    sgemm: SgemmFn,
    corename: NameFn,
    config: NameFn,
    set_threads: SetThreadsFn,
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
        // SAFETY: the types are those of cblas.h and OpenBLAS's openblas_config.h.
        unsafe {
            return Ok(OpenBlas {
                path: name.to_string(),
                sgemm: *lib
                    .get::<SgemmFn>(b"cblas_sgemm\0")
                    .map_err(|e| missing("cblas_sgemm", e))?,
                corename: *lib
                    .get::<NameFn>(b"openblas_get_corename\0")
                    .map_err(|e| missing("openblas_get_corename", e))?,
                config: *lib
                    .get::<NameFn>(b"openblas_get_config\0")
                    .map_err(|e| missing("openblas_get_config", e))?,
                set_threads: *lib
                    .get::<SetThreadsFn>(b"openblas_set_num_threads\0")
                    .map_err(|e| missing("openblas_set_num_threads", e))?,
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

    pub fn set_threads(&self, threads: usize) {
        // SAFETY: plain C call; OpenBLAS clamps the count to what it was built for.
        unsafe { (self.set_threads)(threads.clamp(1, 1024) as c_int) }
    }

    /// C = A·B, row-major, through `cblas_sgemm` with beta = 0 (so C is not read).
    pub fn sgemm(&self, p: &Problem, c: &mut [f32]) -> Result<()> {
        let Shape { m, n, k } = p.shape;
        ensure!(p.a.len() >= m * k && p.b.len() >= k * n && c.len() >= m * n);
        let int = |x: usize| c_int::try_from(x.max(1));
        let (mi, ni, ki) = (int(m)?, int(n)?, int(k)?);
        // SAFETY: the check above keeps every index the row-major strides reach in bounds.
        unsafe {
            (self.sgemm)(
                ROW_MAJOR,
                NO_TRANS,
                NO_TRANS,
                mi,
                ni,
                ki,
                1.0,
                p.a.as_ptr(),
                ki,
                p.b.as_ptr(),
                ni,
                0.0,
                c.as_mut_ptr(),
                ni,
            )
        };
        Ok(())
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

/// The `gemm` crate's SGEMM: C = A·B on `threads` rayon threads (its own pool split).
pub fn gemm_crate(p: &Problem, c: &mut [f32], threads: usize) {
    let Shape { m, n, k } = p.shape;
    assert!(p.a.len() >= m * k && p.b.len() >= k * n && c.len() >= m * n);
    // SAFETY: the assert keeps every index the row-major strides (row stride first, column
    // stride 1) reach in bounds; with read_dst false C is only written.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            p.a.as_ptr(),
            1,
            k as isize,
            p.b.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::Rayon(threads),
        )
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

    #[test]
    fn the_gemm_crate_multiplies_row_major() {
        let p = Problem::random(Shape::new(5, 7, 3), 1);
        let mut c = vec![f32::NAN; 35];
        gemm_crate(&p, &mut c, 1);
        for i in 0..5 {
            for j in 0..7 {
                let want: f32 = (0..3).map(|q| p.a[i * 3 + q] * p.b[q * 7 + j]).sum();
                assert!((c[i * 7 + j] - want).abs() <= 1e-5 * (1.0 + want.abs()));
            }
        }
    }
}
