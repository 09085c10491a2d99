//! Turning a checked result into the message a student reads: the first wrong element, what
//! was expected and what came, and the likeliest cause. Every runner in the course judges
//! through here, so a failure reads the same wherever it was found.

use crate::harness::exec::{GuardReport, RunOutput};
use crate::harness::matrix::{Comparison, Shape};

use super::{FailKind, Failure};

/// Row and column of a row-major index into a matrix with `cols` columns, as text.
fn at(idx: usize, cols: usize) -> String {
    format!("row {}, column {}", idx / cols.max(1), idx % cols.max(1))
}

/// Turns one run's output into a failure, or none. `starter` is the lesson's hint when the
/// file still has its TODO markers, so that a result with nothing written reads as "not
/// started".
pub fn judge(
    shape: Shape,
    out: &RunOutput,
    cmp: &Comparison,
    starter: Option<&str>,
) -> Option<Failure> {
    let Shape { n, k, .. } = shape;
    if !out.guard.clean() {
        return Some(Failure::new(
            FailKind::OutOfBounds,
            out_of_bounds(shape, &out.guard),
        ));
    }
    if let Some(i) = out.a_changed {
        return Some(Failure::new(
            FailKind::InputsChanged,
            format!("{shape}: the kernel wrote into A (first change at {}). A and B are inputs: only read them.", at(i, k)),
        ));
    }
    if let Some(i) = out.b_changed {
        return Some(Failure::new(
            FailKind::InputsChanged,
            format!("{shape}: the kernel wrote into B (first change at {}). A and B are inputs: only read them.", at(i, n)),
        ));
    }
    if cmp.checked > 0 && cmp.unwritten == cmp.checked {
        if let Some(hint) = starter {
            return Some(Failure::new(
                FailKind::NotStarted,
                format!("the code ran but wrote no element of C yet.\nHint: {hint}"),
            ));
        }
        if out.nan_from_reads {
            return Some(Failure::new(
                FailKind::Wrong,
                format!("{shape}: every element of C is NaN, and the NaN came from reading, not from a missing store: the grader fills memory past the end of A and B with NaN. Some read of A or B goes past its end: check the row strides (K for A, N for B) and the bounds of every load."),
            ));
        }
        return Some(Failure::new(
            FailKind::Unwritten,
            format!("{shape}: the code never wrote C: every element is still NaN, as the grader left it. Is the store to C missing, or guarded by a condition that is never true? Or does the code add into C without clearing it first (NaN plus anything is NaN)?"),
        ));
    }
    if let Some((r, c)) = cmp.first_unwritten {
        if out.nan_from_reads {
            return Some(Failure::new(
                FailKind::Wrong,
                format!(
                    "{shape}: element (row {r}, column {c}) is NaN, read from past the end of A or B (the grader fills that memory with NaN; this element was written, with a NaN it computed). {} of {} elements are NaN. Check the bounds of every load of A and B, and the row strides (K for A, N for B).",
                    cmp.unwritten, cmp.checked
                ),
            ));
        }
        return Some(Failure::new(
            FailKind::Unwritten,
            format!(
                "{shape}: element (row {r}, column {c}) was never written (still NaN); {} of {} elements were not written. {}",
                cmp.unwritten,
                cmp.checked,
                coverage_hint(shape, r, c)
            ),
        ));
    }
    if let Some(bad) = &cmp.first_wrong {
        return Some(Failure::new(
            FailKind::Wrong,
            format!(
                "{shape}: C is wrong at row {}, column {}: expected {:.6}, got {:.6} (allowed error {:.2e}).\n{} of {} elements are wrong; max relative error {:.2e}.",
                bad.row, bad.col, bad.expected, bad.got, bad.allowed, cmp.wrong, cmp.checked, cmp.max_rel_err
            ),
        ));
    }
    None
}

fn coverage_hint(shape: Shape, r: usize, c: usize) -> String {
    let mut hint = if r + 1 == shape.m || c + 1 == shape.n || r > 0 || c > 0 {
        "Does the launch cover every row and column, including a last partial tile?".to_string()
    } else {
        String::new()
    };
    // Everything before this element was written: where it is 65 536 or more elements in,
    // the usual cause is an index that wraps, not a launch that stops short.
    let at = r * shape.n + c;
    if at >= 1 << 16 {
        hint.push_str(&format!(
            " Every element checked before it (element {at} in row-major order) was written: if that is near a power of two such as 65 536 floats, or 65 536 float4 vectors (262 144 floats), an index kept in 16 bits (`ushort` or `short`) wraps there. Keep indices in `int`."
        ));
    }
    hint
}

fn out_of_bounds(shape: Shape, g: &GuardReport) -> String {
    let Shape { m, n, .. } = shape;
    let d = g.nearest_after.unwrap_or(0);
    let idx = m * n + d;
    format!(
        "{shape}: the kernel wrote outside C: {} element(s) after the end of C; the nearest is {d} past the end, where row {}, column {} would be. Check that every store to C is inside 0 ≤ row < M and 0 ≤ column < N, and that the row stride is N.",
        g.after,
        idx / n.max(1),
        idx % n.max(1)
    )
}
