//! Running a kernel safely enough to grade it: C poisoned ([`crate::harness::poison`]), guard
//! zones around C, A and B checked afterwards, and the launch checked against the device's
//! limits first.

use std::ops::Range;
use std::ptr;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::{cl_int, cl_mem, cl_mem_flags, CL_BLOCKING};
use serde::{Deserialize, Serialize};

use crate::harness::device::{DeviceInfo, Gpu};
use crate::harness::lead;
use crate::harness::matrix::{Problem, Shape};
use crate::harness::pad;
use crate::harness::poison::{self, Poison};

/// The NDRange of a launch: global and (optionally) local sizes, dimension 0 first. A launch
/// that leaves the work-group open (`local: None`) runs in the one [`Launch::work_group`]
/// gives, on every device and under the simulator alike: left to each runtime, Oclgrind would
/// take groups of one work-item and a GPU's or PoCL's runtime larger ones, and a kernel that
/// behaves differently in larger groups (reading ahead only there, say) would be judged where
/// it is never run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub global: [usize; 2],
    pub local: Option<[usize; 2]>,
}

/// The most a work-group left open takes in each dimension: a warp's width along dimension 0,
/// which runs along a row of C (coalesced on a GPU, one SIMD loop on PoCL), and two rows, so
/// that a group is more than one work-item in both dimensions wherever the sizes allow.
pub const OPEN_GROUP: [usize; 2] = [32, 2];

impl Launch {
    // ANCHOR: work_group
    /// The work-group the launch runs in: its own, or where it leaves it open, the largest
    /// that divides the global size in each dimension up to [`OPEN_GROUP`].
    pub fn work_group(&self) -> [usize; 2] {
        self.local.unwrap_or_else(|| {
            let largest = |d: usize| {
                (1..=OPEN_GROUP[d].min(self.global[d]).max(1))
                    .rev()
                    .find(|l| self.global[d].is_multiple_of(*l))
                    .unwrap_or(1)
            };
            [largest(0), largest(1)]
        })
    }
    // ANCHOR_END: work_group

    /// Checks the launch against the device before it is enqueued, so a bad work-group is a
    /// sentence rather than an OpenCL error code.
    pub fn validate(&self, info: &DeviceInfo) -> Result<()> {
        if self.global.contains(&0) {
            bail!("the launch has an empty global size {:?}", self.global);
        }
        let local = self.work_group();
        let items: usize = local.iter().product();
        if items > info.max_work_group {
            bail!(
                "a work-group of {}×{} = {items} work-items is larger than this device allows ({} on {}). Choose smaller tile defines.",
                local[0], local[1], info.max_work_group, info.name
            );
        }
        for d in 0..2 {
            if local[d] == 0 || !self.global[d].is_multiple_of(local[d]) {
                bail!(
                    "global size {:?} is not a multiple of the work-group size {:?} in dimension {d}",
                    self.global, local
                );
            }
            if let Some(&max) = info.max_work_item_sizes.get(d) {
                if local[d] > max {
                    bail!(
                        "a work-group {} wide in dimension {d} exceeds this device's limit of {max}",
                        local[d]
                    );
                }
            }
        }
        Ok(())
    }

    /// Work-groups in the launch.
    pub fn groups(&self) -> usize {
        let l = self.work_group();
        (self.global[0] / l[0]) * (self.global[1] / l[1])
    }
}

/// Writes that landed outside C.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GuardReport {
    /// Elements written in the guard zone after C, and the nearest one's offset past the end.
    pub after: usize,
    pub nearest_after: Option<usize>,
}

impl GuardReport {
    pub fn clean(&self) -> bool {
        self.after == 0
    }
}

/// The value the guard zone holds; a kernel has no reason to ever write exactly this.
const GUARD: f32 = -1.234_567_9e29;

/// C at the start of a larger buffer, followed by a guard zone: an index past the end of C
/// lands in the guard, in the same memory object, where the host can see it.
///
/// C is the whole buffer, not a sub-buffer of it: some drivers (NVIDIA's among them) do not
/// show writes past a sub-buffer's end in its parent, which would hide exactly the bugs the
/// guard is for. The price is that an index below zero is not caught here; it writes before
/// the allocation and usually fails the launch or crashes the worker, which the grader
/// reports too.
pub struct GuardedC {
    /// The buffer holding C and the guard.
    pub whole: Buffer<f32>,
    /// A second handle on the same buffer, to pass to the kernel as C.
    pub c: Buffer<f32>,
    /// Where C starts in `whole`, in floats.
    pub offset: usize,
    /// Elements of C.
    pub len: usize,
    /// Elements of the guard zone after C.
    pub tail: usize,
}

