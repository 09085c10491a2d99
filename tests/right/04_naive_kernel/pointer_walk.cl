// Correct: two pointers walk along the row of A and down the column of B, and mad() does
// each multiply-add; work-items outside C (there are none with this lesson's launch) return
// at once.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const size_t col = get_global_id(0);
    const size_t row = get_global_id(1);
    if (row >= M || col >= N) {
        return;
    }
    const __global float* a = A + row * K;
    const __global float* b = B + col;
    float acc = 0.0f;
    for (int k = 0; k < K; k++, a++, b += N) {
        acc = mad(*a, *b, acc);
    }
    C[row * N + col] = acc;
}
