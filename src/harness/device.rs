//! Finding OpenCL devices, choosing one, and what the course needs to know about it.

use anyhow::{bail, Context as _, Result};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
use opencl3::platform::get_platforms;
use serde::{Deserialize, Serialize};

/// How to get an OpenCL driver, shown whenever none can be found.
pub const INSTALL_HELP: &str = "\
Install an OpenCL driver (an \"ICD\"), then check with `cargo run --release --bin 00_your_device -- --list-devices`:
  - any machine, on the CPU (Debian/Ubuntu):  sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1
  - NVIDIA GPU: the driver ships libnvidia-opencl.so.1; if no platform shows up, register it with
      sudo mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 | sudo tee /etc/OpenCL/vendors/nvidia.icd
  - AMD GPU: ROCm's OpenCL runtime (rocm-opencl-runtime); Intel GPU: intel-opencl-icd
  - macOS: OpenCL ships with the system; Windows: the GPU vendor's driver includes it
See the book's chapter \"Setting up\" for details.";

/// What the course needs to know about a device.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Position in the list printed by `--list-devices`.
    pub index: usize,
    pub platform: String,
    pub name: String,
    pub vendor: String,
    /// The driver's version string (CL_DRIVER_VERSION).
    pub driver: String,
    /// The OpenCL version the device reports.
    pub version: String,
    /// "GPU", "CPU", "accelerator" or "other".
    pub kind: String,
    pub compute_units: u32,
    pub clock_mhz: u32,
    pub global_mem_bytes: u64,
    pub max_alloc_bytes: u64,
    pub local_mem_bytes: u64,
    pub max_work_group: usize,
    pub max_work_item_sizes: Vec<usize>,
    pub image_support: bool,
    pub image2d_max_width: usize,
    /// Preferred vector width for float, as the driver advises.
    pub preferred_float_width: u32,
    pub native_float_width: u32,
    /// Alignment of sub-buffer origins, in bytes.
    pub base_align_bytes: u32,
    pub host_unified_memory: bool,
}

impl DeviceInfo {
    fn query(index: usize, platform: &str, device: &Device) -> Result<Self> {
        let kind = match device.dev_type()? {
            t if t & CL_DEVICE_TYPE_GPU != 0 => "GPU",
            t if t & CL_DEVICE_TYPE_CPU != 0 => "CPU",
            t if t & CL_DEVICE_TYPE_ACCELERATOR != 0 => "accelerator",
            _ => "other",
        };
        Ok(DeviceInfo {
            index,
            platform: platform.to_string(),
            name: device.name()?.trim().to_string(),
            vendor: device.vendor()?.trim().to_string(),
            driver: device.driver_version()?.trim().to_string(),
            version: device.version()?.trim().to_string(),
            kind: kind.to_string(),
            compute_units: device.max_compute_units()?,
            clock_mhz: device.max_clock_frequency()?,
            global_mem_bytes: device.global_mem_size()?,
            max_alloc_bytes: device.max_mem_alloc_size()?,
            local_mem_bytes: device.local_mem_size()?,
            max_work_group: device.max_work_group_size()?,
            max_work_item_sizes: device.max_work_item_sizes()?,
            image_support: device.image_support()?,
            image2d_max_width: device.image2d_max_width().unwrap_or(0),
            preferred_float_width: device.max_preferred_vector_width_float()?,
            native_float_width: device.native_vector_width_float().unwrap_or(0),
            base_align_bytes: device.mem_base_addr_align()? / 8,
            host_unified_memory: device.host_unified_memory().unwrap_or(false),
        })
    }

    pub fn is_gpu(&self) -> bool {
        self.kind == "GPU"
    }

    pub fn is_cpu(&self) -> bool {
        self.kind == "CPU"
    }

    /// One line naming the device, its driver and platform.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, {} compute units, driver {}, platform {})",
            self.name, self.kind, self.compute_units, self.driver, self.platform
        )
    }
}

/// Every device of every platform, in a stable order.
pub fn list() -> Result<Vec<(Device, DeviceInfo)>> {
    if !cl3::is_opencl_runtime_available() {
        bail!("no OpenCL runtime: the library libOpenCL could not be loaded.\n\n{INSTALL_HELP}");
    }
    let platforms = get_platforms().map_err(|e| {
        anyhow::anyhow!(
            "the OpenCL loader found no platform ({e}): no driver is registered in /etc/OpenCL/vendors.\n\n{INSTALL_HELP}"
        )
    })?;
    let mut out = Vec::new();
    for platform in platforms {
        let pname = platform
            .name()
            .unwrap_or_else(|_| "unknown platform".into());
        // A platform with no devices reports an error here; it simply contributes none.
        let ids = platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default();
        for id in ids {
            let device = Device::new(id);
            let info = DeviceInfo::query(out.len(), &pname, &device)
                .with_context(|| format!("querying a device of platform {pname}"))?;
            out.push((device, info));
        }
    }
    if out.is_empty() {
        bail!("OpenCL platforms were found, but none has a device.\n\n{INSTALL_HELP}");
    }
    Ok(out)
}

