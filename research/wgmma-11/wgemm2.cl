// research/wgmma-11/wgemm2.cl: the second wgmma GEMM (3xTF32, C = A·B, FP32 in and out). The
// same product as wgemm.cl (C^T = B^T·A^T: the unit's A = B^T from registers, split there; its
// B = A^T from local memory, K-major as copied, A's small part written by a pass over each tile;
// see wgemm.cl), with the loop rebuilt after call 1, where ptxas serialized every wgmma (C7514:
// "non wgmma instructions reading accumulator registers of a wgmma between start and end of the
// pipeline stage") because a temporary was read while the other's products were in flight across
// the loop's back edge. Here one iteration is one k-step of BK and ends with wgmma.wait_group 0:
// no wgmma is in flight across the back edge. Within it, groups of CHAIN·3 wgmma go into t0 and
// t1 alternately; group g's temporary is added into acc (FP32, outside the unit) after group g+1
// is issued and wait_group 1 (WAIT0=1: wait_group 0 after each group instead, no overlap within a
// warp group).
//   CHAIN  k-steps of 8 per temporary (1: the lesson's sums, one FP32 add per 8 k; 2: the unit
//          sums 16 k, six products, before the add)
//   SA     1: the pass that splits A's tile for step t+1 runs while step t's first group of wgmma
//          is in flight (one barrier per step); 0: split step t's tile, then barrier
//   FAKE   1: no copies from global memory in the loop (the tiles are filled once): the loop's
//          ceiling without loads; C is wrong
//   ABIG   1: the pass also writes A's big part = tf32_round(a), small = a − big (C is then the
//          solution's bit for bit with CHAIN=1); 0: big = A as copied (the unit truncates it),
//          small = tf32_round(a − trunc(a))
// Copies run PF = STAGES − 1 steps ahead: the buffer step t+PF overwrites was last read in step
// t−1, whose wgmma every warp group waited for (wait_group 0) before the barrier of step t.
// M and N may be ragged (rows and columns past them are zeros, N % 4 == 0); K % BK == 0.
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
#ifndef ABIG
#define ABIG 0
#endif
#ifndef CHAIN
#define CHAIN 1
#endif
#ifndef SA
#define SA 1
#endif
#ifndef WAIT0
#define WAIT0 0
#endif
#ifndef TEMPS
#define TEMPS 2 // 1: one temporary (wait_group 0 after each group; frees BM/2 registers for BM = 192)
#endif
#ifndef NOMMA
#define NOMMA 0 // 1: no wgmma and no adds (copies, split, barriers, fragment loads only): a timing floor
#endif
#ifndef SPREAD
#define SPREAD 0 // 1: B's copies of step t+PF are issued after the first group of wgmma, A's before;
                 // 2: both after the first group (the wgmma start right after the barrier)
#endif
#if TEMPS == 1
#undef WAIT0
#define WAIT0 1
#endif
#ifndef SAMEBLK
#define SAMEBLK 0 // 1: every work-group copies block row 0 of A and block column 0 of B (a timing probe: C is wrong)
#endif
#ifndef FAKE
#define FAKE 0 // 1: no copies from global memory (a timing ceiling: C is wrong)
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

#define WAIT_N_(n) async_wait(n)
#if SA
// Step t+1's copies must have landed (for its split): PF + t groups committed, t+2 needed.
#define WAIT_STEP_N (PF - 2)
#else
#define WAIT_STEP_N (PF - 1)
#endif
#if WAIT_STEP_N == 0
#define WAIT_STEP() async_wait(0)
#elif WAIT_STEP_N == 1
#define WAIT_STEP() async_wait(1)
#elif WAIT_STEP_N == 2
#define WAIT_STEP() async_wait(2)
#else
#define WAIT_STEP() async_wait(3)
#endif

