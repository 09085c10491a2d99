// Wrong on purpose: swaps the roles of the ids but keeps the launch (dimension 0 spans the
// N columns): C comes out transposed where it is written at all.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int row = get_global_id(0);
    const int col = get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
