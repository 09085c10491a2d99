// Wrong on purpose: the loop fetches the next pair of operands while it multiplies the
// current one, and its last step fetches a pair past the end of the row of A and of the
// column of B. Those values are never used, so C is right; the reads are out of bounds.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float a = A[row * K];
    float b = B[col];
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        const float a_next = A[row * K + k + 1];
        const float b_next = B[(k + 1) * N + col];
        acc += a * b;
        a = a_next;
        b = b_next;
    }
    C[row * N + col] = acc;
}
