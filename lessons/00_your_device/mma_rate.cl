// The matrix unit's rate: chains of the tensor cores' TF32 product on a warp's fragments,
// D <- A·B + D, CHAINS independent accumulators per warp (one `mma.sync` waits for the one
// before it in its chain, so several chains keep the unit busy). Built only for NVIDIA GPUs
// of compute capability 8.0 or newer, where the instruction exists.
//
// Every element of A's fragment is `a` and of B's is `b`, both passed in so that the compiler
// cannot fold the loop away; with a = 1 and b a power of two every sum is exact, and after
// `iters` steps each element of chain j is j + iters·8·a·b: the host checks every work-item.

inline float4 mma_tf32(float4 a, float2 b, float4 c) {
    float4 d;
    __asm__ __volatile__(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
        : "r"(as_uint(a.x)), "r"(as_uint(a.y)), "r"(as_uint(a.z)), "r"(as_uint(a.w)),
          "r"(as_uint(b.x)), "r"(as_uint(b.y)),
          "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w));
    return d;
}

__kernel void mma_chains(int iters, float a, float b, __global float* out) {
    const float4 af = (float4)(a);
    const float2 bf = (float2)(b);
    float4 d[CHAINS];
    for (int j = 0; j < CHAINS; j++) {
        d[j] = (float4)((float)j);
    }
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < CHAINS; j++) {
            d[j] = mma_tf32(af, bf, d[j]);
        }
    }
    float s = 0.0f;
    for (int j = 0; j < CHAINS; j++) {
        s += d[j].x + d[j].y + d[j].z + d[j].w;
    }
    out[get_global_id(0)] = s;
}