// The split of one A tile (TILE_A floats at `as`) into `sml` (and `big`).
inline void split_a(const __local float* as, __local float* sml, __local float* big, const int tid) {
    #pragma unroll
    for (int i = 0; i < TILE_A / 4 / THREADS; i++) {
        const int o = (tid + i * THREADS) * 4;
        const float4 v = *(const __local float4*)(as + o);
#if ABIG
        const float4 bg = (float4)(tf32_round(v.x), tf32_round(v.y), tf32_round(v.z), tf32_round(v.w));
        *(__local float4*)(big + o) = bg;
        *(__local float4*)(sml + o) = v - bg;
#else
        const float4 r = v - as_float4(as_uint4(v) & (uint4)(0xffffe000u));
        *(__local float4*)(sml + o) =
            (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
#endif
    }
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const __global float* A,
            const __global float* B, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(128)));
    __local float Asm[2 * TILE_A] __attribute__((aligned(128)));
#if ABIG
    __local float Abg[2 * TILE_A] __attribute__((aligned(128)));
#else
    __local float* Abg = Asm; // unused
#endif
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(128)));

    const int tid = get_local_id(0);
    const int wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
    const int steps = K / BK;

    const int ma = tid % 8 + 8 * (tid / (8 * KC)), kca = (tid / 8) % KC;
#if SAMEBLK
    const __global float* a_src = A + (size_t)ma * K + 4 * kca;
#else
    const __global float* a_src = A + (size_t)(m0 + ma) * K + 4 * kca;
#endif
    const int a_dst = (kca * BM + ma) * 4;
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
#if SAMEBLK
    const __global float* b_src = B + (size_t)rb * N + cb;
#else
    const __global float* b_src = B + (size_t)rb * N + n0 + cb;
#endif
    const int b_dst = rb * SB + cb;
    const bool b_in = n0 + cb < N;

    #if TEMPS == 1
    float acc[NACC], t0[NACC];
    #define t1 t0
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; }
#else
    float acc[NACC], t0[NACC], t1[NACC];
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; t1[i] = 0.0f; }
#endif

#if FAKE
    #define STAGE_A(s) do { } while (0)
    #define STAGE_B(s) do { } while (0)
#else
    // Rows of A beyond M and columns of B beyond N are copied as zeros (N % 4 == 0).
    #define STAGE_A(s)                                                                         \
        do {                                                                                   \
            __local float* as_ = As + ((s) % STAGES) * TILE_A;                                 \
            _Pragma("unroll") for (int u = 0; u < PER_A; u++) {                                \
                const bool in_ = m0 + ma + u * RA < M;                                         \
                async_copy16(as_ + a_dst + u * RA * 4,                                         \
                             in_ ? a_src + (size_t)u * RA * K + (s) * BK : A, in_ ? 16 : 0);   \
            }                                                                                  \
        } while (0)
    #define STAGE_B(s)                                                                         \
        do {                                                                                   \
            __local float* bs_ = Bs + ((s) % STAGES) * TILE_B;                                 \
            _Pragma("unroll") for (int u = 0; u < PER_B; u++)                                  \
                async_copy16(bs_ + b_dst + u * RB * SB,                                        \
                             b_in ? b_src + (size_t)((s) * BK + u * RB) * N : B, b_in ? 16 : 0); \
        } while (0)
#endif
#define STAGE(s) do { STAGE_A(s); STAGE_B(s); } while (0)

#if FAKE
    for (int i = tid; i < STAGES * TILE_A; i += THREADS) As[i] = A[i];
    for (int i = tid; i < STAGES * TILE_B; i += THREADS) Bs[i] = B[i];
#endif
    for (int s = 0; s < PF; s++) {
        if (s < steps) STAGE(s);
        async_commit();
    }
