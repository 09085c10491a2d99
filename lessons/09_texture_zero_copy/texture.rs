//! Lesson 09's host side: B as an RGBA/float image, A and C as buffers, and two ways to move
//! them: zero copy (memory allocated with `CL_MEM_ALLOC_HOST_PTR`, filled and read through
//! map/unmap) and plain copies (enqueued writes and reads), for comparison.
//!
//! Every host-side enqueue goes through a [`Recorder`], which keeps a log of the operations
//! and refuses to launch the kernel while a memory object is still mapped for the host.

use std::ptr;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use opencl3::kernel::Kernel;
use opencl3::memory::{
    Buffer, ClMem, Image, CL_FLOAT, CL_MAP_READ, CL_MAP_WRITE_INVALIDATE_REGION,
    CL_MEM_ALLOC_HOST_PTR, CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_WRITE, CL_RGBA,
};
use opencl3::types::{
    cl_image_desc, cl_image_format, cl_map_flags, cl_mem, cl_mem_flags, CL_BLOCKING,
};

use lab::grade::verify;
use lab::harness::device::{DeviceInfo, Gpu};
use lab::harness::exec::{self, GuardedC, Launch, RunOutput, Timing};
use lab::harness::matrix::{Problem, Shape};
use lab::harness::program::Define;
use lab::harness::timing;
use lab::lesson::{define, require_multiple, round_up};

