// Lesson 11: the matrix units. C = A·B at FP32 accuracy on the tensor cores: each value is
// split into a TF32 "big" part and a TF32 "small" remainder, three products per multiply-add
// (big·big, big·small, small·big) go through the unit, and each k-step's result is added into
// an FP32 sum kept outside the unit. The unit (mma_tf32, tf32_round, async_copy*) comes from
// lessons/11_matrix_units/mma.cl, which the host puts before this file.
//
// A work-group of WARPS warps computes a BM×BN block of C; each warp a WM×WN part of it, as
// (WM/16)×(WN/8) tiles of 16×8. K is walked in steps of BK, STAGES copies of the tiles in
// local memory, staged by async_copy.

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif

#ifndef FAST
#define FAST 1
#endif
#ifndef EARLY
#define EARLY 1
#endif
#ifndef PERM
#define PERM 1
#endif
#ifndef CHAIN
#define CHAIN 0
#endif
#ifndef AI
#define AI 1
#endif

// How many k-steps may still be in flight when step t's tiles are needed (a number, for PTX).
#if STAGES == 2
#define WAIT_FOR_STEP() async_wait(0)
#elif STAGES == 3
#define WAIT_FOR_STEP() async_wait(1)
#elif STAGES == 4
#define WAIT_FOR_STEP() async_wait(2)
#else
#define WAIT_FOR_STEP() async_wait(3)
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
// Row strides of the tiles, padded so that a warp's fragment reads hit 32 different banks.
#ifndef SWZ
#define SWZ 0
#endif
#if SWZ
// No padding: A's rows of 16 floats swap their halves every other pair of rows, B's rows of BN
// floats swap 8-float groups by bits 1-2 of k, so that PERM's fragment reads hit 32 banks.
#define SA BK
#define SB BN
#define AT_A(r, k) ((r) * SA + ((k) ^ ((BK == 16) ? (((r) >> 1) & 1) * 8 : 0)))
#define AT_B(k, n) ((k) * SB + ((n) ^ ((((k) >> 1) & 3) * 8)))
#elif PERM
#define SA ((BK % 16 == 0) ? BK + 8 : BK)
#define SB (BN + 4)
#else
#define SA (BK + 4)
#define SB (BN + 8)
#endif
#ifndef AT_A
#define AT_A(r, k) ((r) * SA + (k))
#define AT_B(k, n) ((k) * SB + (n))
#endif
#define TILE_A (BM * SA)
#define TILE_B (BK * SB)

// ANCHOR: stage
// Starts the copy of the k-step at k0 into one buffer: A's BM×BK block (rows of A, 4 floats
// of K at a time) and B's BK×BN block, zeros outside the matrices.
inline void stage(__local float* as, __local float* bs, const __global float* A,
                  const __global float* B, const int M, const int N, const int K,
                  const int m0, const int n0, const int k0, const int tid) {
    // EXERCISE(11.1) BEGIN: copy A's and B's blocks of this k-step into as and bs with async_copy16/async_copy4, zeros outside
    #pragma unroll
    for (int id = tid; id < BM * BK / 4; id += THREADS) {
        const int r = id / (BK / 4), c = (id % (BK / 4)) * 4;
        const int row = m0 + r, col = k0 + c;
        __local float* dst = as + AT_A(r, c);
        if ((K & 3) == 0) {
            const bool in = row < M && col < K;
            async_copy16(dst, in ? A + row * K + col : A, in ? 16 : 0);
        } else {
            for (int e = 0; e < 4; e++) {
                const bool in = row < M && col + e < K;
                async_copy4(dst + e, in ? A + row * K + col + e : A, in ? 4 : 0);
            }
        }
    }
    #pragma unroll
    for (int id = tid; id < BK * BN / 4; id += THREADS) {
        const int r = id / (BN / 4), c = (id % (BN / 4)) * 4;
        const int row = k0 + r, col = n0 + c;
        __local float* dst = bs + AT_B(r, c);
        if ((N & 3) == 0) {
            const bool in = row < K && col < N;
            async_copy16(dst, in ? B + row * N + col : B, in ? 16 : 0);
        } else {
            for (int e = 0; e < 4; e++) {
                const bool in = row < K && col + e < N;
                async_copy4(dst + e, in ? B + row * N + col + e : B, in ? 4 : 0);
            }
        }
    }
    // EXERCISE END
}
// ANCHOR_END: stage

