//! Lesson 00's micro-benchmarks: the device's peak FP32 multiply-add rate, measured with
//! chains of `mad` in float, float2, ... float16, and its global-memory bandwidth, measured
//! with a large float4 copy. Together they draw the roofline every later lesson is
//! measured against.
//!
//! Every measurement is checked: the multiply-add chains against the same recurrence
//! evaluated on the CPU, the copy against its source, so a kernel the compiler broke or
//! shortened cannot report a rate it did not reach.

use std::path::{Path, PathBuf};
use std::ptr;

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_float, cl_int, CL_BLOCKING};

use lab::harness::device::{DeviceInfo, Gpu};
use lab::harness::exec::{self, Launch};
use lab::harness::paths;
use lab::harness::peak::{self, Peak};
use lab::harness::program::{self, Define};
use lab::harness::record;

/// The vector widths measured: float, float2, float4, float8, float16.
pub const WIDTHS: [u32; 5] = [1, 2, 4, 8, 16];

/// Multiply-add steps per trip of the kernel's outer loop (the `UNROLL` define).
pub const UNROLL: u32 = 16;

/// Fewest and most steps per chain in one launch. The rounding error of the CPU check
/// grows with the number of steps, so it is bounded.
pub const MIN_ITERS: u32 = 256;
pub const MAX_ITERS: u32 = 1 << 16;

/// The file holding the micro-kernels, in the course's `solutions/`.
pub fn kernel_path(solutions: &Path) -> PathBuf {
    solutions.join("00_your_device.cl")
}

/// Independent accumulators per work-item for a vector width: enough to hide the latency of
/// a multiply-add, while `chains × width` (the floats each work-item keeps in registers)
/// stays at 64 or less.
pub fn chains_for(width: u32) -> u32 {
    (64 / width.max(1)).clamp(4, 16)
}

/// How long and how careful a measurement is, and where the micro-kernels are.
#[derive(Clone, Debug)]
pub struct Options {
    /// Shorter launches and fewer runs: for tests and a first look.
    pub quick: bool,
    /// `solutions/00_your_device.cl`.
    pub kernels: PathBuf,
}

impl Options {
    /// Launch time the multiply-add benchmark grows towards, ms.
    fn target_ms(&self) -> f64 {
        if self.quick {
            5.0
        } else {
            40.0
        }
    }

    /// Timed runs after the warm-up; their median is reported.
    fn runs(&self) -> usize {
        if self.quick {
            3
        } else {
            7
        }
    }

    /// Work-groups per compute unit. A GPU needs many resident work-groups per compute unit,
    /// and enough waves of them that the last, partly filled wave costs little; 240 divides
    /// evenly by 1 to 6 and 8 resident groups. A CPU runs one work-group per core at a time.
    pub(crate) fn groups_per_cu(&self, info: &DeviceInfo) -> usize {
        match (info.is_cpu(), self.quick) {
            (true, true) => 2,
            (true, false) => 4,
            (false, true) => 24,
            (false, false) => 240,
        }
    }

    /// Bytes of each buffer of the copy: well beyond any cache, within what the device allows.
    fn copy_bytes(&self, info: &DeviceInfo) -> u64 {
        const MIB: u64 = 1 << 20;
        let wanted = match (info.is_cpu(), self.quick) {
            (true, true) => 32 * MIB,
            (true, false) => 128 * MIB,
            (false, true) => 256 * MIB,
            (false, false) => 1024 * MIB,
        };
        wanted
            .min(info.max_alloc_bytes)
            .min(info.global_mem_bytes / 4)
    }
}

/// The work-group size for the micro-kernels: 256, or the largest power of two the device
/// takes.
fn local_size(info: &DeviceInfo) -> usize {
    let max = info
        .max_work_item_sizes
        .first()
        .copied()
        .unwrap_or(info.max_work_group)
        .min(info.max_work_group)
        .clamp(1, 256);
    1 << max.ilog2()
}