impl GuardedC {
    /// Allocates C and its guard: C holding `before` (the call's poison), the guard value
    /// after. `flags` adds to CL_MEM_READ_WRITE (CL_MEM_ALLOC_HOST_PTR for zero copy).
    // ANCHOR: guarded_new
    pub fn new(gpu: &Gpu, before: &Poison, flags: cl_mem_flags) -> Result<GuardedC> {
        let len = before.len();
        // A wrong row stride overshoots by up to a few rows: 64 K floats covers it for the
        // grader's sizes without costing much at large ones.
        let tail = 65_536usize.max(len / 16);
        let total = len.max(1) + tail;
        let mut whole =
            device_buffer(gpu, total, flags).context("allocating C and its guard zone")?;
        match before.values() {
            Some(values) => write(gpu, &mut whole, 0, values),
            None => fill(gpu, &mut whole, 0..len, f32::NAN),
        }
        .context("poisoning C")?;
        fill(gpu, &mut whole, len..total, GUARD).context("filling C's guard zone")?;
        // SAFETY: retaining the object first makes the second handle own a reference of its
        // own, released when it drops.
        let c = unsafe {
            cl3::memory::retain_mem_object(whole.get())
                .map_err(|e| anyhow::anyhow!("retaining C: OpenCL error {e}"))?;
            Buffer::new(whole.get())
        };
        Ok(GuardedC {
            whole,
            c,
            offset: 0,
            len,
            tail,
        })
    }
    // ANCHOR_END: guarded_new

    /// Floats in the whole buffer.
    pub fn total(&self) -> usize {
        self.offset + self.len.max(1) + self.tail
    }

    /// Reads C back and checks the guard zone.
    // ANCHOR: read_back
    pub fn read(&self, gpu: &Gpu) -> Result<(Vec<f32>, GuardReport)> {
        Ok(self.split(self.whole_back(gpu)?))
    }

    /// The whole buffer, C and guard, as the device holds it.
    fn whole_back(&self, gpu: &Gpu) -> Result<Vec<f32>> {
        let mut all = vec![0.0f32; self.total()];
        unsafe {
            gpu.queue
                .enqueue_read_buffer(&self.whole, CL_BLOCKING, 0, &mut all, &[])
                .context("reading C back")?;
        }
        Ok(all)
    }
    // ANCHOR_END: read_back

    /// Splits a host copy of the whole buffer into C and a guard report. C is kept as the
    /// earlier C later calls may be poisoned with ([`poison::remember`]).
    pub fn split(&self, all: Vec<f32>) -> (Vec<f32>, GuardReport) {
        let (c, report) = self.unkept(all);
        poison::remember(&c);
        (c, report)
    }

    /// [`GuardedC::split`] without keeping C: a run the grader made for itself, on a C no
    /// call ever holds.
    fn unkept(&self, mut all: Vec<f32>) -> (Vec<f32>, GuardReport) {
        let mut report = GuardReport::default();
        let end = self.offset + self.len.max(1);
        for (i, v) in all[end..].iter().enumerate() {
            if v.to_bits() != GUARD.to_bits() {
                report.after += 1;
                report.nearest_after.get_or_insert(i);
            }
        }
        // C in place, not copied out: at a problem past 4,096 on every side it is 70 MB.
        all.truncate(self.offset + self.len);
        all.drain(..self.offset);
        (all, report)
    }
}

/// An input buffer holding host data, readable and writable so that a kernel that writes to
/// it can be caught. Behind the data lies a zone of NaN, [`INPUT_GUARD`] floats long: a
/// kernel that reads past the end of A or B reads NaN there (and not whatever happens to
/// follow), and the NaN it spreads into C tells a read from a missing write.
// ANCHOR: input_buffer
pub fn input_buffer(gpu: &Gpu, data: &[f32], flags: cl_mem_flags) -> Result<Buffer<f32>> {
    let len = data.len() + INPUT_GUARD;
    let mut buffer =
        device_buffer(gpu, len, flags).context("allocating an input matrix on the device")?;
    write(gpu, &mut buffer, 0, data).context("copying an input matrix to the device")?;
    fill(gpu, &mut buffer, data.len()..len, f32::NAN).context("filling an input's guard zone")?;
    Ok(buffer)
}
// ANCHOR_END: input_buffer

/// A read-write buffer of `len` floats, its contents left to [`write`] and [`fill`]: a large
/// problem's matrices go to the device once, not first into a host array of the buffer's
/// shape (C and its guard zone together are 75 MB past 4,096 on every side).
// ANCHOR: device_buffer
fn device_buffer(gpu: &Gpu, len: usize, flags: cl_mem_flags) -> Result<Buffer<f32>> {
    Ok(unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE | flags,
            len,
            ptr::null_mut(),
        )?
    })
}

