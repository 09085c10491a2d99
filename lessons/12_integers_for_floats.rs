//! Lesson 12: integers for floats. FP32-accurate products from the INT8 matrix units (Ozaki
//! scheme II): rows of A and columns of B scaled by powers of two and rounded to integers,
//! their residues modulo a few moduli below 256 multiplied exactly on the unit, one product
//! per modulus, and the integer products put back together by the Chinese remainder theorem.
//! Six kernels per multiplication. The declaration the grader, the scoreboard and the book
//! read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 12_integers_for_floats [-- --solution --size 4096]
//! ```

use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::lesson::{
    define, per_mad, probe_define, require_divides, require_nonempty, Behaviour, Host, Kind,
    Lesson, Measured, OclLesson, Probe, Sanitize, BUFFERS,
};

#[path = "12_integers_for_floats/host.rs"]
pub mod host;
#[path = "12_integers_for_floats/stages.rs"]
pub mod stages;
#[path = "12_integers_for_floats/unit.rs"]
pub mod unit;

pub static LESSON: Lesson = Lesson {
    key: "12",
    slug: "integers_for_floats",
    title: "Integers for floats",
    teaches: "FP32-accurate products from the INT8 matrix units (Ozaki scheme II): power-of-two scaling, residues modulo small moduli, one exact INT8 product each, the integer put back together by the Chinese remainder theorem; several kernels per multiplication",
    hint: "in kernels/12_integers_for_floats.cl, start with residue (12.1): x mod p brought into [0, p), then centred so that it fits a signed byte. Then from_residues (12.2), one element of C for reconstruct: Garner's digits from the products' residues, x by Horner in double, and C = 2^-(e_i+f_j)·x.",
    kind: Kind::OpenCl(&INTEGERS),
    // Per multiplication the kernels request A and B twice (the norms, then the residues), the
    // planes once per block row and column of the products, and C once: counted here as the
    // FP32 product's blocks, which is what the products kernel's tiles make of the planes.
    intensity: Some(lab::lesson::Intensity {
        rule: "BM×BN blocks of byte planes, NMOD products: 2·BM·BN / (NMOD·(BM+BN))",
        of: |d| {
            let (bm, bn) = (
                lab::lesson::positive(d, "BM")?,
                lab::lesson::positive(d, "BN")?,
            );
            Some(2.0 * bm * bn / (lab::lesson::positive(d, "NMOD")? * (bm + bn)))
        },
        walk: |d| {
            Some(lab::lesson::Walk::Blocks {
                bm: lab::lesson::positive(d, "BM")?,
                bn: lab::lesson::positive(d, "BN")?,
            })
        },
    }),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::MatrixInt8,
};

