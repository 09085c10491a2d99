//! Which stage of the scheme made a result wrong. The host reads back what each kernel left
//! (exponents, residues, the products' residues) and checks it against the scheme's exact
//! integer arithmetic, each stage taking the previous stage's own output, so that only the
//! first wrong stage is named. The checks ask what any correct kernel must give (a bound that
//! holds, residues of the integers its own exponents make, exact products), never the course's
//! own choices. What it finds travels with the run's output (`RunOutput::found`) to the
//! judgement of C ([`lab::lesson::AccuracyFn`]), which names that stage before anything else.

use anyhow::{Context as _, Result};
use lab::harness::device::Gpu;
use lab::harness::matrix::Problem;
use opencl3::memory::Buffer;
use opencl3::types::CL_BLOCKING;

use super::host::{Between, Plan};
use super::unit::{log2_p, MODULI};

/// The largest problem whose stages are checked (multiply-adds of the residues' products on
/// the host): every shape the grader checks, not the sizes it times.
const MAX_CHECKED: usize = 1 << 28;

fn read<T: Clone + Default>(gpu: &Gpu, b: &Buffer<T>, len: usize, what: &str) -> Result<Vec<T>> {
    let mut out = vec![T::default(); len.max(1)];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut out, &[])
            .with_context(|| format!("reading {what} back"))?;
    }
    out.truncate(len);
    Ok(out)
}

/// The centred residue of the integer `x` modulo `p`: in [-(p-1)/2, (p-1)/2], [-128, 127] for
/// 256.
fn centred(x: f64, p: u32) -> i32 {
    let p = p as i64;
    let mut r = (x as i64).rem_euclid(p);
    if r > (p - 1) / 2 {
        r -= p;
    }
    r as i32
}

/// Whether `got` is the residue modulo `m` of 2^e·`value` made an integer by truncation (the
/// course's rule) or by rounding to nearest (as good, and better on wide-range inputs).
fn either(got: i8, value: f32, e: i32, m: u32) -> bool {
    let v = value as f64 * 2f64.powi(e);
    [v.trunc(), v.round(), v.round_ties_even()]
        .iter()
        .any(|&x| got as i32 == centred(x, m))
}

/// trunc(2^e·x), as the kernels compute it in double.
fn scaled(x: f32, e: i32) -> f64 {
    (x as f64 * 2f64.powi(e)).trunc()
}

/// Checks the stages of one multiplication of `p` whose result is `c`: the first wrong one,
/// in a message for the student (`RunOutput::found`, read by the judgement of `c`), or `None`.
/// Problems above [`MAX_CHECKED`] are left to the check of C alone.
pub fn check(
    gpu: &Gpu,
    b: &Between,
    plan: &Plan,
    p: &Problem,
    c: &[f32],
) -> Result<Option<String>> {
    let (s, nmod) = (plan.shape, plan.nmod);
    if nmod * plan.mp * plan.np * plan.kp > MAX_CHECKED || s.m * s.n * s.k == 0 {
        return Ok(None);
    }
    let e = read(gpu, &b.e, s.m, "A's exponents")?;
    let f = read(gpu, &b.f, s.n, "B's exponents")?;
    let ra = read(gpu, &b.ra, nmod * plan.mp * plan.kp, "A's residues")?;
    let rb = read(gpu, &b.rb, nmod * plan.np * plan.kp, "B's residues")?;
    let rc = read(gpu, &b.rc, nmod * plan.mp * plan.np, "the products' residues")?;
    Ok(judge(p, plan, &e, &f, &ra, &rb, &rc, c))
}

