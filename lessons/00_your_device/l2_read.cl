// The L2 cache's read bandwidth: every work-item reads float4s from a buffer that fits in the
// L2 cache, `reps` times, each time `get_global_size(0)` float4s further on (wrapping inside
// the buffer), and sums them. Built only for NVIDIA GPUs: `ld.global.cg` caches in L2 only,
// so no read is served by a compute unit's L1, and a launch after the first finds the whole
// buffer in L2. Four independent sums keep several reads in flight per work-item.
//
// The source holds small integers, so every sum is exact and the host checks it.

inline float4 load_l2(const __global float4* p) {
    float4 v;
    __asm__ __volatile__("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                         : "l"(p));
    return v;
}

__kernel void l2_read(const __global float4* src, const uint mask, const int reps,
                      __global float* out) {
    const uint g = get_global_size(0);
    uint i = get_global_id(0);
    float4 s0 = (float4)(0.0f), s1 = (float4)(0.0f), s2 = (float4)(0.0f), s3 = (float4)(0.0f);
    for (int r = 0; r < reps; r += 4) {
        s0 += load_l2(src + (i & mask));
        i += g;
        s1 += load_l2(src + (i & mask));
        i += g;
        s2 += load_l2(src + (i & mask));
        i += g;
        s3 += load_l2(src + (i & mask));
        i += g;
    }
    const float4 s = (s0 + s1) + (s2 + s3);
    out[get_global_id(0)] = (s.x + s.y) + (s.z + s.w);
}
