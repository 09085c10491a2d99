// research/wgmma-11/wgemm.cl: a first FP32 GEMM through Hopper's wgmma, 3xTF32 (lesson 11's
// split), C = A·B, A row-major M×K, B row-major K×N. Before this file the host puts the course's
// prelude and mma.cl (tf32_round, tf32_cvt, async_copy16) and gen.py's wgmma.cl.
//
// wgmma's TF32 operands in local memory must both be K-major; A is (row-major M×K), B is not
// (row-major K×N). So the kernel computes C^T = B^T·A^T: the unit's "A" (64×8, from registers) is
// B^T, loaded by each warp from B's row-major tile like the lesson's B fragments and split there;
// the unit's "B" (8×BM, from local memory) is A^T, which is A's tile K-major as it is copied.
// A work-group is WGS warp groups (128 work-items each) and computes a BM×BN block of C, BN =
// 64·WGS: warp group w the BN columns w·64 … w·64+63 for all BM rows, as one wgmma
// m64n<BM>k8 accumulator (BM/2 floats per work-item).
//
// The split: B's fragments in registers, big = tf32_cvt(b), small = b − big (the unit truncates
// small). A: big is A as copied (the unit reads its top 19 bits: big = A truncated to TF32), small
// = tf32_round(a − trunc(a)), written by a pass over the step's tile into ASM (ABIG=1: the pass
// also writes big = tf32_round(a) and small = a − big, as the lesson splits A). Per k-step of 8:
// three wgmma into a zeroed temporary (small·big, big·small, big·big), then the temporary is added
// into the FP32 accumulator outside the unit (two temporaries, so that step s's products run
// while step s−1's are added).
//
// Local memory per stage: A's tile BM×BK K-major in "core matrices" (8 rows × 16 bytes,
// element (m, k) at ((k/4)·BM + m)·4 + k%4), B's tile BK×BN row-major, rows padded to BN + 8;
// plus two buffers of A's small part (and, ABIG=1, two of its big part). Steps are staged
// PF = STAGES − 2 ahead by cp.async, so that the buffer a copy overwrites was last read by
// wgmma two steps back, which every warp group has waited for (wgmma.wait_group 1 in step t−1).
// Limits of this first kernel: M % BM == 0, N % BN == 0, K % BK == 0 (checked by the host).
#ifndef WGS
#define WGS 2
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef ABIG
#define ABIG 0
#endif
#define BN (64 * WGS)
#define THREADS (128 * WGS)
#define PF (STAGES - 2)
#define SB (BN + 8)
#define TILE_A (BM * BK)
#define TILE_B (BK * SB)
#define KC (BK / 4)                      // 16-byte chunks of a row of A's tile
#define COPIES_A (BM * BK / 4)
#define COPIES_B (BK * BN / 4)
#define PER_A (COPIES_A / THREADS)
#define PER_B (COPIES_B / THREADS)
#define RA (THREADS / KC)                // rows of A between a work-item's copies
#define RB (THREADS / (BN / 4))          // rows of B between a work-item's copies
#define NACC (BM / 2)
#define WG_RS WG_CAT(WG_RS_, BM)
#define WG_KEEP WG_CAT(WG_KEEP_, BM)

#if PF == 1
#define WAIT_STEP() async_wait(0)
#elif PF == 2
#define WAIT_STEP() async_wait(1)
#elif PF == 3
#define WAIT_STEP() async_wait(2)
#else
#define WAIT_STEP() async_wait(3)
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const __global float* A,
            const __global float* B, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(128)));
    __local float Asm[2 * TILE_A] __attribute__((aligned(128)));
#if ABIG
    __local float Abg[2 * TILE_A] __attribute__((aligned(128)));
#endif
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(128)));

    const int tid = get_local_id(0);
    const int wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
    const int steps = K / BK;

    // Copy plan. A: copy c (c = tid + u·THREADS) is row m = c%8 + 8·(c / (8·KC)), chunk
    // kc = (c/8) % KC: 8 consecutive work-items fill one 128-byte core matrix, a warp 8 rows × 64 B.
    const int ma = tid % 8 + 8 * (tid / (8 * KC)), kca = (tid / 8) % KC;
    const __global float* a_src = A + (size_t)(m0 + ma) * K + 4 * kca;
    const int a_dst = (kca * BM + ma) * 4;
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
    const __global float* b_src = B + (size_t)rb * N + n0 + cb;
    const int b_dst = rb * SB + cb;

    float acc[NACC], t0[NACC], t1[NACC];
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; t1[i] = 0.0f; }

    #define STAGE(s)                                                                           \
        do {                                                                                   \
            __local float* as_ = As + ((s) % STAGES) * TILE_A;                                 \
            __local float* bs_ = Bs + ((s) % STAGES) * TILE_B;                                 \
            _Pragma("unroll") for (int u = 0; u < PER_A; u++)                                  \
                async_copy16(as_ + a_dst + u * RA * 4, a_src + (size_t)u * RA * K + (s) * BK, 16); \
            _Pragma("unroll") for (int u = 0; u < PER_B; u++)                                  \
                async_copy16(bs_ + b_dst + u * RB * SB, b_src + (size_t)((s) * BK + u * RB) * N, 16); \
        } while (0)

    for (int s = 0; s < PF; s++) {
        if (s < steps) STAGE(s);
        async_commit();
    }
    // This warp's rows of the unit's A (= columns of C): nb … nb+15.
    const int nb = wg * 64 + warp * 16 + g;

    for (int t = 0; t < steps; t++) {
        WAIT_STEP();
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);
        // Stage t+PF overwrites the buffer of step t+PF−STAGES = t−2, whose wgmma every warp
        // group waited for in step t−1, before the barrier above.
        if (t + PF < steps) STAGE(t + PF);
        async_commit();

        const __local float* as = As + (t % STAGES) * TILE_A;
        __local float* asm_ = Asm + (t % 2) * TILE_A;
