//! Lesson 10: everything together, tuned per device. The declaration the grader, the
//! scoreboard and the book read, its host code (the autotuner), and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 10_tuned [-- --solution --size 4096]
//! cargo run --release -p lab-bench -- tune --size 4096 --write     # the autotuner
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::lesson::{
    define, per_mad, probe_define, require_nonempty, Behaviour, Kind, Lesson, Measured, OclLesson,
    Peer, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

#[path = "10_tuned/tuner.rs"]
pub mod tuner;

use tuner::Params;

pub static LESSON: Lesson = Lesson {
    key: "10",
    slug: "tuned",
    title: "Putting it together",
    teaches: "2D register tiling, wide loads and double-buffered local tiles, parameters picked by an autotuner per device",
    hint: "in kernels/10_tuned.cl, start with load_step (10.1): each work-item reads LPTA float4 of A and LPTB of B into registers, zero outside the matrices. Then write them into the local tiles, A transposed (10.2), multiply the tiles into acc (10.3) and store acc into C, inside the matrix only (10.4).",
    kind: Kind::OpenCl(&TUNED),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[Peer::Clblast],
    top: true,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

pub static TUNED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    // The device's tuned winner from results/tuned.csv, else defaults that fit it.
    defines: |ctx| tuner::params_for(ctx.course, ctx.info).defines(),
    check_defines: |d| Params::from_defines(d)?.check(),
    launch: |s, d| {
        require_nonempty(s)?;
        let p = Params::from_defines(d)?;
        p.check()?;
        // One work-group per TSM×TSN block of C, the last ones partly outside C.
        Ok(Launch {
            global: [
                s.n.div_ceil(p.tsn) * p.rtsn(),
                s.m.div_ceil(p.tsm) * p.rtsm(),
            ],
            local: Some([p.rtsn(), p.rtsm()]),
        })
    },
    shapes: |d| {
        let (tm, tn, tk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
        Ok(vec![
            Shape::new(1, 1, 1),
            // Whole tiles, K a multiple of 4: the float4 paths only.
            Shape::new(2 * tm, tn, 3 * tk),
            // Partial tiles everywhere, K and N not multiples of 4: the scalar paths.
            Shape::new(tm + 3, 2 * tn - 5, 2 * tk + 3),
            // N a multiple of 4 but not of the tile, M and K odd.
            Shape::new(tm / 2 + 1, tn + 4, tk + 1),
            Shape::new(37, 29, 301),
            // Every matrix longer than 65 536 vectors of four floats: an index kept in 16
            // bits wraps.
            Shape::new(521, 517, 519),
        ])
    },
    build_options: "",
    define_sets: &[
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "4"),
        ],
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "16"),
            ("WPTM", "4"),
            ("WPTN", "8"),
            ("ALONGK", "1"),
        ],
        // A work-group of 4×8 work-items (RTSM ≠ RTSN) with two float4 of results each way,
        // so that swapped block strides cannot pass.
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "8"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[
            // K and N not multiples of 4: the scalar paths.
            Probe {
                shape: Shape::new(35, 19, 19),
                defines: PROBE_DEFINES,
            },
            // The float4 paths, with partial tiles.
            Probe {
                shape: Shape::new(35, 20, 20),
                defines: PROBE_DEFINES,
            },
        ],
        uninitialized: true,
    },
    behaviour: Some(Behaviour {
        probe: Probe {
            shape: Shape::new(64, 32, 24),
            defines: &[
                ("TSM", "32"),
                ("TSN", "16"),
                ("TSK", "8"),
                ("WPTM", "8"),
                ("WPTN", "4"),
            ],
        },
        judge: everything,
        contrast: &[],
        not_checked: "",
    }),
    host: BUFFERS,
    // Lesson runs and the ladder use the winner tuned at the nearest size.
    sized: Some(|ctx, shape| {
        tuner::tuned_for_size(&tuner::tuned_csv(&ctx.course.results()), ctx.info, shape)
            .map(|p| p.defines())
    }),
    knobs: Some(|info| {
        tuner::space(info)
            .iter()
            .map(|p| p.defines())
            .collect()
    }),
    any_size: true,
    variants: &[Variant {
        name: "defaults",
        about: "the same kernel with the defaults a device gets when neither it nor a device of the same signature has been tuned",
        measure: |gpu, course, shape| {
            let d = tuner::defaults(&gpu.info).defines();
            let file = course.solutions().join(LESSON.file_name());
            lab::measure::measure_file(gpu, &LESSON, &file, &d, shape)
        },
    }],
};

/// A small asymmetric set for the simulator.
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("TSM", "16"),
    ("TSN", "8"),
    ("TSK", "8"),
    ("WPTM", "8"),
    ("WPTN", "4"),
];

