//! The recorder: every enqueue of this module passes through it.

use super::*;

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
