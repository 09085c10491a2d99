//! The peers the ladder is measured against, checked like any kernel before they are timed:
//! CLBlast's SGEMM (a tuned OpenCL BLAS, loaded at run time so that the course neither needs
//! it to build nor to pass its tests) and, on the CPU, OpenBLAS's SGEMM (loaded at run time
//! the same way, [`cpu_blas`]), the `gemm` crate's and the matrixmultiply crate's.
//!
//! CLBlast is looked for at the path a program's user gives (`CLBLAST_LIBRARY`, read at the
//! edge), else by its usual names (`libclblast.so.1`, ...) on the system's library path. On
//! Debian and Ubuntu: `sudo apt-get install libclblast1`.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use opencl3::event::Event;
use opencl3::memory::ClMem;

use lab::grade::verify;
use lab::harness::device::Gpu;
use lab::harness::exec::{self, GuardedC, RunOutput};
use lab::harness::matrix::{Problem, Shape};
use lab::harness::timing::Timing;
use lab::harness::timing::{self, Target};

pub mod cpu_blas;
pub mod cpu_served;

/// `CLBlastLayoutRowMajor` in clblast_c.h (CLBlast 1.5).
const LAYOUT_ROW_MAJOR: c_int = 101;
/// `CLBlastTransposeNo`.
const TRANSPOSE_NO: c_int = 111;
/// `CLBlastSuccess`.
const SUCCESS: c_int = 0;

/// `CLBlastSgemm` from clblast_c.h: C = alpha·op(A)·op(B) + beta·C. The queue and the event
/// are passed by pointer; enums are C ints.
type SgemmFn = unsafe extern "C" fn(
    layout: c_int,
    a_transpose: c_int,
    b_transpose: c_int,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a_buffer: *mut c_void,
    a_offset: usize,
    a_ld: usize,
    b_buffer: *mut c_void,
    b_offset: usize,
    b_ld: usize,
    beta: f32,
    c_buffer: *mut c_void,
    c_offset: usize,
    c_ld: usize,
    queue: *mut *mut c_void,
    event: *mut *mut c_void,
) -> c_int;

/// The names tried when `CLBLAST_LIBRARY` is not set.
pub const NAMES: &[&str] = &[
    "libclblast.so.1",
    "libclblast.so",
    "libclblast.dylib",
    "clblast.dll",
];

/// Why CLBlast is not available: the message to show.
#[derive(Clone, Debug)]
pub struct Absent(pub String);

impl fmt::Display for Absent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for Absent {}

/// A loaded CLBlast.
pub struct Clblast {
    /// Where it was found (the path or name that loaded).
    pub path: String,
    sgemm: SgemmFn,
}

/// Libraries loaded so far. They stay loaded: CLBlast keeps compiled programs in static
/// caches that must outlive every call.
static LOADED: Mutex<Vec<(String, &'static libloading::Library)>> = Mutex::new(Vec::new());

fn open(name: &str) -> Result<&'static libloading::Library, String> {
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, lib)) = loaded.iter().find(|(n, _)| n == name) {
        return Ok(lib);
    }
    // Loading runs the library's initialisers; CLBlast's only set up its caches.
    let lib = unsafe { libloading::Library::new(name) }.map_err(|e| {
        // The loader's own words (file not found, wrong architecture) are in the source.
        match std::error::Error::source(&e) {
            Some(why) => format!("{e}: {why}"),
            None => e.to_string(),
        }
    })?;
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    loaded.push((name.to_string(), lib));
    Ok(lib)
}

