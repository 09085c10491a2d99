//! Lesson 04: the first OpenCL kernel, one work-item per element of C. The declaration the
//! grader, the scoreboard and the book read, its host code, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 04_naive_kernel [-- --solution --size 1024]
//! ```

use std::path::Path;

use anyhow::Result;
use lab::harness::device::Gpu;
use lab::harness::exec::Launch;
use lab::harness::timing::Timing;
use lab::harness::matrix::Shape;
use lab::harness::paths::Course;
use lab::harness::program;
use lab::lesson::{
    require_nonempty, Kind, Lesson, OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "04",
    slug: "naive_kernel",
    title: "First OpenCL kernel",
    teaches: "one work-item per element of C, the host code around it, and coalescing",
    hint: "in kernels/04_naive_kernel.cl, read your column from get_global_id(0) and your row from get_global_id(1), sum A[row*K + k] * B[k*N + col] over k, and store the sum in C[row*N + col].",
    kind: Kind::OpenCl(&NAIVE),
    intensity: Some(lab::lesson::Intensity {
        rule: "A and B loaded per multiply-add: 2 FLOP / 8 B",
        of: |_| Some(0.25),
        walk: |_| Some(lab::lesson::Walk::RowsInFlight),
    }),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// One work-item per element of C: any size, the driver picks the work-group.
pub static NAIVE: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |_| Vec::new(),
    check_defines: |_| Ok(()),
    launch: |s, _| {
        require_nonempty(s)?;
        // Dimension 0 runs along a row of C, so neighbouring work-items touch neighbouring
        // addresses of B and C.
        Ok(Launch {
            global: [s.n, s.m],
            local: None,
        })
    },
    shapes: |_| {
        Ok(vec![
            Shape::new(1, 1, 1),
            Shape::new(7, 13, 5),
            Shape::new(64, 48, 80),
            Shape::new(131, 97, 150),
            // More than 65 536 elements of C: an index kept in 16 bits wraps here.
            Shape::new(263, 257, 9),
        ])
    },
    build_options: "",
    define_sets: &[],
    sanitize: Sanitize {
        probes: &[Probe {
            shape: Shape::new(37, 29, 23),
            defines: &[],
        }],
        uninitialized: true,
    },
    behaviour: None,
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[Variant {
        name: "row-as-dim0",
        about: "the same kernel with get_global_id(0) as the row (seed 004's mapping): uncoalesced",
        measure: row_as_dim0,
    }],
};

/// The swapped-id kernel.
const ROW_AS_DIM0: &str = include_str!("04_naive_kernel/row_as_dim0.cl");

/// Checks and times the swapped mapping: global size (M, N) so that dimension 0 is the row.
fn row_as_dim0(gpu: &Gpu, course: &Course, shape: Shape) -> Result<Option<Timing>> {
    let path = course.lessons().join("04_naive_kernel/row_as_dim0.cl");
    let program = program::build_source(gpu, Path::new(&path), ROW_AS_DIM0, &[], "")?;
    let kernel = program::kernel(&program, &path, "matmul", STANDARD_ARGS)?;
    let launch = Launch {
        global: [shape.m, shape.n],
        local: None,
    };
    let (t, _) = lab::measure::checked_time(gpu, &NAIVE, &kernel, shape, &launch, &[])?;
    Ok(Some(t))
}

