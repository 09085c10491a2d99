//! Lesson 00's measurement of the caches' read bandwidth: the roofs of a kernel whose loads the
//! caches serve, as the float4 copy measures DRAM's. The L2's: a tile of lessons 05 to 11 is
//! read from global memory once per work-group, and most of those reads hit in L2. The L1's:
//! loads that repeat within a compute unit (lesson 04's) are served nearer still. NVIDIA GPUs
//! only, where a load can name its cache: `ld.global.cg` skips the compute units' L1, so every
//! byte the L2 kernel counts came from L2; `ld.global.ca` over a buffer of a few KiB keeps the
//! L1 kernel's bytes in L1. Elsewhere nothing is measured and no cache roof is drawn.
//!
//! Checked like the other micro-kernels: every sum is exact, and a sample of work-items is
//! compared with the host's, so a kernel the compiler shortened cannot report a rate.

use std::path::Path;
use std::ptr;

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_int, cl_uint, CL_BLOCKING};

use lab::harness::device::Gpu;
use lab::harness::exec::{self, Launch};
use lab::harness::program;

use super::microbench::{grow_and_time, Options};

/// The kernel, owned by the course (no exercise in it).
const SOURCE: &str = include_str!("cache_read.cl");

/// Work-items per work-group.
const LOCAL: usize = 256;

/// Largest buffer the L2 kernel reads, bytes: well inside any recent GPU's L2, which holds it
/// after the first launch.
const MAX_BYTES: u64 = 16 << 20;

/// The buffer the L1 kernel reads, bytes: a small share of any recent NVIDIA compute unit's
/// L1 (128 KiB or more), so every unit keeps all of it.
pub const L1_BYTES: u64 = 16 << 10;

/// A cache measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    L1,
    L2,
}

impl Level {
    fn kernel(self) -> &'static str {
        match self {
            Level::L1 => "l1_read",
            Level::L2 => "l2_read",
        }
    }
}

/// One measured rate.
#[derive(Clone, Debug)]
pub struct CacheRun {
    pub level: Level,
    /// Bytes of the buffer read (a power of two).
    pub bytes: u64,
    /// The global-memory cache's size as the driver reports it.
    pub cache_bytes: u64,
    pub work_items: usize,
    /// float4 reads per work-item in each timed launch.
    pub reps: u32,
    /// Median device time of the timed launches, ms.
    pub ms: f64,
    /// Bytes read per second, GB/s (10⁹ bytes).
    pub gbs: f64,
    /// Work-items whose sum was compared.
    pub checked: usize,
}

/// The value of float4 `j` of the source (all four components): small integers, so that
/// every sum of a launch is exact in float.
pub fn value(j: usize) -> f32 {
    (j % 5) as f32
}

/// What work-item `t` must write: the sum of the four components of the float4s it read.
pub fn expected(t: usize, global: usize, reps: u32, floats4: usize) -> f64 {
    let mask = floats4 - 1;
    (0..reps as usize)
        .map(|r| 4.0 * f64::from(value((t + r * global) & mask)))
        .sum()
}

/// Checks the work-items `0, step, 2·step, …` of `out`; returns how many were checked.
pub fn verify(out: &[f32], reps: u32, floats4: usize) -> Result<usize> {
    if out.is_empty() {
        bail!("the cache kernel produced no output");
    }
    let step = (out.len() / 4096).max(1);
    let mut checked = 0;
    for t in (0..out.len()).step_by(step) {
        let want = expected(t, out.len(), reps, floats4);
        if f64::from(out[t]) != want {
            bail!(
                "the cache kernel is wrong: work-item {t} wrote {} where its {reps} reads sum to \
                 exactly {want}. A bandwidth measured with a kernel that does not do its reads \
                 means nothing; check lessons/00_your_device/cache_read.cl and the driver.",
                out[t]
            );
        }
        checked += 1;
    }
    Ok(checked)
}

/// The buffer to read for an L2 of `cache` bytes: the largest power of two up to a quarter
/// of it and [`MAX_BYTES`], at least 64 KiB.
pub fn buffer_bytes(cache: u64) -> u64 {
    let quarter = (cache / 4).clamp(1 << 16, MAX_BYTES);
    1 << quarter.ilog2()
}

