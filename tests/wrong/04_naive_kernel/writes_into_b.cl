// Wrong on purpose: uses B as scratch space.
__kernel void matmul(const int M, const int N, const int K,
                     __global float* A, __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
    if (row == 0 && col == 0) B[0] = acc;
}
