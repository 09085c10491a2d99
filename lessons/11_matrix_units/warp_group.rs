//! Lesson 11's product on Hopper's warp-group unit (`wgmma`): the chapter's last step, measured
//! beside the lesson's reference by `lab-bench ladder` (the variant `warp-group`). The same
//! split and three products as the lesson's kernel, but four warps make each call, one operand
//! comes straight from local memory, and the calls run while the work-items copy the next
//! tiles. On a device without the instruction the kernel runs on an OpenCL C model of it
//! (`wgmma.cl`), which the tests check; it is measured only where the instruction is real.

use anyhow::Result;
use lab::harness::device::{DeviceInfo, Gpu};
use lab::harness::exec::Launch;
use lab::harness::matrix::{Problem, Shape};
use lab::harness::program::Define;
use lab::harness::timing::Timing;
use lab::harness::paths::Course;
use lab::lesson::{define, Host, OclLesson, Prelude, Sanitize, BUFFERS, STANDARD_ARGS};
use lab::prepared::Prepared;

/// The kernel (`matmul`, the standard arguments), in the lessons' folder.
pub const FILE: &str = "11_matrix_units/warp_group.cl";
/// The unit as the kernel calls it: the instruction's fences and descriptors, or the model.
pub const WGMMA_CL: &str = include_str!("wgmma.cl");

/// The unit's N (rows of C per work-group) the instruction macros are made for.
const SHAPES_N: [usize; 3] = [64, 128, 192];