/// Refuses a device that cannot hold B as an image, or an image of this width.
pub fn check_device(info: &DeviceInfo, shape: Option<Shape>) -> Result<()> {
    if !info.image_support {
        bail!(
            "this device cannot run lesson 09 because it has no image support (CL_DEVICE_IMAGE_SUPPORT is false on {}): the lesson reads B through read_imagef. Choose another device with --device.",
            info.name
        );
    }
    if let Some(s) = shape {
        let pixels = s.n.div_ceil(4);
        if info.image2d_max_width > 0 && pixels.max(s.k) > info.image2d_max_width {
            bail!(
                "this device cannot run lesson 09 at {s} because B would be an image of {pixels}×{} pixels, and {} allows at most {} pixels per side",
                s.k,
                info.name,
                info.image2d_max_width
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The kernel's shape on a device

/// Work-group shapes (WGX × WGY), in order of preference: wide along N, so that the
/// work-items of one warp or wave read neighbouring pixels of a row of B.
pub const GROUPS: [(usize, usize); 7] =
    [(32, 8), (16, 16), (16, 8), (8, 8), (8, 4), (4, 4), (1, 1)];

/// Columns of A per local tile.
pub const KT: usize = 16;

/// Whether a macro-tile of WGX×WGY work-items, RM rows each, fits the device.
pub fn fits(info: &DeviceInfo, wgx: usize, wgy: usize, rm: usize) -> bool {
    let sizes = &info.max_work_item_sizes;
    wgx * wgy <= info.max_work_group
        && sizes.first().is_none_or(|&s| wgx <= s)
        && sizes.get(1).is_none_or(|&s| wgy <= s)
        && (wgy * rm * KT * 4) as u64 <= info.local_mem_bytes
}

fn shape_defines(wgx: usize, wgy: usize, rm: usize) -> Vec<Define> {
    vec![
        Define::new("WGX", wgx),
        Define::new("WGY", wgy),
        Define::new("RM", rm),
        Define::new("RN", 1),
        Define::new("KT", KT),
        Define::new("A_LOCAL", 1),
    ]
}

/// The lesson's defines for a device: the first work-group shape of [`GROUPS`] that fits,
/// 16 rows per work-item on GPUs with room for 256-item groups (half the texture reads per
/// multiply-add of 8 rows), else the Adreno blog's 8.
pub fn default_defines(info: &DeviceInfo) -> Vec<Define> {
    let rm = if info.is_gpu() && info.max_work_group >= 256 {
        16
    } else {
        8
    };
    let (wgx, wgy) = GROUPS
        .iter()
        .copied()
        .find(|&(x, y)| fits(info, x, y, rm))
        .unwrap_or((1, 1));
    shape_defines(wgx, wgy, rm)
}

/// The small search of `--search`: every work-group shape of [`GROUPS`] with 8 or 16 rows
/// per work-item that fits the device.
pub fn candidates(info: &DeviceInfo) -> Vec<Vec<Define>> {
    let mut out = Vec::new();
    for rm in [8, 16] {
        for &(x, y) in &GROUPS[..5] {
            if fits(info, x, y, rm) {
                out.push(shape_defines(x, y, rm));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// How the host moves the matrices

/// Zero copy (map/unmap of host-visible memory) or explicit copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    ZeroCopy,
    Copy,
}

impl Transfer {
    pub fn name(self) -> &'static str {
        match self {
            Transfer::ZeroCopy => "zero-copy",
            Transfer::Copy => "copy",
        }
    }
}

impl std::str::FromStr for Transfer {
    type Err = String;
    fn from_str(s: &str) -> Result<Transfer, String> {
        match s {
            "zero-copy" => Ok(Transfer::ZeroCopy),
            "copy" => Ok(Transfer::Copy),
            _ => Err(format!("`{s}` is not a path: use zero-copy or copy")),
        }
    }
}

/// How B's rows are laid into the image's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowPitch {
    /// Each row starts at a multiple of the row pitch the driver returns (or is given).
    Honour,
    /// B copied as one block of K·N floats, as if the image were a plain array: right only
    /// when the driver's row pitch happens to be exactly N floats.
    Ignore,
}

/// When the kernel is launched relative to the unmaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Unmap every input, then launch.
    UnmapFirst,
    /// Launch while B is still mapped for the host (refused by the [`Recorder`]).
    LaunchWhileMapped,
}

/// One way of setting up the host side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    pub transfer: Transfer,
    pub pitch: RowPitch,
    pub order: Order,
}

impl Setup {
    pub const ZERO_COPY: Setup = Setup {
        transfer: Transfer::ZeroCopy,
        pitch: RowPitch::Honour,
        order: Order::UnmapFirst,
    };
    pub const COPY: Setup = Setup {
        transfer: Transfer::Copy,
        pitch: RowPitch::Honour,
        order: Order::UnmapFirst,
    };
}

/// Where the matrices live, as the kernel expects them (from the lesson's defines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    /// Floats per row of A: K rounded up to KT, zeros after column K.
    pub lda: usize,
    /// Rows of A: M rounded up to whole macro-tiles (WGY·RM), zero rows after row M.
    pub rows_a: usize,
    /// Width of B's image in pixels: ceil(N/4); the last pixel of a row is zero-padded.
    pub pixels: usize,
}

impl Layout {
    pub fn new(shape: Shape, defines: &[Define]) -> Result<Layout> {
        let get = |name| define(defines, name).map_err(anyhow::Error::msg);
        let kt = get("KT")?;
        let tm = get("WGY")? * get("RM")?;
        Ok(Layout {
            shape,
            lda: round_up(shape.k.max(1), kt),
            rows_a: round_up(shape.m.max(1), tm),
            pixels: shape.n.div_ceil(4).max(1),
        })
    }

    /// Floats in A's buffer.
    pub fn a_len(&self) -> usize {
        self.lda * self.rows_a
    }

    /// Image height: K rows (at least one).
    pub fn height(&self) -> usize {
        self.shape.k.max(1)
    }

    /// A copied into its padded layout.
    pub fn fill_a(&self, a: &[f32], dst: &mut [f32]) {
        let Shape { m, k, .. } = self.shape;
        dst.fill(0.0);
        for r in 0..m {
            dst[r * self.lda..r * self.lda + k].copy_from_slice(&a[r * k..(r + 1) * k]);
        }
    }

    /// Index into the unpadded A of an index into the padded one (for messages).
    fn a_index(&self, padded: usize) -> usize {
        let Shape { m, k, .. } = self.shape;
        let (r, c) = (padded / self.lda, padded % self.lda);
        r.min(m.saturating_sub(1)) * k + c.min(k.saturating_sub(1))
    }

    /// Writes B's rows into image memory whose rows are `pitch_floats` apart.
    pub fn fill_b(&self, b: &[f32], dst: &mut [f32], pitch_floats: usize, pitch: RowPitch) {
        let Shape { n, k, .. } = self.shape;
        dst.fill(0.0);
        match pitch {
            RowPitch::Honour => {
                for r in 0..k {
                    dst[r * pitch_floats..r * pitch_floats + n]
                        .copy_from_slice(&b[r * n..(r + 1) * n]);
                }
            }
            RowPitch::Ignore => {
                let len = (n * k).min(dst.len());
                dst[..len].copy_from_slice(&b[..len]);
            }
        }
    }

    /// The first element of B (unpadded index) whose image memory, rows `pitch_floats`
    /// apart, differs from what the host filled in with `pitch`.
    fn b_change(
        &self,
        b: &[f32],
        img: &[f32],
        pitch_floats: usize,
        pitch: RowPitch,
    ) -> Option<usize> {
        let Shape { n, k, .. } = self.shape;
        let mut want = vec![0.0f32; img.len()];
        self.fill_b(b, &mut want, pitch_floats, pitch);
        (0..k).find_map(|r| {
            (0..self.pixels * 4)
                .map(|c| r * pitch_floats + c)
                .find(|&i| img[i].to_bits() != want[i].to_bits())
                .map(|i| r * n + (i - r * pitch_floats).min(n - 1))
        })
    }
}

// ---------------------------------------------------------------------------------------
// The recorder: every enqueue of this module passes through it

/// One host-side operation, in the order it was enqueued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Write(&'static str),
    Read(&'static str),
    Map(&'static str),
    Unmap(&'static str),
    Launch,
}

/// A memory region mapped for the host.
pub struct Mapped {
    name: &'static str,
    mem: cl_mem,
    ptr: *mut f32,
    len: usize,
    /// Bytes between rows (images only; 0 for buffers).
    pub row_pitch: usize,
}

impl Mapped {
    /// The mapped floats.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        // The driver guarantees `len` floats at `ptr` until the unmap, which consumes `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

/// Enqueues host-side operations on the device's queue and logs them.
pub struct Recorder<'g> {
    gpu: &'g Gpu,
    pub log: Vec<Op>,
    mapped: Vec<&'static str>,
}

impl<'g> Recorder<'g> {
    pub fn new(gpu: &'g Gpu) -> Recorder<'g> {
        Recorder {
            gpu,
            log: Vec::new(),
            mapped: Vec::new(),
        }
    }

    /// Whether any write or read transfer was enqueued.
    pub fn copied(&self) -> bool {
        self.log
            .iter()
            .any(|op| matches!(op, Op::Write(_) | Op::Read(_)))
    }

    pub fn map_buffer(
        &mut self,
        name: &'static str,
        buf: &Buffer<f32>,
        flags: cl_map_flags,
        len: usize,
    ) -> Result<Mapped> {
        let mut p: cl_mem = ptr::null_mut();
        unsafe {
            self.gpu.queue.enqueue_map_buffer(
                buf,
                CL_BLOCKING,
                flags,
                0,
                len * size_of::<f32>(),
                &mut p,
                &[],
            )
        }
        .with_context(|| format!("mapping {name} for the host"))?;
        self.log.push(Op::Map(name));
        self.mapped.push(name);
        Ok(Mapped {
            name,
            mem: buf.get(),
            ptr: p.cast(),
            len,
            row_pitch: 0,
        })
    }

    /// Maps a whole image of `width`×`height` RGBA/float pixels; the mapping's row pitch,
    /// in bytes, is the driver's choice.
    pub fn map_image(
        &mut self,
        name: &'static str,
        img: &Image,
        flags: cl_map_flags,
        width: usize,
        height: usize,
    ) -> Result<Mapped> {
        let origin = [0usize; 3];
        let region = [width, height, 1];
        let (mut row_pitch, mut slice_pitch) = (0usize, 0usize);
        let mut p: cl_mem = ptr::null_mut();
        unsafe {
            self.gpu.queue.enqueue_map_image(
                img,
                CL_BLOCKING,
                flags,
                origin.as_ptr(),
                region.as_ptr(),
                &mut row_pitch,
                &mut slice_pitch,
                &mut p,
                &[],
            )
        }
        .with_context(|| format!("mapping the image {name} for the host"))?;
        self.log.push(Op::Map(name));
        self.mapped.push(name);
        if row_pitch < width * 16 || row_pitch % size_of::<f32>() != 0 {
            bail!("the driver mapped {name} with a row pitch of {row_pitch} bytes, less than a row of {width} pixels or not whole floats");
        }
        // Rows are `row_pitch` bytes apart; the last row holds `width` pixels.
        let len = (height - 1) * row_pitch / size_of::<f32>() + width * 4;
        Ok(Mapped {
            name,
            mem: img.get(),
            ptr: p.cast(),
            len,
            row_pitch,
        })
    }

    pub fn unmap(&mut self, m: Mapped) -> Result<()> {
        unsafe {
            self.gpu
                .queue
                .enqueue_unmap_mem_object(m.mem, m.ptr.cast(), &[])
        }
        .with_context(|| format!("unmapping {}", m.name))?;
        self.log.push(Op::Unmap(m.name));
        if let Some(i) = self.mapped.iter().position(|&n| n == m.name) {
            self.mapped.remove(i);
        }
        Ok(())
    }

    pub fn write_buffer(
        &mut self,
        name: &'static str,
        buf: &mut Buffer<f32>,
        data: &[f32],
    ) -> Result<()> {
        unsafe {
            self.gpu
                .queue
                .enqueue_write_buffer(buf, CL_BLOCKING, 0, data, &[])
        }
        .with_context(|| format!("copying {name} to the device"))?;
        self.log.push(Op::Write(name));
        Ok(())
    }

    pub fn read_buffer(
        &mut self,
        name: &'static str,
        buf: &Buffer<f32>,
        out: &mut [f32],
    ) -> Result<()> {
        unsafe {
            self.gpu
                .queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, out, &[])
        }
        .with_context(|| format!("copying {name} back from the device"))?;
        self.log.push(Op::Read(name));
        Ok(())
    }

    /// Copies `width`×`height` pixels from host rows `row_pitch` bytes apart into an image.
    pub fn write_image(
        &mut self,
        name: &'static str,
        img: &mut Image,
        data: &[f32],
        width: usize,
        height: usize,
        row_pitch: usize,
    ) -> Result<()> {
        let origin = [0usize; 3];
        let region = [width, height, 1];
        unsafe {
            self.gpu.queue.enqueue_write_image(
                img,
                CL_BLOCKING,
                origin.as_ptr(),
                region.as_ptr(),
                row_pitch,
                0,
                data.as_ptr() as *mut _,
                &[],
            )
        }
        .with_context(|| format!("copying {name} into its image"))?;
        self.log.push(Op::Write(name));
        Ok(())
    }

    /// Copies an image back into host rows `width`·16 bytes apart.
    pub fn read_image(
        &mut self,
        name: &'static str,
        img: &Image,
        out: &mut [f32],
        width: usize,
        height: usize,
    ) -> Result<()> {
        let origin = [0usize; 3];
        let region = [width, height, 1];
        unsafe {
            self.gpu.queue.enqueue_read_image(
                img,
                CL_BLOCKING,
                origin.as_ptr(),
                region.as_ptr(),
                width * 16,
                0,
                out.as_mut_ptr().cast(),
                &[],
            )
        }
        .with_context(|| format!("copying the image {name} back"))?;
        self.log.push(Op::Read(name));
        Ok(())
    }

    /// Launches the kernel (see [`exec::launch`]), unless something is still mapped.
    pub fn launch(&mut self, kernel: &Kernel, l: &Launch) -> Result<f64> {
        if !self.mapped.is_empty() {
            bail!(
                "the kernel was about to run while {} still mapped for the host. Unmap every memory object the kernel uses before enqueueing it: until the unmap, the device is not guaranteed to see what the host wrote (and on a discrete GPU it may read stale memory).",
                self.mapped.join(" and ") + if self.mapped.len() == 1 { " is" } else { " are" }
            );
        }
        let ms = exec::launch(self.gpu, kernel, l)?;
        self.log.push(Op::Launch);
        Ok(ms)
    }
}

// ---------------------------------------------------------------------------------------
// Allocation and arguments

fn buffer(gpu: &Gpu, flags: cl_mem_flags, len: usize, what: &str) -> Result<Buffer<f32>> {
    unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE | flags,
            len.max(1),
            ptr::null_mut(),
        )
    }
    .with_context(|| format!("allocating {what}"))
}

/// An RGBA/float image of `width`×`height` pixels.
pub fn image(gpu: &Gpu, flags: cl_mem_flags, width: usize, height: usize) -> Result<Image> {
    let format = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_FLOAT,
    };
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: width,
        image_height: height,
        image_depth: 1,
        image_array_size: 1,
        image_row_pitch: 0,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: ptr::null_mut(),
    };
    unsafe {
        Image::create(
            &gpu.context,
            CL_MEM_READ_WRITE | flags,
            &format,
            &desc,
            ptr::null_mut(),
        )
    }
    .with_context(|| format!("allocating B as an RGBA float image of {width}×{height} pixels"))
}

