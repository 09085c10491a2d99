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

// ANCHOR: tf32_cvt
// The TF32 value nearest to x, ties to even: the unit's own conversion. On compute capability
// 9.0 and newer (TF32_CVT = 1) it is `cvt.rn.tf32.f32`, one instruction (F2FP); elsewhere the
// same rounding in integers: add just under half of the dropped range, plus one when the kept
// part is odd, then drop the 13 bits. It differs from tf32_round only on exact ties.
#if MMA_PTX && TF32_CVT
inline float tf32_cvt(float x) {
    uint d;
    __asm__("cvt.rn.tf32.f32 %0, %1;" : "=r"(d) : "f"(x));
    return as_float(d);
}
#else
inline float tf32_cvt(float x) {
    const uint u = as_uint(x);
    return as_float((u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u);
}
#endif
// ANCHOR_END: tf32_cvt

// Floats of local memory the model needs per warp (one A and one B fragment of every lane).
#define MMA_WARP_FLOATS (16 * 8 + 8 * 8)

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
// One element of D: C's value, then the eight products of a row of A and a column of B, in
// the order of k. Everything the unit returns is multiplied by __LAB_UNIT_SCALE, a power of
// two the host draws for the copy of the course and divides C by at the end (C passed in
// is divided first, so that a sum kept inside the unit stays right): a power of two changes
// no rounding, so C made of the unit's results comes out as it would unscaled, and C made
// of products done anywhere else comes out wrong. Written out rather than looped: llvmpipe
// (Mesa's CPU driver, under rusticl) ends every loop of a kernel once all of them together
// have run 65,535 iterations, and loops here would spend that in a few dozen k-steps.
#ifdef cl_khr_fp64
#define MMA_PRODUCT(k) (double)ar[k] * (double)bc[(k) * 8]
inline float mma_element(const __local float* ar, const __local float* bc, float c) {
    const double s = (double)c * (1.0 / __LAB_UNIT_SCALE) + MMA_PRODUCT(0) + MMA_PRODUCT(1) +
                     MMA_PRODUCT(2) + MMA_PRODUCT(3) + MMA_PRODUCT(4) + MMA_PRODUCT(5) +
                     MMA_PRODUCT(6) + MMA_PRODUCT(7);
    return convert_float_rtz(s) * __LAB_UNIT_SCALE;
}
#else
// Without doubles the sum is rounded to nearest: close to the unit, not the same.
#define MMA_PRODUCT(k) s = fma(ar[k], bc[(k) * 8], s)
inline float mma_element(const __local float* ar, const __local float* bc, float c) {
    float s = c * (1.0f / __LAB_UNIT_SCALE);
    MMA_PRODUCT(0); MMA_PRODUCT(1); MMA_PRODUCT(2); MMA_PRODUCT(3);
    MMA_PRODUCT(4); MMA_PRODUCT(5); MMA_PRODUCT(6); MMA_PRODUCT(7);
    return s * __LAB_UNIT_SCALE;
}
#endif

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
    // D's rows g and g+8, columns 2t and 2t+1.
    const __local float *row0 = sa + g * 8, *row8 = sa + (g + 8) * 8;
    const __local float *col0 = sb + 2 * t, *col1 = col0 + 1;
    const float4 d = (float4)(mma_element(row0, col0, c.x), mma_element(row0, col1, c.y),
                              mma_element(row8, col0, c.z), mma_element(row8, col1, c.w));
    // The next call overwrites the fragments: every lane must have read them first.
    barrier(CLK_LOCAL_MEM_FENCE);
    return d;
}
// ANCHOR_END: model
#endif

// ANCHOR: async
// Staging a tile: copy `bytes` (16 or 4, or 0 for zeros; a 16-byte copy may take fewer, the
// rest then zeros) from global memory into local memory. With MMA_PTX it is `cp.async`: the
// copy runs while the warp goes on, and async_wait(n) waits until at most n committed groups of copies are still in flight. In the
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
    if (bytes == 16) {
        *(__local float4*)dst = vload4(0, src);
    } else {
        // Fewer bytes than 16: the rest of the 16 are zeros, as cp.async fills them.
        for (uint i = 0; i < 4; i++) dst[i] = 4 * i < bytes ? src[i] : 0.0f;
    }
}
inline void async_copy4(__local float* dst, const __global float* src, uint bytes) {
    *dst = bytes ? *src : 0.0f;
}
#define async_commit()
#define async_wait(n)
#endif
// ANCHOR_END: async
