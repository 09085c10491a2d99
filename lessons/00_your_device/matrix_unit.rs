//! Lesson 00's measurement of the matrix unit: the rate of NVIDIA's tensor cores on TF32
//! inputs (`mma.sync.m16n8k8 ... tf32`), the ceiling lesson 11 is measured against, as the
//! FP32 chains measure the lanes' ceiling for lessons 04 to 10. Only NVIDIA GPUs of compute
//! capability 8.0 or newer have the instruction; everywhere else there is nothing to measure.
//!
//! Checked like the FP32 chains: every work-item's result against the exact value its chains
//! must reach, so a kernel the compiler shortened cannot report a rate it did not reach.

use std::path::Path;
use std::ptr;

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::{cl_float, cl_int, CL_BLOCKING};

use lab::harness::device::Gpu;
use lab::harness::exec::{self, Launch};
use lab::harness::program::{self, Define};

use super::microbench::{grow_and_time, Options};

/// The kernel, owned by the course (no exercise in it).
const SOURCE: &str = include_str!("mma_rate.cl");

/// Independent accumulators per warp: enough to keep the unit busy while each waits for the
/// product before it.
pub const CHAINS: u32 = 8;

/// Work-items per work-group: 8 warps.
const LOCAL: usize = 256;

/// FLOP of one `mma.sync.m16n8k8`: 16·8·8 multiply-adds, 2 FLOP each.
pub const FLOP_PER_MMA: f64 = 2048.0;

/// The inputs: A's fragment all 1, B's all 2⁻¹⁰. Both are exact in TF32, and every partial
/// sum of the chains is a multiple of 2⁻⁷ below 2¹⁰, exact in FP32: the unit's rounding and
/// truncation cannot change the result.
const A: f32 = 1.0;
const B: f32 = 1.0 / 1024.0;

/// One measured rate.
#[derive(Clone, Debug)]
pub struct MatrixRun {
    /// The compute capability the instruction ran on.
    pub capability: (u32, u32),
    pub work_items: usize,
    /// `mma.sync` per chain in each timed launch.
    pub iters: u32,
    /// Median device time of the timed launches, ms.
    pub ms: f64,
    pub gflops: f64,
    /// Work-items whose result was compared (all of them).
    pub checked: usize,
}

/// What work-item output `out` must hold after `iters` products per chain: chain j starts at
/// j in every element and gains 8·a·b per product in each of its 4 elements.
pub fn expected(iters: u32) -> f64 {
    let per = f64::from(iters) * 8.0 * f64::from(A) * f64::from(B);
    (0..CHAINS).map(|j| 4.0 * (f64::from(j) + per)).sum()
}

/// Checks every work-item's output against [`expected`], exactly.
pub fn verify(out: &[f32], iters: u32) -> Result<usize> {
    let want = expected(iters);
    if out.is_empty() {
        bail!("the matrix-unit kernel produced no output");
    }
    if let Some((i, got)) = out.iter().enumerate().find(|(_, &g)| f64::from(g) != want) {
        bail!(
            "the matrix unit's chains are wrong: work-item {i} wrote {got} where {iters} products \
             per chain give exactly {want}. A rate measured with a kernel that does not do its \
             work means nothing; check lessons/00_your_device/mma_rate.cl and the driver."
        );
    }
    Ok(out.len())
}

/// Measures the unit's TF32 rate where the device has it; `None` elsewhere.
pub fn measure(gpu: &Gpu, opts: &Options) -> Result<Option<MatrixRun>> {
    let Some(capability) = gpu.tensor_cores() else {
        return Ok(None);
    };
    let info = &gpu.info;
    if info.max_work_group < LOCAL {
        bail!(
            "{} takes work-groups of at most {} work-items; the matrix-unit kernel needs {LOCAL}",
            info.name,
            info.max_work_group
        );
    }
    let path = Path::new("lessons/00_your_device/mma_rate.cl");
    let program =
        program::build_source(gpu, path, SOURCE, &[Define::new("CHAINS", CHAINS)], "")?;
    let kernel = Kernel::create(&program, "mma_chains")
        .context("creating the kernel mma_chains of lessons/00_your_device/mma_rate.cl")?;
    let work_items = info.compute_units.max(1) as usize * opts.groups_per_cu(info) * LOCAL;
    let out = unsafe {
        Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, work_items, ptr::null_mut())
    }
    .context("allocating the matrix-unit kernel's output")?;
    let launch = |iters: u32| -> Result<f64> {
        unsafe {
            kernel.set_arg(0, &(iters as cl_int)).context("setting iters")?;
            kernel.set_arg(1, &(A as cl_float)).context("setting a")?;
            kernel.set_arg(2, &(B as cl_float)).context("setting b")?;
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
        .context("running the matrix unit's chains")
    };
    let (iters, ms) = grow_and_time(opts, launch)?;
    let mut host = vec![0.0f32; work_items];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(&out, CL_BLOCKING, 0, &mut host, &[])
            .context("reading the matrix-unit kernel's output")?;
    }
    let checked = verify(&host, iters)?;
    let warps = (work_items / 32) as f64;
    let flop = warps * f64::from(CHAINS) * f64::from(iters) * FLOP_PER_MMA;
    Ok(Some(MatrixRun {
        capability,
        work_items,
        iters,
        ms,
        gflops: flop / (ms.max(1e-9) * 1e6),
        checked,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chains_reach_an_exact_value_and_a_short_loop_is_caught() {
        let iters = 4096;
        let right = vec![expected(iters) as f32; 64];
        assert_eq!(verify(&right, iters).unwrap(), 64);
        // Exact in f32: the check compares for equality.
        assert_eq!(f64::from(expected(iters) as f32), expected(iters));
        let mut short = right.clone();
        short[17] = expected(iters - 1) as f32;
        let err = verify(&short, iters).unwrap_err().to_string();
        assert!(err.contains("work-item 17"), "{err}");
    }

    #[test]
    fn the_largest_launch_stays_exact() {
        let most = super::super::microbench::MAX_ITERS;
        assert_eq!(f64::from(expected(most) as f32), expected(most));
    }
}
