// Correct: macros for row-major indexing, a power-of-two fast path for K (shift instead of
// multiply), and the k loop unrolled with #pragma unroll.
#define IDX(r, c, ld) ((r) * (ld) + (c))
#define AT_A(r, k) A[IDX(r, k, K)]
#define AT_B(k, c) B[IDX(k, c, N)]

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    if ((K & (K - 1)) == 0) {
        int shift = 0;
        while ((1 << shift) < K) shift++;
        const __global float* arow = A + (row << shift);
        #pragma unroll 4
        for (int k = 0; k < K; k++) {
            acc = mad(arow[k], AT_B(k, col), acc);
        }
    } else {
        #pragma unroll 4
        for (int k = 0; k < K; k++) {
            acc = mad(AT_A(row, k), AT_B(k, col), acc);
        }
    }
    C[IDX(row, col, N)] = acc;
}