#if SA
    // Step 0's split, before the loop.
    async_wait(PF - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    split_a(As, Asm, Abg, tid);
    FENCE_PROXY_ASYNC();
#endif
    const int nb = wg * 64 + warp * 16 + g;

    for (int t = 0; t < steps; t++) {
        WAIT_STEP();
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);
#if SPREAD == 1
        if (t + PF < steps) STAGE_A(t + PF);
#elif SPREAD == 2
#else
        if (t + PF < steps) STAGE(t + PF);
        async_commit();
#endif

        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;
        __local float* asm_ = Asm + (t % 2) * TILE_A;
#if ABIG
        __local float* abg = Abg + (t % 2) * TILE_A;
#else
        const __local float* abg = as;
#endif
#if !SA
        split_a(as, asm_, Abg + (t % 2) * TILE_A, tid);
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        const ulong d_big0 = wg_desc(abg, BM * 16, 128);
        const ulong d_sml0 = wg_desc(asm_, BM * 16, 128);

        #pragma unroll
        for (int grp = 0; grp < NG; grp++) {
            // The group's B fragments first (loaded and split), then its 3·CHAIN wgmma: no
            // register of a wgmma's operands is written between the fence and the commit.
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
#if NOMMA
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) acc[c] += gb[c][0] + gb[c][1] + gb[c][2] + gb[c][3] + sb[c][0] + sb[c][1] + sb[c][2] + sb[c][3];
            acc[NACC - 1] += d_big0 == d_sml0 ? 1.0f : 0.0f;
#else
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) {
                const int kk = grp * CHAIN + c;
                const ulong d_big = d_big0 + (ulong)(2 * kk * BM), d_sml = d_sml0 + (ulong)(2 * kk * BM);
                if (grp % 2 == 0) {
                    WG_RS(t0, sb[c][0], sb[c][1], sb[c][2], sb[c][3], d_big, c); // scale-d 0 first
                    WG_RS(t0, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_sml, 1);
                    WG_RS(t0, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_big, 1);
                } else {
                    WG_RS(t1, sb[c][0], sb[c][1], sb[c][2], sb[c][3], d_big, c);
                    WG_RS(t1, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_sml, 1);
                    WG_RS(t1, gb[c][0], gb[c][1], gb[c][2], gb[c][3], d_big, 1);
                }
            }
#endif
            WG_COMMIT();
#if SPREAD == 1
            if (grp == 0) {
                if (t + PF < steps) STAGE_B(t + PF);
                async_commit();
            }
#elif SPREAD == 2
            if (grp == 0) {
                if (t + PF < steps) STAGE(t + PF);
                async_commit();
            }
#endif
#if SA
            if (grp == 0 && t + 1 < steps) {
                split_a(As + ((t + 1) % STAGES) * TILE_A, Asm + ((t + 1) % 2) * TILE_A,
                        Abg + ((t + 1) % 2) * TILE_A, tid);
            }
#endif
#if WAIT0
            WG_WAIT(0);
            if (grp % 2 == 0) {
                WG_KEEP(t0);
                #pragma unroll
                for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t0[i];
            } else {
                WG_KEEP(t1);
                #pragma unroll
                for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t1[i];
            }
#else
            if (grp > 0) {
                WG_WAIT(1);
                if (grp % 2 == 1) {
                    WG_KEEP(t0);
                    #pragma unroll
                    for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t0[i];
                } else {
                    WG_KEEP(t1);
                    #pragma unroll
                    for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t1[i];
                }
            }
#endif
        }
#if !WAIT0
        WG_WAIT(0);
        if ((NG - 1) % 2 == 0) {
            WG_KEEP(t0);
            #pragma unroll
            for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t0[i];
        } else {
            WG_KEEP(t1);
            #pragma unroll
            for (int i = 0; i < NACC; i++) acc[i] += NOMMA ? 0.0f : t1[i];
        }
#endif
#if SA
        FENCE_PROXY_ASYNC();
#endif
    }

    #pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int row = m0 + 8 * j + 2 * t4, col = n0 + nb;
        if (row < M) {
            if (col < N) C[(size_t)row * N + col] = acc[4 * j];
            if (col + 8 < N) C[(size_t)row * N + col + 8] = acc[4 * j + 2];
        }
        if (row + 1 < M) {
            if (col < N) C[(size_t)(row + 1) * N + col] = acc[4 * j + 1];
            if (col + 8 < N) C[(size_t)(row + 1) * N + col + 8] = acc[4 * j + 3];
        }
    }
}
