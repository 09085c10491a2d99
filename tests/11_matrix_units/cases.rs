//! Lesson 11's cases: mistakes students make with the matrix unit, each with what the grader
//! must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "11";

/// The three products of a tile and k-step, and the sum outside the unit.
/// The three calls of a tile and k-step, without and with the add into acc.
macro_rules! calls {
    () => {
        "                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
"
    };
}
const THREE: &str = concat!(calls!(), "                    acc[i][j] += d;");

/// The same products on the lanes, into `lanes`: each work-item multiplies its fragments'
/// values itself, from the tiles, in FP32.
macro_rules! on_the_lanes {
        () => {
            "                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    float4 lanes = (float4)(0.0f);
                    for (int k = 0; k < 8; k++) {
                        const float a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const float b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        lanes += (float4)(a0 * b0, a0 * b1, a1 * b0, a1 * b1);
                    }
"
        };
    }

/// The barrier of a k-step, after the wait for its copies.
const THE_BARRIER: &str = "        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);";

pub const CASES: &[Case] = &[
    // The last k-step dropped where M, N and K all pass 3,000 (past any thin shape's M and N,
    // and past a CPU's shape past every side): the problem every grading runs on a window of
    // its work-groups finds it (grade::window), as a GPU's shape past every side does.
    Case::rejects(
        L,
        "last_step_dropped_where_every_side_passes_3000",
        Cheat,
        Mutant(&[(
            "const int steps = (K + BK - 1) / BK;",
            "const int steps = (K + BK - 1) / BK - (M > 3000 && N > 3000 && K > 3000);",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Accuracy: what the unit's TF32 and its truncating sum do to C.
    // The model's own helper called beside the unit, on the kernel's fragments: its count
    // would be the kernel's and not the unit's. The names the model is counted by cannot be
    // written in a kernel of this lesson.
    Case::rejects(
        L,
        "calls_the_model_s_helper_itself",
        Cheat,
        Mutant(&[(
            THREE,
            "                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;
                    acc[i][j].x += 0.0f * mma_element(scratch, scratch, 0.0f);",
        )]),
        FailKind::NotSelfContained,
        &["mma_element", "counts the unit's work by", "line"],
    ),
    Case::rejects(
        L,
        "helper_name_split_by_a_trigraph",
        Cheat,
        // The helper's name cut by `??/` and a newline, which a compiler that reads trigraphs
        // joins into one name (a backslash ending the line).
        Mutant(&[(
            THREE,
            "                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;
                    acc[i][j].x += 0.0f * mma_ele??/
ment(scratch, scratch, 0.0f);",
        )]),
        FailKind::NotSelfContained,
        &["??/", "trigraph", "line"],
    ),
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
    // K split into parts by the host (SPLIT_K): each part's matrices follow the last's.
    Case::rejects_any(
        L,
        "every_part_reads_the_first",
        WrongResult,
        // The offsets of the kernel's part left out: every part multiplies the first slice
        // of K into the first part's C, and the other parts' C keep the poison, so the sum
        // holds the poison (C NOT WRITTEN where it was NaN, WRONG where it held numbers).
        Mutant(&[
            (
                "    cp.a_src += z * M * K;
    cp.b_src += z * K * N;
",
                "",
            ),
            ("    C += (size_t)z * M * N;\n", ""),
        ]),
        &[FailKind::Unwritten, FailKind::Wrong],
        &["SPLIT_K=3"],
    ),
    Case::rejects_any(
        L,
        "only_the_first_part_works",
        WrongResult,
        // The parts after the first return at once: cheap where the split is timed, and
        // the host's sum adds what their C held before.
        Mutant(&[(
            "    const int z = get_group_id(1) / blocks_m, m0 = (get_group_id(1) % blocks_m) * BM;",
            "    const int z = get_group_id(1) / blocks_m, m0 = (get_group_id(1) % blocks_m) * BM;
    if (z > 0) return;",
        )]),
        &[FailKind::Unwritten, FailKind::Wrong],
        &["SPLIT_K=3"],
    ),
    // The part index wrapped at eight parts: right in the lesson's own split sets (three
    // parts) and wrong in the most parts a GPU's host asks for, graded on every device.
    Case::rejects_any(
        L,
        "part_index_wraps_at_eight",
        WrongResult,
        Mutant(&[(
            "    const int z = get_group_id(1) / blocks_m, m0 = (get_group_id(1) % blocks_m) * BM;",
            "    const int z = (get_group_id(1) / blocks_m) % 8, m0 = (get_group_id(1) % blocks_m) * BM;",
        )]),
        &[FailKind::Unwritten, FailKind::Wrong],
        &["SPLIT_K=16"],
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
    Case::rejects_any(
        L,
        "one_buffer",
        Race,
        // Every step's copies go into the same buffer: with three stages the second step's
        // copies overwrite the first's before it is read, so C is wrong on every device; where
        // the sanitizer's drawn shape has a copy inside the loop (three k-steps or more), its
        // run with the unit as the tensor cores order it names the race behind it.
        Mutant(&[
            (
                "        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;",
                "        const __local float* as = As;
        const __local float* bs = Bs;",
            ),
            (
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, N, K,",
                "            stage(As, Bs, A, B, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, N, K, s * BK, tid, &cp);",
                "            stage(As, Bs, A, B, N, K, s * BK, tid, &cp);",
            ),
        ]),
        &[FailKind::Race, FailKind::Wrong],
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "one_buffer_two_stages",
        Race,
        // The same with two stages whatever the host asks. On the tensor cores a warp that is
        // done copies the next step over the tiles while another still reads them. The model
        // of the unit waits for the whole work-group at every call, which orders those
        // accesses (the numbers are right on PoCL); the sanitizer's drawn run takes the unit
        // as the tensor cores order it, a warp waiting for no other, and sees the race.
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
                "            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, N, K,",
                "            stage(As, Bs, A, B, N, K,",
            ),
            (
                "            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, N, K, s * BK, tid, &cp);",
                "            stage(As, Bs, A, B, N, K, s * BK, tid, &cp);",
            ),
        ]),
        FailKind::Race,
        &["data race", "__local", "a warp waits for its own 32 lanes"],
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
                "const bool in = cp->a_in[u] && cp->a_col + k0 < K;",
                "const bool in = cp->a_col + k0 < K;",
            ),
            (
                "const bool in = cp->a_in[u] && cp->a_col + k0 + e < K;",
                "const bool in = cp->a_col + k0 + e < K;",
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
            concat!(on_the_lanes!(), "                    acc[i][j] += lanes;"),
        )]),
        FailKind::Technique,
        // Where the unit is the model, its products scaled in every run leave this C wrong; on
        // the tensor cores the simulator counts no call of the unit.
        &["matrix unit", "three", "Hint"],
    ),
    // The unit called three times per tile on the split fragments, as the lesson asks, and
    // what it returns multiplied by zero: the products that make C are FP32's on the lanes.
    // The simulator counts every call of the unit; only the unit's own products, scaled in
    // every run of the model, show that C does not come from them.
    Case::rejects(
        L,
        "unit_results_times_zero",
        Decoy,
        Mutant(&[(
            THREE,
            concat!(
                calls!(),
                on_the_lanes!(),
                "                    acc[i][j] += lanes + d * 0.0f;"
            ),
        )]),
        FailKind::Technique,
        &["does not come from the matrix unit", "the product itself", "power of two"],
    ),
    // The unit asked once, before the loop, on a fragment of ones, whether it is a model
    // changed to test the kernel (each product 1/64 larger, as a build of the grader's once
    // was): where it is, the products go through the unit; elsewhere FP32 on the lanes beside
    // calls for show (one call more per work-group: the count stays three). Every run of the
    // model scales its products, so no run finds the unit as the kernel hoped.
    Case::rejects(
        L,
        "unit_asked_whether_it_is_changed",
        Decoy,
        Mutant(&[
            (
                "    // The first STAGES-1 k-steps are in flight before the loop starts.",
                "    const float4 probe = mma_tf32((float4)(1.0f), (float2)(1.0f), (float4)(0.0f), scratch);
    // The first STAGES-1 k-steps are in flight before the loop starts.",
            ),
            (
                THREE,
                concat!(
                    calls!(),
                    on_the_lanes!(),
                    "                    acc[i][j] += probe.x == 8.0f * 1.015625f ? d : lanes + d * 0.0f;"
                ),
            ),
        ]),
        FailKind::Technique,
        &["does not come from the matrix unit", "the product itself", "power of two"],
    ),
    // The unit's scale learned from one call on fragments of one half (each element 8 · ¼ · the
    // scale), C made on the lanes in doubles and scaled by it, the unit called three times per
    // tile on zeros: C comes out as the product, and three calls per multiply-add are counted.
    // What gives it away is the lanes' own multiplications, which the simulator counts.
    Case::rejects(
        L,
        "scale_learned_and_products_in_doubles_on_the_lanes",
        Decoy,
        Mutant(&[
            (
                "    // The first STAGES-1 k-steps are in flight before the loop starts.",
                "    const float learned = mma_tf32((float4)(0.5f), (float2)(0.5f), (float4)(0.0f), scratch).x * 0.5f;
    // The first STAGES-1 k-steps are in flight before the loop starts.",
            ),
            (
                THREE,
                "                    float4 d = mma_tf32((float4)(0.0f), (float2)(0.0f), (float4)(0.0f), scratch);
                    d = mma_tf32((float4)(0.0f), (float2)(0.0f), d, scratch);
                    d = mma_tf32((float4)(0.0f), (float2)(0.0f), d, scratch);
                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
                    for (int k = 0; k < 8; k++) {
                        const double a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const double b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        s0 += a0 * b0; s1 += a0 * b1; s2 += a1 * b0; s3 += a1 * b1;
                    }
                    acc[i][j] += d + (float4)((float)s0, (float)s1, (float)s2, (float)s3) * learned;",
            ),
        ]),
        FailKind::Technique,
        &["ordinary FP32 units", "multiplications for each multiply-add", "for show"],
    ),
    // Big·big through the unit on the real fragments, the two corrections on the lanes in
    // scalar FP32, brought to the unit's scale by dividing by its reciprocal (learned from a
    // call on ones), two calls on zeros keeping the count at three.
    Case::rejects(
        L,
        "corrections_on_the_lanes_divided_to_the_unit_s_scale",
        Decoy,
        Mutant(&[
            (
                "    // The first STAGES-1 k-steps are in flight before the loop starts.",
                "    const float inverse = 8.0f / mma_tf32((float4)(1.0f), (float2)(1.0f), (float4)(0.0f), scratch).x;
    // The first STAGES-1 k-steps are in flight before the loop starts.",
            ),
            (
                THREE,
                "                    float4 d = mma_tf32(abig[i], bbig[j], (float4)(0.0f), scratch);
                    float4 z = mma_tf32((float4)(0.0f), (float2)(0.0f), (float4)(0.0f), scratch);
                    z = mma_tf32((float4)(0.0f), (float2)(0.0f), z, scratch);
                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    float4 fix = (float4)(0.0f);
                    for (int k = 0; k < 8; k++) {
                        const float a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const float b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        const float h0 = tf32_round(a0), h1 = tf32_round(a1);
                        const float c0 = tf32_cvt(b0), c1 = tf32_cvt(b1);
                        fix += (float4)(h0 * (b0 - c0) + (a0 - h0) * c0, h0 * (b1 - c1) + (a0 - h0) * c1,
                                        h1 * (b0 - c0) + (a1 - h1) * c0, h1 * (b1 - c1) + (a1 - h1) * c1);
                    }
                    acc[i][j] += d + z + fix / inverse;",
            ),
        ]),
        FailKind::Technique,
        &["ordinary FP32 units", "multiplications for each multiply-add", "for show"],
    ),
    // C on the lanes in FP32, each k's four products one multiplication of a float4 (which
    // the simulator's own count names once, whatever its width), the sum apart, and brought to
    // the unit's scale by a factor learned from a call on fragments of halves; three calls on
    // zeros keep the unit's count.
    Case::rejects(
        L,
        "products_on_the_lanes_as_four_wide_multiplications",
        Decoy,
        Mutant(&[
            (
                "    // The first STAGES-1 k-steps are in flight before the loop starts.",
                "    const float learned = mma_tf32((float4)(0.5f), (float2)(0.5f), (float4)(0.0f), scratch).x * 0.5f;
    // The first STAGES-1 k-steps are in flight before the loop starts.",
            ),
            (
                THREE,
                "                    float4 d = mma_tf32((float4)(0.0f), (float2)(0.0f), (float4)(0.0f), scratch);
                    d = mma_tf32((float4)(0.0f), (float2)(0.0f), d, scratch);
                    d = mma_tf32((float4)(0.0f), (float2)(0.0f), d, scratch);
                    const int row = wm + i * 16 + g, col = wn + j * 8 + 2 * t4;
                    float4 s = (float4)(0.0f);
                    for (int k = 0; k < 8; k++) {
                        const float a0 = as[row * SA + kk + k], a1 = as[(row + 8) * SA + kk + k];
                        const float b0 = bs[(kk + k) * SB + col], b1 = bs[(kk + k) * SB + col + 1];
                        const float4 p = (float4)(a0, a0, a1, a1) * (float4)(b0, b1, b0, b1);
                        s += p;
                    }
                    acc[i][j] += d + s * learned;",
            ),
        ]),
        FailKind::Technique,
        &["ordinary FP32 units", "multiplications for each multiply-add", "for show"],
    ),
    // The same, only in the blocks a large GPU takes (128 × 128): the unit's products in
    // every block a CPU or a small GPU takes. Each kind of device's blocks run where the unit
    // is the model, not only the grading machine's.
    Case::rejects(
        L,
        "unit_for_show_only_in_blocks_above_64_by_64",
        Decoy,
        Mutant(&[(
            THREE,
            concat!(
                "#if BM * BN > 64 * 64\n",
                calls!(),
                on_the_lanes!(),
                "                    acc[i][j] += lanes + d * 0.0f;\n#else\n",
                calls!(),
                "                    acc[i][j] += d;\n#endif"
            ),
        )]),
        FailKind::Technique,
        &["does not come from the matrix unit", "a large GPU"],
    ),
    Case::rejects(
        L,
        "fp32_on_the_cuda_cores_in_blocks_above_64_by_64",
        Decoy,
        // The unit where the blocks are 64 × 64 or smaller (a CPU's, a small GPU's, the
        // split-K and small-problem paths), FP32 on the CUDA cores in the 128 × 128 blocks a
        // large GPU takes for its big problems: right everywhere, and without the unit where
        // the class's speeds are timed, whatever machine grades.
        Mutant(&[(
            THREE,
            concat!(
                "#if BM * BN > 64 * 64\n",
                on_the_lanes!(),
                "                    acc[i][j] += lanes;\n#else\n",
                calls!(),
                "                    acc[i][j] += d;\n#endif"
            ),
        )]),
        FailKind::Technique,
        // A large GPU's blocks run on the model (where the unit is the model), or the
        // simulator's count with them: either names those defines.
        &["matrix unit", "the defines the lesson takes on a large GPU"],
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
        "split_by_veltkamp",
        // Veltkamp's split: x · (2^13 + 1), less its difference with x, keeps x's top 11 bits,
        // a TF32 value; one multiplication per value split on the lanes, none per product.
        Mutant(&[
            (
                "abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));",
                "const float4 v = a * 8193.0f;
                abig[i] = v - (v - a);",
            ),
            (
                "bbig[j] = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));",
                "const float w0 = b.x * 8193.0f, w1 = b.y * 8193.0f;
                bbig[j] = (float2)(w0 - (w0 - b.x), w1 - (w1 - b.y));",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "tf32_rounding_by_hand",
        // Round A and B alike with integer arithmetic of one's own instead of the unit's
        // tf32_round and tf32_cvt: the same values but on exact ties.
        Mutant(&[
            (
                "// ANCHOR: stage",
                "#define tf32_round(x) as_float((as_uint(x) + 0x1000u) & 0xffffe000u)

// ANCHOR: stage",
            ),
            (
                "bbig[j] = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));",
                "bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));",
            ),
        ]),
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
