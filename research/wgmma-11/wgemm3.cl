// research/wgmma-11/wgemm3.cl: the wgmma GEMM (3xTF32, the product of wgemm2.cl with one temporary)
// with one producer warp. Calls 2 and 3 found wgemm2.cl's loop at 120 TFLOP/s without its copies
// (FAKE=1) and at 101 with copies but no wgmma (NOMMA=1), yet at 74 with both: the warp groups
// that issue the wgmma also copy, split and wait at the barrier. Here they only compute: a 9th
// warp copies each k-step's tiles (cp.async), waits for them, splits A's tile into its small part,
// and tells the two warp groups through an mbarrier per stage ("full"); they tell it through
// another ("empty") when a stage's wgmma are done. No barrier of the whole work-group in the loop.
// Work-group: 128·WGS + 32 work-items, BM×BN block of C, BN = 64·WGS; M % BM = N % BN = K % BK = 0.
//   CHAIN  k-steps of 8 whose 3·CHAIN products the unit sums before the FP32 add (as wgemm2.cl)
//   PFP    how many steps the copies run ahead of the split (the producer's own pipeline)
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
#ifndef PFP
#define PFP 2
#endif
#define BN (64 * WGS)
#define THREADS_C (128 * WGS)
#define THREADS (THREADS_C + 32)
#define SB (BN + 8)
#define TILE_A (BM * BK)
#define TILE_B (BK * SB)
#define KC (BK / 4)
#define COPIES_A (BM * BK / 4)
#define COPIES_B (BK * BN / 4)
#define NACC (BM / 2)
#define NG (BK / 8 / CHAIN)
#define WG_RS WG_CAT(WG_RS_, BM)
#define WG_KEEP WG_CAT(WG_KEEP_, BM)

inline uint smem_addr(const __local void* p) { return (uint)(ulong)p; }
inline void mbar_init(const __local ulong* b, uint count) {
    __asm__ __volatile__("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_addr(b)), "r"(count) : "memory");
}
inline void mbar_arrive(const __local ulong* b) {
    __asm__ __volatile__("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_addr(b)) : "memory");
}
// Waits for the phase of parity `parity` to complete; gives up after SPIN_LIMIT tries (a wrong
// protocol then shows as a wrong C, not as a hung GPU).
#ifndef SPIN_LIMIT
#define SPIN_LIMIT (1u << 26)
#endif
inline void mbar_wait(const __local ulong* b, uint parity) {
    uint done, n = 0;
    do {
        __asm__ __volatile__("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                             : "=r"(done) : "r"(smem_addr(b)), "r"(parity) : "memory");
    } while (!done && ++n < SPIN_LIMIT);
}
#define WARP_SYNC() __asm__ __volatile__("bar.warp.sync -1;" ::: "memory")

#if PFP == 1
#define WAIT_PFP() async_wait(1)
#elif PFP == 2
#define WAIT_PFP() async_wait(2)
#else
#define WAIT_PFP() async_wait(3)
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const __global float* A,
            const __global float* B, __global float* C) {
    __local float As[STAGES * TILE_A] __attribute__((aligned(128)));
    __local float Asm[STAGES * TILE_A] __attribute__((aligned(128)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(128)));
    __local ulong full[STAGES], empty[STAGES];

    const int tid = get_local_id(0);
    const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
    const int steps = K / BK;
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full + s, 32);
            mbar_init(empty + s, THREADS_C);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (tid >= THREADS_C) {
        // ---- the producer warp
        const int lane = tid - THREADS_C;
        for (int t = 0; t < steps + PFP; t++) {
            if (t < steps) {
                const int s = t % STAGES;
                if (t >= STAGES) mbar_wait(empty + s, (t / STAGES - 1) & 1);
                __local float* as_ = As + s * TILE_A;
                __local float* bs_ = Bs + s * TILE_B;
                // A: copy c is row c%8 + 8·(c / (8·KC)), chunk (c/8) % KC (as wgemm2.cl)
                #pragma unroll 4
                for (int c = lane; c < COPIES_A; c += 32) {
                    const int m = c % 8 + 8 * (c / (8 * KC)), kc = (c / 8) % KC;
                    async_copy16(as_ + (kc * BM + m) * 4, A + (size_t)(m0 + m) * K + t * BK + 4 * kc, 16);
                }
                #pragma unroll 4
                for (int c = lane; c < COPIES_B; c += 32) {
                    const int r = c / (BN / 4), cb = (c % (BN / 4)) * 4;
                    async_copy16(bs_ + r * SB + cb, B + (size_t)(t * BK + r) * N + n0 + cb, 16);
                }
            }
            async_commit();
            const int u = t - PFP;
            if (u >= 0) {
                // step u's copies have landed (this lane's), then every lane's (warp barrier)
                WAIT_PFP();
                WARP_SYNC();
                const int s = u % STAGES;
                const __local float* as = As + s * TILE_A;
                __local float* sml = Asm + s * TILE_A;
                #pragma unroll 4
                for (int i = lane; i < TILE_A / 4; i += 32) {
                    const float4 v = *(const __local float4*)(as + 4 * i);
                    const float4 r = v - as_float4(as_uint4(v) & (uint4)(0xffffe000u));
                    *(__local float4*)(sml + 4 * i) =
                        (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
                }
                FENCE_PROXY_ASYNC();
                mbar_arrive(full + s);
            }
        }
        return;
    }

    // ---- the two warp groups: wgmma only
    const int wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t4 = lane % 4;
    const int nb = wg * 64 + warp * 16 + g;
    float acc[NACC], t0[NACC];
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; }

    for (int t = 0; t < steps; t++) {
        const int s = t % STAGES;
        mbar_wait(full + s, (t / STAGES) & 1);
        const __local float* bs = Bs + s * TILE_B;
        const ulong d_big0 = wg_desc(As + s * TILE_A, BM * 16, 128);
        const ulong d_sml0 = wg_desc(Asm + s * TILE_A, BM * 16, 128);
        #pragma unroll
        for (int grp = 0; grp < NG; grp++) {
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
            WG_WAIT(0);
            if (grp == NG - 1) mbar_arrive(empty + s); // this stage's wgmma and fragment loads are done
            WG_KEEP(t0);
            #pragma unroll
            for (int i = 0; i < NACC; i++) acc[i] += t0[i];
        }
    }

    #pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int row = m0 + 8 * j + 2 * t4, col = n0 + nb;
        C[(size_t)row * N + col] = acc[4 * j];
        C[(size_t)(row + 1) * N + col] = acc[4 * j + 1];
        C[(size_t)row * N + col + 8] = acc[4 * j + 2];
        C[(size_t)(row + 1) * N + col + 8] = acc[4 * j + 3];
    }
}
