//! Turning a checked result into the message a student reads: the first wrong element, what
//! was expected and what came, and the likeliest cause. Every runner in the course judges
//! through here, so a failure reads the same wherever it was found.

use crate::harness::exec::{GuardReport, RunOutput};
use crate::harness::matrix::{Comparison, Shape};
use crate::harness::poison::Kind;

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
    // Every element still exactly as the grader left it, right by chance or not.
    if cmp.checked > 0 && cmp.untouched == cmp.checked {
        if let Some(hint) = starter {
            return Some(Failure::new(
                FailKind::NotStarted,
                format!("the code ran but wrote no element of C yet.\nHint: {hint}"),
            ));
        }
    }
    // NaN computed from a read past the end of A or B, whatever C held before the call.
    if let (true, Some((r, c))) = (out.nan_from_reads, cmp.first_nan) {
        if cmp.nans == cmp.checked {
            return Some(Failure::new(
                FailKind::Wrong,
                format!("{shape}: every element of C is NaN, and the NaN came from reading, not from a missing store: the grader fills memory past the end of A and B with NaN. Some read of A or B goes past its end: check the row strides (K for A, N for B) and the bounds of every load."),
            ));
        }
        return Some(Failure::new(
            FailKind::Wrong,
            format!(
                "{shape}: element (row {r}, column {c}) is NaN, read from past the end of A or B (the grader fills that memory with NaN; this element was written, with a NaN it computed, so the NaN came from reading). {} of {} elements are NaN. Check the bounds of every load of A and B, and the row strides (K for A, N for B).",
                cmp.nans, cmp.checked
            ),
        ));
    }
    // Every element still exactly as the grader left it, right by chance or not.
    if cmp.checked > 0 && cmp.untouched == cmp.checked {
        return Some(Failure::new(
            FailKind::Unwritten,
            never_written(shape, cmp.poison),
        ));
    }
    let held = before(cmp.poison);
    // Only where the wrong elements that hold the old value are more than chance: a kernel
    // wrong everywhere meets a numeric poison's value now and then.
    if let (Some((r, c)), true) = (cmp.first_unwritten, cmp.unwritten_beyond_chance()) {
        return Some(Failure::new(
            FailKind::Unwritten,
            format!(
                "{shape}: element (row {r}, column {c}) was never written: it still holds the value C held there before the call ({held}); {} of {} elements were not written. {}{}",
                cmp.unwritten,
                cmp.checked,
                coverage_hint(shape, r, c),
                OVERWRITE
            ),
        ));
    }
    if let Some(bad) = &cmp.first_wrong {
        if cmp.added > 0 && cmp.added == cmp.wrong {
            return Some(Failure::new(
                FailKind::Unwritten,
                format!(
                    "{shape}: C is wrong at row {}, column {}: got {:.6}, which is the value C held there before the call ({held}) plus the right product {:.6}. The code adds into C without clearing it first.{OVERWRITE}",
                    bad.row, bad.col, bad.got, bad.expected
                ),
            ));
        }
        let mut message = format!(
            "{shape}: C is wrong at row {}, column {}: expected {:.6}, got {:.6} (allowed error {:.2e}).\n{} of {} elements are wrong; max relative error {:.2e}.",
            bad.row, bad.col, bad.expected, bad.got, bad.allowed, cmp.wrong, cmp.checked, cmp.max_rel_err
        );
        // Every wrong element only just past its allowance, and C as a whole far from FP32:
        // the few that miss are the tail of a product made in lower precision, which is what
        // to fix (whether any element misses at all is chance, from one draw to the next).
        if cmp.worst_miss <= NEAR_MISS {
            if let Some(why) = imprecise(shape, cmp) {
                message.push_str(&format!(
                    " Each of them misses by at most {:.1} times its allowance, and {}",
                    cmp.worst_miss,
                    why.message
                        .split_once("but ")
                        .map_or(why.message.as_str(), |(_, rest)| rest)
                ));
            }
        }
        return Some(Failure::new(FailKind::Wrong, message));
    }
    imprecise(shape, cmp)
}

/// How far past its allowance (in units of it) a wrong element may lie for C's imprecision as
/// a whole to be named beside it: lower precision makes the few elements that miss miss by
/// little, a wrong index or a missing term by far more.
const NEAR_MISS: f64 = 4.0;

/// What a message says C held before the call.
fn before(kind: Kind) -> String {
    format!("the grader had filled C with {} before it", kind.words())
}

/// Said wherever C was not overwritten.
const OVERWRITE: &str = " C is the output, overwritten by every call: before each call the grader fills it with NaN, random numbers or an earlier result, drawn anew each time, so write every element of it, and never read it, skip it or add into it.";