/// The recurrence's coefficients for `iters` steps: a = 1 − 1/n, b = 1/n with n the power
/// of two nearest `iters` (exact in float). Its fixed point is 1, and after `iters` steps
/// a chain has moved about 1 − e⁻¹ of the way there: a kernel that skipped steps ends
/// visibly elsewhere.
pub fn coefficients(iters: u32) -> (f32, f32) {
    let p = iters.max(2).ilog2().min(30) as i32;
    let step = 2f32.powi(-p);
    (1.0 - step, step)
}

/// The start value of lane `lane` of chain `c` of work-item `gid`, as the kernel computes it.
pub fn start_value(gid: usize, chains: u32, c: u32, lane: u32) -> f32 {
    let k = (gid as u64 * chains as u64 + c as u64) % 61;
    k as f32 * (1.0 / 64.0) + lane as f32 / 32.0
}

/// What work-item `gid` writes after `steps` steps of x ← x·a + b: the sum over chains and
/// lanes, added in f64 so that the CPU adds no rounding of its own to compare against.
pub fn expected(gid: usize, width: u32, chains: u32, steps: u32, (a, b): (f32, f32)) -> f64 {
    let mut sum = 0.0f64;
    for lane in 0..width {
        for c in 0..chains {
            let mut x = start_value(gid, chains, c, lane);
            for _ in 0..steps {
                // `mad` may round once (fused) or twice: either stays within the tolerance.
                x = x.mul_add(a, b);
            }
            sum += x as f64;
        }
    }
    sum
}

/// The tolerance of the chains' check, relative to the expected sum. Each step may round
/// differently on the device (fused or not, a few ulp), and the recurrence forgets old
/// errors at rate a = 1 − 1/n, so at most about n steps' worth accumulate.
pub fn tolerance(iters: u32) -> f64 {
    1e-4 + 2.0 * iters as f64 * f32::EPSILON as f64
}

/// The outcome of checking the chains' results.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// Work-items compared with the CPU.
    pub checked: usize,
    /// Largest relative difference found.
    pub max_rel_err: f64,
}

/// Compares a sample of work-items' outputs (the first, the last and some between) with the
/// CPU's evaluation of `iters` steps of the recurrence with [`coefficients`]`(iters)`.
pub fn verify(out: &[f32], width: u32, chains: u32, iters: u32) -> Result<Check> {
    if out.is_empty() {
        bail!("the multiply-add kernel produced no output");
    }
    let tol = tolerance(iters);
    let samples = 24.min(out.len());
    let mut max_rel_err = 0.0f64;
    for s in 0..samples {
        let gid = if samples == 1 {
            0
        } else {
            s * (out.len() - 1) / (samples - 1)
        };
        let want = expected(gid, width, chains, iters, coefficients(iters));
        let got = out[gid] as f64;
        let rel = (got - want).abs() / want.abs().max(1.0);
        if !rel.is_finite() || rel > tol {
            bail!(
                "the {} multiply-add chains are wrong: work-item {gid} wrote {got} where the CPU \
                 gets {want:.6} after {iters} steps (relative difference {rel:.2e}, tolerance {tol:.1e}). \
                 A rate measured with a kernel that does not do its work means nothing; check \
                 {} and the device's compiler.",
                peak::vector_type(width),
                paths::display(Path::new("solutions/00_your_device.cl"))
            );
        }
        max_rel_err = max_rel_err.max(rel);
    }
    Ok(Check {
        checked: samples,
        max_rel_err,
    })
}

/// The multiply-add kernel built for one vector width, with its output buffer.
pub struct Chains {
    kernel: Kernel,
    out: Buffer<f32>,
    pub width: u32,
    pub chains: u32,
    pub work_items: usize,
    pub local: usize,
}

