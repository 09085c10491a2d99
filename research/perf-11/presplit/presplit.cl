// research/perf-11/presplit/presplit.cl: lesson 11's product on A and B split once, before it
// (split.cl), session 9 (2026-11-30). The solution (solutions/11_matrix_units.cl) with its
// copies and fragment loads changed and nothing else: the same block (BM×BN, warps WM×WN),
// k-steps of BK, STAGES copies in local memory by async_copy16, the same three products per
// tile in the same order, the same FP32 sum outside the unit. What the loop no longer does:
// tf32_round, tf32_cvt and the subtractions (the split pass did them), and the copies' bounds
// (the planes are padded to whole blocks with zeros: Mp, Np, Kp multiples of BM, BN, BK).
// Since the values reaching the unit are the same and are multiplied and added in the same
// order, C is bit for bit the solution's.
//
// LAYOUT 1 (pairs): a step's tiles are A2's BM×BK and B2's BK×BN float2 {big, small}, rows
//   padded so that a warp's 8-byte fragment reads are free of bank conflicts (A: 24 floats a
//   row, B: 2·BN + 8); a lane's A fragment is four 8-byte reads, its B fragment two.
// LAYOUT 2 (fragment order): a step's tiles are BK/8 runs of whole 16×8 (A) and 8×8 (B) tiles
//   in split.cl's order, copied as they lie; a lane's A fragment is two 16-byte reads (big,
//   small), its B fragment one.
// Options beside the solution's: LAYOUT, KK1 (BK > 8: the loop over a step's k-tiles kept
// rolled) and CHAIN (below: not the solution's sums, so not bit for bit its C).

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef LAYOUT
#define LAYOUT 2
#endif
// KK1=1: the loop over a step's k-tiles (BK > 8) kept rolled, one k-tile's fragments live.
#ifndef KK1
#define KK1 0
#endif
// SPLIT_A, SPLIT_B (LAYOUT 2): 1 the operand comes split (big and small) from split.cl, 0 it
// comes only in fragment order and is split here, as the solution splits it.
#ifndef SPLIT_A
#define SPLIT_A 1
#endif
#ifndef SPLIT_B
#define SPLIT_B 1
#endif
// CHAIN=1 (LAYOUT 2, BK = 16): one FP32 add per 16 k instead of per 8 (other sums, below).
#ifndef CHAIN
#define CHAIN 0
#endif
#if CHAIN && (LAYOUT != 2 || BK != 16 || !SPLIT_A || !SPLIT_B)
#error CHAIN needs LAYOUT 2 and BK = 16
#endif

#if STAGES == 2
#define WAIT_FOR_STEP() async_wait(0)
#elif STAGES == 3
#define WAIT_FOR_STEP() async_wait(1)
#elif STAGES == 4
#define WAIT_FOR_STEP() async_wait(2)
#elif STAGES == 5
#define WAIT_FOR_STEP() async_wait(3)
#else
#define WAIT_FOR_STEP() async_wait(4)
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
#define KT (BK / 8)

#if LAYOUT == 1
#define SA (2 * BK + 8)      // floats per row of A's tile (BK float2 and 8 of padding)
#define SB (2 * BN + 8)      // floats per row of B's tile
#define TILE_A (BM * SA)
#define TILE_B (BK * SB)
#define CPR_A (BK / 2)       // 16-byte copies per row of A's block
#define CPR_B (BN / 2)
#define PER_A (BM * CPR_A / THREADS)
#define PER_B (BK * CPR_B / THREADS)
#define RA (THREADS / CPR_A) // rows between a work-item's copies
#define RB (THREADS / CPR_B)
#else
#define TAT (SPLIT_A ? 256 : 128) // floats per 16×8 tile of A
#define TBT (SPLIT_B ? 128 : 64)  // floats per 8×8 tile of B
#define TA (BM / 16 * TAT)   // floats of A's block per k-tile
#define TB (BN / 8 * TBT)
#define TILE_A (KT * TA)
#define TILE_B (KT * TB)
#define PER_A (TA / 4 / THREADS) // 16-byte copies per work-item and k-tile
#define PER_B (TB / 4 / THREADS)
#endif

// Starts the copies of step s into one buffer. The pointers are where copy 0 of step 0 reads
// (its k-tile or column 0); a_k, b_k the floats from one step to the next.
inline void stage(__local float* as, __local float* bs, const __global float* pa,
                  const __global float* pb, const int a_k, const int b_k, const int a_row,
                  const int b_row, const int s, const int tid) {
#if LAYOUT == 1
    const __global float* a = pa + s * a_k;
    const __global float* b = pb + s * b_k;
    __local float* da = as + (tid / CPR_A) * SA + (tid % CPR_A) * 4;
    __local float* db = bs + (tid / CPR_B) * SB + (tid % CPR_B) * 4;
    #pragma unroll
    for (int u = 0; u < PER_A; u++) {
        async_copy16(da + u * RA * SA, a + u * a_row, 16);
    }
    #pragma unroll
    for (int u = 0; u < PER_B; u++) {
        async_copy16(db + u * RB * SB, b + u * b_row, 16);
    }
#else
    #pragma unroll
    for (int kk = 0; kk < KT; kk++) {
        const __global float* a = pa + (s * KT + kk) * a_k;
        const __global float* b = pb + (s * KT + kk) * b_k;
        #pragma unroll
        for (int u = 0; u < PER_A; u++) {
            async_copy16(as + kk * TA + (u * THREADS + tid) * 4, a + u * THREADS * 4, 16);
        }
        #pragma unroll
        for (int u = 0; u < PER_B; u++) {
            async_copy16(bs + kk * TB + (u * THREADS + tid) * 4, b + u * THREADS * 4, 16);
        }
    }
#endif
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const int Mp, const int Np, const int Kp,
            const __global float* A2, const __global float* B2, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(16)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(16)));
    __local float scratch[MMA_SCRATCH_FLOATS(WARPS)];

    const int tid = get_local_id(0);
    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN;
    const int m0 = get_group_id(1) * BM;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int steps = Kp / BK;