pub static INTEGERS: OclLesson = OclLesson {
    kernel: host::ROW_SCALE.name,
    args: host::ROW_SCALE.args,
    defines: |ctx| {
        // Big blocks where there are tensor cores to feed; small ones for the model on a CPU.
        let d: &[(&str, &str)] = if nvidia(ctx.info) { GPU_DEFINES } else { CPU_DEFINES };
        lab::lesson::defines(d)
    },
    check_defines,
    launch: |s, d| {
        require_nonempty(s)?;
        check_defines(d)?;
        Ok(host::Plan::new(s, d)?.first())
    },
    shapes: |d| {
        let (bm, bn) = (define(d, "BM")?, define(d, "BN")?);
        Ok(vec![
            // Whole blocks and k-steps.
            Shape::new(2 * bm, bn, 192),
            // Partial blocks everywhere, K not a multiple of 4.
            Shape::new(bm + 3, 2 * bn - 5, 131),
            Shape::new(1, 1, 1),
            Shape::new(37, 29, 301),
            // Every matrix longer than 65 536 floats: an index kept in 16 bits wraps.
            Shape::new(257, 263, 129),
            // A long K, where FP32's own error has grown well above the scheme's, and where
            // a bound that ignores K lets products wrap: at least FP32's accuracy.
            Shape::new(40, 24, 4096),
        ])
    },
    build_options: "",
    define_sets: &[
        // Blocks wider than tall, warps taller than wide, k-steps of 32 bytes, three stages, and
        // all eight moduli; bands of three block rows, so that the last band of most shapes
        // is a partial one.
        &[
            ("BM", "32"),
            ("BN", "64"),
            ("BK", "32"),
            ("WM", "32"),
            ("WN", "16"),
            ("STAGES", "3"),
            ("NMOD", "8"),
            ("GROUPM", "3"),
        ],
        // The tensor cores' k-steps of 128 bytes in three stages, on blocks small enough for
        // the model: Kp padded to 128, and four calls of the unit per step.
        &[
            ("BM", "32"),
            ("BN", "32"),
            ("BK", "128"),
            ("WM", "16"),
            ("WN", "32"),
            ("STAGES", "3"),
            ("NMOD", "7"),
            ("GROUPM", "2"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[Probe {
            shape: Shape::new(35, 19, 70),
            defines: PROBE_DEFINES,
        }],
        stand_in: None,
    },
    // The technique is counted with each set (whole blocks, three k-steps each, so that the
    // sanitizer's shape drawn near a set keeps two, where a race between a step's reads and
    // the next step's copies can show): the unit's products must show at blocks and moduli
    // that differ from one set to the other.
    behaviour: Some(Behaviour {
        probes: &[
            Probe {
                shape: Shape::new(32, 16, 96),
                defines: PROBE_DEFINES,
            },
            Probe {
                shape: Shape::new(16, 32, 192),
                defines: &[
                    ("BM", "16"),
                    ("BN", "32"),
                    ("BK", "64"),
                    ("WM", "16"),
                    ("WN", "16"),
                    ("STAGES", "2"),
                    ("NMOD", "6"),
                    ("GROUPM", "2"),
                ],
            },
        ],
        judge: through_the_unit,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "BK"),
    }),
    // One multiplication is six kernels; on a problem small enough the host then checks what
    // each stage left, so that a wrong C is traced to the stage that made it (stages.rs), and
    // the judgement of C says so before anything else.
    host: Host {
        run: |gpu, k, p, _, d| {
            let (mut out, between, plan) = host::run(gpu, k, p, d)?;
            out.found = stages::check(gpu, &between, &plan, p, &out.c)?;
            Ok(out)
        },
        exact: host::exact,
        prelude: Some(unit::prelude),
        unordered: Some(unit::unordered),
        counterfactual: Some(unit::doubled),
        accuracy: Some(|p, out, failed| {
            (out.found.clone()).or_else(|| unit::accuracy(p, &out.c, failed))
        }),
        kernels: host::FURTHER,
        // One block of the device's own per plane, over two k-steps: every work-group of the
        // six kernels runs, and the products' cost is what padding any smaller problem to
        // whole blocks costs.
        own_look: Some(|d| Ok(Shape::new(define(d, "BM")?, define(d, "BN")?, 2 * define(d, "BK")?))),
        ..BUFFERS
    },
    sized: None,
    knobs: None,
    any_size: true,
    variants: &[],
};

fn nvidia(info: &lab::harness::device::DeviceInfo) -> bool {
    info.vendor.to_lowercase().contains("nvidia")
}

/// The tensor cores' defaults, the fastest build measured on an H200 (research/ozaki-12, calls
/// 9 to 11): 128×128 blocks of 4 warps of 64×64 (255 registers, two blocks per compute unit),
/// three stages of 128-byte k-steps (110,592 bytes of local memory: NVIDIA's OpenCL takes
/// static local memory past the 48 KB it reports), bands of 16 block rows for the L2 cache,
/// seven moduli: 89 TFLOP/s at 8192³, the error 10 times below cuBLAS FP32's on uniform inputs.
pub const GPU_DEFINES: &[(&str, &str)] = &[
    ("BM", "128"),
    ("BN", "128"),
    ("BK", "128"),
    ("WM", "64"),
    ("WN", "64"),
    ("STAGES", "3"),
    ("GROUPM", "16"),
    ("NMOD", "7"),
];

/// The model's defaults elsewhere: four warps of 32×32, two stages of 64 bytes, bands of four
/// block rows. The model's copies are done at once, so deeper stages buy it nothing; its
/// products run on the device's own lanes, slowest on the large blocks and 110 KB of local
/// memory the tensor cores want (about twice the time under PoCL at 300×277×513).
const CPU_DEFINES: &[(&str, &str)] = &[
    ("BM", "64"),
    ("BN", "64"),
    ("BK", "64"),
    ("WM", "32"),
    ("WN", "32"),
    ("STAGES", "2"),
    ("GROUPM", "4"),
    ("NMOD", "7"),
];

/// Small and asymmetric for the simulator: two warps of 16×16 one above the other, two stages
/// of 32 bytes (a missing barrier shows between one step's copies and the next step's reads).
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("BM", "32"),
    ("BN", "16"),
    ("BK", "32"),
    ("WM", "16"),
    ("WN", "16"),
    ("STAGES", "2"),
    ("NMOD", "7"),
];

