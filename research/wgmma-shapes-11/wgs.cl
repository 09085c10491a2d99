// research/wgmma-shapes-11/wgs.cl: the wgmma 3xTF32 GEMM of research/wgmma-11/wgemm2.cl (its
// best loop: one temporary, CHAIN 2, the split of A's next tile beside the first group of wgmma,
// SPREAD 1 or 2) made right at any M, N, K, with a split of K. C = A·B, FP32 in and out, C
// row-major M×N; A row-major with rows lda floats apart, B row-major with rows ldb apart (the host
// passes a padded copy's strides, or K and N).
//
// The product, as in wgemm2.cl: C^T = B^T·A^T. The unit's A is B^T (64×8 per warp group, from
// registers, split there: big = tf32_cvt(b), small = b − big); its B is A^T (8×BM, from local
// memory, K-major as copied by cp.async into 8-row × 16-byte core matrices; the unit truncates
// A's big part, small = tf32_round(a − trunc(a)) is written by a pass over each tile). Per k-step
// of 8: small·big (scale-d 0), big·small, big·big into one temporary, CHAIN k-steps per temporary,
// then one FP32 add into the accumulator outside the unit.
//
// Options (the host sets KG and AL4 from the shape):
//   BM      rows of C per work-group: 64, 128 or 192 (the unit's N)
//   WGS     warp groups (1 or 2): BN = 64·WGS columns of C per work-group
//   BK      k per step (32; 16 and 64 also work)
//   STAGES  cp.async stages (copies run STAGES − 1 steps ahead)
//   SPREAD  1: B's copies of step t+PF after the first group of wgmma, A's before; 2: both after
//   KG      1: k-steps past K (the last, ragged one) copied as zeros; 0: K − k0 a multiple of BK
//   AL4     1: every copy is four 4-byte cp.async, each guarded (any lda, ldb, M, N, K); 0: 16-byte
//           copies (lda, ldb multiples of 4; a 16-byte chunk is in or out whole)
//   SPLITK  1: one part; >1: the grid's third dimension is the part z, which sums k in
//           [z·ks, z·ks + ks) and adds its C into C (red.global.add.f32; the host zeroes C first)
#ifndef WGS
#define WGS 2
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef CHAIN
#define CHAIN 2
#endif
#ifndef SPREAD
#define SPREAD 1
#endif
#ifndef KG
#define KG 0
#endif
#ifndef AL4
#define AL4 0
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#define BN (64 * WGS)
#define THREADS (128 * WGS)
#define PF (STAGES - 1)
#define SB (BN + 8)
#define TILE_A (BM * BK)
#define TILE_B (BK * SB)
#define KC (BK / 4)
#define COPIES_A (BM * BK / 4)
#define COPIES_B (BK * BN / 4)
#define PER_A (COPIES_A / THREADS)
#define PER_B (COPIES_B / THREADS)
#define RA (THREADS / KC)
#define RB (THREADS / (BN / 4))
#define NACC (BM / 2)
#define NG (BK / 8 / CHAIN)               // groups of wgmma per k-step
#define WG_RS WG_CAT(WG_RS_, BM)
#define WG_KEEP WG_CAT(WG_KEEP_, BM)

// Step t+1's copies must have landed (for its split): PF + t groups committed, t+2 needed.
#define WAIT_STEP_N (PF - 2)
#if WAIT_STEP_N == 0
#define WAIT_STEP() async_wait(0)
#elif WAIT_STEP_N == 1
#define WAIT_STEP() async_wait(1)
#elif WAIT_STEP_N == 2
#define WAIT_STEP() async_wait(2)
#else
#define WAIT_STEP() async_wait(3)
#endif

