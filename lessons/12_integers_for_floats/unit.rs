//! The INT8 matrix unit and the moduli as the host provides them (the instruction on NVIDIA
//! GPUs that have it, an exact OpenCL C model everywhere else), and what the grader asks of a
//! result beyond the per-element allowance: FP32's accuracy, and where it is wrong, which of
//! the scheme's stages made it so.

use lab::harness::device::Gpu;
use lab::harness::matrix::Problem;
use lab::lesson::{Counterfactual, Prelude};

/// The unit's source, both paths (chosen by MMA_PTX).
pub const UNIT_CL: &str = include_str!("unit.cl");

/// The moduli, in the order the kernels take them: the first NMOD of them are used. Pairwise
/// coprime and at most 256, so that each residue is a byte; the largest such, so that few
/// give a large P (the list of GEMMul8, Ozaki, Uchino and Imamura's library).
pub const MODULI: [u32; 8] = [256, 255, 253, 251, 247, 241, 239, 233];

/// The most moduli a kernel may take.
pub const MAX_MODULI: usize = MODULI.len();

/// `a`⁻¹ mod `m`, for `a` coprime to `m`.
fn inverse(a: u32, m: u32) -> u32 {
    (1..m)
        .find(|&x| (a as u64 * x as u64) % m as u64 == 1)
        .expect("the moduli are pairwise coprime")
}

/// The moduli and Garner's inverses as OpenCL C: `MODS[8]` and `INVS[q * 8 + k]` =
/// `MODS[q]`⁻¹ mod `MODS[k]` for q < k (0 elsewhere). NMOD is the lesson's define.
pub fn moduli_cl() -> String {
    let mods: Vec<String> = MODULI.iter().map(|m| m.to_string()).collect();
    let mut invs = Vec::new();
    for (q, &pq) in MODULI.iter().enumerate() {
        for (k, &pk) in MODULI.iter().enumerate() {
            invs.push(match q < k {
                true => inverse(pq % pk, pk).to_string(),
                false => "0".into(),
            });
        }
    }
    format!(
        "__constant int MODS[8] = {{{}}};\n__constant int INVS[64] = {{{}}};\n",
        mods.join(", "),
        invs.join(", ")
    )
}

/// The model with every product of the unit doubled ([`lab::lesson::Host::counterfactual`]),
/// on a device whose unit is the model; `None` where it is the tensor cores. Only the model's
/// last line differs (C's value is added as it was, the products' sum doubled), in the
/// function's body, where no preprocessor test of the kernel's can see it. The residues of
/// every modulus doubled, the integers they tell are doubled too, or wrap: C changes.
pub fn doubled(gpu: &Gpu) -> Option<Counterfactual> {
    let p = prelude(gpu);
    if !p.source.contains("#define MMA_PTX 0") {
        return None;
    }
    Some(Counterfactual {
        source: doubled_model(&p.source)?,
        products: "doubled",
        hint: "in products, every tile's product goes through mma_s8, with the fragments loaded from the staged tiles, and what it returns is what the product's planes hold.",
    })
}

/// `source` with the model's last line made to double the products' sum: `None` where that
/// line is not there once.
pub fn doubled_model(source: &str) -> Option<String> {
    (source.matches(LAST_LINE).count() == 1).then(|| source.replace(LAST_LINE, DOUBLED_LAST_LINE))
}

/// The model's last line and the doubled one.
const LAST_LINE: &str = "    return d;\n}\n// ANCHOR_END: model";
const DOUBLED_LAST_LINE: &str = "    return c + (d - c) * 2;\n}\n// ANCHOR_END: model";

/// The unit for this device, and the line every report shows about it.
pub fn prelude(gpu: &Gpu) -> Prelude {
    match gpu.tensor_cores() {
        Some((major, minor)) => Prelude {
            source: format!("#define MMA_PTX 1\n{}{UNIT_CL}", moduli_cl()),
            note: format!(
                "INT8 matrix unit: the tensor cores' mma.sync (compute capability {major}.{minor}), async copies by cp.async"
            ),
            speed_unchecked: None,
            products_scaled: false,
        },
        None => Prelude {
            source: format!("#define MMA_PTX 0\n{}{UNIT_CL}", moduli_cl()),
            note: format!(
                "INT8 matrix unit: modelled exactly in OpenCL C on {} (same fragments, integer products exact as on the tensor cores; no tensor cores here), copies done at once",
                gpu.info.name
            ),
            // The model multiplies bytes one at a time on the device's own lanes, many times
            // slower than FP32 there: its speed says nothing of the unit's.
            speed_unchecked: Some(format!(
                "not ranked by speed: {} has no INT8 matrix unit, and the model's speed says nothing about the unit's; the speed is shown, not compared",
                gpu.info.name
            )),
            products_scaled: false,
        },
    }
}

