//! What makes the simulator's look at a kernel worth believing: the kernel cannot tell the
//! simulator from the device by where the runtime put its memory, or by what C held before
//! it ran ([`refuse_reads`]), and
//! cannot skip the simulator's checks by failing there, where the lesson's own answer runs
//! ([`instrument_failed`]; the answer is run by `simulate::answer_runs`). A check the kernel
//! makes impossible is the kernel's failure; only a check the machine cannot make is left
//! unchecked.

use std::path::Path;

use crate::harness::oclgrind::addresses::{Place, Reading};
use crate::harness::paths;

use super::{FailKind, Failure, Verdict};

/// Refuses in `v` a kernel whose program reads what is not its input at `places` (the
/// address reader's and the leftovers watch's, over every look): a pointer's value (not
/// self-contained), or what a buffer it writes held before it wrote it (an uninitialised
/// value, as the sanitizer names the same read in its small launches); with the lines of the
/// kernel's own `text` (the simulator's `input.cl`) shown. True where it did. A kernel the
/// device run already saw write into an input keeps that verdict, whose words say it plainly
/// (the watch saw its reads of the input come before the write); another failure of the
/// device run is added to the message.
pub(super) fn refuse_reads(v: &mut Verdict, places: &[&Place], file: &Path, text: &str) -> bool {
    let own = |what: Reading| -> (Vec<u32>, bool) {
        let mut lines: Vec<u32> = (places.iter())
            .filter(|p| p.what == what && p.file == "input.cl" && p.line > 0)
            .map(|p| p.line)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        // A work-group's copy has no place of its own.
        let copy = (places.iter()).any(|p| p.what == what && p.file.is_empty() && p.line == 0);
        (lines, copy)
    };
    let mut parts = Vec::new();
    let (pointers, _) = own(Reading::Pointer);
    if !pointers.is_empty() {
        parts.push(format!(
            "{} reads where the OpenCL runtime put memory ({}): a pointer converted to an integer, stored where it can be read back as one (a private slot that held a pointer read back as a number), moved by arithmetic from one buffer to another, or compared with another buffer's where only their placement decides (in order, or a pointer past its array's start for equality). The simulator, which checks your kernel, and the device, which times it, put buffers at different addresses, so a kernel that reads them can show each a different code. Compute offsets from indices, not from pointers' values or distances.",
            paths::display(file),
            source_lines(text, &pointers).join("; ")
        ));
    }
    let (unwritten, copy) = own(Reading::Unwritten);
    if !unwritten.is_empty() || copy {
        let mut shown = source_lines(text, &unwritten);
        if copy {
            shown.push("a work-group's copy into local memory".to_string());
        }
        parts.push(format!(
            "{} reads a buffer it writes where it has not written yet ({}): C read before the kernel wrote it holds what the grader left there, values that change from run to run, not an input. A kernel that reads it, to see whether it ran before or to count work-groups by atomics on it, behaves one way under the simulator, which runs only a few work-groups of a large launch, and another on the device. Write an element of C before you read it, and only read A and B.",
            paths::display(file),
            shown.join("; ")
        ));
    }
    if parts.is_empty() {
        return false;
    }
    let kind = match pointers.is_empty() {
        true => FailKind::Uninitialized,
        false => FailKind::NotSelfContained,
    };
    let input_written = matches!(&v.failure, Some(old) if old.kind == FailKind::InputsChanged);
    if !(input_written && kind == FailKind::Uninitialized) {
        replace_device_failure(v, Failure::new(kind, parts.join(" ")));
    }
    true
}

/// Makes the simulator's failure `f` the verdict of `v`, with the device run's own failure,
/// where it had one, added to its message.
pub(super) fn replace_device_failure(v: &mut Verdict, mut f: Failure) {
    if let Some(old) = &v.failure {
        f.message.push_str(&format!(
            "\n\n(The grader's run on the device also failed: {})",
            super::words::failure_text(old)
        ));
    }
    v.failure = Some(f);
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