fn warps(d: &[Define]) -> Result<usize, String> {
    Ok((define(d, "BM")? / define(d, "WM")?) * (define(d, "BN")? / define(d, "WN")?))
}

fn check_defines(d: &[Define]) -> Result<(), String> {
    let (wm, wn, bk) = (define(d, "WM")?, define(d, "WN")?, define(d, "BK")?);
    let mut why = Vec::new();
    if wm % 16 != 0 {
        why.push(format!("WM = {wm} must be a multiple of 16 (tiles of 16 rows)"));
    }
    if wn % 16 != 0 {
        why.push(format!(
            "WN = {wn} must be a multiple of 16 (tiles of 8 columns, loaded two at a time)"
        ));
    }
    if ![32, 64, 128].contains(&bk) {
        why.push(format!(
            "BK = {bk} must be 32, 64 or 128 (bytes of k per stage: whole calls of the unit of 32, and a divisor or multiple of b_residues' 64 rows)"
        ));
    }
    // Optional: without it the kernel takes the blocks row by row.
    if let Some(g) = d.iter().find(|x| x.name == "GROUPM") {
        match g.value.parse::<usize>() {
            Ok(n) if n >= 1 => {}
            _ => why.push(format!(
                "GROUPM = {} must be a whole number of block rows, at least 1",
                g.value
            )),
        }
    }
    for (b, w) in [("BM", "WM"), ("BN", "WN")] {
        if let Err(e) = require_divides(d, b, w, "whole warps") {
            why.push(e);
        }
    }
    let nmod = define(d, "NMOD")?;
    if !(2..=unit::MAX_MODULI).contains(&nmod) {
        why.push(format!(
            "NMOD = {nmod} must be 2 to {} (the moduli the host provides)",
            unit::MAX_MODULI
        ));
    }
    let stages = define(d, "STAGES")?;
    if !(2..=4).contains(&stages) {
        why.push(format!("STAGES = {stages} must be 2, 3 or 4"));
    }
    if why.is_empty() {
        let w = warps(d)?;
        if !(1..=32).contains(&w) {
            why.push(format!(
                "(BM/WM)·(BN/WN) = {w} warps: a work-group holds 1 to 32 warps"
            ));
        }
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

/// The technique, by what the simulator counted: the INT8 unit did one multiply-add per
/// modulus for every multiply-add of the product (on the padded planes), and nothing else
/// multiplied the residues.
fn through_the_unit(m: &Measured, probe: &Probe) -> Result<String, String> {
    let at = probe.shape;
    let per = per_mad(unit::unit_mads(m.counts), probe);
    let d = |n| probe_define(probe, n);
    let nmod = d("NMOD");
    // The products run over the planes, padded to whole blocks and to 64 bytes of k.
    let plan = host::Plan::new(at, &lab::lesson::defines(probe.defines))
        .map_err(|e| format!("the probe's defines: {e}"))?;
    let padded = (plan.mp * plan.np * plan.kp) as f64 / (at.m * at.n * at.k).max(1) as f64;
    if per < 0.9 * nmod {
        return Err(format!(
            "the INT8 unit did {per:.2} multiply-adds for each multiply-add of the product (measured at {at} under the simulator, which counts the unit's calls); lesson 12's products send one product per modulus through it, {nmod:.0} here, and multiply no residue anywhere else.\nHint: in products, every tile's product goes through mma_s8, with the fragments loaded from the staged tiles."
        ));
    }
    if per > nmod * padded * 1.2 {
        return Err(format!(
            "the INT8 unit did {per:.2} multiply-adds for each multiply-add of the product (measured at {at}); one product per modulus ({nmod:.0}, {:.1} with the planes' padding) is all the scheme needs, and each costs time.\nHint: call mma_s8 once per tile and k-step of 32, for each modulus's planes.",
            nmod * padded
        ));
    }
    Ok(format!(
        "the INT8 unit did {per:.2} multiply-adds per multiply-add of the product at {at} ({nmod:.0} moduli, on padded planes)"
    ))
}
