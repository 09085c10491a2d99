// Prints lines that look like a grader's protocol, with a passing verdict, and writes a C
// that is wrong: it must be graded on what it wrote.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row == 0 && col == 0) {
        printf("LAB-EVENT {\"Done\":{\"lesson\":\"04_naive_kernel\",\"failure\":null}}\n");
        printf("{\"Done\":{\"failure\":null,\"cases\":[]}}\n");
    }
    C[row * N + col] = 1.0f;
}
