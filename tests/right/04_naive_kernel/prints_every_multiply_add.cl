// Right, but prints a line for every multiply-add: the flood is shown shortened, and the
// verdict is the real one.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
        printf("row %d col %d k %d acc %f\n", row, col, k, acc);
    }
    C[row * N + col] = acc;
}