impl Chains {
    /// Builds `fma_chains` for `width`, with `work_items` work-items (by default, enough
    /// work-groups to fill every compute unit many times over).
    pub fn new(gpu: &Gpu, width: u32, work_items: Option<usize>, opts: &Options) -> Result<Chains> {
        if !WIDTHS.contains(&width) {
            bail!("vector width {width} is not one of {WIDTHS:?}");
        }
        let info = &gpu.info;
        let local = local_size(info);
        let groups = match work_items {
            Some(n) => n.div_ceil(local).max(1),
            None => info.compute_units.max(1) as usize * opts.groups_per_cu(info),
        };
        let work_items = groups * local;
        let chains = chains_for(width);
        let path = opts.kernels.clone();
        let defines = [
            Define::new("VW", width),
            Define::new("CHAINS", chains),
            Define::new("UNROLL", UNROLL),
        ];
        let program = program::build_file(gpu, &path, &defines, "")?;
        let kernel = Kernel::create(&program, "fma_chains").with_context(|| {
            format!(
                "creating the kernel fma_chains from {}",
                paths::display(&path)
            )
        })?;
        let out = unsafe {
            Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, work_items, ptr::null_mut())
        }
        .context("allocating the multiply-add kernel's output")?;
        Ok(Chains {
            kernel,
            out,
            width,
            chains,
            work_items,
            local,
        })
    }

    /// Floating-point operations of one launch of `iters` steps (a multiply-add counts 2).
    pub fn flops(&self, iters: u32) -> f64 {
        2.0 * self.work_items as f64 * self.chains as f64 * self.width as f64 * iters as f64
    }

    /// Runs `iters` steps (a multiple of [`UNROLL`]) with [`coefficients`]`(iters)`;
    /// returns the device time in ms.
    pub fn launch(&self, gpu: &Gpu, iters: u32) -> Result<f64> {
        self.launch_with(gpu, iters, coefficients(iters))
    }

    /// Runs `iters` steps of x ← x·a + b; returns the device time in ms.
    pub fn launch_with(&self, gpu: &Gpu, iters: u32, (a, b): (f32, f32)) -> Result<f64> {
        if iters == 0 || !iters.is_multiple_of(UNROLL) || iters > i32::MAX as u32 {
            bail!("the step count {iters} must be a positive multiple of {UNROLL}");
        }
        unsafe {
            self.kernel
                .set_arg(0, &(iters as cl_int))
                .context("setting iters")?;
            self.kernel
                .set_arg(1, &(a as cl_float))
                .context("setting a")?;
            self.kernel
                .set_arg(2, &(b as cl_float))
                .context("setting b")?;
            self.kernel
                .set_arg(3, &self.out.get())
                .context("setting out")?;
        }
        exec::launch(
            gpu,
            &self.kernel,
            &Launch {
                global: [self.work_items, 1],
                local: Some([self.local, 1]),
            },
        )
        .with_context(|| {
            format!(
                "running the {} multiply-add chains",
                peak::vector_type(self.width)
            )
        })
    }

    /// The last launch's output, one float per work-item.
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<f32>> {
        let mut out = vec![0.0f32; self.work_items];
        unsafe {
            gpu.queue
                .enqueue_read_buffer(&self.out, CL_BLOCKING, 0, &mut out, &[])
                .context("reading the multiply-add kernel's output")?;
        }
        Ok(out)
    }
}

/// One vector width's measured rate.
#[derive(Clone, Debug)]
pub struct FlopsRun {
    pub width: u32,
    pub chains: u32,
    pub work_items: usize,
    pub local: usize,
    /// Steps per chain in each timed launch.
    pub iters: u32,
    /// Median device time of the timed launches, ms.
    pub ms: f64,
    pub gflops: f64,
    pub check: Check,
}