/// Copies `data` into `buffer` from element `at` on, and waits until it is there.
fn write(gpu: &Gpu, buffer: &mut Buffer<f32>, at: usize, data: &[f32]) -> Result<()> {
    // A write of no bytes is an error in OpenCL.
    if !data.is_empty() {
        unsafe {
            gpu.queue
                .enqueue_write_buffer(buffer, CL_BLOCKING, at * 4, data, &[])?;
        }
    }
    Ok(())
}

/// Sets the elements `range` of `buffer` to `value`, on the device, and waits.
fn fill(gpu: &Gpu, buffer: &mut Buffer<f32>, range: Range<usize>, value: f32) -> Result<()> {
    if !range.is_empty() {
        let bytes = (range.start * 4, range.len() * 4);
        unsafe {
            gpu.queue
                .enqueue_fill_buffer(buffer, &[value], bytes.0, bytes.1, &[])?
        }
        .wait()?;
    }
    Ok(())
}
// ANCHOR_END: device_buffer

/// Floats of NaN after each input matrix.
pub const INPUT_GUARD: usize = 4096;

/// Reads an input buffer back (data and guard zone) and returns the index of the first
/// element that differs from what was put there: `data`, then NaN.
pub fn first_change(gpu: &Gpu, buf: &Buffer<f32>, data: &[f32]) -> Result<Option<usize>> {
    // Read in pieces into one host array: an input past 4,096 on every side is 70 MB, and a
    // host copy of it whole would cost more than the comparison.
    const PIECE: usize = 1 << 20;
    let total = data.len() + INPUT_GUARD;
    let mut back = vec![0.0f32; PIECE.min(total)];
    let mut at = 0;
    while at < total {
        let piece = &mut back[..PIECE.min(total - at)];
        unsafe {
            gpu.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, at * 4, piece, &[])
                .context("reading an input matrix back")?;
        }
        let changed = piece
            .iter()
            .enumerate()
            .position(|(i, x)| match data.get(at + i) {
                Some(y) => x.to_bits() != y.to_bits(),
                None => !x.is_nan(),
            });
        if let Some(i) = changed {
            return Ok(Some(at + i));
        }
        at += piece.len();
    }
    Ok(None)
}

/// Sets the standard arguments (M, N, K, A, B, C) in that order. B is a buffer, or in
/// lesson 09 an image.
// ANCHOR: set_args
pub fn set_standard_args(
    kernel: &Kernel,
    shape: Shape,
    a: &Buffer<f32>,
    b: &impl ClMem,
    c: &Buffer<f32>,
) -> Result<()> {
    let dims = [shape.m as cl_int, shape.n as cl_int, shape.k as cl_int];
    unsafe {
        for (i, d) in dims.iter().enumerate() {
            kernel.set_arg(i as u32, d).context("setting M, N or K")?;
        }
        kernel.set_arg(3, &a.get()).context("setting A")?;
        kernel.set_arg(4, &b.get()).context("setting B")?;
        kernel.set_arg(5, &c.get()).context("setting C")?;
    }
    Ok(())
}
// ANCHOR_END: set_args

/// Moves buffers to the device and waits until they are there. A driver may copy a buffer
/// made from host memory only when a kernel first uses it (NVIDIA's does): that copy would
/// then count in the wall-clock time of the launch that is checked against the device clock.
pub fn settle(gpu: &Gpu, buffers: &[cl_mem]) -> Result<()> {
    let moved = unsafe {
        gpu.queue
            .enqueue_migrate_mem_object(buffers.len() as u32, buffers.as_ptr(), 0, &[])
    };
    // Migration is OpenCL 1.2; where it is refused, the buffers move with the launch.
    if let Ok(event) = moved {
        event.wait().context("moving the matrices to the device")?;
    }
    gpu.queue
        .finish()
        .context("waiting for the matrices to reach the device")?;
    Ok(())
}

/// Enqueues a 2D launch and waits for it; returns the kernel's device time in ms.
pub fn launch(gpu: &Gpu, kernel: &Kernel, l: &Launch) -> Result<f64> {
    launch_timed(gpu, kernel, l).map(|(device_ms, _)| device_ms)
}

/// [`launch`], with the wall-clock time from enqueue to completion beside the device time,
/// both in ms: the one is checked against the other.
// ANCHOR: launch
pub fn launch_timed(gpu: &Gpu, kernel: &Kernel, l: &Launch) -> Result<(f64, f64)> {
    let started = Instant::now();
    let event = enqueue(gpu, kernel, l)?;
    event.wait().context(
        "the kernel failed while running (on many drivers this is how a write far outside a buffer shows)",
    )?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok((event_ms(&event)?, wall_ms))
}
// ANCHOR_END: launch