/// C left exactly as it was before the call, or added into while it held NaN.
fn never_written(shape: Shape, kind: Kind) -> String {
    let held = before(kind);
    if kind == Kind::Nan {
        format!("{shape}: the code never wrote C: every element still holds the value it had before the call, NaN ({held}). Is the store to C missing, or guarded by a condition that is never true? Or does the code add into C without clearing it first (NaN plus anything is NaN)?{OVERWRITE}")
    } else {
        format!("{shape}: the code never wrote C: every element still holds the value it had before the call ({held}). Does the code skip work when C already holds numbers, or is the store to C missing, or guarded by a condition on C?{OVERWRITE}")
    }
}

/// From this K on, and over at least this many elements, C's error as a whole is compared
/// with plain FP32's: enough products for rounding errors to add up the same way in any
/// order of summation, and enough elements for a root mean square to be steady (lessons 11
/// and 12 judge their stricter "FP32's or better" over as many).
const PRECISION_FROM_K: usize = 64;
pub const PRECISION_FROM_ELEMENTS: usize = 64;

/// How many times plain FP32's error C's may be over the elements checked. Sums in another
/// order (tiles, vector lanes, fused multiply-adds, an error-compensated split) land within
/// about twice of it either way; one product in half precision or TF32 (10 bits of mantissa
/// where FP32 has 23) is hundreds of times off, though each element stays inside the
/// worst-case rounding allowance of an FP32 sum.
const PRECISION_FACTOR: f64 = 8.0;