/// Picks a device: by index or by part of its name (case-insensitive); with no selector,
/// the first GPU, else the first device.
pub fn pick(selector: Option<&str>) -> Result<(Device, DeviceInfo)> {
    let mut all = list()?;
    let choice = match selector {
        None => all.iter().position(|(_, i)| i.is_gpu()).unwrap_or(0),
        Some(sel) => {
            let sel = sel.trim();
            if let Ok(index) = sel.parse::<usize>() {
                if index >= all.len() {
                    bail!(
                        "there is no device {index}: this machine has {} ({}).\nList them with --list-devices.",
                        all.len(),
                        names(&all)
                    );
                }
                index
            } else {
                let needle = sel.to_lowercase();
                all.iter()
                    .position(|(_, i)| {
                        i.name.to_lowercase().contains(&needle)
                            || i.platform.to_lowercase().contains(&needle)
                    })
                    .with_context(|| {
                        format!(
                            "no device matches \"{sel}\". The devices are: {}.\nPick one by index or by part of its name (--device or LAB_DEVICE).",
                            names(&all)
                        )
                    })?
            }
        }
    };
    Ok(all.swap_remove(choice))
}

fn names(all: &[(Device, DeviceInfo)]) -> String {
    all.iter()
        .map(|(_, i)| format!("{}: {}", i.index, i.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A device ready for work: its context and a profiling command queue.
pub struct Gpu {
    pub device: Device,
    pub info: DeviceInfo,
    pub context: Context,
    pub queue: CommandQueue,
    /// The host's padding copies and sums ([`crate::harness::pad`]), built on first use;
    /// behind a lock, since setting a kernel's arguments and enqueueing it is one step for one
    /// thread.
    pub copies: std::sync::Mutex<Option<Result<Vec<opencl3::kernel::Kernel>, String>>>,
    /// The last timed call's buffers, for the next timed call's lead-in
    /// ([`crate::harness::lead`]).
    pub lead: crate::harness::lead::Slot,
}

impl Gpu {
    /// Opens the device chosen by `selector` (see [`pick`]).
    // ANCHOR: open
    pub fn open(selector: Option<&str>) -> Result<Gpu> {
        let (device, info) = pick(selector)?;
        let context = Context::from_device(&device)
            .with_context(|| format!("creating an OpenCL context on {}", info.name))?;
        #[allow(deprecated)]
        let queue = CommandQueue::create_default(&context, CL_QUEUE_PROFILING_ENABLE)
            .with_context(|| format!("creating a command queue on {}", info.name))?;
        let lead = crate::harness::lead::Slot::new(!info.is_cpu());
        Ok(Gpu {
            device,
            info,
            context,
            queue,
            copies: std::sync::Mutex::new(None),
            lead,
        })
    }
    // ANCHOR_END: open

    /// The compute capability of an NVIDIA GPU whose tensor cores take TF32
    /// (`mma.sync ... tf32`: 8.0 or newer), as its driver reports it
    /// (`cl_nv_device_attribute_query`); none on any other device.
    pub fn tensor_cores(&self) -> Option<(u32, u32)> {
        if !self.info.vendor.to_lowercase().contains("nvidia") {
            return None;
        }
        let major = self.device.compute_capability_major_nv().ok()?;
        let minor = self.device.compute_capability_minor_nv().unwrap_or(0);
        (major >= 8).then_some((major, minor))
    }
}

/// A table of every device, for `--list-devices`.
pub fn list_table() -> Result<String> {
    let all = list()?;
    let default = all.iter().position(|(_, i)| i.is_gpu()).unwrap_or(0);
    let mut out = String::new();
    for (_, i) in &all {
        out.push_str(&format!(
            "{} {:>2}: {} [{}] on {}, driver {}\n",
            if i.index == default { "*" } else { " " },
            i.index,
            i.name,
            i.kind,
            i.platform,
            i.driver
        ));
    }
    out.push_str("(* is the default; choose with --device INDEX|NAME or LAB_DEVICE)\n");
    Ok(out)
}