#if LAYOUT == 1
    // copy 0 of step 0: A2's row m0 + tid / CPR_A, B2's row tid / CPR_B
    const __global float* pa = A2 + (m0 + tid / CPR_A) * (2 * Kp) + (tid % CPR_A) * 4;
    const __global float* pb = B2 + (tid / CPR_B) * (2 * Np) + 2 * n0 + (tid % CPR_B) * 4;
    const int a_k = 2 * BK, b_k = BK * 2 * Np;      // one step further
    const int a_row = RA * 2 * Kp, b_row = RB * 2 * Np; // one copy further
#else
    // k-tile 0 of A's row-tiles m0/16.., of B's column-tiles n0/8..
    const __global float* pa = A2 + (m0 / 16) * TAT + tid * 4;
    const __global float* pb = B2 + (n0 / 8) * TBT + tid * 4;
    const int a_k = (Mp / 16) * TAT, b_k = (Np / 8) * TBT; // one k-tile further
    const int a_row = 0, b_row = 0;
#endif

    float4 acc[MI][NI];
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            stage(As + s * TILE_A, Bs + s * TILE_B, pa, pb, a_k, b_k, a_row, b_row, s, tid);
        }
        async_commit();
    }

    for (int t = 0; t < steps; t++) {
        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

#if CHAIN
        // Fewer FP32 adds (not the solution's sums): both k-tiles of a BK = 16 step through the
        // unit before one add, the four small products first, then the two big ones. B's
        // fragments of the whole step stay live, A's are read one row-tile at a time.
        float4 bq[2][NI];
        #pragma unroll
        for (int kk = 0; kk < 2; kk++) {
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                bq[kk][j] = ((const __local float4*)(bs + kk * TB + (wn / 8 + j) * 128))[lane];
            }
        }
        #pragma unroll
        for (int i = 0; i < MI; i++) {
            const __local float4* p0 = (const __local float4*)(as + (wm / 16 + i) * 256) + lane;
            const __local float4* p1 = (const __local float4*)(as + TA + (wm / 16 + i) * 256) + lane;
            const float4 ab0 = p0[0], as0 = p0[32], ab1 = p1[0], as1 = p1[32];
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                float4 d = mma_tf32(ab0, bq[0][j].zw, (float4)(0.0f), scratch);
                d = mma_tf32(as0, bq[0][j].xy, d, scratch);
                d = mma_tf32(ab1, bq[1][j].zw, d, scratch);
                d = mma_tf32(as1, bq[1][j].xy, d, scratch);
                d = mma_tf32(ab0, bq[0][j].xy, d, scratch);
                d = mma_tf32(ab1, bq[1][j].xy, d, scratch);
                acc[i][j] += d;
            }
        }
#else
#if KK1
        #pragma unroll 1
#else
        #pragma unroll
#endif
        for (int kk = 0; kk < KT; kk++) {
            float4 abig[MI], asmall[MI];
            float2 bbig[NI], bsmall[NI];
#if LAYOUT == 1
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
                const __local float* p = as + r * SA + 2 * (kk * 8 + t4);
                const float2 x = *(const __local float2*)p;
                const float2 y = *(const __local float2*)(p + 8 * SA);
                const float2 z = *(const __local float2*)(p + 8);
                const float2 w = *(const __local float2*)(p + 8 * SA + 8);
                abig[i] = (float4)(x.x, y.x, z.x, w.x);
                asmall[i] = (float4)(x.y, y.y, z.y, w.y);
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
                const __local float* p = bs + (kk * 8 + t4) * SB + 2 * c;
                const float2 x = *(const __local float2*)p;
                const float2 y = *(const __local float2*)(p + 4 * SB);
                bbig[j] = (float2)(x.x, y.x);
                bsmall[j] = (float2)(x.y, y.y);
            }
#else
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const __local float4* p =
                    (const __local float4*)(as + kk * TA + (wm / 16 + i) * TAT) + lane;
#if SPLIT_A
                abig[i] = p[0];
                asmall[i] = p[32];
#else
                const float4 a = p[0];
                abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                asmall[i] = a - abig[i];
#endif
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
#if SPLIT_B
                const float4 q = ((const __local float4*)(bs + kk * TB + (wn / 8 + j) * TBT))[lane];
                bbig[j] = q.xy;
                bsmall[j] = q.zw;
#else
                const float2 b = ((const __local float2*)(bs + kk * TB + (wn / 8 + j) * TBT))[lane];
                bbig[j] = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));
                bsmall[j] = b - bbig[j];
#endif
            }
#endif
            // The solution's three products per tile, in its order, and its FP32 sum.
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;
                }
            }
        }
#endif

        const int next = t + STAGES - 1;
        if (next < steps) {
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, pa, pb, a_k, b_k,
                  a_row, b_row, next, tid);
        }
        async_commit();
    }

    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            const int row = m0 + wm + i * 16 + g;
            const int col = n0 + wn + j * 8 + 2 * t4;
            const float4 v = acc[i][j];
            if (row < M) {
                if (col < N) C[row * N + col] = v.x;
                if (col + 1 < N) C[row * N + col + 1] = v.y;
            }
            if (row + 8 < M) {
                if (col < N) C[(row + 8) * N + col] = v.z;
                if (col + 1 < N) C[(row + 8) * N + col + 1] = v.w;
            }
        }
    }
}