pub mod cases {
//! Lesson 04's cases: mistakes students make in a first kernel, each with what the grader
//! must say, and correct kernels in other styles. Read by tests/04_naive_kernel.rs and
//! tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "04";

pub const CASES: &[Case] = &[
    // Directions: the matrices are not square, so a swapped index cannot pass.
    Case::rejects(
        L,
        "row_as_dim0_transposed",
        Asymmetric,
        File("row_as_dim0_transposed"),
        // Dimension 0 of the launch spans the columns; a kernel that takes it as the row
        // computes a transposed C and leaves part of it unwritten.
        FailKind::Unwritten,
        &["never written", "still holds the value C held there before the call"],
    ),
    Case::rejects(
        L,
        "wrong_index",
        Asymmetric,
        File("wrong_index"),
        FailKind::Wrong,
        &["row 0, column 0", "expected", "got", "max relative error"],
    ),
    Case::rejects(
        L,
        "c_rows_of_m",
        Asymmetric,
        Mutant(&[("C[row * N + col] = acc;", "C[row * M + col] = acc;")]),
        FailKind::BadAccess,
        &["past the end of C", "C[row * N + col]", "never written"],
    ),
    // Edges.
    Case::rejects(
        L,
        "k_up_to_and_including_k",
        Edge,
        Mutant(&[("k < K", "k <= K")]),
        FailKind::BadAccess,
        &["past the end of B", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "ushort_index",
        Edge,
        File("ushort_index"),
        FailKind::Unwritten,
        &["M=263 N=257 K=9", "(row 255, column 1) was never written"],
    ),
    Case::rejects_any(
        L,
        "short_index",
        Edge,
        Mutant(&[
            (
                "const int row = get_global_id(1);",
                "const int row = get_global_id(1);
    const short idx = row * N + col;",
            ),
            ("C[row * N + col] = acc;", "C[idx] = acc;"),
        ]),
        // A signed 16-bit index turns negative past 32 767 and stores before C: PoCL's
        // worker aborts there; elsewhere the elements past it stay unwritten.
        &[FailKind::Crash, FailKind::Unwritten],
        &["M=263 N=257 K=9"],
    ),
    Case::rejects(
        L,
        "next_pair_read_ahead",
        OutOfBoundsRead,
        File("next_pair_read_ahead"),
        FailKind::BadAccess,
        &["past the end of B", "b_next"],
    ),
    Case::rejects(
        L,
        "out_of_bounds",
        OutOfBoundsWrite,
        File("out_of_bounds"),
        FailKind::OutOfBounds,
        &["outside C", "past the end", "row"],
    ),
    Case::rejects(
        L,
        "accumulator_uninitialised",
        Uninitialised,
        Mutant(&[("float acc = 0.0f;", "float acc;")]),
        FailKind::Uninitialized,
        &["never initialised", "acc"],
    ),
    // Results and inputs.
    Case::rejects(
        L,
        "integer_accumulator",
        WrongResult,
        Mutant(&[("float acc = 0.0f;", "int acc = 0;")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "never_writes",
        WrongResult,
        File("never_writes"),
        FailKind::Unwritten,
        &["never wrote C", "NaN"],
    ),
    Case::rejects(
        L,
        "writes_into_b",
        WrongResult,
        File("writes_into_b"),
        FailKind::InputsChanged,
        &["wrote into B", "row 0, column 0"],
    ),
    // Building, the signature, running away.
    Case::rejects(
        L,
        "does_not_compile",
        Build,
        File("does_not_compile"),
        FailKind::Build,
        // The compiler's whole log, line by line.
        &["does_not_compile.cl", "did not compile", "acc", "\n  | "],
    ),
    Case::rejects(
        L,
        "wrong_arguments",
        Build,
        File("wrong_arguments"),
        FailKind::Signature,
        &["takes 5 argument", "passes 6", "const int K"],
    ),
    Case::rejects(
        L,
        "wrong_name",
        Build,
        File("wrong_name"),
        FailKind::Signature,
        &["no kernel named `matmul`", "`gemm`"],
    ),
    Case::rejects(
        L,
        "never_finishes",
        Runaway,
        File("never_finishes"),
        FailKind::Hang,
        &["did not finish", "running"],
    )
    .watchdog(20),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        File("prints_a_forged_verdict"),
        FailKind::Wrong,
        &["expected", "got 1.0"],
    )
    .printing(&["LAB-EVENT"]),
    // Right only at the published sizes: each grading draws one more.
    Case::rejects(
        L,
        "right_only_at_the_published_shapes",
        Cheat,
        File("right_only_at_the_published_shapes"),
        FailKind::Wrong,
        &["expected", "got 0.000000"],
    ),
    Case::rejects(
        L,
        "asks_the_opencl_version",
        Cheat,
        File("asks_the_opencl_version"),
        FailKind::NotSelfContained,
        &["line 13", "`__OPENCL_C_VERSION__`", "same code on every device"],
    ),
    // Cheats: work skipped where a grader might not look. The asked size (here the timed
    // one) is itself a checked problem, every call, timed or not, gets fresh inputs and a C
    // holding NaN, random numbers or an earlier product, drawn per call, and is checked.
    Case::rejects(
        L,
        "skip_square_problems",
        Cheat,
        File("skip_square_problems"),
        FailKind::Unwritten,
        &["M=64 N=64 K=64", "never wrote C"],
    )
    .timed(64),
    Case::rejects(
        L,
        "sampled_elements_only",
        Cheat,
        File("sampled_elements_only"),
        FailKind::Unwritten,
        &["M=520 N=520 K=520", "never written"],
    )
    .timed(520),
    Case::rejects(
        L,
        "skip_when_c_holds_numbers",
        Cheat,
        File("skip_when_c_holds_numbers"),
        FailKind::Uninitialized,
        // The simulator names the line that reads C; the device saw C left as it was, on a
        // call where C held numbers.
        &[
            "skip_when_c_holds_numbers.cl:10",
            "C read before the kernel wrote it",
            "C NOT WRITTEN",
            "still holds the value it had before the call",
        ],
    )
    .timed(64),
    // Less precision where K is large (no drawn problem has K ≥ 512; the asked size, 1024
    // here, does, and it is checked): inputs rounded to half's 10 bits of mantissa, as fast
    // half arithmetic would need. Every element stays within the rounding bound of an FP32 sum of K products; C as
    // a whole is hundreds of times less precise than FP32.
    Case::rejects(
        L,
        "half_precision_when_k_is_large",
        Cheat,
        Mutant(&[(
            "        acc += A[row * K + k] * B[k * N + col];",
            "        float a = A[row * K + k], b = B[k * N + col];
        if (K >= 512) {
            a = as_float((as_uint(a) + 0x1000u) & 0xffffe000u);
            b = as_float((as_uint(b) + 0x1000u) & 0xffffe000u);
        }
        acc += a * b;",
        )]),
        FailKind::Wrong,
        &["M=1024 N=1024 K=1024", "less precise than FP32", "in float"],
    )
    .timed(1024),
    // Wrong only at "round" sizes: the asked size, a power-of-two cube and a shape of
    // multiples of 256 are checked at every grading, and a C past 2^20 elements.
    Case::rejects(
        L,
        "wrong_at_square_powers_of_two",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M == N && N == K && (M & (M - 1)) == 0 && M >= 256 && row == M - 1) ? 0.0f : acc;",
        )]),
        FailKind::Wrong,
        &["M=256 N=256 K=256"],
    ),
    Case::rejects(
        L,
        "wrong_when_every_side_is_a_multiple_of_128",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M % 128 == 0 && N % 128 == 0 && K % 128 == 0 && M >= 256 && col == 0) ? -acc : acc;",
        )]),
        FailKind::Wrong,
        &["column 0"],
    ),
    Case::rejects(
        L,
        "wrong_past_a_million_elements_of_c",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M * N > 1000000 && row == M - 1 && col == N - 1) ? acc + 1.0f : acc;",
        )]),
        FailKind::Wrong,
        &[],
    ),
    // Correct in another style.
    Case::accepts(L, "unrolled_by_four", File("unrolled_by_four")),
    Case::accepts(L, "pointer_walk", File("pointer_walk")),
    Case::accepts(
        L,
        "double_accumulator",
        Mutant(&[
            ("float acc = 0.0f;", "double acc = 0.0;"),
            (
                "acc += A[row * K + k] * B[k * N + col];",
                "acc += (double)A[row * K + k] * B[k * N + col];",
            ),
            ("C[row * N + col] = acc;", "C[row * N + col] = (float)acc;"),
        ]),
    ),
];
}
