//! A problem larger on every side than any other a grading checks, multiplied on a window of
//! its work-groups.
//!
//! A kernel can be wrong only where every side passes some bound: k-steps dropped where M, N
//! and K all exceed 1,300, an index that overflows only in a large C with a long K. The shape
//! past every side ([`super::shapes::past_every_side`]) finds such a bound up to its reach,
//! 513 to 576 on a CPU; above it, multiplying whole problems would cost a CPU minutes. So the
//! device runs a few work-groups of a problem past 4,096 on every side (8,192 on a GPU): in
//! each dimension a drawn one and the last, where the edges' partial tiles are
//! ([`crate::harness::groups::Window`]). The kernel is built to see the ids and counts of the
//! whole launch, so no kernel can tell the window from it; every group of a lesson's kernel is
//! independent of the others, which is what lets the simulator run two groups of a launch too.
//! What the window's groups wrote is checked (up to 4,096 elements, evenly spaced);
//! the rest of C still holds the call's poison, and is not read.

use std::path::Path;

use anyhow::Result;

use crate::harness::groups::{self, Window};
use crate::harness::matrix::{self, Problem, Rng};
use crate::harness::paths;
use crate::harness::program::Define;
use crate::harness::{device::Gpu, timing};
use crate::lesson::OclLesson;
use crate::prepared::Prepared;

use super::{FailKind, Failure, Progress, Verdict};

/// Elements of what the window wrote that are compared with the reference, at most.
const CHECKED: usize = 4096;

/// Runs the window with the device's own `defines` and judges what it wrote; a failure goes
/// into `verdict`. A lesson whose product is several kernels (each launched at its own size,
/// each reading what the one before wrote whole) is not run so, and its verdict says so.
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    verdict: &mut Verdict,
    gpu: &Gpu,
    ocl: &OclLesson,
    (file, text): (&Path, &str),
    defines: &[Define],
    options: &str,
    starter: Option<&str>,
    progress: Progress,
) -> Result<()> {
    let secret = timing::secret_seed().rotate_left(23);
    let asked = super::shapes::window(gpu.info.is_gpu(), secret);
    let past = super::shapes::window_past(gpu.info.is_gpu());
    if !ocl.host.kernels.is_empty() {
        verdict.notes.push(format!(
            "a problem past {past} on every side was not multiplied on a window of its work-groups: the lesson's product is several kernels, each of which reads what the one before wrote whole"
        ));
        return Ok(());
    }
    let (shape, full) = super::shapes::timing_launch(ocl, asked, defines)?;
    let local = full.work_group();
    let mut rng = Rng::new(secret);
    let window = Window::draw(
        [full.global[0] / local[0], full.global[1] / local[1]],
        || rng.next_u64(),
    );
    progress(format!(
        "building {} to run a window of a launch",
        paths::display(file)
    ));
    let built = groups::with_window(window, || {
        Prepared::build(gpu, ocl, file, text, defines, options)
    });
    let prepared = match built {
        Ok(p) => p,
        Err(e) => {
            verdict.notes.push(format!(
                "a problem past {past} on every side was not multiplied on a window of its work-groups: the device could not build the kernel with the window's ids ({e:#})"
            ));
            return Ok(());
        }
    };
    let (ran, of) = window.runs();
    progress(format!("running {shape} on {ran} of its {of} work-groups"));
    let p = Problem::random(shape, secret ^ 0x00C0_FFEE);
    let out = (ocl.host.run)(gpu, &prepared.kernel, &p, &window.launch(local), defines)?;
    let at = format!(
        "on {ran} of the {of} work-groups of a problem past {past} on every side (a drawn one and the last in each direction, which no kernel can tell from the whole launch)"
    );
    let written = matrix::written_sample(&p, &out.c, CHECKED, secret);
    if written.is_empty() {
        verdict.failure = Some(Failure::new(
            FailKind::Unwritten,
            format!("{at}, {shape}: the kernel wrote no element of C. It is right at every smaller size checked: something in it has a bound this problem passes (an index or a count that overflows, a loop capped, a size tested)."),
        ));
        return Ok(());
    }
    let cmp = matrix::compare_sampled(&p, &out.c, &written);
    let judged = match super::judge::judge(shape, &out, &cmp, starter) {
        Some(f) => Err(f),
        None => Ok(()),
    };
    match super::traced(judged, &out, &format!("{shape}: ")) {
        Err(mut f) => {
            f.message = format!("{at}, {}", f.message);
            verdict.failure = Some(f);
        }
        Ok(()) => verdict.notes.push(format!(
            "also right {at}, {shape}: {} elements of what they wrote compared",
            written.len()
        )),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::exec::Launch;
    use crate::harness::matrix::Shape;

    /// Every element writes what the ids and counts it sees say of it, or -1 where they do
    /// not agree with a whole launch: run on a window, the groups it runs must see the
    /// groups they stand for, and the counts of the whole launch.
    const IDS: &str = "__kernel void matmul(const int M, const int N, const int K,
        const __global float* A, const __global float* B, __global float* C) {
    const size_t c = get_global_id(0), r = get_global_id(1);
    const bool ok = get_global_size(0) == get_num_groups(0) * get_local_size(0)
        && get_group_id(0) == c / get_local_size(0) && get_group_id(1) == r / get_local_size(1)
        && get_global_linear_id() == r * get_global_size(0) + c && get_global_offset(0) == 0;
    if (r < M && c < N) C[r * N + c] = ok ? (float)(get_num_groups(0) * 100 + get_num_groups(1)) : -1.0f;
}
";

    #[test]
    fn a_kernel_run_on_a_window_sees_the_whole_launch() {
        let gpu = Gpu::open(None).unwrap();
        let ocl = crate::ladder::get("04").ocl().unwrap();
        let shape = Shape::new(70, 90, 3);
        // 12 × 18 groups of 8 × 4.
        let window = Window {
            groups: [12, 18],
            drawn: [5, 9],
        };
        let file = Path::new("ids.cl");
        let built = groups::with_window(window, || Prepared::build(&gpu, ocl, file, IDS, &[], ""));
        let p = Problem::random(shape, 1);
        let out = exec_run(&gpu, &built.unwrap(), &p, &window.launch([8, 4]));
        let mut seen = 0;
        for (idx, &x) in out.iter().enumerate() {
            let (r, c) = (idx / 90, idx % 90);
            let inside = [9, 17].contains(&(r / 4)) && [5, 11].contains(&(c / 8));
            match inside {
                true => assert_eq!(x, 1218.0, "row {r}, column {c}"),
                false => assert!(p.poison.held(idx, x), "row {r}, column {c}: {x}"),
            }
            seen += usize::from(inside);
        }
        // Rows 68 and 69 and columns 88 and 89 end the last groups.
        assert_eq!(seen, (4 + 2) * (8 + 2));
        // Built without the window, the same kernel sees its own launch.
        let plain = Prepared::build(&gpu, ocl, file, IDS, &[], "").unwrap();
        let whole = Launch {
            global: [96, 72],
            local: Some([8, 4]),
        };
        assert!(exec_run(&gpu, &plain, &p, &whole)
            .iter()
            .all(|&x| x == 1218.0));
    }

    fn exec_run(gpu: &Gpu, k: &Prepared, p: &Problem, l: &Launch) -> Vec<f32> {
        crate::harness::exec::run_guarded(gpu, &k.kernel, p, l)
            .unwrap()
            .c
    }
}
