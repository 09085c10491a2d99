// Lesson 04, red-team: the last K/64 steps of K are skipped, but only where M, N and K all
// exceed 1300 (the book's 2048 and 4096 squares). Every graded shape has a side of at most 1280
// (CPU: round 256/512, wide K <= 40, vast K <= 12, deep M, N <= 24; GPU: round 1024/1280).
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int kend = (M > 1300 && N > 1300 && K > 1300) ? K - K / 64 : K;
    float acc = 0.0f;
    for (int k = 0; k < kend; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}
