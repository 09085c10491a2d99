// research/wgmma-11/bench.cl: the tensor unit's rate. wgmma.h (gen.py's wgmma.cl) comes first.
//
// wg_bench: WGS warp groups per work-group, each issuing U wgmma m64n<TN>k8 (TF32, FP32
// accumulators, all into the same d) per group of the loop, `iters` groups, wgmma.wait_group 1
// between them (one group in flight while the next is issued, as CUTLASS's main loops do).
// FORM 0: A and B from local memory (SS); FORM 1: A from registers (RS). The U k-slices of A
// (64×8) and B (TN×8) lie side by side in local memory, filled from `src`.
// mma_bench: the lesson's instruction, mma.sync m16n8k8 TF32, CH independent accumulators per
// warp, `iters` rounds of CH mma each.
#ifndef TN
#define TN 256
#endif
#ifndef U
#define U 4
#endif
#ifndef WGS
#define WGS 1
#endif
#ifndef FORM
#define FORM 0
#endif
__kernel __attribute__((reqd_work_group_size(128 * WGS, 1, 1)))
void wg_bench(const __global float* src, __global float* out, const int iters) {
    __local float As[U * 64 * 8] __attribute__((aligned(128)));
    __local float Bs[U * TN * 8] __attribute__((aligned(128)));
    const int tid = get_local_id(0);
    for (int i = tid; i < U * 64 * 8; i += 128 * WGS) As[i] = src[i];
    for (int i = tid; i < U * TN * 8; i += 128 * WGS) Bs[i] = src[i + 4096];
    FENCE_PROXY_ASYNC();
    barrier(CLK_LOCAL_MEM_FENCE);
    float d[TN / 2];
    #pragma unroll
    for (int i = 0; i < TN / 2; i++) d[i] = 0.0f;
    const float a0 = src[tid], a1 = src[tid + 128 * WGS], a2 = src[tid + 256 * WGS],
                a3 = src[tid + 384 * WGS];
    ulong da[U], db[U];
    #pragma unroll
    for (int u = 0; u < U; u++) {
        da[u] = wg_desc(As + u * 64 * 8, 64 * 16, 128);
        db[u] = wg_desc(Bs + u * TN * 8, TN * 16, 128);
    }
    for (int it = 0; it < iters; it++) {
        WG_FENCE();
        #pragma unroll
        for (int u = 0; u < U; u++) {
#if FORM == 1
            WG_CAT(WG_RS_, TN)(d, a0, a1, a2, a3, db[u], 1);
#else
            WG_CAT(WG_SS_, TN)(d, da[u], db[u], 1);
#endif
        }
        WG_COMMIT();
        WG_WAIT(1);
    }
    WG_WAIT(0);
    WG_CAT(WG_KEEP_, TN)(d);
    float s = 0.0f;
    #pragma unroll
    for (int i = 0; i < TN / 2; i++) s += d[i];
    out[get_global_id(0)] = s;
}

#ifndef CH
#define CH 8
#endif
#ifndef MMA_WARPS
#define MMA_WARPS 4
#endif
__kernel __attribute__((reqd_work_group_size(32 * MMA_WARPS, 1, 1)))
void mma_bench(const __global float* src, __global float* out, const int iters) {
    const int tid = get_global_id(0) % 1024;
    const uint a0 = as_uint(src[tid]), a1 = as_uint(src[tid + 1]), a2 = as_uint(src[tid + 2]),
               a3 = as_uint(src[tid + 3]), b0 = as_uint(src[tid + 4]), b1 = as_uint(src[tid + 5]);
    float4 c[CH];
    #pragma unroll
    for (int i = 0; i < CH; i++) c[i] = (float4)(0.0f);
    for (int it = 0; it < iters; it++) {
        #pragma unroll
        for (int i = 0; i < CH; i++) {
            __asm__ __volatile__(
                "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                : "+f"(c[i].x), "+f"(c[i].y), "+f"(c[i].z), "+f"(c[i].w)
                : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        }
    }
    float s = 0.0f;
    #pragma unroll
    for (int i = 0; i < CH; i++) s += c[i].x + c[i].y + c[i].z + c[i].w;
    out[get_global_id(0)] = s;
}