// The split of one A tile (TILE_A floats at `as`): small = tf32_round(a − trunc(a)).
inline void split_a(const __local float* as, __local float* sml, const int tid) {
    #pragma unroll
    for (int i = 0; i < TILE_A / 4 / THREADS; i++) {
        const int o = (tid + i * THREADS) * 4;
        const float4 v = *(const __local float4*)(as + o);
        const float4 r = v - as_float4(as_uint4(v) & (uint4)(0xffffe000u));
        *(__local float4*)(sml + o) =
            (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
    }
}

#if SPLITK > 1
inline void red_add(__global float* p, const float v) {
    __asm__ __volatile__("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
#define PUT(p, v) red_add(p, v)
#else
#define PUT(p, v) (*(p) = (v))
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const int lda, const int ldb, const int ks,
            const __global float* A, const __global float* B, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(128)));
    __local float Asm[2 * TILE_A] __attribute__((aligned(128)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(128)));

    const int tid = get_local_id(0);
    const int wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
#if SPLITK > 1
    const int kb = get_group_id(2) * ks;                 // this part's first k
    const int kend = K < kb + ks ? K : kb + ks;
#else
    const int kb = 0, kend = K;
#endif
    const int steps = (kend - kb + BK - 1) / BK;         // 0 or less: nothing to sum

    // Copy u of A: row ma + u·RA of the block, floats 4·kca … 4·kca+3 of the step.
    const int ma = tid % 8 + 8 * (tid / (8 * KC)), kca = (tid / 8) % KC;
    const __global float* a_src = A + (size_t)(m0 + ma) * lda + kb + 4 * kca;
    const int a_dst = (kca * BM + ma) * 4;
    // Copy u of B: row rb + u·RB of the step, columns cb … cb+3 of the block.
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
    const __global float* b_src = B + (size_t)(kb + rb) * ldb + n0 + cb;
    const int b_dst = rb * SB + cb;

    float acc[NACC], t0[NACC];
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; }

    // Rows of A past M, columns of B past N and k past kend are copied as zeros.
#if AL4
    #define STAGE_A(s)                                                                         \
        do {                                                                                   \
            __local float* as_ = As + ((s) % STAGES) * TILE_A;                                 \
            const int k_ = kb + (s) * BK + 4 * kca;                                            \
            _Pragma("unroll") for (int u = 0; u < PER_A; u++) {                                \
                const bool r_ = m0 + ma + u * RA < M;                                          \
                const __global float* p_ = a_src + (size_t)u * RA * lda + (s) * BK;            \
                _Pragma("unroll") for (int e = 0; e < 4; e++) {                                \
                    const bool in_ = r_ && k_ + e < kend;                                      \
                    async_copy4(as_ + a_dst + u * RA * 4 + e, in_ ? p_ + e : A, in_ ? 4 : 0);  \
                }                                                                              \
            }                                                                                  \
        } while (0)
    #define STAGE_B(s)                                                                         \
        do {                                                                                   \
            __local float* bs_ = Bs + ((s) % STAGES) * TILE_B;                                 \
            _Pragma("unroll") for (int u = 0; u < PER_B; u++) {                                \
                const bool r_ = kb + (s) * BK + rb + u * RB < kend;                            \
                const __global float* p_ = b_src + (size_t)((s) * BK + u * RB) * ldb;          \
                _Pragma("unroll") for (int e = 0; e < 4; e++) {                                \
                    const bool in_ = r_ && n0 + cb + e < N;                                    \
                    async_copy4(bs_ + b_dst + u * RB * SB + e, in_ ? p_ + e : B, in_ ? 4 : 0); \
                }                                                                              \
            }                                                                                  \
        } while (0)
#else
    #if KG
    #define A_KIN(s) (kb + (s) * BK + 4 * kca < kend)
    #define B_KIN(s, u) (kb + (s) * BK + rb + (u) * RB < kend)
    #else
    #define A_KIN(s) true
    #define B_KIN(s, u) true
    #endif
    const bool b_in = n0 + cb < N;
    #define STAGE_A(s)                                                                         \
        do {                                                                                   \
            __local float* as_ = As + ((s) % STAGES) * TILE_A;                                 \
            const bool k_ = A_KIN(s);                                                          \
            _Pragma("unroll") for (int u = 0; u < PER_A; u++) {                                \
                const bool in_ = k_ && m0 + ma + u * RA < M;                                   \
                async_copy16(as_ + a_dst + u * RA * 4,                                         \
                             in_ ? a_src + (size_t)u * RA * lda + (s) * BK : A, in_ ? 16 : 0); \
            }                                                                                  \
        } while (0)
    #define STAGE_B(s)                                                                         \
        do {                                                                                   \
            __local float* bs_ = Bs + ((s) % STAGES) * TILE_B;                                 \
            _Pragma("unroll") for (int u = 0; u < PER_B; u++) {                                \
                const bool in_ = b_in && B_KIN(s, u);                                          \
                async_copy16(bs_ + b_dst + u * RB * SB,                                        \
                             in_ ? b_src + (size_t)((s) * BK + u * RB) * ldb : B, in_ ? 16 : 0); \
            }                                                                                  \
        } while (0)
