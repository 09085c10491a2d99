//! The matrix unit as the host provides it: the instruction on NVIDIA GPUs that have it, the
//! OpenCL C model everywhere else; and what the grader asks of a kernel's accuracy beyond the
//! per-element allowance: that it be at least FP32's.

use lab::harness::device::Gpu;
use lab::harness::exec::RunOutput;
use lab::harness::matrix::{self, Problem};
use lab::lesson::Prelude;

/// The unit's source, both paths (chosen by MMA_PTX).
pub const MMA_CL: &str = include_str!("mma.cl");

/// Whether the device computes in doubles (`cl_khr_fp64`), as the model's `#ifdef` sees it.
fn has_doubles(gpu: &Gpu) -> bool {
    gpu.device
        .extensions()
        .is_ok_and(|e| e.split_whitespace().any(|x| x == "cl_khr_fp64"))
}

/// The unit for this device, and the line every report shows about it.
pub fn prelude(gpu: &Gpu) -> Prelude {
    match gpu.tensor_cores() {
        Some((major, minor)) => Prelude {
            // `cvt.rn.tf32.f32` is PTX for compute capability 9.0 and newer.
            source: format!(
                "#define MMA_PTX 1\n#define TF32_CVT {}\n{MMA_CL}",
                u32::from(major >= 9)
            ),
            note: format!(
                "matrix unit: the tensor cores' mma.sync (compute capability {major}.{minor}), async copies by cp.async"
            ),
            speed_unchecked: None,
            products_scaled: false,
        },
        None => {
            // The model truncates its sum from a double; without doubles it can only round.
            let sum = if has_doubles(gpu) {
                "TF32 rounding and truncating sum as the tensor cores"
            } else {
                "TF32 rounding as the tensor cores, but the sum rounded to nearest where they truncate it: this device has no doubles"
            };
            Prelude {
                source: format!(
                    "#define MMA_PTX 0\n#define TF32_CVT 0\n{}{MMA_CL}",
                    lab::harness::unit_scale::define()
                ),
                note: format!(
                    "matrix unit: emulated in OpenCL C on {} (same fragments, {sum}; no tensor cores here), copies done at once",
                    gpu.info.name
                ),
                // FP32 on this device's own lanes is many times faster than the modelled unit,
                // so a fast time here can only mean the unit was avoided.
                speed_unchecked: Some(format!(
                    "not ranked by speed: {} has no matrix unit, and the model's speed says nothing about the unit's (plain FP32 on its lanes would beat it); the speed is shown, not compared",
                    gpu.info.name
                )),
                products_scaled: true,
            }
        }
    }
}

/// The unit as the sanitizer's drawn run takes it ([`lab::lesson::Host::unordered`]): the
/// prelude of [`prelude`] with the model's call replaced by one that waits for nobody. Each
/// lane mixes its own fragments into its four values (every input reaches the output, so an
/// uninitialised one is still seen); they are not the product, and that run's C is not read.
/// The tensor cores order a warp's 32 lanes at each call and nothing more; the model, which
/// exchanges fragments through local memory, waits for the whole work-group, and so orders
/// every warp's reads of a k-step's tiles before any warp's copies of the next one.
pub fn unordered(gpu: &Gpu) -> Prelude {
    let file = "lessons/11_matrix_units/mma.cl";
    prelude(gpu).unordered(MMA_CL, file, MODEL_CALL, MODEL_END, UNORDERED_CALL)
}

/// Where the model's call begins and where its anchor ends, in `mma.cl`.
const MODEL_CALL: &str =
    "inline float4 mma_tf32(float4 a, float2 b, float4 c, __local float* scratch) {\n    const uint lane";
const MODEL_END: &str = "// ANCHOR_END: model";

/// The call that waits for nobody.
const UNORDERED_CALL: &str = "inline float4 mma_tf32(float4 a, float2 b, float4 c, __local float* scratch) {
    const float4 x = (float4)(mma_input(a.x), mma_input(a.y), mma_input(a.z), mma_input(a.w));
    const float2 y = (float2)(mma_input(b.x), mma_input(b.y));
    const float s = x.x * y.x + x.z * y.y, t = x.y * y.x + x.w * y.y;
    return c + (float4)(s, s, t, t) * __LAB_UNIT_SCALE;
}
";

