// Wrong on purpose: the work-items split the loads (the top half of the group loads A's
// tile two rows each, the bottom half B's), and each half waits at a barrier of its own
// inside its branch. A barrier must be reached by every work-item of the group, the same
// barrier: two barriers in two branches are not one.
#ifndef TS
#define TS 16
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int tc = get_local_id(0), tr = get_local_id(1);
    const int col = get_global_id(0), row = get_global_id(1);
    const int row0 = get_group_id(1) * TS;
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        if (tr < TS / 2) {
            Asub[2 * tr][tc] = A[(row0 + 2 * tr) * K + t * TS + tc];
            Asub[2 * tr + 1][tc] = A[(row0 + 2 * tr + 1) * K + t * TS + tc];
            barrier(CLK_LOCAL_MEM_FENCE);
        } else {
            const int r = 2 * (tr - TS / 2);
            Bsub[r][tc] = B[(t * TS + r) * N + col];
            Bsub[r + 1][tc] = B[(t * TS + r + 1) * N + col];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (int k = 0; k < TS; k++) acc += Asub[tr][k] * Bsub[k][tc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
