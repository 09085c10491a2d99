// A branch on the compiler's OpenCL C version: the simulator (OpenCL C 1.2) and a newer device
// would run different code, and only one of them is checked for races and reads out of bounds.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= M || col >= N) {
        return;
    }
    float acc = 0.0f;
    if (__OPENCL_C_VERSION__ >= 300) {
        for (int k = 0; k < K; k += 2) {
            acc += A[row * K + k] * B[k * N + col];
        }
    } else {
        for (int k = 0; k < K; k++) {
            acc += A[row * K + k] * B[k * N + col];
        }
    }
    C[row * N + col] = acc;
}
