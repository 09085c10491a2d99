//! Allocation and arguments.

use super::*;

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
pub(super) struct Objects {
    pub(super) a: Buffer<f32>,
    pub(super) b: Image,
    pub(super) c: GuardedC,
}

impl Objects {
    pub(super) fn new(
        gpu: &Gpu,
        layout: &Layout,
        transfer: Transfer,
        before: &Poison,
    ) -> Result<Objects> {
        let flags = match transfer {
            Transfer::ZeroCopy => CL_MEM_ALLOC_HOST_PTR,
            Transfer::Copy => 0,
        };
        Ok(Objects {
            a: buffer(gpu, flags, layout.a_len(), "A")?,
            b: image(gpu, flags, layout.pixels, layout.height())?,
            c: GuardedC::new(gpu, before, flags)?,
        })
    }

    /// Puts A and B where the kernel reads them.
    pub(super) fn upload(
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
    pub(super) fn download(&self, rec: &mut Recorder, transfer: Transfer) -> Result<Vec<f32>> {
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
    pub(super) fn inputs_changed(
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