#endif
#define STAGE(s) do { STAGE_A(s); STAGE_B(s); } while (0)

    for (int s = 0; s < PF; s++) {
        if (s < steps) STAGE(s);
        async_commit();
    }
    // Step 0's split, before the loop.
    async_wait(PF - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    split_a(As, Asm, tid);
    FENCE_PROXY_ASYNC();
    const int nb = wg * 64 + warp * 16 + g;

    for (int t = 0; t < steps; t++) {
        WAIT_STEP();
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);
#if SPREAD == 1
        if (t + PF < steps) STAGE_A(t + PF);
#endif
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;
        const __local float* asm_ = Asm + (t % 2) * TILE_A;
        const ulong d_big0 = wg_desc(as, BM * 16, 128);
        const ulong d_sml0 = wg_desc(asm_, BM * 16, 128);

        #pragma unroll
        for (int grp = 0; grp < NG; grp++) {
            // The group's B fragments first (loaded and split), then its 3·CHAIN wgmma.
            float gb[CHAIN][4], sb[CHAIN][4];
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) {
                const int k = (grp * CHAIN + c) * 8;
                const float b[4] = {bs[(k + t4) * SB + nb], bs[(k + t4) * SB + nb + 8],
                                    bs[(k + t4 + 4) * SB + nb], bs[(k + t4 + 4) * SB + nb + 8]};
                #pragma unroll
                for (int e = 0; e < 4; e++) {
                    gb[c][e] = tf32_cvt(b[e]);
                    sb[c][e] = b[e] - gb[c][e];
                }
            }
            WG_FENCE();
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) {
                const int kk = grp * CHAIN + c;
                const ulong d_big = d_big0 + (ulong)(2 * kk * BM), d_sml = d_sml0 + (ulong)(2 * kk * BM);
                WG_RS(t0, sb[c][0], sb[c][1], sb[c][2], sb[c][3], d_big, c); // scale-d 0 first
                WG_RS(t0, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_sml, 1);
                WG_RS(t0, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_big, 1);
            }
            WG_COMMIT();
            if (grp == 0) {
#if SPREAD == 1
                if (t + PF < steps) STAGE_B(t + PF);
#else
                if (t + PF < steps) STAGE(t + PF);
#endif
                async_commit();
                if (t + 1 < steps)
                    split_a(As + ((t + 1) % STAGES) * TILE_A, Asm + ((t + 1) % 2) * TILE_A, tid);
            }
            WG_WAIT(0);
            WG_KEEP(t0);
            #pragma unroll
            for (int i = 0; i < NACC; i++) acc[i] += t0[i];
        }
        FENCE_PROXY_ASYNC();
    }

#if SPLITK > 1
    if (steps <= 0) return;
#endif
    #pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int row = m0 + 8 * j + 2 * t4, col = n0 + nb;
        if (row < M) {
            if (col < N) PUT(C + (size_t)row * N + col, acc[4 * j]);
            if (col + 8 < N) PUT(C + (size_t)row * N + col + 8, acc[4 * j + 2]);
        }
        if (row + 1 < M) {
            if (col < N) PUT(C + (size_t)(row + 1) * N + col, acc[4 * j + 1]);
            if (col + 8 < N) PUT(C + (size_t)(row + 1) * N + col + 8, acc[4 * j + 3]);
        }
    }
}

// The host's padded copy (made on every call, counted in its time): dst (rows_p × cols_p) is
// src (rows × cols, row-major) with zeros to the right and below. One work-group per row.
__kernel void pad(const int rows, const int cols, const int cols_p, const __global float* src,
                  __global float* dst) {
    const int r = get_group_id(0);
    const __global float* s = src + (size_t)r * cols;
    __global float* d = dst + (size_t)r * cols_p;
    const bool in = r < rows;
    for (int c = get_local_id(0); c < cols_p; c += get_local_size(0))
        d[c] = in && c < cols ? s[c] : 0.0f;
}
