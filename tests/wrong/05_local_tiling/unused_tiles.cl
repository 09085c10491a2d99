// Wrong on purpose for this lesson: it declares the two tiles and waits at two barriers per
// tile, as the lesson's kernel does, but the multiply-adds read A and B from global memory:
// the tiles are never used.
#ifndef TS
#define TS 16
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0), row = get_global_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = t * TS; k < (t + 1) * TS; k++) acc += A[row * K + k] * B[k * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