/// A run's C divided by the modelled unit's scale ([`lab::harness::unit_scale`]) where this
/// device's unit is the model, as every build's prelude there scales its products; with the
/// reason in `out.technique` where C as the kernel left it was the product itself: made by
/// something other than the unit.
pub fn unscaled(gpu: &Gpu, p: &Problem, mut out: RunOutput) -> RunOutput {
    if gpu.tensor_cores().is_some() {
        return out;
    }
    if let Some((i, j, v)) = lab::harness::unit_scale::unscale(p, &mut out) {
        out.technique = Some(format!(
            "your C does not come from the matrix unit. The model of the unit multiplies everything it returns by a power of two your kernel cannot know, the same in every run, and the host divides C by it at the end, so C made of the unit's results comes out as the product; C[{i}][{j}] came out {v} before that division: the product itself, made elsewhere. Calls of the unit whose results never reach C (on zeros, or dropped) do its work for show.\nHint: every product of A and B goes through mma_tf32, three per 16×8 tile and k-step of 8 (big·small, small·big, big·big), and what the last returns is added into acc."
        ));
    }
    out
}

/// From this K on, FP32's own rounding error is well above the split's (whose error does not
/// grow with K), so "at least as accurate as FP32" is a fair test; below it the split's
/// 2⁻²² per product can exceed a short FP32 sum's.
pub const ACCURACY_FROM_K: usize = 1024;

/// Beyond this many multiply-adds the host's FP32 loop would slow grading down.
const MAX_MADS: usize = 1 << 28;

/// Relative errors of a result against the f64 product, and of a plain FP32 loop (one float
/// multiply-add after another along K) on the same inputs: ‖C − exact‖ / ‖exact‖ (Frobenius).
pub fn errors(p: &Problem, c: &[f32]) -> (f64, f64) {
    let s = p.shape;
    let reference = matrix::reference(p);
    let (mut num, mut num32, mut den) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..s.m {
        for j in 0..s.n {
            let mut acc = 0.0f32;
            for k in 0..s.k {
                acc += p.a[i * s.k + k] * p.b[k * s.n + j];
            }
            let e = reference.c[i * s.n + j];
            // Each element in units of its own scale, Σ|a·b|: rows of A and columns of B
            // scaled by powers of two (the grader's wide-range inputs) change no term, so the
            // measure is that of the unscaled product and no handful of large elements
            // decides it alone.
            let w = 1.0 / reference.scale[i * s.n + j].max(f64::MIN_POSITIVE);
            num += ((c[i * s.n + j] as f64 - e) * w).powi(2);
            num32 += ((acc as f64 - e) * w).powi(2);
            den += (e * w).powi(2);
        }
    }
    let den = den.sqrt().max(f64::MIN_POSITIVE);
    (num.sqrt() / den, num32.sqrt() / den)
}

/// Above this relative error a result is a wrong product, not a rounding matter.
const ROUNDING_AT_MOST: f64 = 1.0 / 256.0;

/// TF32's unit roundoff, 2⁻¹¹: one TF32 product per multiply-add errs about this much.
const TF32_U: f64 = 1.0 / 2048.0;

