//! Lesson 09's cases: mistakes students make with B as an image and micro-tiles, each with
//! what the grader must say, and correct kernels in other styles. Read by
//! tests/09_texture_zero_copy.rs and tests/suite.rs.

use crate::common::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "09";

/// The words every race report has.
const RACE: &[&str] = &["data race", "__local Atile", "barrier(CLK_LOCAL_MEM_FENCE)"];

pub const CASES: &[Case] = &[
    // Barriers around the shared tile of A (A_LOCAL = 1). PoCL hides these races.
    Case::rejects(
        L,
        "no_barrier_after_loading_a",
        Race,
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: load_a",
            "        // ANCHOR_END: load_a",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "no_barrier_before_refilling_a",
        Race,
        Mutant(&[(
            "        // Nobody refills the tile while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
            "",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "early_return_below_c",
        Barrier,
        // Work-items whose micro-tile starts below C leave at once: the others wait for
        // them at the barriers.
        Mutant(&[(
            "    const int lda = (K + KT - 1) / KT * KT;
",
            "    const int lda = (K + KT - 1) / KT * KT;
    if (row0 >= M) {
        return;
    }
",
        )]),
        // PoCL's run already goes wrong; the simulator says why.
        FailKind::OutOfBounds,
        &["outside C", "reached this barrier", "early `return`"],
    ),
    // Directions swapped: RM ≠ RN and WGX ≠ WGY in the lesson's second define set.
    Case::rejects(
        L,
        "pixel_columns_of_rm",
        Asymmetric,
        Mutant(&[(
            "const int x0 = get_group_id(0) * (WGX * RN) + lx;",
            "const int x0 = get_group_id(0) * (WGX * RM) + lx;",
        )]),
        FailKind::Unwritten,
        &["never written"],
    ),
    Case::rejects(
        L,
        "macro_tile_rows_of_wgx",
        Asymmetric,
        Mutant(&[(
            "const int tile_row = get_group_id(1) * TM;",
            "const int tile_row = get_group_id(1) * WGX * RM;",
        )]),
        FailKind::BadAccess,
        &["past the end of A", "never written"],
    ),
    Case::rejects(
        L,
        "b_transposed",
        Asymmetric,
        Mutant(&[("(int2)(x0 + j * WGX, k + q)", "(int2)(k + q, x0 + j * WGX)")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "wrong_pixel_coordinate",
        Asymmetric,
        Mutant(&[(
            "(int2)(x0 + j * WGX, k + q)",
            "(int2)(4 * (x0 + j * WGX), k + q)",
        )]),
        FailKind::Wrong,
        &["expected", "got", "row"],
    ),
    // Edges.
    Case::rejects(
        L,
        "unpadded_a_rows",
        Edge,
        Mutant(&[(
            "const int lda = (K + KT - 1) / KT * KT;",
            "const int lda = K;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "three_rows_of_b",
        Edge,
        Mutant(&[
            (
                "for (int q = 0; q < 4; q++) {",
                "for (int q = 0; q < 3; q++) {",
            ),
            ("a.w * b[j][3]", "a.w * b[j][2]"),
        ]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "vector_store_by_pointer_cast",
        Edge,
        // A float4 store through a cast pointer needs a 16-byte aligned address: rows of C
        // start there only when N is a multiple of 4.
        Mutant(&[(
            "vstore4(acc[i][j], 0, out);",
            "*(__global float4*)out = acc[i][j];",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    Case::rejects(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "__global float* out = C + row * N + col;",
            "__global float* out = C + (ushort)(row * N + col);",
        )]),
        FailKind::Unwritten,
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "a_tile_loaded_one_float4_too_far",
        OutOfBoundsRead,
        Mutant(&[(
            "t < TM * KT4; t += WGX * WGY",
            "t <= TM * KT4; t += WGX * WGY",
        )]),
        FailKind::BadAccess,
        &["Atile"],
    ),
    Case::rejects_any(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[i][j] = (float4)(0.0f);
",
            "",
        )]),
        // The simulator cannot check uninitialised values in a kernel that reads images, so
        // this is caught by what the device leaves in the accumulators: some are garbage,
        // others NaN (read as "never written"), from one run to the next.
        &[FailKind::Wrong, FailKind::Unwritten],
        &[],
    ),
    Case::rejects_any(
        L,
        "a_tile_loaded_in_one_pass",
        Edge,
        // One float4 per work-item: enough for the device's 32×8 group, not for a 4×8 group
        // whose tile of A has 64 float4. The simulator cannot check uninitialised values
        // here (B is an image), so this is caught by what the device computes from the
        // unloaded part of the tile.
        Mutant(&[(
            "for (int t = ly * WGX + lx; t < TM * KT4; t += WGX * WGY) {",
            "for (int t = ly * WGX + lx; t < WGX * WGY; t += WGX * WGY) {",
        )]),
        &[FailKind::Wrong, FailKind::Unwritten],
        &["with -D WGX=4 -D WGY=8"],
    ),
    Case::rejects(
        L,
        "store_without_guard",
        OutOfBoundsWrite,
        Mutant(&[
            ("if (row < M) {", "{"),
            ("if (col + 3 < N) {", "if (true) {"),
        ]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    Case::rejects(
        L,
        "last_pixel_guard_up_to_and_including_n",
        OutOfBoundsWrite,
        Mutant(&[("if (col + 3 < N) {", "if (col + 3 <= N) {")]),
        FailKind::OutOfBounds,
        &["outside C"],
    ),
    Case::rejects(
        L,
        "b_as_buffer",
        Build,
        Mutant(&[
            ("__read_only image2d_t B,", "const __global float* B,"),
            (
                "b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));",
                "b[j][q] = vload4(0, B + (k + q) * N + 4 * (x0 + j * WGX));",
            ),
        ]),
        FailKind::Signature,
        &["argument 5", "image2d_t B"],
    ),
    // Right answers that only look like micro-tiles.
    Case::rejects(
        L,
        "b_read_again_for_every_row",
        Decoy,
        Mutant(&[
            (
                "            float4 b[RN][4];
            #pragma unroll
            for (int j = 0; j < RN; j++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                }
            }
",
                "",
            ),
            (
                "                for (int j = 0; j < RN; j++) {
                    acc[i][j] +=",
                "                for (int j = 0; j < RN; j++) {
                    float4 b[RN][4];
                    for (int q = 0; q < 4; q++) {
                        b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                    }
                    acc[i][j] +=",
            ),
        ]),
        FailKind::Technique,
        &["pixels of B per multiply-add", "1/(4·RM)"],
    ),
    Case::rejects(
        L,
        "scalar_stores",
        Decoy,
        Mutant(&[(
            "vstore4(acc[i][j], 0, out);",
            "out[0] = acc[i][j].x;
                    out[1] = acc[i][j].y;
                    out[2] = acc[i][j].z;
                    out[3] = acc[i][j].w;",
        )]),
        FailKind::Technique,
        &["stores C 4.0 bytes at a time", "vstore4"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(09.2) BEGIN: store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N
",
            "    // EXERCISE(09.2) BEGIN: store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"09_texture_zero_copy\\\",\\\"failure\\\":null}}\\n\");
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
        "a_from_global_memory",
        // A_LOCAL = 0 whatever the host asks: each work-item reads its rows of A itself.
        Mutant(&[(
            "#define TM (WGY * RM)",
            "#undef A_LOCAL
#define A_LOCAL 0
#define TM (WGY * RM)",
        )]),
    ),
    Case::accepts(
        L,
        "one_mad_per_row_of_b",
        Mutant(&[(
            "acc[i][j] += a.x * b[j][0] + a.y * b[j][1] + a.z * b[j][2] + a.w * b[j][3];",
            "acc[i][j] = mad((float4)(a.x), b[j][0], acc[i][j]);
                    acc[i][j] = mad((float4)(a.y), b[j][1], acc[i][j]);
                    acc[i][j] = mad((float4)(a.z), b[j][2], acc[i][j]);
                    acc[i][j] = mad((float4)(a.w), b[j][3], acc[i][j]);",
        )]),
    ),
    Case::accepts(
        L,
        "sampler_clamps_to_the_edge",
        // Rows of B past K read the last row instead of zero, but they meet the zero columns
        // the host pads A with; columns past N only reach elements of C that are not stored.
        Mutant(&[("CLK_ADDRESS_CLAMP |", "CLK_ADDRESS_CLAMP_TO_EDGE |")]),
    ),
    Case::accepts(
        L,
        "pixels_outer_rows_inner",
        // For each pixel column j: read its four rows of B, then update every row of the
        // micro-tile with them.
        Mutant(&[(
            "            float4 b[RN][4];
            #pragma unroll
            for (int j = 0; j < RN; j++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                }
            }
            // Row i of C gains A[i][k]·B[k] + A[i][k+1]·B[k+1] + ... four columns at a time.
            #pragma unroll
            for (int i = 0; i < RM; i++) {
                const float4 a = A4(i, kk);
                #pragma unroll
                for (int j = 0; j < RN; j++) {
                    acc[i][j] += a.x * b[j][0] + a.y * b[j][1] + a.z * b[j][2] + a.w * b[j][3];
                }
            }",
            "            for (int j = 0; j < RN; j++) {
                const int2 at = (int2)(x0 + j * WGX, k);
                const float4 b0 = read_imagef(B, pixel, at);
                const float4 b1 = read_imagef(B, pixel, at + (int2)(0, 1));
                const float4 b2 = read_imagef(B, pixel, at + (int2)(0, 2));
                const float4 b3 = read_imagef(B, pixel, at + (int2)(0, 3));
                for (int i = 0; i < RM; i++) {
                    const float4 a = A4(i, kk);
                    acc[i][j] += a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3;
                }
            }",
        )]),
    ),
];
