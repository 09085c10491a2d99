// The CPU peers as a lesson file: built and served by the same driver as a student's file
// (`crate::peers::cpu_served`), so that they are timed exactly as the CPU lessons are, from
// `go` to the paused process, confined, with fresh inputs drawn in the driver. This text is
// not part of the course's program; the ladder writes it into the build folder, followed by
// the constants it names (OPENBLAS, OWN_CORE and AVX512_CORE), and builds it with
// matrixmultiply, the `gemm` crate and libc beside rayon. The driver starts with an empty
// environment, so the core type OpenBLAS is to run is set here, and checked.

use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::OnceLock;

type Sgemm = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);
type SetThreads = unsafe extern "C" fn(c_int);
type CoreName = unsafe extern "C" fn() -> *const c_char;

/// OpenBLAS's `cblas_sgemm`, loaded once, running core type `core` (OpenBLAS reads
/// OPENBLAS_CORETYPE when it is loaded) on as many threads as rayon's pool.
fn openblas_sgemm(core: &str) -> Sgemm {
    static SGEMM: OnceLock<usize> = OnceLock::new();
    let f = *SGEMM.get_or_init(|| {
        std::env::set_var("OPENBLAS_CORETYPE", core);
        let name = CString::new(OPENBLAS).expect("a library name without NUL");
        // SAFETY: plain C calls on NUL-terminated names; the symbols have the types of
        // cblas.h and openblas_config.h.
        unsafe {
            let lib = libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            assert!(!lib.is_null(), "OpenBLAS could not be loaded from {OPENBLAS}");
            let symbol = |s: &str| -> *mut c_void {
                let s = CString::new(s).expect("a symbol without NUL");
                let p = libc::dlsym(lib, s.as_ptr() as *const c_char);
                assert!(!p.is_null(), "OpenBLAS has no {s:?}");
                p
            };
            let name: CoreName = std::mem::transmute(symbol("openblas_get_corename"));
            let runs = std::ffi::CStr::from_ptr(name()).to_string_lossy().trim().to_string();
            assert!(
                runs.eq_ignore_ascii_case(core),
                "OpenBLAS runs its {runs} kernel although OPENBLAS_CORETYPE={core}: this build cannot be told which kernel to run"
            );
            let threads: SetThreads = std::mem::transmute(symbol("openblas_set_num_threads"));
            threads(rayon::current_num_threads() as c_int);
            symbol("cblas_sgemm") as usize
        }
    });
    // SAFETY: the address of `cblas_sgemm`, loaded above.
    unsafe { std::mem::transmute::<usize, Sgemm>(f) }
}

fn openblas_with(core: &str, a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    let int = |x: usize| c_int::try_from(x.max(1)).expect("a size OpenBLAS can take");
    let sgemm = openblas_sgemm(core);
    // SAFETY: the assert keeps every index the row-major strides reach in bounds; beta = 0,
    // so C is only written. 101: CblasRowMajor, 111: CblasNoTrans.
    unsafe {
        sgemm(
            101,
            111,
            111,
            int(m),
            int(n),
            int(k),
            1.0,
            a.as_ptr(),
            int(k),
            b.as_ptr(),
            int(n),
            0.0,
            c.as_mut_ptr(),
            int(n),
        )
    }
}

/// OpenBLAS with the core type it runs in the ladder's own process: its pick for this CPU,
/// or the one the ladder's user named with OPENBLAS_CORETYPE.
pub fn openblas(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    openblas_with(OWN_CORE, a, b, c, m, n, k)
}

/// OpenBLAS with its AVX-512 kernels.
pub fn openblas_avx512(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    openblas_with(AVX512_CORE, a, b, c, m, n, k)
}

/// matrixmultiply on as many threads as rayon's pool (it reads MATMUL_NUM_THREADS once).
pub fn matrixmultiply(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    static THREADS: OnceLock<()> = OnceLock::new();
    THREADS.get_or_init(|| {
        std::env::set_var("MATMUL_NUM_THREADS", rayon::current_num_threads().to_string())
    });
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    // SAFETY: the assert keeps every index the row-major strides reach in bounds.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.as_ptr(),
            k as isize,
            1,
            b.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        )
    }
}

/// The `gemm` crate on rayon's pool.
pub fn gemm(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
    // SAFETY: as above; with read_dst false C is only written.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::Rayon(rayon::current_num_threads()),
        )
    }
}
