//! Lesson 12's grader: the reference passes through the exact model of the INT8 unit at
//! ragged and rectangular sizes and a long K where it must be at least as accurate as FP32;
//! the cases below are graded as they expect.

mod common;

use lab::harness::matrix::{Problem, Shape};
use lab::ladder;
use lab::ladder::l12_integers_for_floats::unit;
use lab::lesson::defines;

fn g() -> common::Grader {
    common::grader()
}

/// The INT8 unit as the sanitizer's drawn run takes it: the model's call waits for nobody
/// (lesson 11 has the same test).
#[test]
fn the_unordered_unit_waits_for_nobody() {
    common::unordered_unit_waits_for_nobody(
        &g(),
        unit::prelude,
        unit::unordered,
        unit::UNIT_CL,
        "inline int4 mma_s8",
        "__kernel void k(__global int4* d) { d[0] = mma_s8(as_uint4(d[1]), as_uint2(d[2].xy), d[3], 0); }",
    );
}

/// The model whose products are doubled (the counterfactual build): the model's text line for
/// line, only its last line changed; a text without it has none (lesson 11's scales instead).
#[test]
fn the_doubled_unit_is_the_model_but_for_its_last_line() {
    let model = format!("#define MMA_PTX 0\n{}{}", unit::moduli_cl(), unit::UNIT_CL);
    let doubled = unit::doubled_model(&model).expect("the model's last line found");
    assert_eq!(model.lines().count(), doubled.lines().count());
    let changed: Vec<(&str, &str)> = (model.lines().zip(doubled.lines()))
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.contains("* 2"), "{changed:?}");
    assert_eq!(unit::doubled_model("__kernel void k() {}"), None);
}

/// Your own kernels/ file, graded as `cargo lab 12` grades it, with the same report:
/// `cargo test --test 12_integers_for_floats -- --ignored` (`LAB_KERNELS=DIR` grades another
/// folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("12")
}