/// The instruction for a unit N of `n`: `WG_RS_<n>(d, a0, a1, a2, a3, desc, sc)`, the group's
/// D (n/2 floats per work-item) += A·B, A from four registers, B through a descriptor, and
/// `WG_KEEP_<n>(d)`, which tells the compiler that d changed. Written out by the host because
/// each accumulator element is an operand of its own. Behind `WG_PRE` (a PTX comment in the
/// first of the two builds, src/harness/ptx_patch.rs).
pub fn instruction_macros(n: usize) -> String {
    let outs = n / 2;
    let list = |from: usize, count: usize| {
        (from..from + count)
            .map(|i| format!("%{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let d_ops = (0..outs)
        .map(|i| format!("\"+f\"(d[{i}])"))
        .collect::<Vec<_>>()
        .join(", ");
    let a_ops = "\"r\"(as_uint(a0)), \"r\"(as_uint(a1)), \"r\"(as_uint(a2)), \"r\"(as_uint(a3))";
    format!(
        "#define WG_RS_{n}(d, a0, a1, a2, a3, db, sc) __asm__ __volatile__(WG_PRE \"{{ .reg .pred p; setp.ne.b32 p, %{sc}, 0; wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32 {{{d}}}, {{{a}}}, %{db}, p, 1, 1; }}\" : {d_ops} : {a_ops}, \"l\"(db), \"r\"(sc) : \"memory\")\n\
         #define WG_KEEP_{n}(d) __asm__ __volatile__(\"\" : {d_ops} :: \"memory\")\n",
        d = list(0, outs),
        a = list(outs, 4),
        db = outs + 4,
        sc = outs + 5,
    )
}

/// Whether the device has the warp-group instruction (compute capability 9.0).
pub fn has_instruction(gpu: &Gpu) -> bool {
    gpu.tensor_cores().is_some_and(|(major, _)| major == 9)
}

/// The unit for this device: the instruction on compute capability 9.0 (built in two steps),
/// the model elsewhere.
pub fn prelude(gpu: &Gpu) -> Prelude {
    let mma = super::unit::MMA_CL;
    if has_instruction(gpu) {
        let macros: String = SHAPES_N.iter().map(|&n| instruction_macros(n)).collect();
        Prelude {
            source: format!(
                "#define MMA_PTX 1\n#define TF32_CVT 1\n{}\n{mma}\n{macros}{WGMMA_CL}",
                lab::harness::ptx_patch::MARK
            ),
            note: "matrix unit: the warp group's wgmma (compute capability 9.0), built through its PTX".into(),
            speed_unchecked: None,
            products_scaled: false,
        }
    } else {
        Prelude {
            source: format!(
                "#define MMA_PTX 0\n#define TF32_CVT 0\n#define __LAB_UNIT_SCALE 1.0f\n{mma}\n{WGMMA_CL}"
            ),
            note: format!(
                "matrix unit: the warp group's wgmma emulated in OpenCL C on {}",
                gpu.info.name
            ),
            speed_unchecked: Some(format!(
                "{} has no warp-group unit: the model's speed says nothing about it",
                gpu.info.name
            )),
            // The variant is the course's own measure, not a student's file: its model's
            // products are left as they are.
            products_scaled: false,
        }
    }
}

/// The block for a problem on a device with `compute_units`, measured on an H200
/// (research/wgmma-shapes-11/, calls 1-5): 64×128 blocks where 128×128 ones would not fill the
/// compute units once (1024³: 53.4 TFLOP/s against 44 for 128×128); 192×128 where there are at
/// least 2 048 of those, about fifteen waves (8192³: 90.2 against 87.5), unless K is not a
/// multiple of 4 (A's wider staging tile leaves no room for 192 rows); 128×128 otherwise. K is
/// never split: a split was slower at 1024³ and 2048³ and level at 1024×8192×8192.
pub fn block_rows(compute_units: usize, shape: Shape) -> usize {
    let blocks = |bm: usize| shape.m.div_ceil(bm) * shape.n.div_ceil(128);
    if blocks(128) < compute_units.max(1) {
        64
    } else if blocks(192) >= 2048 && shape.k.is_multiple_of(4) {
        192
    } else {
        128
    }
}

/// The defines for a problem on a device: on the instruction, the block by shape, k-steps of 32
/// in four stages, four k-steps of 8 summed inside the unit; on the model, one warp group of
/// 64×64 in steps of 16 (three stages, two k-steps per sum), small enough for a CPU. KG where
/// K is not a whole number of steps; where K or N is not a multiple of 4, AR and BR (ragged
/// rows read where they lie) up to the in-place bound, PADDED (the host's copies) above it.
pub fn defines(info: &DeviceInfo, instruction: bool, shape: Shape) -> Vec<Define> {
    defines_for(info.compute_units as usize, instruction, shape, !in_place(shape))
}

/// Where rows of A or B that do not start on 16 bytes are read where they lie (AR, BR), and
/// where the host pads them (lesson 08's copies of A and B in one launch, counted in the time;
/// the kernel reads them at their padded lengths and writes C where it lies): in place up to
/// 2^31 multiply-adds, where the copies' fixed cost is a large part of the call (1024×1024×1023:
/// 42.3 TFLOP/s in place against 36.9 padded; 1024×1023×1024: 39.6 against 38.1), padded above
/// (2048×2047×2048: 74.6 against 71.1 in place; 2047³: 74.7 against 59.7; 8191³: 98.3 against
/// 64.7, where A's unshifting pass and its wider tile cost a third). NVIDIA H200,
/// research/padded-inputs-11/ and research/ragged-11/.
pub fn in_place(shape: Shape) -> bool {
    shape.m * shape.n * shape.k <= 1 << 31
}

/// [`defines`] with ragged rows read from the host's padded copies (`padded`) or where they lie.
pub fn defines_for(compute_units: usize, instruction: bool, shape: Shape, padded: bool) -> Vec<Define> {
    // The rows the kernel reads: the host's padded copies' where it pads.
    let ragged = !(shape.k.is_multiple_of(4) && shape.n.is_multiple_of(4));
    let shape = match padded {
        true => lab::harness::exec::padded_shape(shape, 4),
        false => shape,
    };
    let (wgs, bm, bk, stages, chain) = match instruction {
        true => (2, block_rows(compute_units, shape), 32, 4, 4),
        false => (1, 64, 16, 3, 2),
    };
    vec![
        Define::new("WGS", wgs),
        Define::new("BM", bm),
        Define::new("BK", bk),
        Define::new("STAGES", stages),
        Define::new("CHAIN", chain),
        Define::new("KG", u8::from(!shape.k.is_multiple_of(bk))),
        Define::new("AR", u8::from(!shape.k.is_multiple_of(4))),
        Define::new("BR", u8::from(!shape.n.is_multiple_of(4))),
        Define::new("PADDED", u8::from(padded && ragged)),
    ]
}

/// A 0-or-1 define: set where its last value is 1 (the kernel's `#ifndef` makes a missing one 0).
fn flag(d: &[Define], name: &str) -> bool {
    d.iter().rev().find(|x| x.name == name).is_some_and(|x| x.value.trim() == "1")
}

fn check_defines(d: &[Define]) -> Result<(), String> {
    let (wgs, bm, bk) = (define(d, "WGS")?, define(d, "BM")?, define(d, "BK")?);
    let (stages, chain) = (define(d, "STAGES")?, define(d, "CHAIN")?);
    let mut why = Vec::new();
    if !(1..=2).contains(&wgs) {
        why.push(format!("WGS = {wgs} must be 1 or 2 warp groups"));
    }
    if !bm.is_multiple_of(64) || bm > 192 {
        why.push(format!("BM = {bm} must be 64, 128 or 192 (the unit's N)"));
    }
    if !(bk.is_multiple_of(16) && bk <= 64) {
        why.push(format!("BK = {bk} must be 16, 32, 48 or 64"));
    }
    if !(3..=5).contains(&stages) {
        why.push(format!("STAGES = {stages} must be 3, 4 or 5"));
    }
    if chain == 0 || !(bk / 8).is_multiple_of(chain) {
        why.push(format!("CHAIN = {chain} must divide BK/8 = {}", bk / 8));
    }
    // A's staging tile one chunk wider beside its unshifted copy: 192 rows would not fit in
    // the 227 KB of local memory a Hopper work-group may have.
    if flag(d, "AR") && bm > 128 {
        why.push(format!("BM = {bm} with AR = 1 must be 64 or 128"));
    }
    if flag(d, "PADDED") && (flag(d, "AR") || flag(d, "BR")) {
        why.push("PADDED = 1 (the host's copies, rows whole chunks) with AR or BR = 1".into());
    }
    match why.is_empty() {
        true => Ok(()),
        false => Err(why.join("; ")),
    }
}

/// The kernel as the course builds and runs it: the standard arguments, ragged rows of A and B
/// read where they lie or from copies the host pads to multiples of 4 (lesson 08's zero
/// padding, counted in the time), one-dimensional work-groups of 128 work-items per warp group.
pub static WARP_GROUP: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |ctx| defines(ctx.info, false, Shape::square(256)),
    check_defines,
    launch: |s, d| {
        lab::lesson::require_nonempty(s)?;
        check_defines(d)?;
        let (wgs, bm) = (define(d, "WGS")?, define(d, "BM")?);
        Ok(Launch {
            global: [s.n.div_ceil(64 * wgs) * 128 * wgs, s.m.div_ceil(bm)],
            local: Some([128 * wgs, 1]),
        })
    },
    shapes: |_| Ok(Vec::new()),
    build_options: "",
    define_sets: &[],
    sanitize: Sanitize {
        probes: &[],
        stand_in: None,
    },
    behaviour: None,
    host: Host {
        // The defines say whether the kernel reads the host's padded copies of A and B (and
        // writes C where it lies) or A and B themselves, ragged or not.
        run: |gpu, kernel, p, l, d| match flag(d, "PADDED") {
            true => lab::harness::exec::run_padded_inputs(gpu, kernel, p, l, 4),
            false => lab::harness::exec::run_guarded(gpu, kernel, p, l),
        },
        prelude: Some(prelude),
        ..BUFFERS
    },
    sized: None,
    knobs: None,
    variants: &[],
    any_size: true,
};

/// The kernel at `shape` with `defines`, built for the device (the two-step build where the
/// instruction is real).
pub fn prepare(gpu: &Gpu, course: &Course, defines: &[Define]) -> Result<Prepared> {
    Prepared::read(gpu, &WARP_GROUP, &course.lessons().join(FILE), defines, "")
}

/// The kernel built for `shape` where the device has the instruction, with its defines and
/// launch; `None` elsewhere (the model's speed says nothing of the unit's).
fn on_the_unit(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<(Vec<Define>, Launch, Prepared)>> {
    if !has_instruction(gpu) {
        return Ok(None);
    }
    let d = defines(&gpu.info, true, shape);
    let launch = (WARP_GROUP.launch)(shape, &d).map_err(anyhow::Error::msg)?;
    let prepared = prepare(gpu, course, &d)?;
    Ok(Some((d, launch, prepared)))
}

/// The variant's measurement: checked and timed with the course's protocol where the device
/// has the instruction.
pub fn measure(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    let Some((d, launch, prepared)) = on_the_unit(gpu, course, shape)? else {
        return Ok(None);
    };
    let (t, _) = lab::measure::checked_time(gpu, &WARP_GROUP, &prepared.kernel, shape, &launch, &d)?;
    Ok(Some(t))
}

/// The variant's C for a problem where the device has the instruction (`lab-bench accuracy`).
pub fn product(gpu: &Gpu, course: &Course, p: &Problem) -> Result<Option<Vec<f32>>> {
    let Some((d, launch, prepared)) = on_the_unit(gpu, course, p.shape)? else {
        return Ok(None);
    };
    let out = (WARP_GROUP.host.run)(gpu, &prepared.kernel, p, &launch, &d)?;
    Ok(Some(out.c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_instruction_names_every_accumulator_element_once() {
        for n in SHAPES_N {
            let m = instruction_macros(n);
            assert!(m.contains(&format!("m64n{n}k8.f32.tf32.tf32")), "{m}");
            assert!(m.contains(&format!("\"+f\"(d[{}])", n / 2 - 1)));
            assert!(!m.contains(&format!("\"+f\"(d[{}])", n / 2)));
            // The predicate reads the last operand: sc, after d, A's four and the descriptor.
            assert!(m.contains(&format!("setp.ne.b32 p, %{}, 0", n / 2 + 5)), "{m}");
            assert!(m.contains(&format!("%{}, p, 1, 1", n / 2 + 4)), "{m}");
        }
    }

    #[test]
    fn the_block_follows_the_count_of_blocks() {
        let rows = |m, n| block_rows(132, Shape::new(m, n, 1024));
        assert_eq!(rows(1024, 1024), 64);
        assert_eq!(rows(2048, 2048), 128);
        assert_eq!(rows(8192, 8192), 192);
        assert_eq!(rows(12288, 4096), 192);
        assert_eq!(rows(1024, 8192), 128);
        // A's wider staging tile where K is not a multiple of 4 leaves no room for 192 rows.
        assert_eq!(block_rows(132, Shape::new(8192, 8192, 8191)), 128);
        assert_eq!(define(&on_h200(Shape::square(8191)), "BM"), Ok(192));
    }

    /// The defines the host chooses on a device of 132 compute units with the instruction.
    fn on_h200(shape: Shape) -> Vec<Define> {
        defines_for(132, true, shape, !in_place(shape))
    }

    #[test]
    fn ragged_rows_are_read_where_they_lie_and_fit_in_local_memory() {
        // In place up to 2^31 multiply-adds; above, the kernel reads the host's padded copies
        // (PADDED), and only where there is a copy.
        for (shape, ar, br, padded) in [
            (Shape::square(1024), false, false, false),
            (Shape::new(1024, 1024, 1023), true, false, false),
            (Shape::new(1024, 1023, 1024), false, true, false),
            (Shape::square(1023), true, true, false),
            (Shape::square(2047), false, false, true),
            (Shape::new(2048, 2047, 2048), false, false, true),
            (Shape::new(4096, 4095, 4096), false, false, true),
            (Shape::new(8192, 8192, 8191), false, false, true),
            (Shape::square(8192), false, false, false),
        ] {
            let d = on_h200(shape);
            assert_eq!(flag(&d, "AR"), ar, "{shape}");
            assert_eq!(flag(&d, "BR"), br, "{shape}");
            assert_eq!(flag(&d, "PADDED"), padded, "{shape}");
            assert_eq!(check_defines(&d), Ok(()), "{shape}");
        }
        // The copies' K is a whole number of steps at 2047: no guard on k.
        assert!(!flag(&on_h200(Shape::square(2047)), "KG"));
        let mut d = on_h200(Shape::new(2048, 1024, 1023));
        d.push(Define::new("BM", 192));
        assert!(check_defines(&d).unwrap_err().contains("AR = 1"));
        let mut d = on_h200(Shape::square(2047));
        d.push(Define::new("BR", 1));
        assert!(check_defines(&d).unwrap_err().contains("PADDED = 1"));
    }
}
