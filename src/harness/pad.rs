//! The host's zero-padding copies, made on the device: a matrix copied into one whose rows are
//! longer (and which may have more rows), zeros in what it adds, or cut into parts of its
//! columns laid one under the other; or back, keeping the first columns of each row, summing
//! the parts. Two small kernels, built once per device, for every lesson whose host pads or
//! splits K (lesson 11). They are no lesson's kernel: a student never edits them.

use anyhow::{Context as _, Result};
use opencl3::event::Event;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::cl_int;

use crate::harness::device::Gpu;

/// `copy_rows`: `dst` (`out_rows` rows of `into` floats) from `src` (`rows` rows of `cols`
/// floats, `from` apart), zeros past `cols` and below `rows`; the output's rows come in parts of
/// `part_rows`, part z holding the source's columns from z·`part_cols` on (one part where
/// `part_cols` is 0). `sum_parts`: `dst` (`rows` rows of `cols` floats) as the sum of `parts`
/// matrices lying `part` floats apart in `src`, rows `from` apart, in the parts' order. Each
/// work-item moves four floats of a row, with a 16-byte access where the rows allow one:
/// measured on an H200, a work-item per float ran at 0.75 TB/s, a fifth of the memory's speed,
/// and a work-group walking a row a float per work-item at a time about twice that
/// (research/padded-11/). Indices in `size_t`: a matrix may hold more than 2^31 floats.
const SOURCE: &str = r#"
// Four floats per work-item: one 16-byte store where the output's rows are whole quads, four
// scalar reads (the source's rows start anywhere), no loop. Up to two copies in one launch
// (the third index says which), so that padding A and B pays one launch's fixed cost: each
// copy's sizes are rows, cols, from, into, out_rows, part_rows, part_cols.
__kernel void copy_rows(const int8 first, const int8 second,
                        __global const float* src0, __global float* dst0,
                        __global const float* src1, __global float* dst1) {
    const bool one = get_global_id(2) == 1;
    const int8 n = one ? second : first;
    const int rows = n.s0, cols = n.s1, from = n.s2, into = n.s3, out_rows = n.s4;
    const int part_rows = n.s5, part_cols = n.s6;
    __global const float* src = one ? src1 : src0;
    __global float* dst = one ? dst1 : dst0;
    const size_t c = 4 * get_global_id(0);
    const size_t r = get_global_id(1);
    if (c >= (size_t)into || r >= (size_t)out_rows) return;
    const size_t z = r / (size_t)part_rows, i = r % (size_t)part_rows;
    const long left = (long)cols - (long)z * part_cols;
    const size_t have = i >= (size_t)rows || left < 0
        ? 0 : (left < part_cols || part_cols == 0 ? left : part_cols);
    __global const float* in = src + i * from + z * part_cols;
    float4 v = (float4)(0.0f);
    if (c + 3 < have) {
        v = (float4)(in[c], in[c + 1], in[c + 2], in[c + 3]);
    } else if (c < have) {
        v.x = in[c];
        if (c + 1 < have) v.y = in[c + 1];
        if (c + 2 < have) v.z = in[c + 2];
    }
    __global float* out = dst + r * into;
    if ((into & 3) == 0) {
        vstore4(v, 0, out + c);
    } else {
        out[c] = v.x;
        if (c + 1 < (size_t)into) out[c + 1] = v.y;
        if (c + 2 < (size_t)into) out[c + 2] = v.z;
        if (c + 3 < (size_t)into) out[c + 3] = v.w;
    }
}

