// The caches' read bandwidth: every work-item reads float4s from a buffer that fits in the
// cache measured, `reps` times, each time `get_global_size(0)` float4s further on (wrapping
// inside the buffer), and sums them. Built only for NVIDIA GPUs, where a load can name the
// cache it may be served from: `ld.global.cg` caches in L2 only, so no read is served by a
// compute unit's L1 (`l2_read`); `ld.global.ca` caches in L1 too, and a buffer of a few KiB
// read over and over by every compute unit stays there (`l1_read`). Four independent sums keep
// several reads in flight per work-item.
//
// The source holds small integers, so every sum is exact and the host checks it.

#define READS(NAME, LOAD)                                                                   \
    inline float4 load_##NAME(const __global float4* p) {                                  \
        float4 v;                                                                          \
        __asm__ __volatile__(LOAD " {%0, %1, %2, %3}, [%4];"                               \
                             : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)                  \
                             : "l"(p));                                                    \
        return v;                                                                          \
    }                                                                                      \
    __kernel void NAME(const __global float4* src, const uint mask, const int reps,        \
                       __global float* out) {                                              \
        const uint g = get_global_size(0);                                                 \
        uint i = get_global_id(0);                                                         \
        float4 s0 = (float4)(0.0f), s1 = (float4)(0.0f), s2 = (float4)(0.0f),              \
               s3 = (float4)(0.0f);                                                        \
        for (int r = 0; r < reps; r += 4) {                                                \
            s0 += load_##NAME(src + (i & mask));                                           \
            i += g;                                                                        \
            s1 += load_##NAME(src + (i & mask));                                           \
            i += g;                                                                        \
            s2 += load_##NAME(src + (i & mask));                                           \
            i += g;                                                                        \
            s3 += load_##NAME(src + (i & mask));                                           \
            i += g;                                                                        \
        }                                                                                  \
        const float4 s = (s0 + s1) + (s2 + s3);                                            \
        out[get_global_id(0)] = (s.x + s.y) + (s.z + s.w);                                 \
    }

READS(l2_read, "ld.global.cg.v4.f32")
READS(l1_read, "ld.global.ca.v4.f32")
