// The matrix unit, as lesson 11's kernels call it. The host puts this file before the
// kernel's own source. On an NVIDIA GPU of compute capability 8.0 or newer (MMA_PTX = 1) each
// call is one tensor-core instruction; everywhere else it is an OpenCL C model of that
// instruction with the same fragment layout, the same TF32 rounding and the same truncating
// accumulation, so that a kernel which loses accuracy on the tensor cores loses it here too.
//
// One call is made by a whole warp of 32 work-items (lanes): D = A·B + C for A 16×8, B 8×8,
// C and D 16×8, each lane holding a few elements of each (the "fragments"). With
// g = lane / 4 and t = lane % 4:
//
//   A (16×8):  a.x = A[g][t]    a.y = A[g+8][t]    a.z = A[g][t+4]    a.w = A[g+8][t+4]
//   B (8×8):   b.x = B[t][g]    b.y = B[t+4][g]
//   C, D:      c.x = C[g][2t]   c.y = C[g][2t+1]   c.z = C[g+8][2t]   c.w = C[g+8][2t+1]
//
// The lanes of a warp are 32 consecutive work-items of a one-dimensional work-group, and
// every work-item of the group makes the same calls (the model exchanges fragments through
// local memory and waits at barriers, so a call is collective over the work-group).

// ANCHOR: tf32
// The TF32 value nearest to x (ties away from zero): 10 bits of mantissa, FP32's exponent.
// The result is a float whose low 13 bits are zero.
// Adding half of the 13 dropped bits' range to the magnitude, then dropping them, rounds to
// nearest with ties away from zero: what `cvt.rna.tf32.f32` does for finite values. Written
// in integers on every device, since on sm_90 ptxas expands the instruction into a longer
// sequence (it also handles NaN and infinity) that costs issue slots beside the mma.
inline float tf32_round(float x) {
    return as_float((as_uint(x) + 0x1000u) & 0xffffe000u);
}
// ANCHOR_END: tf32

// Floats of local memory the model needs per warp (one A and one B fragment of every lane).
#define MMA_WARP_FLOATS (16 * 16 + 16 * 8)

#if MMA_PTX
// The instruction needs no local memory: one float keeps the declaration legal.
#define MMA_SCRATCH_FLOATS(warps) 1

inline uint mma_lane(void) {
    return get_local_id(0) & 31;
}

