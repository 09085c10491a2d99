//! Lesson 09's host side: B as an RGBA/float image, A and C as buffers, and two ways to move
//! them: zero copy (memory allocated with `CL_MEM_ALLOC_HOST_PTR`, filled and read through
//! map/unmap) and plain copies (enqueued writes and reads), for comparison.
//!
//! Every host-side enqueue goes through a [`Recorder`], which keeps a log of the operations
//! and refuses to launch the kernel while a memory object is still mapped for the host.
//!
//! One file per part, beside this one: `shape` (the kernel's work-group and micro-tile on a
//! device), `transfer` (how the host lays out and moves the matrices), `recorder` (every
//! enqueue), `objects` (allocation and arguments), `run` (running and timing) and `adreno`
//! (the Adreno blog's kernel, kept in `adreno_blog.cl`). They share the imports below.

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
use lab::harness::exec::{self, GuardedC, Launch, RunOutput};
use lab::harness::timing::Timing;
use lab::harness::matrix::{Problem, Shape};
use lab::harness::poison::Poison;
use lab::harness::program::Define;
use lab::harness::timing;
use lab::lesson::{define, require_multiple, round_up};

mod adreno;
mod objects;
mod recorder;
mod run;
mod shape;
pub mod stand_in;
mod transfer;

pub use adreno::*;
pub use objects::*;
pub use recorder::*;
pub use run::*;
pub use shape::*;
pub use transfer::*;

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