/// Checks a 2D launch against the device and enqueues it, without waiting.
fn enqueue(gpu: &Gpu, kernel: &Kernel, l: &Launch) -> Result<opencl3::event::Event> {
    l.validate(&gpu.info)?;
    let local = l.work_group();
    unsafe {
        gpu.queue.enqueue_nd_range_kernel(
            kernel.get(),
            2,
            ptr::null(),
            l.global.as_ptr(),
            local.as_ptr(),
            &[],
        )
    }
    .with_context(|| {
        format!(
            "enqueueing the kernel with global {:?}, local {local:?}",
            l.global
        )
    })
}

/// Device time between an event's start and end, in ms.
pub fn event_ms(event: &opencl3::event::Event) -> Result<f64> {
    let start = event
        .profiling_command_start()
        .context("reading the profiling start")?;
    let end = event
        .profiling_command_end()
        .context("reading the profiling end")?;
    Ok(end.saturating_sub(start) as f64 * 1e-6)
}

/// Everything a grader needs to know about one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOutput {
    pub c: Vec<f32>,
    pub guard: GuardReport,
    /// First element of A / B the kernel changed, if any.
    pub a_changed: Option<usize>,
    pub b_changed: Option<usize>,
    pub kernel_ms: f64,
    /// Elements of C came out NaN even when C started out as a number: the NaN was read
    /// (from past the end of A or B), not left unwritten.
    pub nan_from_reads: bool,
    /// The launch on the host's wall clock, enqueue to completion, ms (0: not measured).
    #[serde(default)]
    pub wall_ms: f64,
    /// End to end on the host's wall clock: upload A and B, run, read C back, ms.
    #[serde(default)]
    pub host_ms: f64,
    /// What a lesson of several kernels found wrong in what one kernel left for the next
    /// (lesson 12: the first stage whose output is wrong), for its judgement of C
    /// ([`crate::lesson::AccuracyFn`]): a wrong C is explained by the stage that made it.
    #[serde(default)]
    pub found: Option<String>,
    /// Where C as the kernel left it shows that the lesson's technique did not make it (lesson
    /// 11: the product itself, where the modelled unit scales every product it makes,
    /// [`crate::harness::unit_scale`]): why, for a verdict of missing technique where C is
    /// wrong.
    #[serde(default)]
    pub technique: Option<String>,
}

impl RunOutput {
    /// The output of code with no guard zones to check (CPU code).
    pub fn plain(c: Vec<f32>, kernel_ms: f64) -> RunOutput {
        RunOutput {
            c,
            guard: GuardReport::default(),
            a_changed: None,
            b_changed: None,
            kernel_ms,
            nan_from_reads: false,
            wall_ms: kernel_ms,
            host_ms: kernel_ms,
            found: None,
            technique: None,
        }
    }
}

/// What C is filled with for the second run that tells a NaN read from a NaN never written:
/// a number no correct kernel writes.
pub const SECOND_FILL: f32 = -3.25e33;

/// Whether NaN in a C came from the kernel's reads rather than from C's NaN poison left
/// unwritten. Where C held numbers before the call, any NaN in it was computed; where it
/// held NaN, `again` runs the kernel with C holding [`SECOND_FILL`], and whatever is still
/// NaN there was computed.
pub fn nan_from_reads(
    c: &[f32],
    before: &Poison,
    again: impl FnOnce(&Poison) -> Result<Vec<f32>>,
) -> Result<bool> {
    if !c.iter().any(|x| x.is_nan()) {
        return Ok(false);
    }
    if before.kind != poison::Kind::Nan {
        return Ok(true);
    }
    let fill = Poison::from_values(poison::Kind::Random, vec![SECOND_FILL; before.len()]);
    Ok(again(&fill)?.iter().any(|x| x.is_nan()))
}

/// One kernel launch of a multiplication that takes several (lesson 12: conversions, the
/// products, the reconstruction).
#[derive(Clone, Copy)]
pub struct Step<'k> {
    pub kernel: &'k Kernel,
    pub launch: Launch,
}

/// Enqueues `steps` one behind the other on the in-order queue, without waiting in between,
/// and waits for the last. Returns the device time from the first step's start to the last
/// one's end (the multiplication as the device saw it, the gaps between kernels included, as
/// a library of several kernels pays them on each call) and the wall-clock time from the
/// first enqueue to the end, both in ms: the one is checked against the other as for a single
/// launch ([`launch_timed`]).
// ANCHOR: launch_steps
pub fn launch_steps(gpu: &Gpu, steps: &[Step]) -> Result<(f64, f64)> {
    if steps.is_empty() {
        bail!("a multiplication of no kernels at all");
    }
    // Every launch is checked before any is enqueued: a bad work-group in the last step is a
    // sentence, not a half-run multiplication.
    for s in steps {
        s.launch.validate(&gpu.info)?;
    }
    let started = Instant::now();
    let mut events = Vec::with_capacity(steps.len());
    for s in steps {
        events.push(enqueue(gpu, s.kernel, &s.launch)?);
    }
    let last = events.last().expect("one event per step");
    last.wait().context(
        "a kernel failed while running (on many drivers this is how a write far outside a buffer shows)",
    )?;
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    let start = events[0]
        .profiling_command_start()
        .context("reading the first kernel's profiling start")?;
    let end = last
        .profiling_command_end()
        .context("reading the last kernel's profiling end")?;
    Ok((end.saturating_sub(start) as f64 * 1e-6, wall_ms))
}
// ANCHOR_END: launch_steps