/// Everything of lessons 05-08, measured: shared tiles (global loads per multiply-add),
/// register blocks (local loads per multiply-add), float4 accesses to global and local
/// memory, and double buffering (one barrier per k-step, two copies of each tile).
fn everything(m: &Measured, probe: &Probe) -> Result<String, String> {
    let d = |n| probe_define(probe, n);
    let (tsm, tsn, tsk, wptm, wptn) = (d("TSM"), d("TSN"), d("TSK"), d("WPTM"), d("WPTN"));
    let c = m.counts;
    let at = probe.shape;
    let (gl, ll) = (c.global_loads(), c.local_loads());
    if gl.bytes_per_access() < 12.0 || ll.bytes_per_access() < 12.0 {
        return Err(format!(
            "your kernel's global loads move {:.1} bytes each and its local loads {:.1} (measured at {at}); lesson 10 reads both as float4 (16 bytes).\nHint: load A and B from global memory as float4 (lesson 07), and read the local tiles as float4 too: A's tile is stored transposed so that the WPTM values a work-item needs for one k lie side by side.",
            gl.bytes_per_access(),
            ll.bytes_per_access()
        ));
    }
    let global = per_mad(gl.count, probe);
    let ideal_global = (tsm + tsn) / (4.0 * tsm * tsn);
    if global > 1.5 * ideal_global {
        return Err(format!(
            "your kernel loads {global:.4} float4 from global memory per multiply-add (measured with TSM = {tsm}, TSN = {tsn} at {at}); shared tiles need (TSM + TSN)/(4·TSM·TSN) = {ideal_global:.4}.\nHint: each float4 of A and B is loaded once per k-step by the work-group, into the local tiles."
        ));
    }
    let local = per_mad(ll.count, probe);
    let ideal_local = (wptm + wptn) / (4.0 * wptm * wptn);
    if local > 1.5 * ideal_local {
        return Err(format!(
            "your kernel reads {local:.3} float4 from local memory per multiply-add (measured with WPTM = {wptm}, WPTN = {wptn} at {at}); a WPTM×WPTN block in registers needs (WPTM + WPTN)/(4·WPTM·WPTN) = {ideal_local:.4}.\nHint: for each k, read WPTM/4 float4 of A's tile and WPTN/4 of B's into registers, then do the WPTM×WPTN multiply-adds from registers."
        ));
    }
    let items = (at.m as f64 / wptm).ceil() * (at.n as f64 / wptn).ceil();
    let steps = (at.k as f64 / tsk).ceil();
    let barriers = c.barriers() as f64 / (items * steps);
    let tiles = 4.0 * tsk * (tsm + tsn);
    if barriers > 1.5 || (m.local_bytes as f64) < 2.0 * tiles {
        return Err(format!(
            "your kernel waits at {barriers:.1} barriers per k-step and declares {} bytes of local memory (measured at {at}); double buffering keeps two copies of each tile ({:.0} bytes) and needs one barrier per k-step.\nHint: while the group multiplies from one copy of the tiles, write the next k-step into the other, then one barrier(CLK_LOCAL_MEM_FENCE) before swapping.",
            m.local_bytes,
            2.0 * tiles
        ));
    }
    Ok(format!(
        "everything: {global:.4} global and {local:.3} local float4 loads per multiply-add, {barriers:.1} barrier per k-step, {} bytes of local memory (two copies of each tile)",
        m.local_bytes
    ))
}