#if FAST
inline void stage_whole(__local float* as, __local float* bs, const __global float* a,
                        const __global float* b, const int N, const int K, const int tid) {
    #pragma unroll
    for (int u = 0; u < (BM * BK / 4 + THREADS - 1) / THREADS; u++) {
        const int id = tid + u * THREADS;
        if ((BM * BK / 4) % THREADS == 0 || id < BM * BK / 4) {
            const int r = id / (BK / 4), c = (id % (BK / 4)) * 4;
            async_copy16(as + AT_A(r, c), a + r * K + c, 16);
        }
    }
    #pragma unroll
    for (int u = 0; u < (BK * BN / 4 + THREADS - 1) / THREADS; u++) {
        const int id = tid + u * THREADS;
        if ((BK * BN / 4) % THREADS == 0 || id < BK * BN / 4) {
            const int r = id / (BN / 4), c = (id % (BN / 4)) * 4;
            async_copy16(bs + AT_B(r, c), b + r * N + c, 16);
        }
    }
}
#endif

#if FAST == 2
// The prologue and main loop, inlined twice: once for whole blocks (whole a constant true, the
// bounds of stage() gone), once for the rest.
inline void run_steps(const bool whole, float4 acc[MI][NI], __local float* As, __local float* Bs,
                      __local float* scratch, const __global float* A, const __global float* B,
                      const int M, const int N, const int K, const int m0, const int n0,
                      const int tid, const int steps, const int wm, const int wn, const int g,
                      const int t4) {
#if FAST == 2
    if (whole) run_steps(true, acc, As, Bs, scratch, A, B, M, N, K, m0, n0, tid, steps, wm, wn, g, t4);
    else run_steps(false, acc, As, Bs, scratch, A, B, M, N, K, m0, n0, tid, steps, wm, wn, g, t4);
#else
    // The first STAGES-1 k-steps are in flight before the loop starts.
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
#if FAST
            if (whole) stage_whole(As + s * TILE_A, Bs + s * TILE_B, A + m0 * K + s * BK, B + s * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);
        }
        async_commit();
    }

    for (int t = 0; t < steps; t++) {
        // ANCHOR: wait
        // Step t's copies have landed (at most STAGES-2 younger groups still in flight), and
        // every work-item's copies are visible once all have passed the barrier. It also
        // tells the copy at the end of this step that the buffer it overwrites, read in
        // step t-1, is no longer read.
        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: wait
#if EARLY
        {
        const int next = t + STAGES - 1;
        if (next < steps) {
#if FAST
            if (whole) stage_whole(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A + m0 * K + next * BK, B + next * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
        }
        async_commit();
        }
#endif
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

        // ANCHOR: compute
#if CHAIN
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            float2 bbig[2][NI], bsmall[2][NI];
            #pragma unroll
            for (int h = 0; h < 2; h++) {
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    const int c = wn + j * 8 + g;
#if PERM
                    const float2 b = (float2)(bs[(kk + 8 * h + 2 * t4) * SB + c], bs[(kk + 8 * h + 2 * t4 + 1) * SB + c]);
#else
                    const float2 b = (float2)(bs[(kk + 8 * h + t4) * SB + c], bs[(kk + 8 * h + t4 + 4) * SB + c]);
#endif
                    bbig[h][j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                    bsmall[h][j] = b - bbig[h][j];
                }
            }
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                float4 abig[2], asmall[2];
                const int r = wm + i * 16 + g;
                #pragma unroll
                for (int h = 0; h < 2; h++) {
#if PERM
                    const float2 p = *(const __local float2*)(as + r * SA + kk + 8 * h + 2 * t4);
                    const float2 q = *(const __local float2*)(as + (r + 8) * SA + kk + 8 * h + 2 * t4);
                    const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                    const float4 a = (float4)(as[r * SA + kk + 8 * h + t4], as[(r + 8) * SA + kk + 8 * h + t4],
                                              as[r * SA + kk + 8 * h + t4 + 4], as[(r + 8) * SA + kk + 8 * h + t4 + 4]);
#endif
                    abig[h] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                    asmall[h] = a - abig[h];
                }
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig[0], bsmall[0][j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[0], bbig[0][j], d, scratch);
                    d = mma_tf32(abig[1], bsmall[1][j], d, scratch);
                    d = mma_tf32(asmall[1], bbig[1][j], d, scratch);
                    d = mma_tf32(abig[0], bbig[0][j], d, scratch);
                    d = mma_tf32(abig[1], bbig[1][j], d, scratch);
                    acc[i][j] += d;
                }
            }
        }