/// Runs the steps of one multiplication on a problem, guarded as a single kernel is: fresh A
/// and B with their NaN zones, C poisoned inside its guard zone, then `set` gives the kernels
/// that take them A, B and C (the steps' own buffers are the caller's, set beforehand), the
/// steps run and are timed by [`launch_steps`], C is read back and checked as
/// [`run_guarded`] checks it: the guard, whether NaN in C was read, whether A or B changed.
// ANCHOR: run_steps
pub fn run_steps(
    gpu: &Gpu,
    p: &Problem,
    steps: &[Step],
    set: impl Fn(&Buffer<f32>, &Buffer<f32>, &Buffer<f32>) -> Result<()>,
) -> Result<RunOutput> {
    let started = Instant::now();
    let a = input_buffer(gpu, &p.a, 0)?;
    let b = input_buffer(gpu, &p.b, 0)?;
    let c = GuardedC::new(gpu, &p.poison, 0)?;
    set(&a, &b, &c.c)?;
    settle(gpu, &[a.get(), b.get(), c.whole.get()])?;
    let key = lead::Key {
        floats: [p.a.len(), p.b.len(), c.len],
        global: steps.first().map_or([0, 0], |s| s.launch.global),
    };
    let lead_in = || {
        steps
            .iter()
            .try_for_each(|s| enqueue(gpu, s.kernel, &s.launch).map(drop))
    };
    if lead::before(&gpu.lead, key, &set, lead_in)? {
        set(&a, &b, &c.c)?;
    }
    let (kernel_ms, wall_ms) = launch_steps(gpu, steps)?;
    let (out, guard) = c.read(gpu)?;
    let host_ms = started.elapsed().as_secs_f64() * 1e3;
    let nan_from_reads = nan_from_reads(&out, &p.poison, |fill| {
        let again = GuardedC::new(gpu, fill, 0)?;
        set(&a, &b, &again.c)?;
        launch_steps(gpu, steps)?;
        Ok(again.unkept(again.whole_back(gpu)?).0)
    })?;
    let a_changed = first_change(gpu, &a, &p.a)?;
    let b_changed = first_change(gpu, &b, &p.b)?;
    lead::keep(&gpu.lead, key, a, b, c.c);
    Ok(RunOutput {
        c: out,
        guard,
        a_changed,
        b_changed,
        kernel_ms,
        nan_from_reads,
        wall_ms,
        host_ms,
        found: None,
        technique: None,
    })
}
// ANCHOR_END: run_steps

/// Runs a kernel with the standard arguments on one problem, guarded.
// ANCHOR: run_guarded
pub fn run_guarded(gpu: &Gpu, kernel: &Kernel, p: &Problem, l: &Launch) -> Result<RunOutput> {
    let step = [Step { kernel, launch: *l }];
    run_steps(gpu, p, &step, |a, b, c| {
        set_standard_args(kernel, p.shape, a, b, c)
    })
}
// ANCHOR_END: run_guarded

/// The shape a kernel that copies rows `to` floats at a time is launched at: K and N (the
/// row lengths of A, and of B and C) rounded up to multiples of `to`; M as it is.
pub fn padded_shape(s: Shape, to: usize) -> Shape {
    Shape::new(s.m, s.n.div_ceil(to) * to, s.k.div_ceil(to) * to)
}

/// `data`, rows of `cols` floats, with every row lengthened by zeros to `to` floats.
fn pad_rows(data: &[f32], cols: usize, to: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(data.len().checked_div(cols).unwrap_or(0) * to);
    for row in data.chunks(cols.max(1)) {
        out.extend_from_slice(row);
        out.resize(out.len() + to - row.len(), 0.0);
    }
    out
}

/// The poison of a C whose rows are `n` floats, for a C whose rows are `to` floats: each
/// row's padding holds what its last element holds.
fn pad_poison(before: &Poison, n: usize, to: usize) -> Poison {
    let rows = before.len().checked_div(n).unwrap_or(0);
    let mut values = Vec::with_capacity(rows * to);
    for r in 0..rows {
        values.extend((0..to).map(|c| before.at(r * n + c.min(n - 1))));
    }
    Poison::from_values(before.kind, values)
}