#[test]
fn solution_passes() {
    let v = g().solution_passes("12");
    assert!(
        v.notes.iter().any(|n| n.contains("INT8 matrix unit:")),
        "the verdict names the path the unit took: {:?}",
        v.notes
    );
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

/// The largest error of any element against the exact product, relative to that element's
/// Σ|a·b| (the scale of its rounding error), for a result `c` and for a plain FP32 loop.
fn elementwise(p: &Problem, c: &[f32]) -> (f64, f64) {
    let s = p.shape;
    let (mut worst, mut worst32) = (0.0f64, 0.0f64);
    for i in 0..s.m {
        for j in 0..s.n {
            let (mut exact, mut abs, mut acc) = (0.0f64, 0.0f64, 0.0f32);
            for k in 0..s.k {
                let (a, b) = (p.a[i * s.k + k], p.b[k * s.n + j]);
                exact += a as f64 * b as f64;
                abs += (a as f64 * b as f64).abs();
                acc += a * b;
            }
            let abs = abs.max(f64::MIN_POSITIVE);
            worst = worst.max((c[i * s.n + j] as f64 - exact).abs() / abs);
            worst32 = worst32.max((acc as f64 - exact).abs() / abs);
        }
    }
    (worst, worst32)
}

/// Inputs of wide dynamic range: the reference is at least as accurate as FP32, element by
/// element and over the whole of C, at a long K and at a ragged shape.
#[test]
fn wide_dynamic_range_is_as_accurate_as_fp32() {
    use lab::harness::device::Gpu;
    use lab::lesson::Ctx;
    use lab::prepared::{self, Prepared};

    let g = g();
    let gpu = Gpu::open(g.opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("12").ocl().unwrap();
    let ctx = Ctx {
        info: &gpu.info,
        course: &g.opts.course,
    };
    let defines = prepared::defines(ocl, &ctx, None, &[]).unwrap();
    let file = g.opts.course.solutions().join("12_integers_for_floats.cl");
    let built = Prepared::read(&gpu, ocl, &file, &defines, ocl.build_options).unwrap();
    for (shape, seed) in [(Shape::new(40, 24, 4096), 3), (Shape::new(67, 45, 1031), 4)] {
        let p = Problem::random(shape, seed).widened(seed);
        let launch = (ocl.launch)(shape, &defines).unwrap();
        let out = (ocl.host.run)(&gpu, &built.kernel, &p, &launch, &defines).unwrap();
        let (e, e32) = unit::errors(&p, &out.c);
        assert!(
            e <= e32,
            "{shape}: ‖C − exact‖/‖exact‖ = {e:e}, FP32's {e32:e}"
        );
        let (w, w32) = elementwise(&p, &out.c);
        assert!(w <= w32, "{shape}: element-wise {w:e}, FP32's {w32:e}");
        assert_eq!(unit::accuracy(&p, &out.c, false), None, "{shape}");
    }
}

#[test]
fn the_moduli_and_their_inverses() {
    // Pairwise coprime, each inverse right, P past 2^55 with seven.
    let m = unit::MODULI;
    for q in 0..m.len() {
        for k in q + 1..m.len() {
            let (mut a, mut b) = (m[q], m[k]);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            assert_eq!(a, 1, "{} and {}", m[q], m[k]);
        }
    }
    let cl = unit::moduli_cl();
    assert!(cl.starts_with("__constant int MODS[8] = {256, 255, 253, 251, 247, 241, 239, 233};"));
    // 256⁻¹ mod 255 = 1 (256 ≡ 1), the first of the inverses.
    assert!(cl.contains("INVS[64] = {0, 1, "), "{cl}");
    assert!((unit::log2_p(7) - 55.71).abs() < 0.01);
}

#[test]
fn launches_and_refuses_bad_defines() {
    let ocl = ladder::get("12").ocl().unwrap();
    let d = defines(&[
        ("BM", "64"),
        ("BN", "32"),
        ("BK", "32"),
        ("WM", "32"),
        ("WN", "16"),
        ("STAGES", "2"),
        ("NMOD", "7"),
    ]);
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // The first kernel: a work-group of 256 per row of A.
    assert_eq!(l.global, [256, 131]);
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    for (name, bad, words) in [
        ("WM", "24", "multiple of 16"),
        ("WN", "8", "multiple of 16"),
        ("BK", "16", "32, 64 or 128"),
        ("GROUPM", "0", "at least 1"),
        ("NMOD", "9", "2 to 8"),
        ("STAGES", "5", "2, 3 or 4"),
        ("BN", "40", "multiple of WN"),
    ] {
        let d = lab::lesson::with_overrides(d.clone(), &defines(&[(name, bad)]));
        let why = (ocl.check_defines)(&d).unwrap_err();
        assert!(why.contains(words), "{name}={bad}: {why}");
    }
}

pub mod cases {
    //! Lesson 12's cases: mistakes students make with the scheme, each with what the grader
    //! must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "12";

    /// The centring of a residue into a signed byte.
    const CENTRED: &str = "    if (r > (p - 1) / 2) r -= p;\n    return r;";

    /// Garner's digit, balanced.
    const BALANCED: &str = "        if (t > (pk - 1) / 2) t -= pk;\n        v[k] = t;";

    /// The products of a k-step's tiles, through the unit.
    const THE_UNIT: &str = "            for (int i = 0; i < MI; i++)
                for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);";

    /// The same products on the lanes: each work-item multiplies its fragments' bytes itself.
    macro_rules! on_the_lanes {
        () => {
            "                    const __local char* a8 = (const __local char*)as;
                    const __local char* b8 = (const __local char*)bs;
                    const int r = i * 16 + g, c = j * 8 + 2 * t4;
                    for (int k = kk * 32; k < kk * 32 + 32; k++) {
                        const int a0 = a8[r * SROW + k], a1 = a8[(r + 8) * SROW + k];
                        const int b0 = b8[c * SROW + k], b1 = b8[(c + 1) * SROW + k];
                        acc[i][j] += (int4)(a0 * b0, a0 * b1, a1 * b0, a1 * b1);
                    }
"
        };
    }

    pub const CASES: &[Case] = &[
        // The name the INT8 model is counted by, pasted together so that it is never written:
        // a count forged beside the unit's is refused before it runs.
        Case::rejects(
            L,
            "pastes_the_model_s_counted_name",
            Cheat,
            Mutant(&[(
                "for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);",
                "for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);
#define LAB_PASTE(a, b) a##b
            acc[0][0].x = LAB_PASTE(mad, 24)(0, 0, acc[0][0].x);",
            )]),
            FailKind::NotSelfContained,
            &["##", "pastes tokens into a name"],
        ),
        Case::rejects(
            L,
            "counted_name_split_by_a_spaced_backslash",
            Cheat,
            // `mad2\ ` and `4(...)` on the next line: one name to a compiler that takes a
            // backslash with spaces after it for a line splice, two to one that does not.
            Mutant(&[(
                "for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);",
                "for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);
            acc[0][0].x = mad2\\  
4(0, 0, acc[0][0].x);",
            )]),
            FailKind::NotSelfContained,
            &["spaces after the backslash", "line"],
        ),
        // The scaling: its bound, and whether it is used at all.
        Case::rejects(
            L,
            "bound_ignores_k",
            WrongResult,
            // Each row's and column's mean square bounded instead of its sum of squares: the K
            // terms of a product are forgotten, so for a long K the products pass P/2 and wrap.
            Mutant(&[
                (
                    "e[i] = scale_exponent(red[0], K);",
                    "e[i] = scale_exponent(red[0] / K, K);",
                ),
                (
                    "f[j] = scale_exponent(t, K);",
                    "f[j] = scale_exponent(t / K, K);",
                ),
            ]),
            FailKind::Wrong,
            &[
                "the range the moduli can tell apart",
                "Cauchy–Schwarz",
                "too few moduli for this K",
            ],
        ),
        Case::rejects(
            L,
            "bound_for_fewer_moduli",
            WrongResult,
            // The scale taken for five moduli where seven are used: every product is right,
            // but the integers carry 8 bits fewer than the moduli allow.
            Mutant(&[(
                "for (int t = 0; t < NMOD; t++) lp += log2((double)MODS[t]);",
                "for (int t = 0; t < NMOD - 2; t++) lp += log2((double)MODS[t]);",
            )]),
            FailKind::Wrong,
            &["throws bits away", "leave room for 2^"],
        ),
        Case::rejects(
            L,
            "scaling_skipped",
            WrongResult,
            // The exponents computed, but the values truncated as they are, unscaled (the
            // stage check names the truncation of an unscaled value).
            Mutant(&[
                (
                    "x[q] = rint(ldexp((double)a, ei));",
                    "x[q] = trunc((double)a);",
                ),
                (
                    "tile[ly + 8 * r][lx] = rint(ldexp((double)b, fj));",
                    "tile[ly + 8 * r][lx] = trunc((double)b);",
                ),
            ]),
            FailKind::Wrong,
            &["scaling was skipped", "ldexp"],
        ),
        // The residues.
        Case::rejects(
            L,
            "residue_overflows_char",
            WrongResult,
            // Residues left in [0, p): those above 127 wrap around in the char planes.
            Mutant(&[(CENTRED, "    return r;")]),
            FailKind::Wrong,
            &["overflows", "a char holds −128..127", "centre"],
        ),
        // The reconstruction.
        Case::rejects(
            L,
            "unbalanced_digits",
            WrongResult,
            // Garner's digits in [0, p_k): the sum covers [0, P), so every negative product
            // comes back as a huge positive one.
            Mutant(&[(BALANCED, "        v[k] = t;")]),
            FailKind::Wrong,
            &["reconstruction is wrong", "Garner", "centred"],
        ),
        Case::rejects(
            L,
            "horner_from_the_first_digit",
            WrongResult,
            Mutant(&[(
                "    double x = (double)v[NMOD - 1];
    for (int k = NMOD - 2; k >= 0; k--) x = fma(x, (double)MODS[k], (double)v[k]);",
                "    double x = (double)v[0];
    for (int k = 1; k < NMOD; k++) x = fma(x, (double)MODS[k], (double)v[k]);",
            )]),
            FailKind::Wrong,
            &["reconstruction is wrong", "Horner"],
        ),
        Case::rejects(
            L,
            "not_unscaled",
            WrongResult,
            Mutant(&[("*c = (float)ldexp(x, -s);", "*c = (float)x;")]),
            FailKind::Wrong,
            &["reconstruction is wrong", "2^-(e_i+f_j)"],
        ),
        // The staging of the products' tiles.
        Case::rejects_any(
            L,
            "no_barrier_before_the_step",
            Race,
            // The copies of a k-step are read by other warps with nothing in between.
            Mutant(&[(
                "        async_wait(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);",
                "        async_wait(STAGES - 2);",
            )]),
            &[FailKind::Race, FailKind::Wrong],
            &["barrier"],
        ),
        Case::rejects(
            L,
            "next_step_copied_after_the_products_into_one_buffer",
            Race,
            // Two stages in one buffer: the next k-step's copies are issued once this
            // work-item's products are done, over the tiles other warps may still read. The
            // model of the unit waits for the whole work-group at every call, so the numbers
            // are right on PoCL; the sanitizer's run with the unit as the tensor cores order
            // it, a warp waiting for no other, sees the race.
            Mutant(&[
                (
                    "#ifndef STAGES
#define STAGES 2
#endif",
                    "#undef STAGES
#define STAGES 2",
                ),
                (
                    "        {
            const int nxt = kt + STAGES - 1;
            const int sb = nxt % STAGES;
            if (nxt < nk) stage(sm + sb * TILE_A, sm + STAGES * TILE_A + sb * TILE_B, A, B, Kp, nxt * BK, tid);
            async_commit();
        }
        const int cur = kt % STAGES;",
                    "        const int cur = 0;",
                ),
                (
                    "                for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);
        }
    }",
                    "                for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);
        }
        if (kt + 1 < nk) stage(sm, sm + STAGES * TILE_A, A, B, Kp, (kt + 1) * BK, tid);
        async_commit();
    }",
                ),
            ]),
            FailKind::Race,
            &["data race", "__local", "a warp waits for its own 32 lanes"],
        ),
        // Edges: the planes' padding.
        Case::rejects_any(
            L,
            "a_read_past_k",
            Edge,
            // Columns past K read from memory instead of taken as 0: the next row's values,
            // and past the end of A on the last row.
            Mutant(&[(
                "const float a = (i < M && k + q < K) ? A[(long)i * K + k + q] : 0.0f;",
                "const float a = i < M ? A[(long)i * K + k + q] : 0.0f;",
            )]),
            &[FailKind::Wrong, FailKind::BadAccess],
            &["past the"],
        ),
        // A right answer that is not the lesson's technique.
        Case::rejects(
            L,
            "products_on_the_lanes",
            Decoy,
            // The same tiles, each work-item multiplying its fragments' bytes itself: exact,
            // and no matrix unit.
            Mutant(&[(
                THE_UNIT,
                concat!(
                    "            for (int i = 0; i < MI; i++)\n                for (int j = 0; j < NI; j++) {\n",
                    on_the_lanes!(),
                    "                }"
                ),
            )]),
            FailKind::Technique,
            // Where the unit is the model, its products doubled leave this C as it was; on
            // the tensor cores the simulator counts no call of the unit.
            &["unit", "mma_s8", "Hint"],
        ),
        // The unit called on the tile's fragments as the lesson asks, and what it returns
        // masked away: the products that make the planes are the lanes'. The simulator counts
        // every call of the unit; only the unit's own products changed show that the planes
        // do not come from them.
        Case::rejects(
            L,
            "unit_results_masked_away",
            Decoy,
            Mutant(&[(
                THE_UNIT,
                concat!(
                    "            for (int i = 0; i < MI; i++)\n                for (int j = 0; j < NI; j++) {\n",
                    "                    const int4 d = mma_s8(af[i], bf[j], (int4)(0), scratch);\n",
                    on_the_lanes!(),
                    "                    acc[i][j] += d & (int4)(0);\n",
                    "                }"
                ),
            )]),
            FailKind::Technique,
            &["does not come from the matrix unit", "the product itself", "doubled"],
        ),
        // The same, only with the warps and stages a CPU takes (the device's own defines
        // there, none of the lesson's declared sets): the unit's products everywhere else.
        Case::rejects(
            L,
            "products_on_the_lanes_only_with_this_devices_defines",
            Decoy,
            Mutant(&[(
                THE_UNIT,
                concat!(
                    "            for (int i = 0; i < MI; i++)\n                for (int j = 0; j < NI; j++) {\n",
                    "#if STAGES == 2 && WM == 32\n",
                    on_the_lanes!(),
                    "#else\n                    acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);\n#endif\n",
                    "                }"
                ),
            )]),
            FailKind::Technique,
            // The products doubled with the device's own defines (where the unit is the model),
            // or the simulator's count with them: either names the set.
            &["unit", "STAGES=2", "WM=32"],
        ),
        // Correct in another style.
        Case::accepts(
            L,
            "residue_by_integer_remainder",
            // The residue from a 64-bit integer's remainder instead of a quotient in double.
            Mutant(&[(
                "    const double q = floor(x * (1.0 / (double)p));
    int r = (int)fma(-q, (double)p, x);
    if (r < 0) r += p;
    if (r >= p) r -= p;",
                "    int r = (int)((long)x % p);
    if (r < 0) r += p;",
            )]),
        ),
        Case::accepts(
            L,
            "residues_of_truncated_values",
            // Scaled values truncated instead of rounded to the nearest integer: twice the
            // error, and within the same bound (truncation never grows a norm).
            Mutant(&[
                (
                    "x[q] = rint(ldexp((double)a, ei));",
                    "x[q] = trunc(ldexp((double)a, ei));",
                ),
                (
                    "tile[ly + 8 * r][lx] = rint(ldexp((double)b, fj));",
                    "tile[ly + 8 * r][lx] = trunc(ldexp((double)b, fj));",
                ),
            ]),
        ),
        Case::accepts(
            L,
            "horner_without_fma",
            // Horner's step as a multiply and an add, rounded twice: still far within FP32.
            Mutant(&[(
                "x = fma(x, (double)MODS[k], (double)v[k]);",
                "x = x * (double)MODS[k] + (double)v[k];",
            )]),
        ),
    ];
}
