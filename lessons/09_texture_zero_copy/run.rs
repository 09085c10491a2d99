//! Running and timing.

use super::*;

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
    let mut obj = Objects::new(gpu, &layout, setup.transfer)?;
    let mut rec = Recorder::new(gpu);
    obj.upload(&mut rec, &layout, p, setup)?;
    set_args(kernel, p.shape, &obj.a, &obj.b, &obj.c.c)?;
    let kernel_ms = rec.launch(kernel, l)?;
    let all = obj.download(&mut rec, setup.transfer)?;
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
        },
        log: rec.log,
    })
}

/// Times the kernel with the given path: device time from profiling events, and end to end
/// on the host clock (fill A and B, run, read C, with maps or with copies).
pub fn time(
    gpu: &Gpu,
    kernel: &Kernel,
    p: &Problem,
    l: &Launch,
    defines: &[Define],
    budget_ms: f64,
    transfer: Transfer,
) -> Result<Timing> {
    check_device(&gpu.info, Some(p.shape))?;
    let setup = Setup {
        transfer,
        ..Setup::ZERO_COPY
    };
    let layout = Layout::new(p.shape, defines)?;
    let mut obj = Objects::new(gpu, &layout, transfer)?;
    let mut rec = Recorder::new(gpu);
    obj.upload(&mut rec, &layout, p, setup)?;
    set_args(kernel, p.shape, &obj.a, &obj.b, &obj.c.c)?;
    // Warm-up: the first launch pays for code upload and caches.
    let first = rec.launch(kernel, l)?;
    let reps = exec::reps_for(first, budget_ms);
    let mut dev = Vec::with_capacity(reps);
    for _ in 0..reps {
        dev.push(rec.launch(kernel, l)?);
    }
    let best = dev.iter().cloned().fold(f64::INFINITY, f64::min);
    let worst = dev.iter().cloned().fold(0.0, f64::max);
    let device_ms = exec::median(&mut dev);
    let mut host = Vec::new();
    for _ in 0..reps.min(5) {
        let t = Instant::now();
        obj.upload(&mut rec, &layout, p, setup)?;
        rec.launch(kernel, l)?;
        let all = obj.download(&mut rec, transfer)?;
        host.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(all);
        // The log of a timing loop is of no use; keep memory flat.
        rec.log.clear();
    }
    Ok(Timing {
        device_ms,
        best_ms: best,
        worst_ms: worst,
        host_ms: exec::median(&mut host),
        reps,
    })
}