// ANCHOR: run_padded
/// [`run_guarded`] for a kernel that copies whole groups of `to` floats (lesson 11's 16-byte
/// copies), with K split into `parts`: where K or N is not a multiple of `to`, the device makes
/// zero-padded copies of A (rows of K floats lengthened to a multiple of `to`) and of B (rows of
/// N lengthened, and zero rows added up to the padded K), the kernel runs on them at the padded
/// shape into a C with padded rows, and C's rows are copied back out to N floats (where N is a
/// multiple already, the kernel writes C itself). With `parts`
/// above 1, A's copy is cut into `parts` slices of its columns laid one under the other, the
/// kernel's grid holds `parts` problems of M × N × K/`parts` one under the other (row blocks
/// `l.global[1]` per problem; the kernel offsets A, B and C by its part), and the copy back sums
/// the parts' C: a problem too small to fill the device fills it. The device time is the sum
/// of the steps' (the copies in, the kernel, the copy back), as a library that pads pays for
/// them on each call. The checks are those of [`run_guarded`], on the buffers the kernel sees:
/// the guard after the padded C, the NaN behind the padded A and B, and whether it wrote to
/// either. Where K and N are multiples already and K is not split, this is [`run_guarded`].
pub fn run_padded(
    gpu: &Gpu,
    kernel: &Kernel,
    p: &Problem,
    l: &Launch,
    to: usize,
    parts: usize,
) -> Result<RunOutput> {
    padded(gpu, kernel, p, l, to, parts, false)
}

/// [`run_padded`] for a kernel that is told the problem's own M, N and K, reads the copies of
/// A and B at their padded row lengths (K and N rounded up to multiples of `to`) and writes C
/// where it lies, each element guarded: no copy of C comes back (lesson 11's warp group).
pub fn run_padded_inputs(
    gpu: &Gpu,
    kernel: &Kernel,
    p: &Problem,
    l: &Launch,
    to: usize,
) -> Result<RunOutput> {
    padded(gpu, kernel, p, l, to, 1, true)
}