/// Sets M, N, K, A, the image B and C.
pub fn set_args(
    kernel: &Kernel,
    shape: Shape,
    a: &Buffer<f32>,
    b: &Image,
    c: &Buffer<f32>,
) -> Result<()> {
    exec::set_standard_args(kernel, shape, a, b, c)
}

/// The device-side objects of one product.
struct Objects {
    a: Buffer<f32>,
    b: Image,
    c: GuardedC,
}

impl Objects {
    fn new(gpu: &Gpu, layout: &Layout, transfer: Transfer) -> Result<Objects> {
        let flags = match transfer {
            Transfer::ZeroCopy => CL_MEM_ALLOC_HOST_PTR,
            Transfer::Copy => 0,
        };
        Ok(Objects {
            a: buffer(gpu, flags, layout.a_len(), "A")?,
            b: image(gpu, flags, layout.pixels, layout.height())?,
            c: GuardedC::new(gpu, layout.shape.m * layout.shape.n, flags)?,
        })
    }

    /// Puts A and B where the kernel reads them.
    fn upload(
        &mut self,
        rec: &mut Recorder,
        layout: &Layout,
        p: &Problem,
        setup: Setup,
    ) -> Result<()> {
        match setup.transfer {
            Transfer::ZeroCopy => {
                // ANCHOR: zero_copy_fill
                let mut a =
                    rec.map_buffer("A", &self.a, CL_MAP_WRITE_INVALIDATE_REGION, layout.a_len())?;
                layout.fill_a(&p.a, a.as_mut_slice());
                rec.unmap(a)?;
                let mut b = rec.map_image(
                    "B",
                    &self.b,
                    CL_MAP_WRITE_INVALIDATE_REGION,
                    layout.pixels,
                    layout.height(),
                )?;
                // The driver chooses the distance between rows: honour it.
                let pitch = b.row_pitch / size_of::<f32>();
                layout.fill_b(&p.b, b.as_mut_slice(), pitch, setup.pitch);
                // Order::LaunchWhileMapped is wrong on purpose: B stays mapped across the launch.
                if setup.order == Order::UnmapFirst {
                    rec.unmap(b)?;
                }
                // ANCHOR_END: zero_copy_fill
            }
            Transfer::Copy => {
                let mut a = vec![0.0f32; layout.a_len()];
                layout.fill_a(&p.a, &mut a);
                rec.write_buffer("A", &mut self.a, &a)?;
                let pitch = layout.pixels * 4;
                let mut b = vec![0.0f32; pitch * layout.height()];
                layout.fill_b(&p.b, &mut b, pitch, setup.pitch);
                rec.write_image(
                    "B",
                    &mut self.b,
                    &b,
                    layout.pixels,
                    layout.height(),
                    pitch * 4,
                )?;
            }
        }
        Ok(())
    }