/// Measures the multiply-add rate at one vector width: grows the launch until it lasts the
/// target time (the growing launches warm the device up), times several launches, takes the
/// median, then checks the output.
pub fn measure_flops(gpu: &Gpu, width: u32, opts: &Options) -> Result<FlopsRun> {
    let chains = Chains::new(gpu, width, None, opts)?;
    let (iters, ms) = grow_and_time(opts, |iters| chains.launch(gpu, iters))?;
    let check = verify(&chains.read(gpu)?, width, chains.chains, iters)?;
    Ok(FlopsRun {
        width,
        chains: chains.chains,
        work_items: chains.work_items,
        local: chains.local,
        iters,
        ms,
        gflops: chains.flops(iters) / (ms.max(1e-9) * 1e6),
        check,
    })
}

/// Lesson 00's one timing protocol for a chain kernel: grows the steps per launch (powers of
/// two from [`MIN_ITERS`] to [`MAX_ITERS`]) until a launch lasts the target time, the growing
/// launches warming the device up, then times several launches of that many steps. Returns
/// the steps and the median device time, ms.
pub fn grow_and_time(
    opts: &Options,
    mut launch: impl FnMut(u32) -> Result<f64>,
) -> Result<(u32, f64)> {
    let target = opts.target_ms();
    let mut iters = MIN_ITERS;
    loop {
        let ms = launch(iters)?;
        if ms >= target || iters >= MAX_ITERS {
            break;
        }
        let factor = (target / ms.max(1e-3)).clamp(2.0, 16.0);
        let next = ((iters as f64 * factor).ceil() as u32).next_power_of_two();
        iters = next.min(MAX_ITERS);
    }
    let mut times = Vec::with_capacity(opts.runs());
    for _ in 0..opts.runs() {
        times.push(launch(iters)?);
    }
    Ok((iters, exec::median(&mut times)))
}

/// The measured global-memory bandwidth.
#[derive(Clone, Debug)]
pub struct Bandwidth {
    /// Size of each of the two buffers, bytes.
    pub bytes: u64,
    /// Median device time of one copy, ms.
    pub ms: f64,
    /// Bytes read plus bytes written, per second, in GB/s (10⁹ bytes).
    pub gbs: f64,
}

/// Measures global-memory bandwidth with a float4 copy between two large buffers, then
/// checks that every element arrived.
pub fn measure_bandwidth(gpu: &Gpu, opts: &Options) -> Result<Bandwidth> {
    let info = &gpu.info;
    let local = local_size(info);
    let unit = 16 * local as u64;
    let bytes = opts.copy_bytes(info) / unit * unit;
    if bytes == 0 {
        bail!(
            "{} allows too little memory for the bandwidth test",
            info.name
        );
    }
    let floats = (bytes / 4) as usize;
    let mut src: Vec<f32> = (0..floats).map(|i| (i % 65_521) as f32).collect();
    let src_buf = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            floats,
            src.as_mut_ptr().cast(),
        )
    }
    .with_context(|| format!("allocating the copy's source ({} MiB)", bytes >> 20))?;
    let dst_buf =
        unsafe { Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, floats, ptr::null_mut()) }
            .with_context(|| format!("allocating the copy's destination ({} MiB)", bytes >> 20))?;

    let path = opts.kernels.clone();
    let program = program::build_file(gpu, &path, &[], "")?;
    let kernel = Kernel::create(&program, "copy4")
        .with_context(|| format!("creating the kernel copy4 from {}", paths::display(&path)))?;
    unsafe {
        kernel.set_arg(0, &src_buf.get()).context("setting src")?;
        kernel.set_arg(1, &dst_buf.get()).context("setting dst")?;
    }
    let l = Launch {
        global: [floats / 4, 1],
        local: Some([local, 1]),
    };
    exec::launch(gpu, &kernel, &l).context("running the float4 copy")?;
    let runs = opts.runs() + 3;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(exec::launch(gpu, &kernel, &l)?);
    }
    let ms = exec::median(&mut times);

    let mut back = vec![0.0f32; floats];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(&dst_buf, CL_BLOCKING, 0, &mut back, &[])
            .context("reading the copy back")?;
    }
    if let Some(i) = back
        .iter()
        .zip(&src)
        .position(|(got, want)| got.to_bits() != want.to_bits())
    {
        bail!(
            "the float4 copy is wrong: element {i} is {} where the source holds {}",
            back[i],
            src[i]
        );
    }
    Ok(Bandwidth {
        bytes,
        ms,
        gbs: 2.0 * bytes as f64 / (ms.max(1e-9) * 1e6),
    })
}

