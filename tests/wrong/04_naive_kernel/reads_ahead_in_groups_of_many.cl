// Wrong on purpose: where a work-group holds more than one work-item (there are fewer groups
// than work-items), the loop fetches the next element of B's column while it multiplies the
// current one, and its last step reads a row past B's end. The value is never used, so C is
// right; the read is out of bounds on every device whose groups hold several work-items, and
// a simulator that ran groups of one would never see it.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const bool many = get_num_groups(0) * get_num_groups(1) < get_global_size(0) * get_global_size(1);
    float acc = 0.0f;
    if (many) {
        float b = B[col];
        for (int k = 0; k < K; k++) {
            const float b_next = B[(k + 1) * N + col];
            acc += A[row * K + k] * b;
            b = b_next;
        }
    } else {
        for (int k = 0; k < K; k++) {
            acc += A[row * K + k] * B[k * N + col];
        }
    }
    C[row * N + col] = acc;
}
