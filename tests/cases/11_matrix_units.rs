//! Lesson 11's cases: mistakes students make with the matrix unit, each with what the grader
//! must say, and correct kernels in other styles. Read by tests/11_matrix_units.rs and
//! tests/suite.rs.

use crate::common::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "11";

/// The three products of a tile and k-step, and the sum outside the unit.
const THREE: &str =
    "                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;";

/// The barrier of a k-step, after the wait for its copies.
const THE_BARRIER: &str = "        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);";

pub const CASES: &[Case] = &[
    // Accuracy: what the unit's TF32 and its truncating sum do to C.
    Case::rejects(
        L,
        "plain_tf32",
        WrongResult,
        // One TF32 product per multiply-add, the sum kept in the unit.
        Mutant(&[(
            THREE,
            "                    acc[i][j] = mma_tf32(abig[i], bbig[j], acc[i][j], scratch);",
        )]),
        FailKind::Wrong,
        &["TF32 keeps 10 bits", "FP32 on the same inputs", "big·small", "Hint"],
    ),
    Case::rejects(
        L,
        "split_summed_inside_the_unit",
        WrongResult,
        // The three products, but every k-step's passed back into the unit as C.
        Mutant(&[(
            THREE,
            "                    acc[i][j] = mma_tf32(abig[i], bsmall[j], acc[i][j], scratch);
                    acc[i][j] = mma_tf32(asmall[i], bbig[j], acc[i][j], scratch);
                    acc[i][j] = mma_tf32(abig[i], bbig[j], acc[i][j], scratch);",
        )]),
        FailKind::Wrong,
        &["kept inside the unit", "rounds toward zero", "acc += d", "FP32 on the same inputs"],
    ),
    Case::rejects(
        L,
        "big_only_the_small_parts_dropped",
        WrongResult,
        // The split computed, the sum outside, but only big·big sent through the unit.
        Mutant(&[(
            THREE,
            "                    acc[i][j] += mma_tf32(abig[i], bbig[j], (float4)(0.0f), scratch);",
        )]),
        FailKind::Wrong,
        &["TF32 keeps 10 bits", "Hint"],
    ),
    // Barriers and buffers.
    Case::rejects(
        L,
        "no_barrier_before_the_step",
        Race,
        // The copies of step t+1, made at the end of step t, are read by other warps at the
        // start of step t+1 with nothing in between.
        Mutant(&[(THE_BARRIER, "        WAIT_FOR_STEP();")]),
        FailKind::Race,
        &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"],
    ),
    Case::rejects(
        L,
        "one_buffer",
        Race,
        // Every step's copies go into the same buffer: with three stages the second step's
        // copies overwrite the first's before it is read.
        Mutant(&[
            (
                "        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;",
                "        const __local float* as = As;
        const __local float* bs = Bs;",
            ),
            (
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,",
                "            stage(As, Bs, A, B, M, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);",
                "            stage(As, Bs, A, B, M, N, K, m0, n0, s * BK, tid);",
            ),
        ]),
        FailKind::Wrong,
        &["STAGES=3", "expected", "got"],
    ),
    Case::gap(
        L,
        "one_buffer_two_stages",
        Race,
        // The same with two stages whatever the host asks. On the tensor cores a warp that is
        // done copies the next step over the tiles while another still reads them; the model
        // of the unit waits for the whole work-group at every call, which orders those
        // accesses, so neither PoCL nor the simulator sees the race.
        Mutant(&[
            ("#define WARPS ((BM / WM) * (BN / WN))", "#undef STAGES
#define STAGES 2
#define WARPS ((BM / WM) * (BN / WN))"),
            (
                "        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;",
                "        const __local float* as = As;
        const __local float* bs = Bs;",
            ),
            (
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,",
                "            stage(As, Bs, A, B, M, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);",
                "            stage(As, Bs, A, B, M, N, K, m0, n0, s * BK, tid);",
            ),
        ]),
        "the model of the unit waits at a work-group barrier inside every call (OpenCL C has no warp-wide exchange on PoCL or Oclgrind), which orders the last reads of a step before the next step's copies",
    ),
    // Reads and writes outside the matrices.
    Case::rejects(
        L,
        "a_rows_below_m_copied",
        OutOfBoundsRead,
        // Rows of A's block below M are copied from memory instead of zero: they only reach
        // rows of C that are not stored, so C is right.
        Mutant(&[
            (
                "            const bool in = row < M && col < K;",
                "            const bool in = col < K;",
            ),
            (
                "                const bool in = row < M && col + e < K;",
                "                const bool in = col + e < K;",
            ),
        ]),
        FailKind::BadAccess,
        &["past the end of", "A"],
    ),
    Case::rejects(
        L,
        "stores_below_c",
        OutOfBoundsWrite,
        Mutant(&[("            if (row + 8 < M) {", "            {")]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    // Edges and layouts.
    Case::rejects(
        L,
        "k_steps_rounded_down",
        Edge,
        Mutant(&[(
            "const int steps = (K + BK - 1) / BK;",
            "const int steps = K / BK;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "b_copied_16_bytes_when_n_is_ragged",
        Edge,
        Mutant(&[("        if ((N & 3) == 0) {", "        if (true) {")]),
        FailKind::BadAccess,
        &[],
    ),
    Case::rejects(
        L,
        "b_fragment_rows_side_by_side",
        Asymmetric,
        // b.x and b.y taken from rows 2t and 2t+1 (C's layout) instead of t and t+4.
        Mutant(&[(
            "bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]",
            "bs[(kk + 2 * t4) * SB + c], bs[(kk + 2 * t4 + 1) * SB + c]",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects_any(
        L,
        "warps_placed_by_the_other_count",
        Asymmetric,
        // The warp's column of tiles taken modulo the count of its rows: right while the
        // block has as many warps down as across.
        Mutant(&[(
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;",
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BM / WM)) * WN;",
        )]),
        &[FailKind::Wrong, FailKind::Unwritten],
        &["-D BM=64 -D BN=32"],
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
        &["never initialised", "C"],
    ),
    // Right answers that are not lesson 11's kernel.
    Case::rejects(
        L,
        "fp32_on_the_cuda_cores",
        Decoy,
        // The same tiles and fragments' places, the products done in FP32 by the work-item
        // itself: accurate, and no matrix unit.
        Mutant(&[(
            THREE,
            "                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    float4 d = (float4)(0.0f);
                    for (int k = 0; k < 8; k++) {
                        const float a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const float b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        d += (float4)(a0 * b0, a0 * b1, a1 * b0, a1 * b1);
                    }
                    acc[i][j] += d;",
        )]),
        FailKind::Technique,
        &["matrix unit did 0.00", "three", "Hint"],
    ),
    Case::rejects(
        L,
        "four_products",
        Decoy,
        // small·small too: a quarter more work for nothing FP32 can hold.
        Mutant(&[(
            "                    d = mma_tf32(asmall[i], bbig[j], d, scratch);",
            "                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(asmall[i], bsmall[j], d, scratch);",
        )]),
        FailKind::Technique,
        &["three per multiply-add", "small·small"],
    ),
    // Correct in another style.
    Case::accepts(
        L,
        "big_and_corrections_in_separate_calls",
        // The corrections from zero in one chain, big·big from zero in another, both added
        // outside the unit.
        Mutant(&[(
            THREE,
            "                    float4 fix = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    fix = mma_tf32(asmall[i], bbig[j], fix, scratch);
                    acc[i][j] += mma_tf32(abig[i], bbig[j], (float4)(0.0f), scratch);
                    acc[i][j] += fix;",
        )]),
    ),
    Case::accepts(
        L,
        "tf32_rounding_by_hand",
        // Round to TF32 with integer arithmetic instead of tf32_round: the same values.
        Mutant(&[(
            "// ANCHOR: stage",
            "#define tf32_round(x) as_float((as_uint(x) + 0x1000u) & 0xffffe000u)

// ANCHOR: stage",
        )]),
    ),
    Case::accepts(
        L,
        "warps_placed_down_the_columns",
        // Consecutive warps go down the block instead of across it: any one-to-one placement
        // is right.
        Mutant(&[(
            "const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;",
            "const int wm = (warp % (BM / WM)) * WM, wn = (warp / (BM / WM)) * WN;",
        )]),
    ),
    Case::accepts(
        L,
        "stores_by_float2",
        Mutant(&[(
            "            if (row < M) {
                if (col < N) C[row * N + col] = v.x;
                if (col + 1 < N) C[row * N + col + 1] = v.y;
            }
            if (row + 8 < M) {
                if (col < N) C[(row + 8) * N + col] = v.z;
                if (col + 1 < N) C[(row + 8) * N + col + 1] = v.w;
            }",
            "            for (int h = 0; h < 2; h++) {
                const int r = row + 8 * h;
                const float2 p = h ? v.zw : v.xy;
                if (r >= M) continue;
                if ((N & 1) == 0 && col + 1 < N) {
                    vstore2(p, 0, C + r * N + col);
                } else {
                    if (col < N) C[r * N + col] = p.x;
                    if (col + 1 < N) C[r * N + col + 1] = p.y;
                }
            }",
        )]),
    ),
];