#if ABIG
        __local float* abg = Abg + (t % 2) * TILE_A;
#endif
        // The split of A's tile: TILE_A/4 float4, THREADS work-items.
        #pragma unroll
        for (int i = 0; i < TILE_A / 4 / THREADS; i++) {
            const int o = (tid + i * THREADS) * 4;
            const float4 v = *(const __local float4*)(as + o);
#if ABIG
            const float4 bg = (float4)(tf32_round(v.x), tf32_round(v.y), tf32_round(v.z), tf32_round(v.w));
            *(__local float4*)(abg + o) = bg;
            *(__local float4*)(asm_ + o) = v - bg;
#else
            const uint4 u = as_uint4(v) & (uint4)(0xffffe000u);
            const float4 r = v - as_float4(u);
            *(__local float4*)(asm_ + o) =
                (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
#endif
        }
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);

        const __local float* bs = Bs + (t % STAGES) * TILE_B;
#if ABIG
        const ulong d_big0 = wg_desc(abg, BM * 16, 128);
#else
        const ulong d_big0 = wg_desc(as, BM * 16, 128);
#endif
        const ulong d_sml0 = wg_desc(asm_, BM * 16, 128);
        #pragma unroll
        for (int kk = 0; kk < BK / 8; kk++) {
            const int k = kk * 8;
            const float b0 = bs[(k + t4) * SB + nb], b1 = bs[(k + t4) * SB + nb + 8];
            const float b2 = bs[(k + t4 + 4) * SB + nb], b3 = bs[(k + t4 + 4) * SB + nb + 8];
            const float g0 = tf32_cvt(b0), g1 = tf32_cvt(b1), g2 = tf32_cvt(b2), g3 = tf32_cvt(b3);
            const float s0 = b0 - g0, s1 = b1 - g1, s2 = b2 - g2, s3 = b3 - g3;
            // k-chunks 2kk and 2kk+1 of A's tile: 2·kk·BM·16 bytes on (>> 4: 2·kk·BM).
            const ulong d_big = d_big0 + (ulong)(2 * kk * BM), d_sml = d_sml0 + (ulong)(2 * kk * BM);
            WG_FENCE();
            if (kk % 2 == 0) {
                WG_RS(t0, s0, s1, s2, s3, d_big, 0);
                WG_RS(t0, g0, g1, g2, g3, d_sml, 1);
                WG_RS(t0, g0, g1, g2, g3, d_big, 1);
            } else {
                WG_RS(t1, s0, s1, s2, s3, d_big, 0);
                WG_RS(t1, g0, g1, g2, g3, d_sml, 1);
                WG_RS(t1, g0, g1, g2, g3, d_big, 1);
            }
            WG_COMMIT();
            WG_WAIT(1);
            // The previous k-step's products are done: add them outside the unit.
            if (kk % 2 == 0) {
                WG_KEEP(t1);
                #pragma unroll
                for (int i = 0; i < NACC; i++) acc[i] += t1[i];
            } else {
                WG_KEEP(t0);
                #pragma unroll
                for (int i = 0; i < NACC; i++) acc[i] += t0[i];
            }
        }
    }
    WG_WAIT(0);
    WG_KEEP(t1);
    #pragma unroll
    for (int i = 0; i < NACC; i++) acc[i] += t1[i];

    // acc[4j + e]: the unit's D row nb (+8 for e ≥ 2) = C's column n0 + nb (+8), D column
    // 8j + 2·t4 (+1 for odd e) = C's row m0 + 8j + 2·t4 (+1).
    #pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int row = m0 + 8 * j + 2 * t4, col = n0 + nb;
        C[(size_t)row * N + col] = acc[4 * j];
        C[(size_t)(row + 1) * N + col] = acc[4 * j + 1];
        C[(size_t)row * N + col + 8] = acc[4 * j + 2];
        C[(size_t)(row + 1) * N + col + 8] = acc[4 * j + 3];
    }
}