// ANCHOR: ptx
inline float4 mma_tf32(float4 a, float2 b, float4 c, __local float* scratch) {
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
// ANCHOR_END: ptx

// ANCHOR: f16_ptx
// FP16: two values in one 32-bit register, the one of lower index in the low half. Half the
// registers of TF32 fragments, and the m16n8k16 instruction does twice the work of m16n8k8.
typedef uint half2_t;
inline half2_t h2_pack(float lo, float hi) {
    uint d;
    __asm__ __volatile__("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}
inline float2 h2_unpack(half2_t v) {
    float lo, hi;
    __asm__ __volatile__("{.reg .f16 l, h;\n mov.b32 {l, h}, %2;\n cvt.f32.f16 %0, l;\n cvt.f32.f16 %1, h;}"
                         : "=f"(lo), "=f"(hi) : "r"(v));
    return (float2)(lo, hi);
}
// A (16×16): a0 = A[g][2t..2t+1]  a1 = A[g+8][2t..]  a2 = A[g][2t+8..]  a3 = A[g+8][2t+8..]
// B (16×8):  b0 = B[2t..2t+1][g]  b1 = B[2t+8..2t+9][g]
inline float4 mma_f16(half2_t a0, half2_t a1, half2_t a2, half2_t a3, half2_t b0, half2_t b1,
                      float4 c, __local float* scratch) {
    float4 d;
    __asm__ __volatile__(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=f"(d.x), "=f"(d.y), "=f"(d.z), "=f"(d.w)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),
          "f"(c.x), "f"(c.y), "f"(c.z), "f"(c.w));
    return d;
}
// ANCHOR_END: f16_ptx

// ANCHOR: max_ptx
// The largest v over the warp's 32 lanes (all of them must call it), in one instruction.
inline uint warp_max_u32(uint v, __local float* scratch) {
    uint m;
    __asm__ __volatile__("redux.sync.max.u32 %0, %1, 0xffffffff;" : "=r"(m) : "r"(v));
    return m;
}
// ANCHOR_END: max_ptx

// ANCHOR: quad_ptx
// The largest v over the four lanes 4g..4g+3 (a fragment row's or column's 16 k values), and v
// as lane src holds it: warp shuffles.
inline uint quad_max_u32(uint v, __local float* scratch) {
    uint o;
    __asm__ __volatile__("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(o) : "r"(v));
    v = max(v, o);
    __asm__ __volatile__("shfl.sync.bfly.b32 %0, %1, 2, 0x1f, 0xffffffff;" : "=r"(o) : "r"(v));
    return max(v, o);
}
inline uint lane_value_u32(uint v, uint src, __local float* scratch) {
    uint o;
    __asm__ __volatile__("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                         : "=r"(o) : "r"(v), "r"(src));
    return o;
}
// ANCHOR_END: quad_ptx

#else
#define MMA_SCRATCH_FLOATS(warps) ((warps) * MMA_WARP_FLOATS)

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

inline uint mma_lane(void) {
    return get_local_id(0) & 31;
}

// The unit reads 19 bits of each input (sign, exponent, 10 bits of mantissa): the low 13
// bits of a value not rounded to TF32 are dropped, not rounded.
inline float mma_input(float x) {
    return as_float(as_uint(x) & 0xffffe000u);
}

// ANCHOR: model
// The model of one warp's instruction. Each lane leaves its fragments of A and B in the
// warp's part of `scratch`, then computes its four elements of D from the rows of A and
// columns of B they need. The products of two TF32 values are exact; their sum with C is
// rounded toward zero to FP32 once, as the unit does: it truncates rather than rounds, so
// an accumulator kept inside the unit drifts toward zero a little at every call.
inline float4 mma_tf32(float4 a, float2 b, float4 c, __local float* scratch) {
    const uint lane = mma_lane();
    const uint g = lane >> 2, t = lane & 3;
    __local float* sa = scratch + (get_local_id(0) >> 5) * MMA_WARP_FLOATS;
    __local float* sb = sa + 16 * 8;
    sa[g * 8 + t] = mma_input(a.x);
    sa[(g + 8) * 8 + t] = mma_input(a.y);
    sa[g * 8 + t + 4] = mma_input(a.z);
    sa[(g + 8) * 8 + t + 4] = mma_input(a.w);
    sb[t * 8 + g] = mma_input(b.x);
    sb[(t + 4) * 8 + g] = mma_input(b.y);
    barrier(CLK_LOCAL_MEM_FENCE);
    float d[4];
    const float cin[4] = {c.x, c.y, c.z, c.w};
    for (int e = 0; e < 4; e++) {
        const uint row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
#ifdef cl_khr_fp64
        double s = (double)cin[e];
        for (int k = 0; k < 8; k++) {
            s += (double)sa[row * 8 + k] * (double)sb[k * 8 + col];
        }
        d[e] = convert_float_rtz(s);
#else
        // Without doubles the sum is rounded to nearest: close to the unit, not the same.
        float s = cin[e];
        for (int k = 0; k < 8; k++) {
            s = fma(sa[row * 8 + k], sb[k * 8 + col], s);
        }
        d[e] = s;
#endif
    }
    // The next call overwrites the fragments: every lane must have read them first.
    barrier(CLK_LOCAL_MEM_FENCE);
    return (float4)(d[0], d[1], d[2], d[3]);
}
// ANCHOR_END: model

// ANCHOR: f16_model
typedef float2 half2_t;
// x rounded to the nearest FP16 value (subnormals included), kept as a float.
inline float half_rte(float x) {
    ushort u;
    vstore_half_rte(x, 0, (__private half*)&u);
    return vload_half(0, (__private half*)&u);
}
inline half2_t h2_pack(float lo, float hi) {
    return (float2)(half_rte(lo), half_rte(hi));
}
inline float2 h2_unpack(half2_t v) {
    return v;
}
inline float4 mma_f16(half2_t a0, half2_t a1, half2_t a2, half2_t a3, half2_t b0, half2_t b1,
                      float4 c, __local float* scratch) {
    const uint lane = mma_lane();
    const uint g = lane >> 2, t = lane & 3;
    __local float* sa = scratch + (get_local_id(0) >> 5) * MMA_WARP_FLOATS;
    __local float* sb = sa + 16 * 16;
    sa[g * 16 + 2 * t] = a0.x;
    sa[g * 16 + 2 * t + 1] = a0.y;
    sa[(g + 8) * 16 + 2 * t] = a1.x;
    sa[(g + 8) * 16 + 2 * t + 1] = a1.y;
    sa[g * 16 + 2 * t + 8] = a2.x;
    sa[g * 16 + 2 * t + 9] = a2.y;
    sa[(g + 8) * 16 + 2 * t + 8] = a3.x;
    sa[(g + 8) * 16 + 2 * t + 9] = a3.y;
    sb[(2 * t) * 8 + g] = b0.x;
    sb[(2 * t + 1) * 8 + g] = b0.y;
    sb[(2 * t + 8) * 8 + g] = b1.x;
    sb[(2 * t + 9) * 8 + g] = b1.y;
    barrier(CLK_LOCAL_MEM_FENCE);
    float d[4];
    const float cin[4] = {c.x, c.y, c.z, c.w};
    for (int e = 0; e < 4; e++) {
        const uint row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
#ifdef cl_khr_fp64
        double s = (double)cin[e];
        for (int k = 0; k < 16; k++) {
            s += (double)sa[row * 16 + k] * (double)sb[k * 8 + col];
        }
        d[e] = convert_float_rtz(s);
#else
        float s = cin[e];
        for (int k = 0; k < 16; k++) {
            s = fma(sa[row * 16 + k], sb[k * 8 + col], s);
        }
        d[e] = s;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return (float4)(d[0], d[1], d[2], d[3]);
}
// ANCHOR_END: f16_model

// ANCHOR: max_model
// The largest v over the warp's 32 lanes, through the warp's scratch (every work-item of the
// work-group calls it, like the model's mma).
inline uint warp_max_u32(uint v, __local float* scratch) {
    __local uint* s = (__local uint*)(scratch + (get_local_id(0) >> 5) * MMA_WARP_FLOATS);
    s[mma_lane()] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint m = 0;
    for (int l = 0; l < 32; l++) {
        m = max(m, s[l]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}
// ANCHOR_END: max_model

// ANCHOR: quad_model
inline uint quad_max_u32(uint v, __local float* scratch) {
    __local uint* s = (__local uint*)(scratch + (get_local_id(0) >> 5) * MMA_WARP_FLOATS);
    const uint lane = mma_lane();
    s[lane] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint q = lane & ~3u;
    const uint m = max(max(s[q], s[q + 1]), max(s[q + 2], s[q + 3]));
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}
inline uint lane_value_u32(uint v, uint src, __local float* scratch) {
    __local uint* s = (__local uint*)(scratch + (get_local_id(0) >> 5) * MMA_WARP_FLOATS);
    s[mma_lane()] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint o = s[src & 31];
    barrier(CLK_LOCAL_MEM_FENCE);
    return o;
}
// ANCHOR_END: quad_model
#endif

// ANCHOR: async
// Staging a tile: copy `bytes` (16 or 4, or 0 for zeros) from global memory into local
// memory. With MMA_PTX it is `cp.async`: the copy runs while the warp goes on, and
// async_wait(n) waits until at most n committed groups of copies are still in flight. In the
// model it is an ordinary load and store, done at once. Either way, other work-items see the
// data only after a barrier.
#define ASYNC_STR2(x) #x
#define ASYNC_STR(x) ASYNC_STR2(x)
#ifndef ASYNC_COPY
#define ASYNC_COPY MMA_PTX
#endif
#if ASYNC_COPY
inline void async_copy16(__local float* dst, const __global float* src, uint bytes) {
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                         :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
}
inline void async_copy4(__local float* dst, const __global float* src, uint bytes) {
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;"
                         :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
}
#define async_commit() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define async_wait(n) __asm__ __volatile__("cp.async.wait_group " ASYNC_STR(n) ";" ::: "memory")
#else
inline void async_copy16(__local float* dst, const __global float* src, uint bytes) {
    *(__local float4*)dst = bytes ? vload4(0, src) : (float4)(0.0f);
}
inline void async_copy4(__local float* dst, const __global float* src, uint bytes) {
    *dst = bytes ? *src : 0.0f;
}
#define async_commit()
#define async_wait(n)
#endif
// ANCHOR_END: async
