// Lesson 11, FP16 split with exponent scaling (research variant v10): v9's split (x = hi + lo,
// hi = fp16(x), lo = fp16(x - hi), three m16n8k16 FP16 products per multiply-add, each k-step's
// result added into an FP32 sum outside the unit), with every k-step's values first multiplied
// by a power of two chosen from the largest |x| they share a scale with, so that it lands in
// [2^14, 2^15): nothing overflows FP16's 65504, and values down to 2^-28 of that largest keep a
// normal hi (down to about 2^-17, a normal lo too: FP32's accuracy). SCALE=1: one exponent for
// A and one for B per warp and k-step (the warp's own fragments); SCALE=2: per work-group and
// k-step (the whole tiles); SCALE=3: one per row of A and one per column of B in each k-step of
// 16. The step's sum comes back as acc = fma(d, 2^-(eA+eB), acc), exact.
// Limits: a value far below the largest of its scale (beyond about 2^-17) loses bits as in v9
// (lo, then hi, become FP16 subnormals); with SCALE=1 or 2, where the product of the two tiles'
// largest values is below 2^-98, B's scale is lowered so that 2^-(eA+eB) stays a normal float.

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

// 1: one exponent per warp and k-step for A and one for B (the warp's fragments); 2: per
// work-group and k-step (the whole tiles in local memory, one more barrier per step); 3: one
// per row of A and one per column of B in each k-step of 16 (shuffles among a row's four lanes).
#ifndef SCALE
#define SCALE 1
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

// 2^e as a float, for e in [-126, 127].
inline float pow2(const int e) {
    return as_float((uint)(e + 127) << 23);
}

// The exponent e that puts a tile whose largest |x| has the bits m in [2^14, 2^15): from
// 14 - 127 for FP32's largest values to 126 for tiles of zeros or of values below 2^-112, so
// that 2^e is always a normal float (a tile of zeros gets a finite scale, and stays zero).
inline int scale_exp(const uint m) {
    return 14 - max((int)(m >> 23) - 127, -112);
}

// The largest |x|: MAXF=1 takes it in floats (fmax of fabs, one instruction per value: |x| is
// an operand modifier on NVIDIA), MAXF=0 in integers (|x|'s bits order like the magnitudes for
// finite x: a mask, then an integer max). Either way MBITS gives its bits for scale_exp.
#ifndef MAXF
#define MAXF 1
#endif
#if MAXF
#define MAG_T float
#define MAG(x) fabs(x)
#define MX(a, b) fmax(a, b)
#define MBITS(m) as_uint(m)
#else
#define MAG_T uint
#define MAG(x) (as_uint(x) & 0x7fffffffu)
#define MX(a, b) max(a, b)
#define MBITS(m) (m)
#endif

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
#if SCALE == 2
    __local uint tmax[2 * WARPS];
#endif

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

#if SCALE == 2
        // The largest |x| of each whole tile: every work-item scans a share, the warps' maxima
        // meet in local memory.
        {
            MAG_T ma = 0, mb = 0;
            for (int id = tid; id < BM * BK; id += THREADS) {
                ma = MX(ma, MAG(as[(id / BK) * SA + id % BK]));
            }
            for (int id = tid; id < BK * BN; id += THREADS) {
                mb = MX(mb, MAG(bs[(id / BN) * SB + id % BN]));
            }
            const uint wa = warp_max_u32(MBITS(ma), scratch);
            const uint wb = warp_max_u32(MBITS(mb), scratch);
            if (lane == 0) {
                tmax[2 * warp] = wa;
                tmax[2 * warp + 1] = wb;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        uint gma = 0, gmb = 0;
        #pragma unroll
        for (int w = 0; w < WARPS; w++) {
            gma = max(gma, tmax[2 * w]);
            gmb = max(gmb, tmax[2 * w + 1]);
        }
#endif

        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            half2_t ahi[MI][4], alo[MI][4];
            half2_t bhi[NI][2], blo[NI][2];
            float2 xa[MI][4];
            float4 yb[NI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
                xa[i][0] = vload2(0, as + r * SA + kk + 2 * t4);
                xa[i][1] = vload2(0, as + (r + 8) * SA + kk + 2 * t4);
                xa[i][2] = vload2(0, as + r * SA + kk + 2 * t4 + 8);
                xa[i][3] = vload2(0, as + (r + 8) * SA + kk + 2 * t4 + 8);
            }
#if SCALE == 3
            // One exponent per row of the fragments: rows g and g + 8 of each i, their 16 k
            // values spread over the lanes 4g..4g+3.
            float2 ra[MI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const MAG_T m0 = MX(MX(MAG(xa[i][0].x), MAG(xa[i][0].y)),
                                    MX(MAG(xa[i][2].x), MAG(xa[i][2].y)));
                const MAG_T m1 = MX(MX(MAG(xa[i][1].x), MAG(xa[i][1].y)),
                                    MX(MAG(xa[i][3].x), MAG(xa[i][3].y)));
                const int e0 = scale_exp(quad_max_u32(MBITS(m0), scratch));
                const int e1 = scale_exp(quad_max_u32(MBITS(m1), scratch));
                const float s0 = pow2(e0), s1 = pow2(e1);
                ra[i] = (float2)(pow2(-e0), pow2(-e1));
                SPLIT(xa[i][0].x * s0, xa[i][0].y * s0, ahi[i][0], alo[i][0]);
                SPLIT(xa[i][1].x * s1, xa[i][1].y * s1, ahi[i][1], alo[i][1]);
                SPLIT(xa[i][2].x * s0, xa[i][2].y * s0, ahi[i][2], alo[i][2]);
                SPLIT(xa[i][3].x * s1, xa[i][3].y * s1, ahi[i][3], alo[i][3]);
            }
#else
#if SCALE == 1
            MAG_T ma = 0;
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    ma = MX(ma, MX(MAG(xa[i][q].x), MAG(xa[i][q].y)));
                }
            }
            const int ea = scale_exp(warp_max_u32(MBITS(ma), scratch));