// Four floats per work-item: 16-byte reads of the parts where their rows are whole quads, the
// parts added in order, element by element as the host's check does.
__kernel void sum_parts(const int rows, const int cols, const int from, const int parts,
                        const long part, __global const float* src, __global float* dst) {
    const size_t c = 4 * get_global_id(0);
    const size_t r = get_global_id(1);
    if (r >= (size_t)rows || c >= (size_t)cols) return;
    const bool quads = (from & 3) == 0 && (part & 3) == 0;
    __global const float* in = src + r * from + c;
    float4 s;
    if (quads) {
        s = vload4(0, in);
        for (int z = 1; z < parts; z++) s += vload4(0, in + z * part);
    } else {
        const size_t n = min((size_t)4, (size_t)from - c);
        s = (float4)(in[0], n > 1 ? in[1] : 0.0f, n > 2 ? in[2] : 0.0f, n > 3 ? in[3] : 0.0f);
        for (int z = 1; z < parts; z++) {
            __global const float* p = in + z * part;
            s += (float4)(p[0], n > 1 ? p[1] : 0.0f, n > 2 ? p[2] : 0.0f, n > 3 ? p[3] : 0.0f);
        }
    }
    __global float* out = dst + r * cols;
    if ((cols & 3) == 0) {
        vstore4(s, 0, out + c);
    } else {
        out[c] = s.x;
        if (c + 1 < (size_t)cols) out[c + 1] = s.y;
        if (c + 2 < (size_t)cols) out[c + 2] = s.z;
        if (c + 3 < (size_t)cols) out[c + 3] = s.w;
    }
}
"#;

/// Builds the two kernels, `copy_rows` then `sum_parts`.
fn build(gpu: &Gpu) -> Result<Vec<Kernel>, String> {
    let program = crate::harness::program::build_source(
        gpu,
        std::path::Path::new("the host's padding copies"),
        SOURCE,
        &[],
        "",
    )
    .map_err(|e| format!("{e:#}"))?;
    ["copy_rows", "sum_parts"]
        .iter()
        .map(|name| Kernel::create(&program, name).map_err(|e| format!("OpenCL error {e}")))
        .collect()
}

/// The size of a copy: `rows` rows of `cols` floats read, `from` apart; `out_rows` rows of
/// `into` floats written. [`Copy`] may cut the columns into parts.
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    pub rows: usize,
    pub cols: usize,
    pub from: usize,
    pub into: usize,
    pub out_rows: usize,
}

/// One matrix of `rows` × `cols` out of parts `part` floats apart, rows `from` apart.
#[derive(Clone, Copy, Debug)]
pub struct Sum {
    pub rows: usize,
    pub cols: usize,
    pub from: usize,
    pub parts: usize,
    pub part: usize,
}

/// One copy: `src` into `dst` at the sizes `rows`; with `part_cols` above 0, the output's rows
/// come in parts of `rows.rows` rows, part z holding the source's columns from z·`part_cols`
/// on, `rows.into` of them (zeros past the source's end): the source's columns cut into slices
/// laid one under the other.
#[derive(Clone, Copy)]
pub struct Copy<'a> {
    pub src: &'a Buffer<f32>,
    pub dst: &'a Buffer<f32>,
    pub rows: Rows,
    pub part_cols: usize,
}

/// Enqueues one or two copies as one launch behind whatever the queue holds, without waiting:
/// on an H200 each launch of a copy cost several microseconds besides its bytes, a large part
/// of a small problem's time (research/padded-inputs-11/).
pub fn enqueue_copies(gpu: &Gpu, copies: &[Copy]) -> Result<Event> {
    anyhow::ensure!(
        matches!(copies.len(), 1 | 2),
        "one launch makes one or two padding copies, not {}",
        copies.len()
    );
    let sizes = |c: &Copy| -> Result<[cl_int; 8]> {
        let r = c.rows;
        let part_rows = match c.part_cols {
            0 => r.out_rows.max(1),
            _ => r.rows.max(1),
        };
        let mut out = [0; 8];
        for (o, v) in out.iter_mut().zip([
            r.rows,
            r.cols,
            r.from,
            r.into,
            r.out_rows,
            part_rows,
            c.part_cols,
        ]) {
            *o = cl_int::try_from(v).context("a padded matrix wider or taller than 2^31")?;
        }
        Ok(out)
    };
    let (first, second) = (&copies[0], &copies[copies.len() - 1]);
    let quads = copies
        .iter()
        .map(|c| c.rows.into.div_ceil(4))
        .max()
        .unwrap_or(0);
    let rows = copies.iter().map(|c| c.rows.out_rows).max().unwrap_or(0);
    with_kernel(gpu, 0, [quads, rows, copies.len()], |k| unsafe {
        k.set_arg(0, &sizes(first)?)
            .context("setting a padding copy's sizes")?;
        k.set_arg(1, &sizes(second)?)
            .context("setting a padding copy's sizes")?;
        for (i, c) in [first, second].iter().enumerate() {
            let i = 2 + 2 * i as u32;
            k.set_arg(i, &c.src.get())
                .context("setting a padding copy's source")?;
            k.set_arg(i + 1, &c.dst.get())
                .context("setting a padding copy's destination")?;
        }
        Ok(())
    })
}