fn padded(
    gpu: &Gpu,
    kernel: &Kernel,
    p: &Problem,
    l: &Launch,
    to: usize,
    parts: usize,
    c_in_place: bool,
) -> Result<RunOutput> {
    let s = p.shape;
    let pad = padded_shape(s, to);
    let parts = parts.max(1);
    if (pad == s && parts == 1) || s.m * s.n * s.k == 0 {
        return run_guarded(gpu, kernel, p, l);
    }
    // Each part's K, a multiple of `to`; the last part may end in zeros.
    let ks = s.k.div_ceil(parts).div_ceil(to) * to;
    // The shape the kernel is told, and the length of the rows of the C it writes.
    let (kernel_shape, c_cols) = match c_in_place {
        true => (s, s.n),
        false => (Shape::new(s.m, pad.n, ks), pad.n),
    };
    let split = Launch {
        global: [l.global[0], l.global[1] * parts],
        local: l.local,
    };
    let started = Instant::now();
    let a = input_buffer(gpu, &p.a, 0)?;
    let b = input_buffer(gpu, &p.b, 0)?;
    // What the kernel reads: A and B themselves where they already have its shape, else the
    // copies, each with the NaN zone behind it that input_buffer puts behind A and B; the
    // copies below write every element of them.
    let copy_a = parts > 1 || ks != s.k;
    let copy_b = parts * ks != s.k || pad.n != s.n;
    let ap = match copy_a {
        true => Some(input_buffer(gpu, &vec![0.0; parts * s.m * ks], 0)?),
        false => None,
    };
    let bp = match copy_b {
        true => Some(input_buffer(gpu, &vec![0.0; parts * ks * pad.n], 0)?),
        false => None,
    };
    let poison = parts_poison(&p.poison, s.n, c_cols, parts);
    let cp = GuardedC::new(gpu, &poison, 0)?;
    // Where C's rows are not lengthened and K is not split, the kernel writes C itself;
    // else into a C of its own shape, summed and copied out into C.
    let direct = c_cols == s.n && parts == 1;
    let c = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE,
            if direct { 1 } else { (s.m * s.n).max(1) },
            ptr::null_mut(),
        )
    }
    .context("allocating C")?;
    let (ka, kb) = (ap.as_ref().unwrap_or(&a), bp.as_ref().unwrap_or(&b));
    set_standard_args(kernel, kernel_shape, ka, kb, &cp.c)?;
    let mut held = vec![a.get(), b.get(), cp.whole.get(), c.get()];
    held.extend(ap.iter().chain(bp.iter()).map(|x| x.get()));
    settle(gpu, &held)?;
    let key = lead::Key {
        floats: [parts * s.m * ks, parts * ks * pad.n, parts * s.m * c_cols],
        global: split.global,
    };
    let set = |a: &Buffer<f32>, b: &Buffer<f32>, c: &Buffer<f32>| {
        set_standard_args(kernel, kernel_shape, a, b, c)
    };
    // The lead-in is the product alone, on the last call's copies: the copies of this call
    // must not run before the timed steps start.
    if lead::before(&gpu.lead, key, set, || {
        enqueue(gpu, kernel, &split).map(drop)
    })? {
        set(ka, kb, &cp.c)?;
    }

    // Every step is enqueued behind the one before on the in-order queue, and the time is the
    // sum of the steps' device times: the device's work, as the kernel's own time is, without
    // the gaps where it waited for the host's next enqueue (on an H200, 7 to 10 µs between
    // steps at 1023³, where the product takes 57 µs; research/padded-11/). The copies are a
    // kernel of the host's (`pad`): OpenCL's rectangle copies and fills took 0.08 ms at 1023³.
    let steps = Instant::now();
    let rows = |rows, cols, from, into, out_rows| pad::Rows {
        rows,
        cols,
        from,
        into,
        out_rows,
    };
    // A's and B's copies in one launch.
    let mut copies = Vec::new();
    if let Some(ap) = &ap {
        copies.push(pad::Copy {
            src: &a,
            dst: ap,
            rows: rows(s.m, s.k, s.k, ks, parts * s.m),
            part_cols: if parts > 1 { ks } else { 0 },
        });
    }
    if let Some(bp) = &bp {
        copies.push(pad::Copy {
            src: &b,
            dst: bp,
            rows: rows(s.k, s.n, s.n, pad.n, parts * ks),
            part_cols: 0,
        });
    }
    let mut events = Vec::new();
    if !copies.is_empty() {
        events.push(pad::enqueue_copies(gpu, &copies)?);
    }
    events.push(enqueue(gpu, kernel, &split)?);
    let sum = pad::Sum {
        rows: s.m,
        cols: s.n,
        from: c_cols,
        parts,
        part: s.m * c_cols,
    };
    if !direct {
        events.push(pad::enqueue_sum(gpu, &cp.c, &c, sum)?);
    }
    events[events.len() - 1].wait().context(
        "the kernel or the copies around it failed while running (on many drivers this is how a write far outside a buffer shows)",
    )?;
    let mut ms = 0.0;
    for e in &events {
        ms += event_ms(e)?;
    }
    let wall_ms = steps.elapsed().as_secs_f64() * 1e3;

    let (out, guard) = match direct {
        true => cp.unkept(cp.whole_back(gpu)?),
        false => {
            let mut out = vec![0.0f32; s.m * s.n];
            unsafe {
                gpu.queue
                    .enqueue_read_buffer(&c, CL_BLOCKING, 0, &mut out, &[])
                    .context("reading C back")?;
            }
            (out, cp.unkept(cp.whole_back(gpu)?).1)
        }
    };
    let host_ms = started.elapsed().as_secs_f64() * 1e3;
    poison::remember(&out);
    let nan_from_reads = nan_from_reads(&out, &p.poison, |fill| {
        let again = GuardedC::new(gpu, &parts_poison(fill, s.n, c_cols, parts), 0)?;
        set_standard_args(kernel, kernel_shape, ka, kb, &again.c)?;
        launch(gpu, kernel, &split)?;
        Ok(sum_parts(&again.unkept(again.whole_back(gpu)?).0, sum))
    })?;
    // A's copy holds the slices of its rows, part after part; B's its rows lengthened, then
    // zero rows up to the parts' K. Where there is no copy, the kernel read A or B itself.
    let a_changed = match &ap {
        Some(ap) => first_change(gpu, ap, &slices(&p.a, s.m, s.k, parts, ks))?,
        None => first_change(gpu, &a, &p.a)?,
    };
    let b_changed = match &bp {
        Some(bp) => {
            let mut seen = pad_rows(&p.b, s.n, pad.n);
            seen.resize(parts * ks * pad.n, 0.0);
            first_change(gpu, bp, &seen)?
        }
        None => first_change(gpu, &b, &p.b)?,
    };
    lead::keep(&gpu.lead, key, ap.unwrap_or(a), bp.unwrap_or(b), cp.c);
    Ok(RunOutput {
        c: out,
        guard,
        a_changed,
        b_changed,
        kernel_ms: ms,
        nan_from_reads,
        wall_ms,
        host_ms,
        found: None,
        technique: None,
    })
}

/// The poison of C for the kernel of [`run_padded`]: `parts` copies of C's, each row of `n`
/// floats lengthened to `to` (the padding holds what the row's last element holds).
fn parts_poison(before: &Poison, n: usize, to: usize, parts: usize) -> Poison {
    let one = pad_poison(before, n, to);
    let values = (0..parts * one.len()).map(|i| one.at(i % one.len().max(1)));
    Poison::from_values(before.kind, values.collect())
}

