// Correct: a pointer runs along the row of A until it reaches the row's end (an ordering of
// two pointers into A), another down the column of B; every work-item forms its row's
// pointers first and leaves only then if it lies outside C.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const __global float* a = A + (size_t)row * K;
    const __global float* const end = a + K;
    const __global float* b = B + col;
    if (row >= M || col >= N) {
        return;
    }
    float acc = 0.0f;
    while (a < end) {
        acc += *a++ * *b;
        b += N;
    }
    C[(size_t)row * N + col] = acc;
}