/// Enqueues the sum of the parts behind whatever the queue holds, without waiting.
pub fn enqueue_sum(gpu: &Gpu, src: &Buffer<f32>, dst: &Buffer<f32>, s: Sum) -> Result<Event> {
    with_kernel(gpu, 1, [s.cols.div_ceil(4), s.rows, 1], |k| unsafe {
        for (i, v) in [s.rows, s.cols, s.from, s.parts].iter().enumerate() {
            let v = cl_int::try_from(*v).context("a matrix wider or taller than 2^31")?;
            k.set_arg(i as u32, &v).context("setting a sum's sizes")?;
        }
        let part = i64::try_from(s.part).context("a part of more than 2^63 floats")?;
        k.set_arg(4, &part).context("setting a sum's part size")?;
        k.set_arg(5, &src.get()).context("setting a sum's source")?;
        k.set_arg(6, &dst.get())
            .context("setting a sum's destination")?;
        Ok(())
    })
}

/// Sets kernel `which`'s arguments by `set` and enqueues it over `quads` groups of four
/// columns, `rows` rows and `count` matrices, under the lock.
fn with_kernel(
    gpu: &Gpu,
    which: usize,
    [quads, rows, count]: [usize; 3],
    set: impl FnOnce(&Kernel) -> Result<()>,
) -> Result<Event> {
    let mut built = gpu
        .copies
        .lock()
        .map_err(|_| anyhow::anyhow!("the padding copies' lock was poisoned"))?;
    let kernels = built
        .get_or_insert_with(|| build(gpu))
        .as_ref()
        .map_err(|e| anyhow::anyhow!("building the padding copies: {e}"))?;
    let k = &kernels[which];
    set(k)?;
    let (global, local) = grid(gpu, quads, rows);
    let global = [global[0], global[1], count.max(1)];
    let local = [local[0], local[1], 1];
    unsafe {
        gpu.queue.enqueue_nd_range_kernel(
            k.get(),
            3,
            std::ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            &[],
        )
    }
    .context("enqueueing a padding copy")
}

/// Work-groups of up to 256 work-items (the device's limits by construction): as wide as a
/// row's quads need, up to all of them, and as many rows as fill the rest, so that short rows
/// (a small K) do not leave most of a group idle. The kernels skip what lies past the edges.
fn grid(gpu: &Gpu, quads: usize, rows: usize) -> ([usize; 2], [usize; 2]) {
    let sizes = &gpu.info.max_work_item_sizes;
    let width = gpu
        .info
        .max_work_group
        .min(sizes.first().copied().unwrap_or(1))
        .clamp(1, 256);
    let wx = quads.max(1).next_power_of_two().min(width);
    let wy = (width / wx).min(sizes.get(1).copied().unwrap_or(1)).max(1);
    let global = [
        quads.max(1).div_ceil(wx) * wx,
        rows.max(1).div_ceil(wy) * wy,
    ];
    (global, [wx, wy])
}