/// Lesson 11's judgement of accuracy (see [`lab::lesson::AccuracyFn`]).
pub fn accuracy(p: &Problem, c: &[f32], failed: bool) -> Option<String> {
    let s = p.shape;
    // Over fewer elements than every lesson's comparison with FP32 takes, "at least as
    // accurate" is a coin with too few tosses: with four (a 2×2 C at K = 1327) the right split
    // came out less accurate than the FP32 loop in 7 % of random problems (0.3 % with 16, none
    // of 300 with 64, whose largest ratio was 0.64: a simulation of the unit's rounding, TF32
    // splits summed toward zero in steps of eight, against a float loop). A kernel that sums
    // inside the unit errs 13–35× FP32's at every shape, so larger shapes still find it.
    let judged = s.k >= ACCURACY_FROM_K && s.m * s.n >= lab::grade::PRECISION_FROM_ELEMENTS;
    if (!failed && !judged) || s.m * s.n * s.k > MAX_MADS {
        return None;
    }
    let (e, e32) = errors(p, c);
    if !e.is_finite() || e > ROUNDING_AT_MOST || e <= e32 {
        return None;
    }
    let what = format!(
        "C's error against the exact product is {e:.2e} (‖C − exact‖/‖exact‖, each element in units of its scale Σ|a·b|); FP32 on the same inputs, one float multiply-add after another, gives {e32:.2e}, {:.0}× less. Lesson 11 asks for FP32's accuracy or better.",
        e / e32.max(f64::MIN_POSITIVE)
    );
    let why = if e > TF32_U / 5.0 {
        "An error near 2⁻¹¹ ≈ 4.9e-4 of the values is what one TF32 product per multiply-add gives: TF32 keeps 10 bits of mantissa where FP32 keeps 23, so each product through the unit is rounded to about 3 decimal digits.\nHint: split each value x into big = tf32_round(x) and small = tf32_round(x − big), and send three products through the unit: big·big, big·small and small·big (small·small is below FP32's rounding)."
    } else {
        "The split is there, but an error this size means the sum is kept inside the unit: the unit truncates its result to FP32 (it rounds toward zero), so an accumulator passed back into mma_tf32 step after step drifts toward zero by up to one unit in the last place per call, and these errors add up instead of cancelling.\nHint: start each k-step's products from zero (the small products first, then big·big, all inside the unit), and add the step's result into an FP32 accumulator of your own, outside the unit: acc += d."
    };
    Some(format!("{what}\n{why}"))
}

/// Multiply-adds the unit did per multiply-add of the product, as the simulator counted its
/// calls: each output of the model ends in one `convert_float_rtz(double)` of a sum of eight
/// products.
pub fn unit_mads(counts: &lab::harness::oclgrind::Counts) -> u64 {
    counts
        .ops
        .iter()
        .filter(|(name, _)| name.contains(lab::lesson::Unit::MatrixTf32.counted_by()[0]))
        .map(|(_, n)| 8 * n)
        .sum()
}

/// Multiplications the model makes for each element of D it returns (each ends in one
/// `convert_float_rtz`): eight products, C divided by the scale, the sum multiplied by it.
const MODEL_MULTIPLIES: u64 = 10;

/// Float multiplications the kernel made outside the unit (on the ordinary FP32 lanes), as the
/// simulator counted them: all it counted, less the model's own. The split and the sum outside
/// the unit subtract and add; only products made elsewhere than the unit multiply. A vector
/// `fmul` counts once per lane where the course's plugin ran (the simulator's own count does
/// not say its width), else once ([`lab::harness::oclgrind::Counts::wide_lanes`]).
pub fn lane_multiplies(counts: &lab::harness::oclgrind::Counts) -> u64 {
    let elements = unit_mads(counts) / 8;
    (counts.float_multiplies()).saturating_sub(MODEL_MULTIPLIES * elements)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::harness::matrix::Shape;

    /// C computed as TF32 products (one per multiply-add) summed in f64: far less accurate
    /// than FP32, the error the judgement exists to find.
    fn tf32_products(p: &Problem) -> Vec<f32> {
        let round = |x: f32| f32::from_bits((x.to_bits() + 0x1000) & 0xFFFF_E000);
        let s = p.shape;
        let mut c = vec![0.0f32; s.m * s.n];
        for i in 0..s.m {
            for j in 0..s.n {
                let sum: f64 = (0..s.k)
                    .map(|k| round(p.a[i * s.k + k]) as f64 * round(p.b[k * s.n + j]) as f64)
                    .sum();
                c[i * s.n + j] = sum as f32;
            }
        }
        c
    }

    #[test]
    fn too_few_elements_are_not_judged_but_enough_find_tf32() {
        let few = Problem::random(Shape::new(2, 2, 1327), 7);
        assert_eq!(accuracy(&few, &tf32_products(&few), false), None);
        let enough = Problem::random(Shape::new(8, 8, 1024), 7);
        let said = accuracy(&enough, &tf32_products(&enough), false).expect("judged");
        assert!(said.contains("TF32 keeps 10 bits"), "{said}");
        // A C that already failed is explained whatever its size.
        assert!(accuracy(&few, &tf32_products(&few), true).is_some());
    }
}
