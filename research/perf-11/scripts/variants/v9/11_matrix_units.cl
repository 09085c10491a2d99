// Lesson 11, FP16 split (research variant v9): each value x = hi + lo with hi = fp16(x) and
// lo = fp16(x - hi), three products per multiply-add (hi·lo, lo·hi, hi·hi) through the unit's
// m16n8k16 FP16 instruction (mma_f16 of lessons/11_matrix_units/mma.cl), each k-step's result
// added into an FP32 sum outside the unit. Inputs must lie within FP16's range (|x| < 65504);
// lo values below 2^-14 lose bits as FP16 subnormals. Otherwise as the TF32 solution.

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 2
#endif
// Padding of A's rows: 8 floats make a warp's 8-byte fragment reads conflict-free.
#ifndef APAD
#define APAD 8
#endif
// Padding of B's rows: 2·SB ≡ 8 (mod 32) puts the rows 2t and 2t+1 of a warp's reads in
// different banks.
#ifndef BPAD
#define BPAD 4
#endif

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
#define SA (BK + APAD)
#define SB (BN + BPAD)
#define TILE_A (BM * SA)
#define TILE_B (BK * SB)

inline void stage(__local float* as, __local float* bs, const __global float* A,
                  const __global float* B, const int M, const int N, const int K,
                  const int m0, const int n0, const int k0, const int tid) {
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
}

// x0, x1 split into their FP16 parts: hi and lo, packed in pairs.
#define SPLIT(x0, x1, hi, lo)                                  \
    do {                                                       \
        hi = h2_pack(x0, x1);                                  \
        const float2 h_ = h2_unpack(hi);                       \
        lo = h2_pack((x0) - h_.x, (x1) - h_.y);                \
    } while (0)

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A, const __global float* B, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(16)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(16)));
    __local float scratch[MMA_SCRATCH_FLOATS(WARPS)];

    const int tid = get_local_id(0);
    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t4 = lane % 4;
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN;
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int steps = (K + BK - 1) / BK;

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
            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, M, N, K, m0, n0, s * BK, tid);
        }
        async_commit();
    }

    for (int t = 0; t < steps; t++) {
        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            half2_t ahi[MI][4], alo[MI][4];
            half2_t bhi[NI][2], blo[NI][2];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
                const float2 x0 = vload2(0, as + r * SA + kk + 2 * t4);
                const float2 x1 = vload2(0, as + (r + 8) * SA + kk + 2 * t4);
                const float2 x2 = vload2(0, as + r * SA + kk + 2 * t4 + 8);
                const float2 x3 = vload2(0, as + (r + 8) * SA + kk + 2 * t4 + 8);
                SPLIT(x0.x, x0.y, ahi[i][0], alo[i][0]);
                SPLIT(x1.x, x1.y, ahi[i][1], alo[i][1]);
                SPLIT(x2.x, x2.y, ahi[i][2], alo[i][2]);
                SPLIT(x3.x, x3.y, ahi[i][3], alo[i][3]);
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
                const float y0 = bs[(kk + 2 * t4) * SB + c], y1 = bs[(kk + 2 * t4 + 1) * SB + c];
                const float y2 = bs[(kk + 2 * t4 + 8) * SB + c], y3 = bs[(kk + 2 * t4 + 9) * SB + c];
                SPLIT(y0, y1, bhi[j][0], blo[j][0]);
                SPLIT(y2, y3, bhi[j][1], blo[j][1]);
            }
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_f16(ahi[i][0], ahi[i][1], ahi[i][2], ahi[i][3], blo[j][0],
                                       blo[j][1], (float4)(0.0f), scratch);
                    d = mma_f16(alo[i][0], alo[i][1], alo[i][2], alo[i][3], bhi[j][0], bhi[j][1],
                                d, scratch);
                    d = mma_f16(ahi[i][0], ahi[i][1], ahi[i][2], ahi[i][3], bhi[j][0], bhi[j][1],
                                d, scratch);
                    acc[i][j] += d;
                }
            }
        }

        const int next = t + STAGES - 1;
        if (next < steps) {
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, M, N, K,
                  m0, n0, next * BK, tid);
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