#elif AI
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
#if PERM
                const float2 b = (float2)(bs[AT_B(kk + 2 * t4, c)], bs[AT_B(kk + 2 * t4 + 1, c)]);
#else
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
#endif
                bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                bsmall[j] = b - bbig[j];
            }
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
#if PERM
                const float2 p = *(const __local float2*)(as + AT_A(r, kk + 2 * t4));
                const float2 q = *(const __local float2*)(as + AT_A(r + 8, kk + 2 * t4));
                const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
#endif
                const float4 abig = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                const float4 asmall = a - abig;
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig, bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall, bbig[j], d, scratch);
                    d = mma_tf32(abig, bbig[j], d, scratch);
                    acc[i][j] += d;
                }
            }
        }
#else
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            float4 abig[MI], asmall[MI];
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
#if PERM
                const float2 p = *(const __local float2*)(as + AT_A(r, kk + 2 * t4));
                const float2 q = *(const __local float2*)(as + AT_A(r + 8, kk + 2 * t4));
                const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
#endif
                abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                asmall[i] = a - abig[i];
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
#if PERM
                const float2 b = (float2)(bs[AT_B(kk + 2 * t4, c)], bs[AT_B(kk + 2 * t4 + 1, c)]);
#else
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
#endif
                bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                bsmall[j] = b - bbig[j];
            }
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
        // ANCHOR_END: compute

#if !EARLY
        {
        const int next = t + STAGES - 1;
        if (next < steps) {
#if FAST
            if (whole) stage_whole(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A + m0 * K + next * BK, B + next * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
        }
        async_commit();
        }
#endif
    }

