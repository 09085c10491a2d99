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
    let started = Instant::now();
    let mut obj = Objects::new(gpu, &layout, setup.transfer, &p.poison)?;
    let mut rec = Recorder::new(gpu);
    obj.upload(&mut rec, &layout, p, setup)?;
    set_args(kernel, p.shape, &obj.a, &obj.b, &obj.c.c)?;
    // On the device before the clock starts, as every guarded run's matrices are.
    exec::settle(gpu, &[obj.a.get(), obj.b.get(), obj.c.whole.get()])?;
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
            found: None,
            technique: None,
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
