//! The host's zero-padding copies, made on the device: a matrix copied into one whose rows are
//! longer (and which may have more rows), zeros in what it adds; or back, keeping the first
//! columns of each row. One small kernel, built once per device, for every lesson whose host
//! pads (lesson 11). It is no lesson's kernel: a student never edits it.

use anyhow::{Context as _, Result};
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::cl_int;

use crate::harness::device::Gpu;

/// `dst` (`out_rows` rows of `into` floats) from `src` (`rows` rows of `cols` floats, `from`
/// apart): zeros past `cols` and below `rows`. One work-group per row, walking it a group's
/// width at a time: measured on an H200, a work-item per float ran at 0.75 TB/s, a fifth of
/// the memory's speed (research/padded-11/). Indices in `size_t`: a matrix may hold more than
/// 2^31 floats.
const SOURCE: &str = r#"
__kernel void copy_rows(const int rows, const int cols, const int from, const int into,
                        const int out_rows, __global const float* src, __global float* dst) {
    const size_t r = get_global_id(1);
    const size_t width = get_local_size(0);
    __global float* out = dst + r * into;
    if (r < (size_t)rows) {
        __global const float* in = src + r * from;
        for (size_t c = get_local_id(0); c < (size_t)into; c += width) {
            out[c] = c < (size_t)cols ? in[c] : 0.0f;
        }
    } else {
        for (size_t c = get_local_id(0); c < (size_t)into; c += width) {
            out[c] = 0.0f;
        }
    }
}
"#;

/// Builds the copying kernel.
fn build(gpu: &Gpu) -> Result<Kernel, String> {
    let program = crate::harness::program::build_source(
        gpu,
        std::path::Path::new("the host's padding copies"),
        SOURCE,
        &[],
        "",
    )
    .map_err(|e| format!("{e:#}"))?;
    Kernel::create(&program, "copy_rows").map_err(|e| format!("OpenCL error {e}"))
}

/// The size of a copy: `rows` rows of `cols` floats read, `from` apart; `out_rows` rows of
/// `into` floats written.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    pub rows: usize,
    pub cols: usize,
    pub from: usize,
    pub into: usize,
    pub out_rows: usize,
}

/// Enqueues one copy behind whatever the queue holds, without waiting.
pub fn enqueue(gpu: &Gpu, src: &Buffer<f32>, dst: &Buffer<f32>, r: Rows) -> Result<Event> {
    let mut built = gpu
        .copies
        .lock()
        .map_err(|_| anyhow::anyhow!("the padding copies' lock was poisoned"))?;
    let k = built
        .get_or_insert_with(|| build(gpu))
        .as_ref()
        .map_err(|e| anyhow::anyhow!("building the padding copies: {e}"))?;
    let ints = [r.rows, r.cols, r.from, r.into, r.out_rows];
    unsafe {
        for (i, v) in ints.iter().enumerate() {
            let v = cl_int::try_from(*v).context("a padded matrix wider or taller than 2^31")?;
            k.set_arg(i as u32, &v)
                .context("setting a padding copy's sizes")?;
        }
        k.set_arg(5, &src.get())
            .context("setting a padding copy's source")?;
        k.set_arg(6, &dst.get())
            .context("setting a padding copy's destination")?;
    }
    // A work-group as wide as the device allows, up to 256, over every row: within the
    // device's limits by construction.
    let width = gpu
        .info
        .max_work_group
        .min(gpu.info.max_work_item_sizes.first().copied().unwrap_or(1))
        .clamp(1, 256);
    let global = [width, r.out_rows.max(1)];
    let local = [width, 1];
    unsafe {
        gpu.queue.enqueue_nd_range_kernel(
            k.get(),
            2,
            std::ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            &[],
        )
    }
    .context("enqueueing a padding copy")
}
