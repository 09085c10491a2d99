// Naive kernel whose store index into C is computed in float ("saves an int multiply on
// some GPUs"): exact while row*N + col < 2^24, wrong above (C of more than 16.7 M elements,
// e.g. 4096 x 4096 or 8192 x 2100): stores land on the nearest even index, half of C is never
// written and the other half is overwritten.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);

    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    const float at = mad((float)row, (float)N, (float)col);
    C[(int)at] = acc;
}