/// The first stage whose output is wrong, in a message for the student; `None` when every
/// stage is right.
#[allow(clippy::too_many_arguments)]
fn judge(
    p: &Problem,
    plan: &Plan,
    e: &[i32],
    f: &[i32],
    ra: &[i8],
    rb: &[i8],
    rc: &[u8],
    c: &[f32],
) -> Option<String> {
    let (s, nmod) = (plan.shape, plan.nmod);
    let lp = log2_p(nmod);
    let bits = (lp - 1.02) / 2.0;
    // A's and B's integers as the kernels' own exponents make them.
    let a = |i: usize, k: usize| scaled(p.a[i * s.k + k], e[i]);
    let bv = |k: usize, j: usize| scaled(p.b[k * s.n + j], f[j]);
    let norm = |v: &mut dyn Iterator<Item = f64>| v.map(|x| x * x).sum::<f64>().sqrt();
    let rows: Vec<f64> = (0..s.m).map(|i| norm(&mut (0..s.k).map(|k| a(i, k)))).collect();
    let cols: Vec<f64> = (0..s.n).map(|j| norm(&mut (0..s.k).map(|k| bv(k, j)))).collect();

    // 1. The scaling: no product of a scaled row and column may reach P/2 (Cauchy–Schwarz),
    // and a row or column scaled far below its bound has thrown its bits away.
    let (i, ni) = argmax(&rows);
    let (j, nj) = argmax(&cols);
    // A NaN or infinite norm (an exponent gone wild) is past the bound too.
    let within = (ni * nj).partial_cmp(&2f64.powf(lp - 1.0)) == Some(std::cmp::Ordering::Less);
    if !within {
        return Some(format!(
            "the scaling lets a product leave the range the moduli can tell apart: row {i} of A is scaled by 2^{} to ‖a'_i‖₂ = 2^{:.1} and column {j} of B by 2^{} to ‖b'_j‖₂ = 2^{:.1}, so |a'_i·b'_j| may reach 2^{:.1}, but {nmod} moduli tell apart only the integers in [-P/2, P/2), P = 2^{lp:.1}. A product past P/2 comes back from its residues as another integer, wrapped around by P.\nHint: with K = {} terms, a bound on each element is not enough (K of them add up): bound each row's and column's 2-norm by 2^L with 2L < log2 P − 1, as scale_bits does, so that by Cauchy–Schwarz |a'_i·b'_j| ≤ ‖a'_i‖·‖b'_j‖ < P/2 — too few moduli for this K otherwise.",
            e[i],
            ni.log2(),
            f[j],
            nj.log2(),
            (ni * nj).log2(),
            s.k
        ));
    }
    let weak = |norms: &[f64], what: &str, exps: &[i32]| {
        let (at, n) = norms
            .iter()
            .enumerate()
            .map(|(x, &n)| (x, n))
            .find(|&(_, n)| n < 2f64.powf(bits - 3.0))?;
        Some(format!(
            "the scaling throws bits away: {what} {at} is scaled by 2^{} to a 2-norm of {}, where {nmod} moduli leave room for 2^{bits:.1}. Truncating a value below 1 to an integer leaves 0: the integers carry only what the scaling lifted above 1.\nHint: scale each row of A by 2^e_i and each column of B by 2^f_j, the largest powers of two that keep the 2-norm within 2^L (scale_exponent), before truncating.",
            exps[at],
            if n == 0.0 { "0".to_string() } else { format!("2^{:.1}", n.log2()) }
        ))
    };
    let nonzero_a = |i: usize| (0..s.k).any(|k| p.a[i * s.k + k] != 0.0);
    let nonzero_b = |j: usize| (0..s.k).any(|k| p.b[k * s.n + j] != 0.0);
    let rows_kept: Vec<f64> = (0..s.m)
        .map(|i| if nonzero_a(i) { rows[i] } else { f64::MAX })
        .collect();
    let cols_kept: Vec<f64> = (0..s.n)
        .map(|j| if nonzero_b(j) { cols[j] } else { f64::MAX })
        .collect();
    if let Some(w) = weak(&rows_kept, "row of A", e).or_else(|| weak(&cols_kept, "column of B", f)) {
        return Some(w);
    }

    // 2. The residues of A and B: those of the integers the exponents make, centred into a
    // signed byte.
    let plane_a = plan.mp * plan.kp;
    let plane_b = plan.np * plan.kp;
    // Planes of zeros where the integers are not: the residues were never computed, or were
    // computed of values never scaled (on the grader's inputs, all below 1 in magnitude, an
    // unscaled value truncates to 0, so the two look the same).
    let zeros = |what: &str, plane: &[i8], want: &mut dyn Iterator<Item = f64>| {
        // Residues, not integers: a scaled integer may well be a multiple of 256.
        let nonzero = want.filter(|&x| centred(x, MODULI[0]) != 0).count();
        (nonzero > 0 && plane.iter().all(|&r| r == 0)).then(|| {
            format!(
                "{what}'s residue planes hold only zeros, where the integers trunc(2^e·x) leave {nonzero} residues other than 0 modulo 256: the scaling was skipped (truncate ldexp(x, e), not x: the truncation of a value below 1 is 0), or residue returns 0 for every x.\nHint: in residue (12.1), r = x − p·floor(x/p), brought into [0, p) and centred; and every value is scaled by its row's or column's power of two before it is truncated."
            )
        })
    };
    let first_a = &ra[..plane_a.min(ra.len())];
    let first_b = &rb[..plane_b.min(rb.len())];
    let mut ints_a = (0..s.m).flat_map(|i| (0..s.k).map(move |k| (i, k))).map(|(i, k)| a(i, k));
    let mut ints_b = (0..s.k).flat_map(|k| (0..s.n).map(move |j| (k, j))).map(|(k, j)| bv(k, j));
    if let Some(z) = zeros("A", first_a, &mut ints_a).or_else(|| zeros("B", first_b, &mut ints_b)) {
        return Some(z);
    }
    // The padding: zeros past the matrices, or the products add terms that are not A·B's.
    let past = |what: &str, plane: &[i8], rows: usize, inside: (usize, usize), stride: usize| {
        for t in 0..nmod {
            for r in 0..rows {
                for k in 0..plan.kp {
                    let got = plane[t * rows * stride + r * stride + k];
                    if got != 0 && (r >= inside.0 || k >= inside.1) {
                        return Some(format!(
                            "{what}'s residue plane modulo {} holds {got} at row {r}, k = {k}, past the matrix ({} rows, K = {}): the planes are padded to whole blocks with zeros, and a residue there adds a term to the products that is not one of A·B's.\nHint: a value outside the matrix is 0 (bounds on both the row and k before reading it), and so is its residue.",
                            MODULI[t], inside.0, inside.1
                        ));
                    }
                }
            }
        }
        None
    };
    if let Some(p) = past("A", ra, plan.mp, (s.m, s.k), plan.kp)
        .or_else(|| past("B", rb, plan.np, (s.n, s.k), plan.kp))
    {
        return Some(p);
    }
    for (t, &m) in MODULI[..nmod].iter().enumerate() {
        for i in 0..s.m {
            for k in 0..s.k {
                let got = ra[t * plane_a + i * plan.kp + k];
                let x = a(i, k);
                if !either(got, p.a[i * s.k + k], e[i], m) {
                    return Some(residue_wrong("A", (i, k), x, p.a[i * s.k + k], e[i], m, got));
                }
            }
        }
        for j in 0..s.n {
            for k in 0..s.k {
                let got = rb[t * plane_b + j * plan.kp + k];
                let x = bv(k, j);
                if !either(got, p.b[k * s.n + j], f[j], m) {
                    return Some(residue_wrong("B", (k, j), x, p.b[k * s.n + j], f[j], m, got));
                }
            }
        }
    }

    // 3. The products: each the exact product of its planes, mod p, in [0, p).
    let plane_c = plan.mp * plan.np;
    for (t, &m) in MODULI[..nmod].iter().enumerate() {
        for i in 0..s.m {
            for j in 0..s.n {
                let dot: i64 = (0..plan.kp)
                    .map(|k| {
                        ra[t * plane_a + i * plan.kp + k] as i64
                            * rb[t * plane_b + j * plan.kp + k] as i64
                    })
                    .sum();
                let want = dot.rem_euclid(m as i64);
                let got = rc[t * plane_c + i * plan.np + j];
                if got as i64 != want {
                    return Some(format!(
                        "the INT8 product modulo {m} is wrong at ({i}, {j}): it holds {got}, where the residue planes give {want}. The residues are right, so the product kernel (`products`: its staging of the tiles, its barriers, its fragments) is what went wrong.\nHint: every work-item must see a k-step's tiles whole before any reads them (a barrier after the copies), and no copy may overwrite a tile another work-item is still reading."
                    ));
                }
            }
        }
    }

    // 4. The reconstruction: C from the integer the products' residues stand for.
    let half = 2f64.powf(lp - 1.0);
    for i in 0..s.m {
        for j in 0..s.n {
            let x = crt(&MODULI[..nmod], |t| rc[t * plane_c + i * plan.np + j]);
            let want = (x as f64 * 2f64.powi(-(e[i] + f[j]))) as f32;
            let got = c[i * s.n + j];
            let scale = rows[i] * cols[j] * 2f64.powi(-(e[i] + f[j]));
            let off = (got as f64 - want as f64).abs();
            let allowed = 1e-6 * scale.max(want.abs() as f64) + f32::MIN_POSITIVE as f64;
            // NaN in C (or in the allowance) is wrong as well.
            if off.partial_cmp(&allowed) != Some(std::cmp::Ordering::Less)
                && off.partial_cmp(&allowed) != Some(std::cmp::Ordering::Equal)
            {
                let residues: Vec<String> = MODULI[..nmod]
                    .iter()
                    .enumerate()
                    .map(|(t, m)| format!("{} mod {m}", rc[t * plane_c + i * plan.np + j]))
                    .collect();
                return Some(format!(
                    "the reconstruction is wrong at C[{i}][{j}]: the products' residues ({}) are right and stand for the integer x = {x} (|x| < P/2 = 2^{:.1}), so C should hold 2^-(e_i+f_j)·x = 2^{}·x = {want:e}; it holds {got:e}.\nHint: Garner's digits: v_0 = r_0 centred, then v_k = ((r_k − v_0)·p_0⁻¹ − v_1)·p_1⁻¹ … mod p_k, each centred into [−(p_k−1)/2, (p_k−1)/2] (INVS[q·8+k] = p_q⁻¹ mod p_k); then x = v_0 + p_0·(v_1 + p_1·(v_2 + …)) by Horner in double, from the last digit inwards; then scale by 2^-(e_i+f_j).",
                    residues.join(", "),
                    half.log2(),
                    -(e[i] + f[j])
                ));
            }
        }
    }
    None
}