    /// C and its guard zones, as the host sees them after the kernel.
    fn download(&self, rec: &mut Recorder, transfer: Transfer) -> Result<Vec<f32>> {
        let total = self.c.total();
        let mut all = vec![0.0f32; total];
        match transfer {
            Transfer::ZeroCopy => {
                // ANCHOR: zero_copy_read
                let mut c = rec.map_buffer("C", &self.c.whole, CL_MAP_READ, total)?;
                all.copy_from_slice(c.as_mut_slice());
                rec.unmap(c)?;
                // ANCHOR_END: zero_copy_read
            }
            Transfer::Copy => rec.read_buffer("C", &self.c.whole, &mut all)?,
        }
        Ok(all)
    }

    /// The first elements of A and B (unpadded indices) that are not what the host put there.
    fn inputs_changed(
        &self,
        rec: &mut Recorder,
        layout: &Layout,
        p: &Problem,
        setup: Setup,
    ) -> Result<(Option<usize>, Option<usize>)> {
        let mut want_a = vec![0.0f32; layout.a_len()];
        layout.fill_a(&p.a, &mut want_a);
        let first = |got: &[f32]| {
            got.iter()
                .zip(&want_a)
                .position(|(x, y)| x.to_bits() != y.to_bits())
                .map(|i| layout.a_index(i))
        };
        match setup.transfer {
            Transfer::ZeroCopy => {
                let mut a = rec.map_buffer("A", &self.a, CL_MAP_READ, layout.a_len())?;
                let a_changed = first(a.as_mut_slice());
                rec.unmap(a)?;
                let mut b =
                    rec.map_image("B", &self.b, CL_MAP_READ, layout.pixels, layout.height())?;
                let pitch = b.row_pitch / size_of::<f32>();
                let b_changed = layout.b_change(&p.b, b.as_mut_slice(), pitch, setup.pitch);
                rec.unmap(b)?;
                Ok((a_changed, b_changed))
            }
            Transfer::Copy => {
                let mut a = vec![0.0f32; layout.a_len()];
                rec.read_buffer("A", &self.a, &mut a)?;
                let mut b = vec![0.0f32; layout.pixels * 4 * layout.height()];
                rec.read_image("B", &self.b, &mut b, layout.pixels, layout.height())?;
                Ok((
                    first(&a),
                    layout.b_change(&p.b, &b, layout.pixels * 4, setup.pitch),
                ))
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Running and timing

/// One guarded run and the log of what the host enqueued.
pub struct Run {
    pub output: RunOutput,
    pub log: Vec<Op>,
}

/// Runs the lesson's kernel once on a problem, guarded, with the given host set-up.
pub fn run(
    gpu: &Gpu,
    kernel: &Kernel,
    p: &Problem,
    l: &Launch,
    defines: &[Define],
    setup: Setup,
) -> Result<Run> {
    check_device(&gpu.info, Some(p.shape))?;
    let layout = Layout::new(p.shape, defines)?;
    let started = Instant::now();
    let mut obj = Objects::new(gpu, &layout, setup.transfer)?;
    let mut rec = Recorder::new(gpu);
    obj.upload(&mut rec, &layout, p, setup)?;
    set_args(kernel, p.shape, &obj.a, &obj.b, &obj.c.c)?;
    let launched = Instant::now();
    let kernel_ms = rec.launch(kernel, l)?;
    let wall_ms = launched.elapsed().as_secs_f64() * 1e3;
    let all = obj.download(&mut rec, setup.transfer)?;
    let host_ms = started.elapsed().as_secs_f64() * 1e3;
    let (c, guard) = obj.c.split(all);
    let (a_changed, b_changed) = obj.inputs_changed(&mut rec, &layout, p, setup)?;
    Ok(Run {
        output: RunOutput {
            c,
            guard,
            a_changed,
            b_changed,
            kernel_ms,
            nan_from_reads: false,
            wall_ms,
            host_ms,
        },
        log: rec.log,
    })
}

/// Times the kernel with the given path by the course's one protocol: every call on fresh
/// inputs through [`run`] (end to end: fill A and B, run, read C, with maps or with copies),
/// each call's C checked.
pub fn time(
    gpu: &Gpu,
    kernel: &Kernel,
    shape: Shape,
    l: &Launch,
    defines: &[Define],
    transfer: Transfer,
) -> Result<Timing> {
    let setup = Setup {
        transfer,
        ..Setup::ZERO_COPY
    };
    let target = timing::Target::device(&gpu.info);
    timing::time_checked(
        shape,
        &target,
        |p| run(gpu, kernel, p, l, defines, setup).map(|r| r.output),
        |p, out| {
            verify(p, out, None)
                .map(|_| ())
                .map_err(|f| format!("the {} path is wrong: {}", transfer.name(), f.message))
        },
    )
}

// ---------------------------------------------------------------------------------------
// Seed 000's kernel, for comparison

/// The Adreno blog's kernel (seed 000), reimplemented with this course's argument list: one
/// work-item computes 8 rows × 4 columns of C; B is read one pixel per row with the
/// sampler-less `read_imagef`, A with `vload4` straight from global memory, and the
/// work-group is 16×8. Like the original it needs N a multiple of 4, M of 8 and K of 4, and it
/// takes A's row pitch to be K floats.
pub const ADRENO_BLOG_KERNEL: &str = r#"
// ANCHOR: adreno_blog
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     __read_only image2d_t B,
                     __global float* C) {
    const int px = get_global_id(0);    // pixel column: C columns 4px .. 4px+3
    const int ry = get_global_id(1);    // C rows 8ry .. 8ry+7
    // Work-items of a partly filled work-group do nothing.
    if (4 * px >= N || 8 * ry >= M) return;
    float4 acc[8];
    for (int i = 0; i < 8; i++) acc[i] = (float4)(0.0f);
    const __global float* arow = A + 8 * ry * K;
    for (int k = 0; k < K; k += 4) {
        float4 b[4];
        #pragma unroll
        for (int q = 0; q < 4; q++) b[q] = read_imagef(B, (int2)(px, k + q));
        float4 a[8];
        #pragma unroll
        for (int i = 0; i < 8; i++) a[i] = vload4(0, arow + i * K + k);
        #pragma unroll
        for (int i = 0; i < 8; i++)
            acc[i] += a[i].x * b[0] + a[i].y * b[1] + a[i].z * b[2] + a[i].w * b[3];
    }
    #pragma unroll
    for (int i = 0; i < 8; i++) vstore4(acc[i], 0, C + (8 * ry + i) * N + 4 * px);
}
// ANCHOR_END: adreno_blog
"#;

/// The defines that make [`Layout`] match the blog kernel: A unpadded (K a multiple of 4).
pub fn adreno_blog_defines() -> Vec<Define> {
    vec![
        Define::new("RM", 8),
        Define::new("RN", 1),
        Define::new("WGX", 16),
        Define::new("WGY", 8),
        Define::new("KT", 4),
    ]
}

/// The blog kernel's launch: 16×8 work-groups over (N/4)×(M/8) work-items, rounded up.
pub fn adreno_blog_launch(s: Shape) -> Result<Launch, String> {
    require_multiple(
        s,
        8,
        4,
        4,
        "the Adreno blog kernel handles whole 4×8 micro-tiles and steps K by 4",
    )?;
    Ok(Launch {
        global: [round_up(s.n / 4, 16), round_up(s.m / 8, 8)],
        local: Some([16, 8]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(image_support: bool) -> DeviceInfo {
        DeviceInfo {
            index: 0,
            platform: "test".into(),
            name: "Test GPU".into(),
            vendor: "test".into(),
            driver: "1".into(),
            version: "OpenCL 3.0".into(),
            kind: "GPU".into(),
            compute_units: 1,
            clock_mhz: 1,
            global_mem_bytes: 1 << 30,
            max_alloc_bytes: 1 << 28,
            local_mem_bytes: 48 << 10,
            max_work_group: 1024,
            max_work_item_sizes: vec![1024, 1024, 64],
            image_support,
            image2d_max_width: 16384,
            preferred_float_width: 1,
            native_float_width: 1,
            base_align_bytes: 128,
            host_unified_memory: false,
        }
    }

    #[test]
    fn a_device_without_images_is_refused_with_the_reason() {
        let e = check_device(&info(false), None).unwrap_err().to_string();
        assert!(
            e.contains("this device cannot run lesson 09 because it has no image support"),
            "{e}"
        );
        assert!(e.contains("Test GPU") && e.contains("--device"), "{e}");
        assert!(check_device(&info(true), Some(Shape::square(4096))).is_ok());
    }

    #[test]
    fn an_image_too_large_is_refused() {
        let e = check_device(&info(true), Some(Shape::new(8, 4 * 20_000, 8)))
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 16384 pixels"), "{e}");
    }

    #[test]
    fn layout_pads_a_and_b() {
        let d = [
            Define::new("KT", 16),
            Define::new("WGY", 8),
            Define::new("RM", 8),
        ];
        let l = Layout::new(Shape::new(70, 9, 37), &d).unwrap();
        assert_eq!((l.lda, l.rows_a, l.pixels), (48, 128, 3));
        let p = Problem::random(Shape::new(70, 9, 37), 1);
        let mut a = vec![1.0; l.a_len()];
        l.fill_a(&p.a, &mut a);
        assert_eq!(a[48 + 36], p.a[37 + 36]);
        assert_eq!(a[48 + 37], 0.0);
        assert_eq!(l.a_index(48 + 5), 37 + 5);
        // B with a pitch of 16 floats (4 pixels): rows start 16 floats apart, zeros between.
        let mut img = vec![1.0; 16 * 36 + 12];
        l.fill_b(&p.b, &mut img, 16, RowPitch::Honour);
        assert_eq!(img[16 + 8], p.b[9 + 8]);
        assert_eq!(img[9], 0.0);
        assert_eq!(l.b_change(&p.b, &img, 16, RowPitch::Honour), None);
        img[16 * 2 + 3] = 5.0;
        assert_eq!(
            l.b_change(&p.b, &img, 16, RowPitch::Honour),
            Some(2 * 9 + 3)
        );
        l.fill_b(&p.b, &mut img, 16, RowPitch::Ignore);
        assert_eq!(l.b_change(&p.b, &img, 16, RowPitch::Ignore), None);
        assert_eq!(l.b_change(&p.b, &img, 16, RowPitch::Honour), Some(8));
    }

    #[test]
    fn the_blog_kernel_takes_whole_micro_tiles_only() {
        assert!(adreno_blog_launch(Shape::new(64, 64, 64)).is_ok());
        let l = adreno_blog_launch(Shape::new(72, 68, 12)).unwrap();
        assert_eq!(l.global, [32, 16]);
        let e = adreno_blog_launch(Shape::new(64, 66, 64)).unwrap_err();
        assert!(e.contains("N of 4"), "{e}");
    }

    #[test]
    fn paths_parse() {
        assert_eq!("copy".parse::<Transfer>(), Ok(Transfer::Copy));
        assert_eq!("zero-copy".parse::<Transfer>(), Ok(Transfer::ZeroCopy));
        assert!("both"
            .parse::<Transfer>()
            .unwrap_err()
            .contains("zero-copy or copy"));
    }
}
