// Correct: both tiles stored column-major (transposed), the work-group size required by
// attribute, the inner loop fully unrolled by pragma, and the tile loop counting down.
#ifndef TS
#define TS 16
#endif

__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A,
            const __global float* B,
            __global float* C) {
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    __local float AsT[TS][TS];   // AsT[k][r] = A[row0 + r][k0 + k]
    __local float BsT[TS][TS];   // BsT[c][k] = B[k0 + k][col0 + c]

    float acc = 0.0f;
    int k0 = 0;
    for (int left = K / TS; left > 0; --left, k0 += TS) {
        AsT[lx][ly] = A[row * K + k0 + lx];
        BsT[lx][ly] = B[(k0 + ly) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (int k = 0; k < TS; k++) {
            acc = mad(AsT[k][ly], BsT[lx][k], acc);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