pub mod cases {
//! Lesson 10's cases: mistakes students make when they put everything together, each with
//! what the grader must say, and correct kernels in other styles. Read by tests/10_tuned.rs
//! and tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "10";

/// The words every race report has.
const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

/// The lesson's set with a work-group of 4×8 work-items (RTSM ≠ RTSN).
const RTSM_NE_RTSN: &str = "with -D TSM=64 -D TSN=32 -D TSK=8 -D WPTM=8 -D WPTN=8";

/// The one barrier of a k-step, with its comment.
const THE_BARRIER: &str =
    "        // One barrier per k-step: the other buffer, written in the next step, was last read
        // in the previous step, which every work-item has finished once it passes here.
        barrier(CLK_LOCAL_MEM_FENCE);
";

pub const CASES: &[Case] = &[
    // Barriers and buffers. PoCL hides these races; the simulator does not.
    Case::rejects(
        L,
        "no_barrier",
        Race,
        Mutant(&[(THE_BARRIER, "")]),
        FailKind::Race,
        &["data race", "__local", "hint"],
    ),
    Case::rejects(
        L,
        "one_buffer_one_barrier",
        Race,
        // Double buffering without the second buffer: the next step overwrites the tile
        // while slower work-items still read it.
        Mutant(&[("const int buf = t & 1;", "const int buf = 0;")]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_only_before_a_next_step",
        Barrier,
        Mutant(&[
            (THE_BARRIER, ""),
            (
                "        if (t + 1 < steps) {
            load_step(",
                "        if (t + 1 < steps) {
            barrier(CLK_LOCAL_MEM_FENCE);
            load_step(",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "early_return_below_c",
        Barrier,
        // Work-items whose rows all lie below C leave at once: the others wait for them.
        Mutant(&[(
            "    const int n0 = get_group_id(0) * TSN;
",
            "    const int n0 = get_group_id(0) * TSN;
    if (m0 + ty * 4 >= M) {
        return;
    }
",
        )]),
        // PoCL's run already goes wrong; the simulator says why.
        FailKind::OutOfBounds,
        &["outside C", "reached this barrier", "early `return`"],
    ),
    // Directions swapped, hidden by square work-groups.
    Case::rejects(
        L,
        "b_registers_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "b[j] = bs[k * (TSN / 4) + j * RTSN + tx];",
            "b[j] = bs[k * (TSN / 4) + j * RTSM + tx];",
        )]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "a_registers_strided_by_rtsn",
        Asymmetric,
        Mutant(&[("((i * RTSM + ty) ^ SWZ(k))", "((i * RTSN + ty) ^ SWZ(k))")]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "store_rows_strided_by_rtsn",
        Asymmetric,
        Mutant(&[(
            "const int row = m0 + (i / 4) * (RTSM * 4) + ty * 4 + (i % 4);",
            "const int row = m0 + (i / 4) * (RTSN * 4) + ty * 4 + (i % 4);",
        )]),
        FailKind::Unwritten,
        &[RTSM_NE_RTSN, "never written"],
    ),
    Case::rejects(
        L,
        "a_tile_rows_of_tsn",
        Asymmetric,
        Mutant(&[
            (
                "const int row = m0 + (ALONGK ? id / (TSK / 4) : id % TSM);
        const int col = k0 + (ALONGK ? id % (TSK / 4) : id / TSM) * 4;",
                "const int row = m0 + (ALONGK ? id / (TSK / 4) : id % TSN);
        const int col = k0 + (ALONGK ? id % (TSK / 4) : id / TSN) * 4;",
            ),
            (
                "const int row = ALONGK ? id / (TSK / 4) : id % TSM;
            const int k = (ALONGK ? id % (TSK / 4) : id / TSM) * 4;",
                "const int row = ALONGK ? id / (TSK / 4) : id % TSN;
            const int k = (ALONGK ? id % (TSK / 4) : id / TSN) * 4;",
            ),
        ]),
        // Two work-items load the same float4 of the tile and others none: the simulator
        // sees them write the same elements.
        FailKind::Race,
        &["data race", "__local as"],
    ),
    Case::rejects(
        L,
        "a_tile_not_transposed",
        Asymmetric,
        Mutant(&[
            ("as[(k + 0) * TSM + m]", "as[m * TSK + k + 0]"),
            ("as[(k + 1) * TSM + m]", "as[m * TSK + k + 1]"),
            ("as[(k + 2) * TSM + m]", "as[m * TSK + k + 2]"),
            ("as[(k + 3) * TSM + m]", "as[m * TSK + k + 3]"),
        ]),
        FailKind::Wrong,
        &["expected", "got", "max relative error"],
    ),
    Case::rejects(
        L,
        "neighbouring_columns_in_store",
        Asymmetric,
        Mutant(&[(
            "const int col = n0 + (j * RTSN + tx) * 4;",
            "const int col = n0 + tx * WPTN + j * 4;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Edges: partial steps, ragged rows, guards one off.
    Case::rejects(
        L,
        "k_steps_rounded_down",
        Edge,
        Mutant(&[(
            "const int steps = (K + TSK - 1) / TSK;",
            "const int steps = K / TSK;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "b_vector_loads_when_n_is_ragged",
        Edge,
        Mutant(&[(
            "} else if ((N & 3) == 0) {
            rb[l] = *(const __global float4*)p;",
            "} else if (true) {
            rb[l] = *(const __global float4*)p;",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    Case::rejects(
        L,
        "a_vector_loads_when_k_is_ragged",
        Edge,
        Mutant(&[(
            "} else if ((K & 3) == 0) {",
            "} else if (true) {",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    Case::rejects(
        L,
        "row_guard_up_to_and_including_m",
        Edge,
        Mutant(&[("        if (row < M) {", "        if (row <= M) {")]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    Case::rejects(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "__global float* p = C + row * N + col;",
            "__global float* p = C + (ushort)(row * N + col);",
        )]),
        FailKind::Unwritten,
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "a_rows_below_m_loaded",
        OutOfBoundsRead,
        // Rows of A's tile below M are read from memory instead of set to zero: they only
        // reach rows of C that are not stored, so C is right.
        Mutant(&[("if (row >= M || col >= K) {", "if (col >= K) {")]),
        FailKind::BadAccess,
        &["past the end of p", "read 0.0f instead of memory"],
    ),
    Case::rejects(
        L,
        "stores_outside_c",
        OutOfBoundsWrite,
        Mutant(&[
            (
                "(i % 4);
        if (row < M) {",
                "(i % 4);
        {",
            ),
            (
                "if (col < N) {
                        *(__global float4*)p = v;
                    }",
                "*(__global float4*)p = v;",
            ),
            (
                "if (col + 0 < N) p[0] = v.x;
                    if (col + 1 < N) p[1] = v.y;
                    if (col + 2 < N) p[2] = v.z;
                    if (col + 3 < N) p[3] = v.w;",
                "p[0] = v.x;
                    p[1] = v.y;
                    p[2] = v.z;
                    p[3] = v.w;",
            ),
        ]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    Case::rejects(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[i][j] = (float4)(0.0f);
",
            "",
        )]),
        FailKind::Uninitialized,
        &["uninitialised value", "acc[i][j]"],
    ),
    // Right answers that are not lesson 10's kernel.
    Case::rejects(
        L,
        "scalar_tiles",
        Decoy,
        File("scalar_tiles"),
        FailKind::Technique,
        &["bytes each", "float4 (16 bytes)", "Hint"],
    ),
    Case::rejects(
        L,
        "lesson_08_kernel",
        Decoy,
        Solution("08"),
        FailKind::Technique,
        &["local loads", "float4"],
    ),
    Case::rejects(
        L,
        "one_buffer_two_barriers",
        Decoy,
        // Right, but lesson 08's synchronisation: one copy of each tile, two barriers per
        // k-step.
        Mutant(&[
            (
                "__local float4 As[2 * TSK * TSM / 4];
    __local float4 Bs[2 * TSK * TSN / 4];",
                "__local float4 As[TSK * TSM / 4];
    __local float4 Bs[TSK * TSN / 4];",
            ),
            ("const int buf = t & 1;", "const int buf = 0;"),
            (
                "        // EXERCISE END
        // ANCHOR_END: compute
    }",
                "        // EXERCISE END
        // ANCHOR_END: compute
        barrier(CLK_LOCAL_MEM_FENCE);
    }",
            ),
        ]),
        FailKind::Technique,
        &["barriers per k-step", "double buffering"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
",
            "    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"10_tuned\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = (float4)(1.0f);
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(
        L,
        "a_loaded_along_k",
        // ALONGK = 1 whatever the host asks.
        Mutant(&[(
            "// Derived sizes:",
            "#undef ALONGK
#define ALONGK 1

// Derived sizes:",
        )]),
    ),
    Case::accepts(
        L,
        "vload_and_vstore",
        Mutant(&[
            (
                "ra[l] = *(const __global float4*)p;",
                "ra[l] = vload4(0, p);",
            ),
            (
                "rb[l] = *(const __global float4*)p;",
                "rb[l] = vload4(0, p);",
            ),
            ("*(__global float4*)p = v;", "vstore4(v, 0, p);"),
        ]),
    ),
    Case::accepts(
        L,
        "columns_outer_in_the_product",
        Mutant(&[(
            "            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN / 4; j++) {
                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);",
            "            for (int j = 0; j < WPTN / 4; j++) {
                #pragma unroll
                for (int i = 0; i < WPTM; i++) {
                    acc[i][j] += a[i] * b[j];",
        )]),
    ),
    // Wrong for one combination the tuner may choose: every grading checks them all.
    Case::rejects(
        L,
        "wrong_for_one_tuner_combination",
        Asymmetric,
        Mutant(&[(
            "                const float4 v = acc[i][j];\n",
            "#if TSM == 128 && TSN == 64 && TSK == 32\n                const float4 v = acc[i][j] * 1.001f;\n#else\n                const float4 v = acc[i][j];\n#endif\n",
        )]),
        FailKind::Wrong,
        &["with -D TSM=128 -D TSN=64 -D TSK=32"],
    ),
    Case::accepts(
        L,
        "b_tile_of_floats_read_with_vload4",
        Mutant(&[
            ("__local float4 Bs[2 * TSK * TSN / 4];", "__local float Bs[2 * TSK * TSN];"),
            ("__local float4* bs = Bs + buf * (TSK * TSN / 4);", "__local float* bs = Bs + buf * (TSK * TSN);"),
            ("bs[tid + l * THREADS] = rb[l];", "vstore4(rb[l], tid + l * THREADS, bs);"),
            ("b[j] = bs[k * (TSN / 4) + j * RTSN + tx];", "b[j] = vload4(k * (TSN / 4) + j * RTSN + tx, bs);"),
        ]),
    ),
];
}