#endif
}
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A, const __global float* B, __global float* C) {
    // 16-byte copies land at multiples of 4 floats: the tiles start 16-byte aligned.
    __local float As[STAGES * TILE_A] __attribute__((aligned(16)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(16)));
    __local float scratch[MMA_SCRATCH_FLOATS(WARPS)];

    const int tid = get_local_id(0);
    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t4 = lane % 4;
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN;
    // This warp's part of the block.
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int steps = (K + BK - 1) / BK;
    const bool whole = m0 + BM <= M && n0 + BN <= N && K % BK == 0 && (N & 3) == 0;

    float4 acc[MI][NI];
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

#if FAST == 2
    if (whole) run_steps(true, acc, As, Bs, scratch, A, B, M, N, K, m0, n0, tid, steps, wm, wn, g, t4);
    else run_steps(false, acc, As, Bs, scratch, A, B, M, N, K, m0, n0, tid, steps, wm, wn, g, t4);
#else
    // The first STAGES-1 k-steps are in flight before the loop starts.
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
#if FAST
            if (whole) stage_whole(As + s * TILE_A, Bs + s * TILE_B, A + m0 * K + s * BK, B + s * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);
        }
        async_commit();
    }

    for (int t = 0; t < steps; t++) {
        // ANCHOR: wait
        // Step t's copies have landed (at most STAGES-2 younger groups still in flight), and
        // every work-item's copies are visible once all have passed the barrier. It also
        // tells the copy at the end of this step that the buffer it overwrites, read in
        // step t-1, is no longer read.
        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: wait
#if EARLY
        {
        const int next = t + STAGES - 1;
        if (next < steps) {
#if FAST
            if (whole) stage_whole(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A + m0 * K + next * BK, B + next * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
        }
        async_commit();
        }
#endif
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

        // ANCHOR: compute
#if CHAIN
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            float2 bbig[2][NI], bsmall[2][NI];
            #pragma unroll
            for (int h = 0; h < 2; h++) {
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    const int c = wn + j * 8 + g;
#if PERM
                    const float2 b = (float2)(bs[(kk + 8 * h + 2 * t4) * SB + c], bs[(kk + 8 * h + 2 * t4 + 1) * SB + c]);
#else
                    const float2 b = (float2)(bs[(kk + 8 * h + t4) * SB + c], bs[(kk + 8 * h + t4 + 4) * SB + c]);
#endif
                    bbig[h][j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                    bsmall[h][j] = b - bbig[h][j];
                }
            }
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                float4 abig[2], asmall[2];
                const int r = wm + i * 16 + g;
                #pragma unroll
                for (int h = 0; h < 2; h++) {
#if PERM
                    const float2 p = *(const __local float2*)(as + r * SA + kk + 8 * h + 2 * t4);
                    const float2 q = *(const __local float2*)(as + (r + 8) * SA + kk + 8 * h + 2 * t4);
                    const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                    const float4 a = (float4)(as[r * SA + kk + 8 * h + t4], as[(r + 8) * SA + kk + 8 * h + t4],
                                              as[r * SA + kk + 8 * h + t4 + 4], as[(r + 8) * SA + kk + 8 * h + t4 + 4]);
#endif
                    abig[h] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                    asmall[h] = a - abig[h];
                }
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig[0], bsmall[0][j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[0], bbig[0][j], d, scratch);
                    d = mma_tf32(abig[1], bsmall[1][j], d, scratch);
                    d = mma_tf32(asmall[1], bbig[1][j], d, scratch);
                    d = mma_tf32(abig[0], bbig[0][j], d, scratch);
                    d = mma_tf32(abig[1], bbig[1][j], d, scratch);
                    acc[i][j] += d;
                }
            }
        }
#elif AI
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
#if PERM
                const float2 b = (float2)(bs[AT_B(kk + 2 * t4, c)], bs[AT_B(kk + 2 * t4 + 1, c)]);
#else
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
#endif
                bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                bsmall[j] = b - bbig[j];
            }
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
#if PERM
                const float2 p = *(const __local float2*)(as + AT_A(r, kk + 2 * t4));
                const float2 q = *(const __local float2*)(as + AT_A(r + 8, kk + 2 * t4));
                const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
#endif
                const float4 abig = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                const float4 asmall = a - abig;
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig, bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall, bbig[j], d, scratch);
                    d = mma_tf32(abig, bbig[j], d, scratch);
                    acc[i][j] += d;
                }
            }
        }
#else
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            float4 abig[MI], asmall[MI];
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
#if PERM
                const float2 p = *(const __local float2*)(as + AT_A(r, kk + 2 * t4));
                const float2 q = *(const __local float2*)(as + AT_A(r + 8, kk + 2 * t4));
                const float4 a = (float4)(p.x, q.x, p.y, q.y);
#else
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
#endif
                abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                asmall[i] = a - abig[i];
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
#if PERM
                const float2 b = (float2)(bs[AT_B(kk + 2 * t4, c)], bs[AT_B(kk + 2 * t4 + 1, c)]);
#else
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
#endif
                bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                bsmall[j] = b - bbig[j];
            }
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
        // ANCHOR_END: compute

#if !EARLY
        {
        const int next = t + STAGES - 1;
        if (next < steps) {
#if FAST
            if (whole) stage_whole(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A + m0 * K + next * BK, B + next * BK * N + n0, N, K, tid);
            else
#endif
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
        }
        async_commit();
        }
#endif
    }

#endif
    // ANCHOR: store
    // EXERCISE(11.4) BEGIN: store acc into C: acc[i][j] holds rows g and g+8, columns 2*t4 and 2*t4+1 of the warp's 16×8 tile (i, j), inside C only
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
    // EXERCISE END
    // ANCHOR_END: store
}
