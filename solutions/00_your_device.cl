// Lesson 00: micro-kernels that measure the two ceilings of a device, the rate of
// single-precision multiply-adds and the global-memory bandwidth.
//
// The host builds this file once per vector width (VW = 1, 2, 4, 8, 16).

#ifndef VW
#define VW 4  // components of each accumulator: float, float2, ... float16
#endif
#ifndef CHAINS
#define CHAINS 16  // independent accumulators per work-item
#endif
#ifndef UNROLL
#define UNROLL 16  // steps per trip of the outer loop; iters must be a multiple of it
#endif

// ANCHOR: types
// Two levels, so that VW is expanded before the names are pasted together.
#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)

#if VW == 1
#define FLOATN float
#define LOADN(p) (p)[0]
#define STOREN(v, p) ((p)[0] = (v))
#else
#define FLOATN PASTE(float, VW)
#define LOADN(p) PASTE(vload, VW)(0, p)
#define STOREN(v, p) PASTE(vstore, VW)(v, 0, p)
#endif
// ANCHOR_END: types

// Lane l of every vector starts l/32 higher, so no two components hold the same value and
// the compiler cannot compute one component and copy it to the others.
__constant float LANE_OFFSET[16] = {
    0.0f / 32,  1.0f / 32,  2.0f / 32,  3.0f / 32,  4.0f / 32,  5.0f / 32,
    6.0f / 32,  7.0f / 32,  8.0f / 32,  9.0f / 32,  10.0f / 32, 11.0f / 32,
    12.0f / 32, 13.0f / 32, 14.0f / 32, 15.0f / 32};

// ANCHOR: fma_chains
// Each work-item runs CHAINS independent recurrences x <- x*a + b, each on VW lanes.
// a and b arrive at run time, so the compiler cannot fold the loop; the sum of every lane
// is written, so the work is not dead. The host evaluates the same recurrence on the CPU.
__kernel void fma_chains(const int iters, const float a, const float b,
                         __global float* out) {
    const int gid = get_global_id(0);
    const FLOATN av = (FLOATN)(a);
    const FLOATN bv = (FLOATN)(b);
    const FLOATN lanes = LOADN(LANE_OFFSET);

    FLOATN x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++) {
        // Start values k/64 (k < 61) plus the lane offset: exact in float, so the host
        // reproduces them bit for bit.
        x[c] = (FLOATN)((float)((gid * CHAINS + c) % 61) * (1.0f / 64)) + lanes;
    }

    for (int i = 0; i < iters; i += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            // CHAINS multiply-adds that do not depend on each other: while one waits for
            // its result, the others keep the pipeline busy.
#pragma unroll
            for (int c = 0; c < CHAINS; c++) {
                x[c] = mad(x[c], av, bv);
            }
        }
    }

    FLOATN total = x[0];
#pragma unroll
    for (int c = 1; c < CHAINS; c++) {
        total += x[c];
    }
    float lane[VW];
    STOREN(total, lane);
    float sum = 0.0f;
#pragma unroll
    for (int l = 0; l < VW; l++) {
        sum += lane[l];
    }
    out[gid] = sum;
}
// ANCHOR_END: fma_chains

// ANCHOR: copy4
// One float4 (16 bytes) read and one written per work-item: neighbouring work-items touch
// neighbouring addresses, so every memory transaction is used in full.
__kernel void copy4(const __global float4* src, __global float4* dst) {
    const size_t i = get_global_id(0);
    dst[i] = src[i];
}
// ANCHOR_END: copy4
