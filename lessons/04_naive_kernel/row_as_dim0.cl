// Lesson 04's kernel with the ids swapped, as seed 004 writes it: dimension 0 (the
// fastest-varying) picks the row. Neighbouring work-items then read A at addresses K floats
// apart and write C at addresses N floats apart: nothing coalesces. Measured beside the
// lesson's kernel to show what the mapping costs.

// ANCHOR: swapped
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int row = get_global_id(0);
    const int col = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}
// ANCHOR_END: swapped
