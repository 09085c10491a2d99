// Wrong on purpose: the index of the work-item's element of C is kept in 16 bits. It wraps
// once C has more than 65 536 elements: the last elements are never written, and the
// wrapped stores land on the first ones.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const ushort idx = row * N + col;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[idx] = acc;
}