#else
            const int ea = scale_exp(gma);
#endif
            const float sa = pow2(ea);
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    SPLIT(xa[i][q].x * sa, xa[i][q].y * sa, ahi[i][q], alo[i][q]);
                }
            }
#endif
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
                yb[j] = (float4)(bs[(kk + 2 * t4) * SB + c], bs[(kk + 2 * t4 + 1) * SB + c],
                                 bs[(kk + 2 * t4 + 8) * SB + c], bs[(kk + 2 * t4 + 9) * SB + c]);
            }
#if SCALE == 3
            // One exponent per column of B's fragments (column g of each j); the sums need
            // those of columns 2t and 2t + 1, which lanes 8t and 8t + 4 hold.
            float2 cb[NI];
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const MAG_T mb = MX(MX(MAG(yb[j].x), MAG(yb[j].y)), MX(MAG(yb[j].z), MAG(yb[j].w)));
                const int e = scale_exp(quad_max_u32(MBITS(mb), scratch));
                const float4 y = yb[j] * pow2(e);
                SPLIT(y.x, y.y, bhi[j][0], blo[j][0]);
                SPLIT(y.z, y.w, bhi[j][1], blo[j][1]);
                const uint back = as_uint(pow2(-e));
                cb[j] = (float2)(as_float(lane_value_u32(back, 8 * t4, scratch)),
                                 as_float(lane_value_u32(back, 8 * t4 + 4, scratch)));
            }
#else
#if SCALE == 1
            MAG_T mb = 0;
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                mb = MX(mb, MX(MX(MAG(yb[j].x), MAG(yb[j].y)), MX(MAG(yb[j].z), MAG(yb[j].w))));
            }
            int eb = scale_exp(warp_max_u32(MBITS(mb), scratch));
#else
            int eb = scale_exp(gmb);
#endif
            // Tiles whose largest values multiply to less than 2^-98: B gets less scale, so
            // that 2^-(ea+eb) stays normal (what it costs is B's smallest values' bits).
            eb = min(eb, 126 - ea);
            const float sb = pow2(eb);
            // Above 2^127 (the tiles' largest values multiply beyond FP32's range) it is inf.
            const float back = as_float((uint)min(127 - (ea + eb), 255) << 23);
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const float4 y = yb[j] * sb;
                SPLIT(y.x, y.y, bhi[j][0], blo[j][0]);
                SPLIT(y.z, y.w, bhi[j][1], blo[j][1]);
            }
#endif
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
#if SCALE == 3
                    // Two exact power-of-two steps: 2^-(ea+eb) itself may not be a float.
                    acc[i][j] = fma(d * (float4)(ra[i].x, ra[i].x, ra[i].y, ra[i].y),
                                    (float4)(cb[j].x, cb[j].y, cb[j].x, cb[j].y), acc[i][j]);
#else
                    acc[i][j] = fma(d, (float4)(back), acc[i][j]);
#endif
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
