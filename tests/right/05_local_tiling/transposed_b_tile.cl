// Correct: B's tile is stored transposed (Bsub[column][k]) and read the same way, and the
// work-item's place comes from its group and local ids.
#ifndef TS
#define TS 16
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int tc = get_local_id(0), tr = get_local_id(1);
    const int row = get_group_id(1) * TS + tr;
    const int col = get_group_id(0) * TS + tc;
    __local float Asub[TS][TS];
    __local float BsubT[TS][TS];
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        Asub[tr][tc] = A[row * K + k0 + tc];
        BsubT[tc][tr] = B[(k0 + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc = mad(Asub[tr][k], BsubT[tc][k], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