/// A C inside every element's allowance whose error as a whole is not FP32's.
fn imprecise(shape: Shape, cmp: &Comparison) -> Option<Failure> {
    if shape.k < PRECISION_FROM_K || cmp.checked < PRECISION_FROM_ELEMENTS {
        return None;
    }
    let ratio = cmp.error_over_fp32()?;
    if ratio <= PRECISION_FACTOR {
        return None;
    }
    let n = cmp.checked as f64;
    Some(Failure::new(
        FailKind::Wrong,
        format!(
            "{shape}: every element is within its rounding allowance, but C as a whole is {ratio:.0} times less precise than FP32: its error is {:.2e} of each element's scale Σ|a·b| on average (root mean square over {} elements) where one float multiply-add after another gives {:.2e} on the same inputs. Lower precision somewhere (half, TF32, inputs or products rounded to fewer bits) is not an FP32 product; compute every multiply-add in float.",
            (cmp.sq_err / n).sqrt(),
            cmp.checked,
            (cmp.sq_err_fp32 / n).sqrt()
        ),
    ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::matrix::{compare, reference, Problem};

    /// C of `p` with each product's inputs passed through `round`, summed in f32 in blocks of
    /// eight (another order than plain FP32's).
    fn product(p: &Problem, round: impl Fn(f32) -> f32) -> Vec<f32> {
        let Shape { m, n, k } = p.shape;
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut total = 0.0f32;
                for block in (0..k).step_by(8) {
                    let mut part = 0.0f32;
                    for kk in block..(block + 8).min(k) {
                        part += round(p.a[i * k + kk]) * round(p.b[kk * n + j]);
                    }
                    total += part;
                }
                c[i * n + j] = total;
            }
        }
        c
    }

    /// A float rounded to `bits` bits of mantissa (half and TF32 keep 10).
    fn to_bits(x: f32, bits: u32) -> f32 {
        let drop = 23 - bits;
        let half = 1u32 << (drop - 1);
        f32::from_bits((x.to_bits() + half) & !((1u32 << drop) - 1))
    }

    fn judged(p: &Problem, c: Vec<f32>) -> Option<Failure> {
        let cmp = compare(p.shape, &c, &reference(p), &p.poison);
        judge(p.shape, &RunOutput::plain(c, 1.0), &cmp, None)
    }

    #[test]
    fn fp32_in_another_order_passes_and_fewer_bits_of_mantissa_do_not() {
        let p = Problem::random(Shape::new(40, 36, 700), 11);
        assert!(judged(&p, product(&p, |x| x)).is_none());
        let exact: Vec<f32> = reference(&p).c.iter().map(|&x| x as f32).collect();
        assert!(
            judged(&p, exact).is_none(),
            "more precise than FP32 is fine"
        );
        // Thirteen bits: every element inside its allowance, and still not FP32.
        let cmp = compare(
            p.shape,
            &product(&p, |x| to_bits(x, 13)),
            &reference(&p),
            &p.poison,
        );
        assert!(cmp.passed(), "each element within its allowance: {cmp:?}");
        let f = judged(&p, product(&p, |x| to_bits(x, 13))).expect("13 bits are not FP32");
        assert_eq!(f.kind, FailKind::Wrong);
        assert!(
            f.message.contains("less precise than FP32"),
            "{}",
            f.message
        );
        let f = judged(&p, product(&p, |x| to_bits(x, 10))).expect("ten bits are not FP32");
        assert_eq!(f.kind, FailKind::Wrong);
    }

    /// Lower precision that happens to push an element just past its allowance is named as
    /// lower precision too, whichever element misses; a wrong term is not.
    #[test]
    fn a_near_miss_of_lower_precision_names_the_precision() {
        let p = Problem::random(Shape::new(40, 36, 700), 11);
        let r = reference(&p);
        let mut c = product(&p, |x| to_bits(x, 13));
        // Pushed just past its allowance, as the tail of the imprecise sum does by chance.
        let (exact, scale) = (r.c[5], r.scale[5]);
        let allowed = crate::harness::matrix::tolerance(p.shape.k, scale);
        c[5] = (exact + 1.5 * allowed) as f32;
        let f = judged(&p, c.clone()).expect("an element past its allowance");
        assert_eq!(f.kind, FailKind::Wrong);
        for words in [
            "C is wrong at row 0, column 5",
            "less precise than FP32",
            "in float",
        ] {
            assert!(f.message.contains(words), "{words}: {}", f.message);
        }
        // A wrong index or a term left out misses by far more: only the element is named.
        c[5] = (exact + 100.0 * allowed) as f32;
        let f = judged(&p, c).expect("a wrong element");
        assert!(
            f.message.contains("C is wrong at row 0, column 5"),
            "{}",
            f.message
        );
        assert!(!f.message.contains("less precise"), "{}", f.message);
    }

    #[test]
    fn small_k_is_not_judged_as_a_whole() {
        let p = Problem::random(Shape::new(40, 36, 16), 12);
        let c = product(&p, |x| to_bits(x, 10));
        let cmp = compare(p.shape, &c, &reference(&p), &p.poison);
        if cmp.passed() {
            assert!(judged(&p, c).is_none());
        }
    }

    /// C left as it was, or added into, reads as not written whatever C held before the call,
    /// and says so.
    #[test]
    fn c_kept_or_added_into_is_named_whatever_the_poison() {
        use crate::harness::poison::{Kind, Poison};
        let mut p = Problem::random(Shape::new(12, 10, 70), 13);
        let r = reference(&p);
        for kind in [Kind::Random, Kind::Earlier] {
            let before: Vec<f32> = crate::harness::matrix::random(120, 21);
            p.poison = Poison::from_values(kind, before.clone());
            let kept = judged_with(&p, before.clone()).expect("C left as it was");
            assert_eq!(kept.kind, FailKind::Unwritten);
            assert!(
                kept.message.contains("never wrote C")
                    && kept.message.contains(kind.words())
                    && kept
                        .message
                        .contains("NaN, random numbers or an earlier result"),
                "{}",
                kept.message
            );
            let added: Vec<f32> =
                r.c.iter()
                    .zip(&before)
                    .map(|(x, b)| *x as f32 + b)
                    .collect();
            let f = judged_with(&p, added).expect("C added into");
            assert_eq!(f.kind, FailKind::Unwritten);
            assert!(
                f.message.contains("without clearing it first"),
                "{}",
                f.message
            );
        }
        p = p.with_nan();
        let f = judged_with(&p, vec![f32::NAN; 120]).expect("C left NaN");
        assert_eq!(f.kind, FailKind::Unwritten);
        assert!(
            f.message.contains("without clearing it first"),
            "{}",
            f.message
        );
    }

    /// A C wrong everywhere that holds the poison's value in one element by chance is wrong,
    /// not unwritten; one right but for a row never written is unwritten, and says where.
    #[test]
    fn one_element_equal_to_the_poison_by_chance_is_not_a_missing_store() {
        use crate::harness::poison::{Kind, Poison};
        let mut p = Problem::random(Shape::new(40, 30, 50), 14);
        let right: Vec<f32> = reference(&p).c.iter().map(|&x| x as f32).collect();
        let before: Vec<f32> = crate::harness::matrix::random(1200, 22);
        p.poison = Poison::from_values(Kind::Random, before.clone());
        let mut wrong: Vec<f32> = right.iter().map(|x| x * 1.5 + 0.25).collect();
        wrong[617] = before[617];
        let f = judged_with(&p, wrong).expect("wrong everywhere");
        assert_eq!(f.kind, FailKind::Wrong, "{}", f.message);
        let mut row_left = right.clone();
        row_left[30 * 7..30 * 8].copy_from_slice(&before[30 * 7..30 * 8]);
        let f = judged_with(&p, row_left).expect("a row never written");
        assert_eq!(f.kind, FailKind::Unwritten);
        assert!(
            f.message.contains("(row 7, column 0) was never written"),
            "{}",
            f.message
        );
    }

    fn judged_with(p: &Problem, c: Vec<f32>) -> Option<Failure> {
        let cmp = compare(p.shape, &c, &reference(p), &p.poison);
        judge(p.shape, &RunOutput::plain(c, 1.0), &cmp, None)
    }
}