/// The integer in [-P/2, P/2) with residues `r(t)` modulo `moduli[t]` (P their product).
fn crt(moduli: &[u32], r: impl Fn(usize) -> u8) -> i128 {
    let big: i128 = moduli.iter().map(|&m| m as i128).product();
    let mut x: i128 = 0;
    let mut step: i128 = 1;
    for (t, &m) in moduli.iter().enumerate() {
        let m = m as i128;
        // The next digit: what x still lacks modulo m, over the product of the moduli so far.
        let lack = (r(t) as i128 - x).rem_euclid(m);
        let inv = (1..m).find(|&v| (step % m) * v % m == 1).unwrap_or(1);
        x += step * (lack * inv % m);
        step *= m;
    }
    if x >= big / 2 {
        x - big
    } else {
        x
    }
}

/// The index and value of the largest of `v` (0 and 0 for none).
fn argmax(v: &[f64]) -> (usize, f64) {
    v.iter()
        .enumerate()
        .fold((0, 0.0), |(bi, bv), (i, &x)| match x.partial_cmp(&bv) {
            // NaN counts as the largest: it is what the bound check must see.
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal) => (bi, bv),
            _ if bv.is_nan() => (bi, bv),
            _ => (i, x),
        })
}

/// The message for a wrong residue of `what`'s element `at` (row and column): `x` the integer
/// the exponent makes of `value`, `got` what the plane holds.
fn residue_wrong(
    what: &str,
    at: (usize, usize),
    x: f64,
    value: f32,
    exp: i32,
    m: u32,
    got: i8,
) -> String {
    let want = centred(x, m);
    let plain = (x as i64).rem_euclid(m as i64);
    let head = format!(
        "{what}'s residue modulo {m} is wrong at {what}[{}][{}] = {value:e}: the plane holds {got}, where trunc(2^{exp}·{value:e}) = {x} gives {want}",
        at.0, at.1
    );
    let unscaled = value.trunc() as f64;
    if x != unscaled && got as i32 == centred(unscaled, m) {
        return format!(
            "{head}; {got} is the residue of trunc({value:e}) = {unscaled}, the value unscaled.\nHint: the scaling was skipped: truncate 2^e·x (ldexp(x, e), e from the row's or column's exponent), not x itself, or every value below 1 becomes 0."
        );
    }
    if plain > 127 && got as i64 == plain - 256 {
        return format!(
            "{head}; {got} is {plain} (x mod {m} in [0, {m})) wrapped around in a signed byte: a char holds −128..127, so a residue above 127 overflows it.\nHint: centre the residue into [−(p−1)/2, (p−1)/2] (subtract p from one above (p−1)/2): it then fits a char, and the product of two stays small enough for the unit's 32-bit sums."
        );
    }
    format!(
        "{head}.\nHint: r = x − p·floor(x/p), brought into [0, p) (the quotient in double may be one off), then centred: r − p where r > (p−1)/2."
    )
}
