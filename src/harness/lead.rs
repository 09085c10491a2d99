//! The untimed launch that runs just before each timed one on a GPU.
//!
//! A GPU left idle for a few milliseconds starts its next kernel slowly: on an NVIDIA H200 the
//! warp-group kernel of lesson 11 ran 1024³ in 40 µs when called back-to-back and in 55 µs
//! after 20 ms of idling, and cuBLAS lost two thirds of its speed the same way
//! (research/protocol-11/). Between two timed calls the course idles the device for as long
//! as the host takes to draw, upload and check a problem, so without this every small problem
//! was timed cold, while libraries are timed, and used, back-to-back.
//!
//! So each timed launch follows, on the in-order queue and without a wait in between, one
//! launch of the same code on the buffers of the call before it (its own earlier inputs, or the
//! other code's where two are timed beside each other): the device is busy when the timed
//! launch starts, as in any program that multiplies more than once. The two launches cannot be
//! told apart by what they are given (the same kernel, the same shape, inputs of the same kind),
//! the lead-in's inputs are not the timed call's (no work done in it can be the timed call's),
//! and its C is never read. On a CPU device there is nothing to do: the host's own work between
//! calls keeps the cores the kernel runs on busy.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Result;
use opencl3::memory::Buffer;

/// What a launch is: the buffers a lead-in may reuse must be the size this launch reads and
/// writes, and its work-groups the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The sizes of A, B and C the kernel is given, in floats.
    pub floats: [usize; 3],
    pub global: [usize; 2],
}

/// The last timed call's A, B and C, kept for the next call's lead-in.
pub struct Kept {
    key: Key,
    a: Buffer<f32>,
    b: Buffer<f32>,
    c: Buffer<f32>,
}

/// The device's slot for [`Kept`] buffers; lead-ins are on where the device is not the CPU.
#[derive(Default)]
pub struct Slot {
    kept: Mutex<Option<Kept>>,
    on: AtomicBool,
    /// Lead-ins enqueued so far.
    done: AtomicUsize,
}

impl Slot {
    /// A slot whose lead-ins are on or off (off for a CPU device: see the module's text).
    pub fn new(on: bool) -> Slot {
        let slot = Slot::default();
        slot.on.store(on, Ordering::Relaxed);
        slot
    }

    /// Lead-ins on this device from now on (a CPU device's are off: see the module's text).
    pub fn turn_on(&self) {
        self.on.store(true, Ordering::Relaxed);
    }

    /// How many lead-ins have been enqueued on this device.
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    fn take(&self) -> Option<Kept> {
        self.kept.lock().map(|mut k| k.take()).unwrap_or(None)
    }

    fn put(&self, kept: Kept) {
        if let Ok(mut k) = self.kept.lock() {
            *k = Some(kept);
        }
    }
}

/// Runs `enqueue` (the launches of one call, not waited for) on the last call's buffers if
/// that call had the same `key`, with `set` giving the kernels those buffers first; nothing
/// where lead-ins are off or there is no such call. Whether a lead-in was enqueued: the
/// caller then gives the kernels their own buffers again.
pub fn before(
    slot: &Slot,
    key: Key,
    set: impl Fn(&Buffer<f32>, &Buffer<f32>, &Buffer<f32>) -> Result<()>,
    enqueue: impl FnOnce() -> Result<()>,
) -> Result<bool> {
    if !slot.on.load(Ordering::Relaxed) {
        return Ok(false);
    }
    let Some(kept) = slot.take() else {
        return Ok(false);
    };
    if kept.key != key {
        return Ok(false);
    }
    set(&kept.a, &kept.b, &kept.c)?;
    enqueue()?;
    slot.done.fetch_add(1, Ordering::Relaxed);
    // OpenCL frees a memory object only once the commands that use it have finished, so the
    // buffers may be let go while the lead-in still runs.
    drop(kept);
    Ok(true)
}

/// Keeps a timed call's buffers for the next call's lead-in (where lead-ins are on).
pub fn keep(slot: &Slot, key: Key, a: Buffer<f32>, b: Buffer<f32>, c: Buffer<f32>) {
    if slot.on.load(Ordering::Relaxed) {
        slot.put(Kept { key, a, b, c });
    }
}
