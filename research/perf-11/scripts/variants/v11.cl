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

// How many k-steps may still be in flight when step t's tiles are needed (a number, for PTX).
#if STAGES == 2
#define WAIT_FOR_STEP() async_wait(0)
#elif STAGES == 3
#define WAIT_FOR_STEP() async_wait(1)
#else
#define WAIT_FOR_STEP() async_wait(2)
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
// Row strides of the tiles, padded so that a warp's fragment reads hit 32 different banks.
#define SA (BK + 4)
#define SB (BN + 8)
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
        __local float* dst = as + r * SA + c;
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
        __local float* dst = bs + r * SB + c;
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
#ifndef OFFS
#define OFFS 1
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef NOB
#define NOB 0
#endif
#define CA (BM * BK / 4 / THREADS)
#define CB (BK * BN / 4 / THREADS)
#if (BM * BK / 4) % THREADS != 0 || (BK * BN / 4) % THREADS != 0
#error copies must divide evenly among the work-items
#endif
// Per work-item copy descriptors, computed once: where each of its 16-byte copies reads
// from (at k = 0) and writes to, and whether its row (A) or column (B) lies inside C.
typedef struct {
    int asrc[CA], adst[CA], acol[CA];
    bool arow[CA];
    int bsrc[CB], bdst[CB], brow[CB];
    int bcol[CB];
} Copies;

inline void stage_v(__local float* as, __local float* bs, const __global float* A,
                    const __global float* B, const int M, const int N, const int K,
                    const int k0, const Copies* cp) {
    #pragma unroll
    for (int u = 0; u < CA; u++) {
        __local float* dst = as + cp->adst[u];
#if NOB
        async_copy16(dst, A + cp->asrc[u] + k0, 16);
#else
        if (ALIGNED || (K & 3) == 0) {
            const bool in = cp->arow[u] && cp->acol[u] + k0 < K;
            async_copy16(dst, A + (in ? cp->asrc[u] + k0 : 0), in ? 16 : 0);
        } else {
            for (int e = 0; e < 4; e++) {
                const bool in = cp->arow[u] && cp->acol[u] + k0 + e < K;
                async_copy4(dst + e, A + (in ? cp->asrc[u] + k0 + e : 0), in ? 4 : 0);
            }
        }
#endif
    }
    #pragma unroll
    for (int u = 0; u < CB; u++) {
        __local float* dst = bs + cp->bdst[u];
#if NOB
        async_copy16(dst, B + cp->bsrc[u] + k0 * N, 16);
#else
        if (ALIGNED || (N & 3) == 0) {
            const bool in = cp->bcol[u] < N && cp->brow[u] + k0 < K;
            async_copy16(dst, B + (in ? cp->bsrc[u] + k0 * N : 0), in ? 16 : 0);
        } else {
            const int row = cp->brow[u] + k0;
            for (int e = 0; e < 4; e++) {
                const bool in = row < K && cp->bcol[u] + e < N;
                async_copy4(dst + e, B + (in ? cp->bsrc[u] + k0 * N + e : 0), in ? 4 : 0);
            }
        }
#endif
    }
}


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
#if OFFS
    Copies cp;
    #pragma unroll
    for (int u = 0; u < CA; u++) {
        const int id = tid + u * THREADS;
        const int r = id / (BK / 4), c = (id % (BK / 4)) * 4;
        cp.adst[u] = r * SA + c;
        cp.asrc[u] = (m0 + r) * K + c;
        cp.acol[u] = c;
        cp.arow[u] = m0 + r < M;
    }
    #pragma unroll
    for (int u = 0; u < CB; u++) {
        const int id = tid + u * THREADS;
        const int r = id / (BN / 4), c = (id % (BN / 4)) * 4;
        cp.bdst[u] = r * SB + c;
        cp.bsrc[u] = r * N + n0 + c;
        cp.brow[u] = r;
        cp.bcol[u] = n0 + c;
    }
#endif

    float4 acc[MI][NI];
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    // The first STAGES-1 k-steps are in flight before the loop starts.
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
#if OFFS
            stage_v(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, s * BK, &cp);
#else
            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);
#endif
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
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

        // ANCHOR: compute
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            // EXERCISE(11.2) BEGIN: load the warp's fragments of A and B from as and bs, and split each into big = tf32_round(x) and small = x - big
            float4 abig[MI], asmall[MI];
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
                abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                // a - big is exact in FP32; the unit reads its top 11 bits.
                asmall[i] = a - abig[i];
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
                bbig[j] = (float2)(tf32_round(b.x), tf32_round(b.y));
                bsmall[j] = b - bbig[j];
            }
            // EXERCISE END
            // EXERCISE(11.3) BEGIN: three products per tile through mma_tf32, the small ones first, then add the step's result into acc, outside the unit
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
            // EXERCISE END
        }
        // ANCHOR_END: compute

        // The step STAGES-1 ahead goes into the buffer read in step t-1.
        const int next = t + STAGES - 1;
        if (next < steps) {
#if OFFS
            stage_v(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                    next * BK, &cp);
#else
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
#endif
        }
        async_commit();
    }

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
