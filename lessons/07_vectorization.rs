//! Lesson 07: vectorization, float4 loads and stores. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 07_vectorization [-- --solution -D WIDTH=8]
//! ```

use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder::l06_register_tiling::{block_defines, block_launch, block_shapes, check_blocks};
use lab::lesson::{
    define, per_mad, probe_define, require_divides, Behaviour, Ctx, Kind, Lesson, Measured,
    OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "07",
    slug: "vectorization",
    title: "Vectorization",
    teaches: "float4 (and float2, float8) loads and stores from global and local memory",
    hint: "in kernels/07_vectorization.cl, first make floatX views of A, B and C (`const __global floatX* Av = (const __global floatX*)A;`), then load the tiles one vector at a time (A's lanes go to WIDTH rows of Asub, B's vectors go to Bsub as they are), accumulate with a float times a vector, and store C as vectors.",
    kind: Kind::OpenCl(&VECTORIZED),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// Lesson 06's tiles, with float4 accesses: 16 bytes is the widest single load most GPUs
/// have, and WPTN = 8 columns split into two of them.
pub fn vector_defines(ctx: &Ctx) -> Vec<Define> {
    let mut d = block_defines(ctx);
    d.push(Define::new("WIDTH", 4));
    d
}

/// Lesson 06's rules, and whole vectors: WIDTH one of the OpenCL vector sizes, dividing
/// WPTN and TSK, and each tile split evenly into vectors among the work-items.
pub fn check_vectors(d: &[Define]) -> Result<(), String> {
    check_blocks(d)?;
    let width = define(d, "WIDTH")?;
    if ![1, 2, 4, 8, 16].contains(&width) {
        return Err(format!(
            "-D WIDTH={width}: WIDTH must be 1, 2, 4, 8 or 16 (the OpenCL vector sizes)"
        ));
    }
    require_divides(
        d,
        "WPTN",
        "WIDTH",
        "a work-item's columns are whole vectors",
    )?;
    require_divides(d, "TSK", "WIDTH", "A's tile is loaded in vectors along K")?;
    let items = (define(d, "TSM")? / define(d, "WPTM")?) * (define(d, "TSN")? / define(d, "WPTN")?);
    for (what, size) in [
        ("A's tile", define(d, "TSM")? * define(d, "TSK")?),
        ("B's tile", define(d, "TSK")? * define(d, "TSN")?),
    ] {
        if size % (width * items) != 0 {
            return Err(format!(
                "{what} ({size} floats) does not split into vectors of {width} evenly among {items} work-items"
            ));
        }
    }
    Ok(())
}

fn with_width(ctx: &Ctx, width: usize) -> Vec<Define> {
    let mut d = vector_defines(ctx);
    d.retain(|x| x.name != "WIDTH");
    d.push(Define::new("WIDTH", width));
    d
}

pub static VECTORIZED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: vector_defines,
    check_defines: check_vectors,
    launch: block_launch,
    shapes: block_shapes,
    build_options: "",
    define_sets: &[
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "4"),
            ("WPTN", "8"),
            ("WIDTH", "4"),
        ],
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "16"),
            ("WPTM", "8"),
            ("WPTN", "4"),
            ("WIDTH", "4"),
        ],
        &[
            ("TSM", "32"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "4"),
            ("WPTN", "4"),
            ("WIDTH", "2"),
        ],
        // A work-group of 16×4 work-items (RTSM ≠ RTSN) with two vectors per row of a
        // work-item's block, so that swapped block strides cannot pass.
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "4"),
            ("WIDTH", "2"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[PROBE],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        probes: SIMULATED,
        judge: vectors,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "TSK"),
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[
        Variant {
            name: "float2",
            about: "the same kernel with WIDTH = 2: 8-byte accesses",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 2),
            product: None,
        },
        Variant {
            name: "float8",
            about: "the same kernel with WIDTH = 8: 32-byte accesses, which most GPUs split in two",
            measure: |gpu, course, shape| measure_width(gpu, course, shape, 8),
            product: None,
        },
    ],
};

fn measure_width(
    gpu: &lab::harness::device::Gpu,
    course: &lab::harness::paths::Course,
    shape: lab::harness::matrix::Shape,
    width: usize,
) -> anyhow::Result<Option<lab::harness::timing::Timing>> {
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let file = course.solutions().join(LESSON.file_name());
    lab::measure::measure_file(gpu, &LESSON, &file, &with_width(&ctx, width), shape)
}

/// A small asymmetric set for the simulator: 8×16 tiles of 2×4 blocks, float4.
const PROBE: Probe = Probe {
    shape: Shape::new(16, 32, 24),
    defines: &[
        ("TSM", "8"),
        ("TSN", "16"),
        ("TSK", "8"),
        ("WPTM", "2"),
        ("WPTN", "4"),
        ("WIDTH", "4"),
    ],
};

/// The define sets the technique may be counted with: lesson 06's, in float4 (the device's
/// own WIDTH), at lesson 06's shapes.
const SIMULATED: &[Probe] = &[
    Probe {
        shape: Shape::new(32, 64, 24),
        defines: &[
            ("TSM", "32"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "8"),
            ("WIDTH", "4"),
        ],
    },
    Probe {
        shape: Shape::new(32, 32, 48),
        defines: &[
            ("TSM", "32"),
            ("TSN", "16"),
            ("TSK", "16"),
            ("WPTM", "8"),
            ("WPTN", "4"),
            ("WIDTH", "4"),
        ],
    },
];

/// Vectors show in the bytes each global access moves: 4·WIDTH for a floatX access, 4 for
/// a float. The global loads per multiply-add show that the tiles are still shared.
pub fn vectors(m: &Measured, probe: &Probe) -> Result<String, String> {
    let width = probe_define(probe, "WIDTH");
    let (tsm, tsn) = (probe_define(probe, "TSM"), probe_define(probe, "TSN"));
    let loads = m.counts.global_loads();
    let stores = m.counts.global_stores();
    let (lb, sb) = (loads.bytes_per_access(), stores.bytes_per_access());
    let want = 4.0 * width;
    if lb < 0.75 * want || sb < 0.75 * want {
        return Err(format!(
            "lesson 07 is about vector accesses, but your kernel's global loads move {lb:.1} bytes each and its stores {sb:.1} (measured with WIDTH = {width} at {}); float{width} accesses move {want:.0}.\nHint: read A and B and write C through floatX pointers (or vload{width}/vstore{width}): one access moves WIDTH floats. Vector types that are declared but filled lane by lane from scalar loads do not count.",
            probe.shape
        ));
    }
    let per = per_mad(loads.count, probe);
    let ideal = (1.0 / tsm + 1.0 / tsn) / width;
    if per > 1.5 * ideal {
        return Err(format!(
            "your kernel loads {per:.3} vectors from global memory per multiply-add (measured at {}); shared tiles read in vectors need (1/TSM + 1/TSN)/WIDTH = {ideal:.4}.\nHint: keep lesson 06's tiles in local memory: each vector of A and B is loaded from global memory once per tile.",
            probe.shape
        ));
    }
    Ok(format!(
        "vectors: {lb:.0} bytes per global load and {sb:.0} per store with WIDTH = {width}"
    ))
}
