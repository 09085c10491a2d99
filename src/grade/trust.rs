//! What makes the simulator's look at a kernel worth believing: the kernel cannot tell the
//! simulator from the device by where the runtime put its memory ([`reads_pointers`]), and
//! cannot skip the simulator's checks by failing there, where the lesson's own answer runs
//! ([`instrument_failed`]; the answer is run by `simulate::answer_runs`). A check the kernel
//! makes impossible is the kernel's failure; only a check the machine cannot make is left
//! unchecked.

use std::path::Path;

use crate::harness::oclgrind::addresses::Place;
use crate::harness::paths;

use super::{FailKind, Failure};

/// The failure of a kernel whose program reads a pointer's value at `places` (the address
/// reader's, over every look), with the lines of the kernel's own `text` shown; `None` where
/// it reads none. The kernel's text is the simulator's `input.cl`.
pub(super) fn reads_pointers(places: &[&Place], file: &Path, text: &str) -> Option<Failure> {
    let mut lines: Vec<u32> = (places.iter())
        .filter(|p| p.file == "input.cl" && p.line > 0)
        .map(|p| p.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    if lines.is_empty() {
        return None;
    }
    let shown = source_lines(text, &lines);
    Some(Failure::new(
        FailKind::NotSelfContained,
        format!(
            "{} reads where the OpenCL runtime put memory ({}): a pointer converted to an integer, stored where it can be read back as one, moved by arithmetic from one buffer to another, or compared with another buffer's where only their placement decides (in order, or a pointer past its array's start for equality). The simulator, which checks your kernel, and the device, which times it, put buffers at different addresses, so a kernel that reads them can show each a different code. Compute offsets from indices, not from pointers' values or distances.",
            paths::display(file),
            shown.join("; ")
        ),
    ))
}

/// The first three of `lines` (from 1) of the kernel's own `text`, each quoted:
/// ``line 14: `acc += A[k]` ``.
pub(super) fn source_lines(text: &str, lines: &[u32]) -> Vec<String> {
    (lines.iter().take(3))
        .map(|&l| {
            let code = text.lines().nth(l as usize - 1).unwrap_or("").trim();
            format!("line {l}: `{code}`")
        })
        .collect()
}

/// The failure of a kernel that the simulator could not run (`why`) at `at` (a probe as a
/// message describes it), where the
/// lesson's answer ran in `answer_s` seconds: stopped by the watchdog, or stopped by the
/// simulator.
pub(super) fn instrument_failed(killed: bool, why: &str, at: &str, answer_s: f64) -> Failure {
    let kind = if killed {
        FailKind::Hang
    } else {
        FailKind::Runtime
    };
    Failure::new(
        kind,
        format!(
            "your kernel ran on the device, but under the OpenCL simulator {why} at {at}, where the lesson's answer runs in {answer_s:.1} s. The grader checks every kernel there (races, reads out of bounds, the lesson's technique), so a kernel it cannot run there fails rather than pass unchecked. Look for a loop that runs long only there: the sanitizer builds your kernel unoptimised, so a loop an optimising compiler works out before the kernel starts runs there in full; the simulator runs work-groups one after another, so a work-group that waits for another never ends there."
        ),
    )
}
