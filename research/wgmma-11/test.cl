// research/wgmma-11/test.cl: does NVIDIA's OpenCL take Hopper's wgmma in inline PTX, and is the
// result right? One work-group of one warp group (128 work-items): C (64×TN) = A (64×8) · B (8×TN),
// A row-major, B row-major K×N, both copied into local memory K-major ("core matrices" of 8 rows
// × 16 bytes, no swizzle: element (r, k) at ((k/4)·R + r)·4 + k%4 floats, R the rows: 64 for A,
// TN for B's columns). wgmma.h (gen.py's wgmma.cl) comes before this file.
//   mode 0: both operands from descriptors (SS), D = A·B + 0 (scale-d 1 on zeros)
//   mode 1: A from registers (RS, mma.m16n8k8's fragment layout), B from its descriptor
//   mode 2: SS with scale-d 0 on D filled with 1000 (D = A·B, D's old value ignored)
//   mode 3: three chained SS products into one D (A·B three times: D = 3·A·B)
#ifndef TN
#define TN 64
#endif
__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void wg_test(const __global float* A, const __global float* B, __global float* C, const uint lboA,
             const uint sboA, const uint lboB, const uint sboB, const int mode) {
    // Room for the swapped offsets of hyp 1 (8 groups of rows 1 KB apart).
    __local float As[64 * 8 + 2048] __attribute__((aligned(128)));
    __local float Bs[TN * 8 + 2048] __attribute__((aligned(128)));
    const int tid = get_local_id(0), warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    for (int i = tid; i < 64 * 8; i += 128) {
        const int r = i / 8, k = i % 8;
        As[((k / 4) * 64 + r) * 4 + k % 4] = A[r * 8 + k];
    }
    for (int i = tid; i < TN * 8; i += 128) {
        const int k = i / TN, n = i % TN;
        Bs[((k / 4) * TN + n) * 4 + k % 4] = B[k * TN + n];
    }
    FENCE_PROXY_ASYNC();
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong da = wg_desc(As, lboA, sboA), db = wg_desc(Bs, lboB, sboB);
    float d[TN / 2];
    #pragma unroll
    for (int i = 0; i < TN / 2; i++) d[i] = mode == 2 ? 1000.0f : 0.0f;
    const int r0 = warp * 16 + g;
    const float a0 = A[r0 * 8 + t], a1 = A[(r0 + 8) * 8 + t], a2 = A[r0 * 8 + t + 4],
                a3 = A[(r0 + 8) * 8 + t + 4];
    WG_FENCE();
    if (mode == 1) {
        WG_CAT(WG_RS_, TN)(d, a0, a1, a2, a3, db, 1);
    } else if (mode == 2) {
        WG_CAT(WG_SS_, TN)(d, da, db, 0);
    } else if (mode == 3) {
        WG_CAT(WG_SS_, TN)(d, da, db, 0);
        WG_CAT(WG_SS_, TN)(d, da, db, 1);
        WG_CAT(WG_SS_, TN)(d, da, db, 1);
    } else {
        WG_CAT(WG_SS_, TN)(d, da, db, 1);
    }
    WG_COMMIT();
    WG_WAIT(0);
    WG_CAT(WG_KEEP_, TN)(d);
    #pragma unroll
    for (int j = 0; j < TN / 8; j++) {
        C[r0 * TN + 8 * j + 2 * t] = d[4 * j];
        C[r0 * TN + 8 * j + 2 * t + 1] = d[4 * j + 1];
        C[(r0 + 8) * TN + 8 * j + 2 * t] = d[4 * j + 2];
        C[(r0 + 8) * TN + 8 * j + 2 * t + 1] = d[4 * j + 3];
    }
}
