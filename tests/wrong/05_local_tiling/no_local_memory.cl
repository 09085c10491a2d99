// Wrong on purpose for this lesson: correct, but it is lesson 04's kernel, with no tiles.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