/// Loads CLBlast from `path` (what `CLBLAST_LIBRARY` says), or by its usual names if that is
/// `None` or empty.
pub fn load(path: Option<&str>) -> Result<Clblast, Absent> {
    let path = path.map(str::to_string);
    let from_env = path.filter(|s| !s.trim().is_empty());
    let candidates: Vec<String> = match &from_env {
        Some(p) => vec![p.clone()],
        None => NAMES.iter().map(|s| s.to_string()).collect(),
    };
    let mut errors = Vec::new();
    for name in &candidates {
        match open(name) {
            Ok(lib) => {
                let sgemm = unsafe { lib.get::<SgemmFn>(b"CLBlastSgemm\0") }
                    .map(|s| *s)
                    .map_err(|e| {
                        Absent(format!(
                            "{name} was loaded but has no CLBlastSgemm ({e}): is it CLBlast?"
                        ))
                    })?;
                return Ok(Clblast {
                    path: name.clone(),
                    sgemm,
                });
            }
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
    Err(Absent(match from_env {
        Some(p) => format!(
            "CLBlast not available: CLBLAST_LIBRARY={p} could not be loaded ({}). Point it at libclblast.so, or unset it to search the system's library path.",
            errors.join("; ")
        ),
        None => format!(
            "CLBlast not available: none of {} is on the library path. Install it (Debian/Ubuntu: sudo apt-get install libclblast1) or set CLBLAST_LIBRARY to the library's path.",
            NAMES.join(", ")
        ),
    }))
}

impl Clblast {
    /// Enqueues C = A·B (row-major, no transposes) and returns CLBlast's event, which covers
    /// its last kernel. `c_offset` is in elements.
    pub fn sgemm(
        &self,
        gpu: &Gpu,
        p: &Problem,
        a: &impl ClMem,
        b: &impl ClMem,
        c: &impl ClMem,
        c_offset: usize,
    ) -> Result<Option<Event>> {
        let s = p.shape;
        let mut queue = gpu.queue.get();
        let mut event: *mut c_void = std::ptr::null_mut();
        let status = unsafe {
            (self.sgemm)(
                LAYOUT_ROW_MAJOR,
                TRANSPOSE_NO,
                TRANSPOSE_NO,
                s.m,
                s.n,
                s.k,
                1.0,
                a.get(),
                0,
                s.k,
                b.get(),
                0,
                s.n,
                0.0,
                c.get(),
                c_offset,
                s.n,
                &mut queue,
                &mut event,
            )
        };
        if status != SUCCESS {
            bail!(
                "CLBlastSgemm returned status {status} at {s} (negative values are OpenCL or CLBlast error codes; see clblast_c.h)"
            );
        }
        Ok((!event.is_null()).then(|| Event::new(event)))
    }
}

/// Mean time of `n` back-to-back calls, from an idle queue to their end, on the host clock.
/// CLBlast may run several kernels per call (pads, transposes, the product) and its event
/// covers only the last one, so profiling events would undercount.
#[allow(clippy::too_many_arguments)]
pub fn batch_ms(
    lib: &Clblast,
    gpu: &Gpu,
    p: &Problem,
    a: &impl ClMem,
    b: &impl ClMem,
    c: &impl ClMem,
    c_offset: usize,
    n: usize,
) -> Result<f64> {
    gpu.queue
        .finish()
        .context("waiting for the queue to drain")?;
    let t = Instant::now();
    for _ in 0..n.max(1) {
        lib.sgemm(gpu, p, a, b, c, c_offset)?;
    }
    gpu.queue.finish().context("waiting for CLBlast")?;
    Ok(t.elapsed().as_secs_f64() * 1e3 / n.max(1) as f64)
}

/// Checks and times CLBlast's SGEMM at `shape` with the course's one protocol: each timed call
/// on fresh inputs, its C checked ([`clblast_call`]).
pub fn clblast_sgemm(lib: &Clblast, gpu: &Gpu, shape: Shape) -> Result<Timing> {
    let target = Target::device(&gpu.info);
    let mut batch = 1;
    timing::time_checked(
        shape,
        &target,
        |p| clblast_call(lib, gpu, p, &mut batch),
        clblast_check,
    )
}

/// One call of CLBlast's SGEMM on `p`, for the protocol. CLBlast may run several kernels per
/// call (pads, transposes, the product) and its event covers only the last one, so a call is
/// timed on the host clock: a batch of back-to-back calls on the same inputs, whose mean keeps
/// the host's wake-up latency out (`batch` is how many; it is set from this call's time for
/// the next); the batch's last C is the one returned.
pub fn clblast_call(lib: &Clblast, gpu: &Gpu, p: &Problem, batch: &mut usize) -> Result<RunOutput> {
    let started = Instant::now();
    let a = exec::input_buffer(gpu, &p.a, 0)?;
    let b = exec::input_buffer(gpu, &p.b, 0)?;
    let c = GuardedC::new(gpu, &p.poison, 0)?;
    // With beta = 0 CLBlast must not read C, so the NaN that fills it cannot leak.
    // NVIDIA's driver uploads a buffer made from host memory at its first use, not at
    // its creation: an untimed call first, so that the batch times CLBlast, not the
    // upload of A and B (at 8192 it had quadrupled the time of a call).
    batch_ms(lib, gpu, p, &a, &b, &c.whole, c.offset, 1)?;
    let ms = batch_ms(lib, gpu, p, &a, &b, &c.whole, c.offset, *batch)?;
    // The first call compiles CLBlast's kernels; later batches last about 1 ms.
    *batch = ((1.0 / ms.max(1e-3)) as usize).clamp(1, 20);
    let (got, guard) = c.read(gpu)?;
    Ok(RunOutput {
        guard,
        host_ms: started.elapsed().as_secs_f64() * 1e3,
        found: None,
        ..RunOutput::plain(got, ms)
    })
}

/// Checks and times CLBlast's SGEMM at `shape` as the course times its lessons: every timed
/// call one call on inputs nobody has multiplied yet ([`clblast_call_fresh`]), where
/// [`clblast_sgemm`] times batches of calls on the same inputs, warm in the caches.
pub fn clblast_sgemm_fresh(lib: &Clblast, gpu: &Gpu, shape: Shape) -> Result<Timing> {
    let target = Target::device(&gpu.info);
    timing::time_checked(
        shape,
        &target,
        |p| clblast_call_fresh(lib, gpu, p),
        clblast_check,
    )
}

/// One call of CLBlast's SGEMM on `p`, alone, on the host clock from an idle queue to its end.
/// A, B and C are written to the device first, untimed, by blocking writes: NVIDIA's driver
/// uploads a buffer made from host memory at its first use, which would otherwise land inside
/// the timed call (a migration request did not prevent it on an H200). The call then times
/// CLBlast on inputs it has not read before, as each lesson's kernel is timed; the host clock
/// adds the launch and the wake-up that a lesson's profiling event leaves out, so at small
/// sizes this favours the lessons.
pub fn clblast_call_fresh(lib: &Clblast, gpu: &Gpu, p: &Problem) -> Result<RunOutput> {
    let started = Instant::now();
    let mut a = exec::input_buffer(gpu, &p.a, 0)?;
    let mut b = exec::input_buffer(gpu, &p.b, 0)?;
    let mut c = GuardedC::new(gpu, &p.poison, 0)?;
    let c_len = c.total();
    resident(gpu, &mut a, p.a.len() + exec::INPUT_GUARD).context("writing A to the device")?;
    resident(gpu, &mut b, p.b.len() + exec::INPUT_GUARD).context("writing B to the device")?;
    resident(gpu, &mut c.whole, c_len).context("writing C to the device")?;
    let ms = batch_ms(lib, gpu, p, &a, &b, &c.whole, c.offset, 1)?;
    let (got, guard) = c.read(gpu)?;
    Ok(RunOutput {
        guard,
        host_ms: started.elapsed().as_secs_f64() * 1e3,
        found: None,
        ..RunOutput::plain(got, ms)
    })
}

/// Makes `buf` (of `len` floats) live in device memory: its content read back and written
/// again with blocking calls, so that no upload is left for the next command to wait on.
fn resident(gpu: &Gpu, buf: &mut opencl3::memory::Buffer<f32>, len: usize) -> Result<()> {
    let mut host = vec![0.0f32; len];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(buf, opencl3::types::CL_BLOCKING, 0, &mut host, &[])
            .context("reading it")?;
        gpu.queue
            .enqueue_write_buffer(buf, opencl3::types::CL_BLOCKING, 0, &host, &[])
            .context("writing it")?;
    }
    gpu.queue.finish().context("waiting for the write")?;
    Ok(())
}

/// Whether CLBlast's C is right, in the protocol's terms.
pub fn clblast_check(p: &Problem, out: &RunOutput) -> Result<(), String> {
    verify(p, out, None)
        .map(|_| ())
        .map_err(|f| format!("CLBlast is wrong: {}", f.message))
}

/// matrixmultiply's SGEMM on the CPU: C = A·B with the crate's blocked, vectorised kernels
/// (chosen at run time for the CPU: since 0.3.10, AVX-512 where present, else AVX2 and FMA;
/// [`cpu_blas::matrixmultiply_kernel`] names the one it takes). How many threads it uses is
/// fixed per process by `MATMUL_NUM_THREADS` (at most 4; by default the physical cores).
pub fn matrixmultiply(p: &Problem, c: &mut [f32]) {
    let Shape { m, n, k } = p.shape;
    assert!(p.a.len() >= m * k && p.b.len() >= k * n && c.len() >= m * n);
    // SAFETY: the asserts above keep every index the row-major strides reach in bounds.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            p.a.as_ptr(),
            k as isize,
            1,
            p.b.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}
