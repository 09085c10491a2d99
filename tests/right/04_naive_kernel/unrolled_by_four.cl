// Correct: the loop over k unrolled by hand, four products per step, then the remainder.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const __global float* a = A + row * K;
    float acc = 0.0f;
    int k = 0;
    for (; k + 3 < K; k += 4) {
        acc += a[k] * B[k * N + col];
        acc += a[k + 1] * B[(k + 1) * N + col];
        acc += a[k + 2] * B[(k + 2) * N + col];
        acc += a[k + 3] * B[(k + 3) * N + col];
    }
    for (; k < K; k++) {
        acc += a[k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}