/// `a` (`m` rows of `k` floats) cut into `parts` slices of `ks` columns laid one under the
/// other, zeros past the end of each row.
fn slices(a: &[f32], m: usize, k: usize, parts: usize, ks: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(parts * m * ks);
    for z in 0..parts {
        for row in a.chunks(k.max(1)).take(m) {
            let from = (z * ks).min(k);
            let to = ((z + 1) * ks).min(k);
            out.extend_from_slice(&row[from..to]);
            out.resize(out.len() + ks - (to - from), 0.0);
        }
    }
    out
}

/// What `pad::enqueue_sum` makes of `data`, on the host.
fn sum_parts(data: &[f32], s: pad::Sum) -> Vec<f32> {
    let mut out = vec![0.0f32; s.rows * s.cols];
    for r in 0..s.rows {
        for c in 0..s.cols {
            let mut x = data[r * s.from + c];
            for z in 1..s.parts {
                x += data[z * s.part + r * s.from + c];
            }
            out[r * s.cols + c] = x;
        }
    }
    out
}
// ANCHOR_END: run_padded

/// Runs a kernel with the standard arguments on buffers of exactly the matrices' sizes, C
/// uninitialised: for the simulator, which reports any access past an allocation's end
/// (the guard zones of [`run_guarded`] would hide a write just past C).
pub fn run_exact(gpu: &Gpu, kernel: &Kernel, p: &Problem, l: &Launch) -> Result<RunOutput> {
    run_exact_as(gpu, kernel, p.shape, &p.a, &p.b, l)
}

/// [`run_exact`] with A and B laid out as the kernel expects them (lesson 09's A with padded
/// rows, its B's pixels behind their width and height).
pub fn run_exact_as(
    gpu: &Gpu,
    kernel: &Kernel,
    shape: Shape,
    a: &[f32],
    b: &[f32],
    l: &Launch,
) -> Result<RunOutput> {
    let a = exact_input(gpu, a, "A")?;
    let b = exact_input(gpu, b, "B")?;
    let step = [Step { kernel, launch: *l }];
    steps_exact(gpu, shape, &a, &b, &step, |a, b, c| {
        set_standard_args(kernel, shape, a, b, c)
    })
}

/// [`run_steps`] for the simulator, as [`run_exact`] is [`run_guarded`]: A and B in buffers of
/// exactly their sizes, C of exactly its size and not initialised.
pub fn run_steps_exact(
    gpu: &Gpu,
    p: &Problem,
    steps: &[Step],
    set: impl Fn(&Buffer<f32>, &Buffer<f32>, &Buffer<f32>) -> Result<()>,
) -> Result<RunOutput> {
    let a = exact_input(gpu, &p.a, "A")?;
    let b = exact_input(gpu, &p.b, "B")?;
    steps_exact(gpu, p.shape, &a, &b, steps, set)
}

/// A buffer holding exactly `data` (one NaN where it is empty), readable and writable.
fn exact_input(gpu: &Gpu, data: &[f32], what: &str) -> Result<Buffer<f32>> {
    let mut buffer =
        device_buffer(gpu, data.len().max(1), 0).with_context(|| format!("allocating {what}"))?;
    match data.is_empty() {
        true => fill(gpu, &mut buffer, 0..1, f32::NAN),
        false => write(gpu, &mut buffer, 0, data),
    }
    .with_context(|| format!("filling {what}"))?;
    Ok(buffer)
}

/// The steps on A and B as given, into a C of exactly M·N floats left uninitialised.
fn steps_exact(
    gpu: &Gpu,
    shape: Shape,
    a: &Buffer<f32>,
    b: &Buffer<f32>,
    steps: &[Step],
    set: impl Fn(&Buffer<f32>, &Buffer<f32>, &Buffer<f32>) -> Result<()>,
) -> Result<RunOutput> {
    // C is left uninitialised: the simulator then reports a kernel that reads C before
    // writing it (one that skips work when C already holds numbers, or adds into C without
    // clearing it), wherever the value read goes.
    let c = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE,
            (shape.m * shape.n).max(1),
            ptr::null_mut(),
        )
    }
    .context("allocating C")?;
    set(a, b, &c)?;
    let kernel_ms = launch_steps(gpu, steps)?.0;
    let mut out = vec![0.0f32; (shape.m * shape.n).max(1)];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(&c, CL_BLOCKING, 0, &mut out, &[])
            .context("reading C back")?;
    }
    out.truncate(shape.m * shape.n);
    Ok(RunOutput::plain(out, kernel_ms))
}

/// Median of a list of numbers.
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    let n = xs.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
mod tests;
