// research/perf-11/presplit/split.cl: the pass that splits A and B once, before the product
// (session 9, 2026-11-30). The host puts lessons/11_matrix_units/mma.cl before this file, so
// that tf32_round and tf32_cvt are the unit's own: A's big = tf32_round(a), B's big =
// tf32_cvt(b), small = x - big (exact in FP32), as the solution computes them in its loop.
// Both matrices in one launch: work-items [0, NA) make A's planes, the rest B's. The planes
// are padded to Mp × Kp and Kp × Np (multiples of the product's blocks), zeros outside A and B,
// so that the product kernel copies whole blocks with no bounds.
//
// LAYOUT 1: pairs, row-major. A2 is Mp rows of Kp float2 {big, small}, B2 Kp rows of Np
//   float2; one work-item makes two neighbouring elements (one float4 store).
// LAYOUT 2: fragment order. For each 16×8 tile of A (k-tile kt, row-tile mt, stored at tile
//   kt·Mt + mt) 256 floats: the 32 lanes' big fragments (float4 a.x a.y a.z a.w, as mma_tf32
//   takes them), then their small ones; for each 8×8 tile of B (tile kt·Nt + nt) 128 floats:
//   per lane {big b.x, big b.y, small b.x, small b.y}. One work-item per lane and tile. A step's
//   block of A (or B) is then one contiguous run per k-tile, and a lane's fragments one
//   16-byte read each.
//   SPLIT_A=0 (SPLIT_B=0): A (B) only put in fragment order, not split: 128 floats per tile of
//   A, the lanes' float4 a.x a.y a.z a.w (64 per tile of B, float2 b.x b.y); the product then
//   splits it in its loop as the solution does.

#ifndef LAYOUT
#define LAYOUT 2
#endif
#ifndef SPLIT_A
#define SPLIT_A 1
#endif
#ifndef SPLIT_B
#define SPLIT_B 1
#endif

inline float ld(const __global float* X, const int rows, const int cols, const int r,
                const int c) {
    return (r < rows && c < cols) ? X[r * cols + c] : 0.0f;
}

__kernel void split_ab(const int M, const int N, const int K, const int Mp, const int Np,
                       const int Kp, const __global float* A, const __global float* B,
                       __global float4* A2, __global float4* B2) {
    int w = get_global_id(0);
#if LAYOUT == 1
    const int na = Mp * Kp / 2, nb = Kp * Np / 2;
    if (w < na) {
        const int r = w / (Kp / 2), c = (w % (Kp / 2)) * 2;
        const float2 a = (float2)(ld(A, M, K, r, c), ld(A, M, K, r, c + 1));
        const float2 big = (float2)(tf32_round(a.x), tf32_round(a.y));
        const float2 small = a - big;
        A2[w] = (float4)(big.x, small.x, big.y, small.y);
    } else if ((w -= na) < nb) {
        const int r = w / (Np / 2), c = (w % (Np / 2)) * 2;
        const float2 b = (float2)(ld(B, K, N, r, c), ld(B, K, N, r, c + 1));
        const float2 big = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));
        const float2 small = b - big;
        B2[w] = (float4)(big.x, small.x, big.y, small.y);
    }
#else
    const int Mt = Mp / 16, Nt = Np / 8, Kt = Kp / 8;
    const int na = Kt * Mt * 32, nb = Kt * Nt * 32;
    const int lane = w & 31, g = lane >> 2, t = lane & 3;
    if (w < na) {
        const int tile = w >> 5, kt = tile / Mt, mt = tile - kt * Mt;
        const int r = mt * 16 + g, c = kt * 8 + t;
        const float4 a = (float4)(ld(A, M, K, r, c), ld(A, M, K, r + 8, c),
                                  ld(A, M, K, r, c + 4), ld(A, M, K, r + 8, c + 4));
#if SPLIT_A
        const float4 big = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z),
                                    tf32_round(a.w));
        A2[tile * 64 + lane] = big;
        A2[tile * 64 + 32 + lane] = a - big;
#else
        A2[tile * 32 + lane] = a;
#endif
    } else if ((w -= na) < nb) {
        const int tile = w >> 5, kt = tile / Nt, nt = tile - kt * Nt;
        const int r = kt * 8 + t, c = nt * 8 + g;
        const float2 b = (float2)(ld(B, K, N, r, c), ld(B, K, N, r + 4, c));
#if SPLIT_B
        const float2 big = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));
        const float2 small = b - big;
        B2[tile * 32 + lane] = (float4)(big.x, big.y, small.x, small.y);
#else
        vstore2(b, tile * 32 + lane, (__global float*)B2);
#endif
    }
#endif
}