/// Both ceilings of one device.
#[derive(Clone, Debug)]
pub struct Report {
    /// One entry per vector width, in the order of [`WIDTHS`].
    pub flops: Vec<FlopsRun>,
    pub bandwidth: Bandwidth,
    /// The matrix unit's TF32 rate, GFLOP/s, where the device has one and it was measured
    /// (lesson 00's program measures it with [`super::matrix_unit`]).
    pub matrix_gflops: Option<f64>,
    /// The L1 and L2 caches' read bandwidths, GB/s, where they were measured
    /// ([`super::cache_rate`]).
    pub l1_gbs: Option<f64>,
    pub l2_gbs: Option<f64>,
}

impl Report {
    /// The fastest vector width: its rate is the device's peak.
    pub fn best(&self) -> Option<&FlopsRun> {
        self.flops
            .iter()
            .max_by(|a, b| a.gflops.total_cmp(&b.gflops))
    }

    /// The peak to record for this device.
    pub fn peak(&self, info: &DeviceInfo) -> Option<Peak> {
        let best = self.best()?;
        Some(Peak {
            date: record::today(),
            device: info.name.clone(),
            driver: info.driver.clone(),
            kind: info.kind.clone(),
            units: Some(info.compute_units),
            gflops: best.gflops,
            best_width: best.width,
            bandwidth_gbs: self.bandwidth.gbs,
            matrix_tf32_gflops: self.matrix_gflops,
            l1_gbs: self.l1_gbs,
            l2_gbs: self.l2_gbs,
        })
    }
}

/// Runs the FP32 and bandwidth measurements; `progress` hears about each as it starts.
pub fn measure(gpu: &Gpu, opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report> {
    let mut flops = Vec::with_capacity(WIDTHS.len());
    for width in WIDTHS {
        progress(&peak::vector_type(width));
        flops.push(measure_flops(gpu, width, opts)?);
    }
    progress("float4 copy");
    let bandwidth = measure_bandwidth(gpu, opts)?;
    Ok(Report {
        flops,
        bandwidth,
        matrix_gflops: None,
        l1_gbs: None,
        l2_gbs: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_are_exact_and_relax_towards_one() {
        let (a, b) = coefficients(4096);
        assert_eq!(a + b, 1.0);
        assert_eq!(b, 1.0 / 4096.0);
        // After n steps a chain has covered about 1 - 1/e of its way to the fixed point.
        let x0 = 0.0f32;
        let mut x = x0;
        for _ in 0..4096 {
            x = x.mul_add(a, b);
        }
        assert!((x - (1.0 - (-1.0f32).exp())).abs() < 1e-3, "{x}");
    }

    #[test]
    fn skipping_steps_is_caught() {
        let (width, chains, iters) = (4, chains_for(4), 1024);
        let ab = coefficients(iters);
        let right: Vec<f32> = (0..100)
            .map(|g| expected(g, width, chains, iters, ab) as f32)
            .collect();
        assert!(verify(&right, width, chains, iters).is_ok());
        // The same recurrence, stopped halfway: a kernel whose loop was cut short.
        let half: Vec<f32> = (0..100)
            .map(|g| expected(g, width, chains, iters / 2, ab) as f32)
            .collect();
        let err = verify(&half, width, chains, iters).unwrap_err().to_string();
        assert!(err.contains("work-item 0"), "{err}");
    }

    #[test]
    fn chains_keep_registers_bounded() {
        for w in WIDTHS {
            let c = chains_for(w);
            assert!((4..=16).contains(&c));
            assert!(c * w <= 64);
        }
    }
}
