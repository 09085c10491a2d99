// Wrong on purpose: K is missing from the argument list (K is taken to equal N).
__kernel void matmul(const int M, const int N,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < N; k++) acc += A[row * N + k] * B[k * N + col];
    C[row * N + col] = acc;
}
