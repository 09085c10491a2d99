// Correct: a linear work-item id split into row and column; a helper function taking
// pointers does the strided dot product with fma().
float dot_strided(const __global float* a, const __global float* b, const int n, const int stride) {
    float acc = 0.0f;
    const __global float* const end = a + n;
    while (a != end) {
        acc = fma(*a, *b, acc);
        a++;
        b += stride;
    }
    return acc;
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const size_t width = get_global_size(0);
    const size_t id = get_global_id(1) * width + get_global_id(0);
    const size_t row = id / width;
    const size_t col = id % width;
    if (row >= (size_t)M || col >= (size_t)N) return;
    C[row * N + col] = dot_strided(A + row * K, B + col, K, N);
}