/// The unit as the sanitizer's drawn run takes it ([`lab::lesson::Host::unordered`]): the
/// model's call replaced by one that waits for nobody, as the tensor cores wait for one warp
/// and not the work-group (`lab::harness::unordered`). Each lane's four values mix its own
/// fragments (an uninitialised one still reaches the output); they are not the product, and
/// that run's C is never read.
pub fn unordered(gpu: &Gpu) -> Prelude {
    let file = "lessons/12_integers_for_floats/unit.cl";
    prelude(gpu).unordered(UNIT_CL, file, MODEL_CALL, MODEL_END, UNORDERED_CALL)
}

/// Where the model's call begins and where its anchor ends, in `unit.cl`.
const MODEL_CALL: &str =
    "inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {\n    const int lane";
const MODEL_END: &str = "// ANCHOR_END: model";

/// The call that waits for nobody.
const UNORDERED_CALL: &str = "inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {
    return c + (int4)((int)(a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y));
}
";

/// Multiply-adds the INT8 unit did, as the simulator counted the model's calls: each of its
/// multiply-adds is one `mad24`.
pub fn unit_mads(counts: &lab::harness::oclgrind::Counts) -> u64 {
    counts
        .ops
        .iter()
        .filter(|(name, _)| name.contains(lab::lesson::Unit::MatrixInt8.counted_by()[0]))
        .map(|(_, n)| *n)
        .sum()
}

/// log2 of the product of the first `n` moduli.
pub fn log2_p(n: usize) -> f64 {
    MODULI[..n].iter().map(|&m| (m as f64).log2()).sum()
}

/// From this K on, FP32's own rounding error is well above the scheme's with the lesson's
/// moduli, so "at least as accurate as FP32" is a fair test (as in lesson 11).
pub const ACCURACY_FROM_K: usize = 1024;

/// Beyond this many multiply-adds the host's FP32 loop would slow grading down.
const MAX_MADS: usize = 1 << 28;

/// Above this relative error a result is a wrong product, not a rounding matter.
const ROUNDING_AT_MOST: f64 = 1.0 / 256.0;

/// Relative errors of a result against the f64 product, and of a plain FP32 loop on the same
/// inputs (lesson 11's measure: ‖C − exact‖ / ‖exact‖, Frobenius).
pub fn errors(p: &Problem, c: &[f32]) -> (f64, f64) {
    lab::ladder::l11_matrix_units::unit::errors(p, c)
}

/// Lesson 12's judgement of accuracy: FP32's or better at a long K (lesson 11's measure), with
/// what too few bits mean for the scheme.
pub fn accuracy(p: &Problem, c: &[f32], failed: bool) -> Option<String> {
    let s = p.shape;
    // Over as many elements as every lesson's comparison with FP32 takes (lesson 11 says why).
    let judged = s.k >= ACCURACY_FROM_K && s.m * s.n >= lab::grade::PRECISION_FROM_ELEMENTS;
    if (!failed && !judged) || s.m * s.n * s.k > MAX_MADS {
        return None;
    }
    let (e, e32) = errors(p, c);
    if !e.is_finite() || e > ROUNDING_AT_MOST || e <= e32 {
        return None;
    }
    let bits = -e.log2();
    Some(format!(
        "C's error against the exact product is {e:.2e} (‖C − exact‖/‖exact‖, each element in units of its scale Σ|a·b|); FP32 on the same inputs, one float multiply-add after another, gives {e32:.2e}, {:.0}× less. Lesson 12 asks for FP32's accuracy or better.\nAn error of 2^-{bits:.1} is what integers of too few bits give: each scaled row and column is truncated to an integer of about L bits, and the truncation errs by up to 1 in each of K terms, about √K·2^-L of the product. With n moduli L is (log2 P − 1)/2 ({:.1} bits for 7 moduli at most), so too few moduli for this K = {} leave too few bits.\nHint: use the lesson's NMOD moduli throughout (scale_bits takes them all), and scale each row and column by the largest power of two its bound allows.",
        e / e32.max(f64::MIN_POSITIVE),
        (log2_p(7) - 1.02) / 2.0,
        s.k
    ))
}