/// Measures a cache's read bandwidth on an NVIDIA GPU; `None` elsewhere.
pub fn measure(gpu: &Gpu, opts: &Options, level: Level) -> Result<Option<CacheRun>> {
    let info = &gpu.info;
    if !info.vendor.to_lowercase().contains("nvidia") || !info.is_gpu() {
        return Ok(None);
    }
    if info.max_work_group < LOCAL {
        bail!(
            "{} takes work-groups of at most {} work-items; the cache kernels need {LOCAL}",
            info.name,
            info.max_work_group
        );
    }
    let cache_bytes = gpu
        .device
        .global_mem_cache_size()
        .context("asking the driver for the L2 cache's size")?;
    let bytes = match level {
        Level::L1 => L1_BYTES,
        Level::L2 => buffer_bytes(cache_bytes),
    };
    let floats4 = (bytes / 16) as usize;
    let mut src: Vec<f32> = (0..4 * floats4).map(|f| value(f / 4)).collect();
    let src_buf = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            src.len(),
            src.as_mut_ptr().cast(),
        )
    }
    .context("allocating the cache kernel's source")?;
    let path = Path::new("lessons/00_your_device/cache_read.cl");
    let program = program::build_source(gpu, path, SOURCE, &[], "")?;
    let kernel = Kernel::create(&program, level.kernel()).with_context(|| {
        format!(
            "creating the kernel {} of lessons/00_your_device/cache_read.cl",
            level.kernel()
        )
    })?;
    let work_items = info.compute_units.max(1) as usize * 8 * LOCAL;
    let out = unsafe {
        Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, work_items, ptr::null_mut())
    }
    .context("allocating the cache kernel's output")?;
    let launch = |reps: u32| -> Result<f64> {
        unsafe {
            kernel.set_arg(0, &src_buf.get()).context("setting src")?;
            kernel
                .set_arg(1, &((floats4 - 1) as cl_uint))
                .context("setting mask")?;
            kernel.set_arg(2, &(reps as cl_int)).context("setting reps")?;
            kernel.set_arg(3, &out.get()).context("setting out")?;
        }
        exec::launch(
            gpu,
            &kernel,
            &Launch {
                global: [work_items, 1],
                local: Some([LOCAL, 1]),
            },
        )
        .context("running the cache reads")
    };
    // The growing launches also bring the buffer into the cache before the timed ones.
    let (reps, ms) = grow_and_time(opts, launch)?;
    let mut host = vec![0.0f32; work_items];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(&out, CL_BLOCKING, 0, &mut host, &[])
            .context("reading the cache kernel's output")?;
    }
    let checked = verify(&host, reps, floats4)?;
    let read = work_items as f64 * f64::from(reps) * 16.0;
    Ok(Some(CacheRun {
        level,
        bytes,
        cache_bytes,
        work_items,
        reps,
        ms,
        gbs: read / (ms.max(1e-9) * 1e6),
        checked,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sums_are_exact_and_a_skipped_read_is_caught() {
        let (global, reps, floats4) = (64, 256, 1 << 10);
        let right: Vec<f32> = (0..global)
            .map(|t| expected(t, global, reps, floats4) as f32)
            .collect();
        assert_eq!(verify(&right, reps, floats4).unwrap(), global);
        // The largest sum stays exact in f32: 4 components × 4 × the most reads.
        let most = f64::from(super::super::microbench::MAX_ITERS) * 16.0;
        assert_eq!(f64::from(most as f32), most);
        let mut short = right.clone();
        short[17] = expected(17, global, reps - 4, floats4) as f32;
        let err = verify(&short, reps, floats4).unwrap_err().to_string();
        assert!(err.contains("work-item 17"), "{err}");
    }

    #[test]
    fn the_buffer_fits_a_quarter_of_the_cache() {
        assert_eq!(buffer_bytes(50 << 20), 8 << 20);
        assert_eq!(buffer_bytes(60 << 20), 8 << 20);
        assert_eq!(buffer_bytes(256 << 20), 16 << 20);
        assert_eq!(buffer_bytes(0), 1 << 16);
    }
}
