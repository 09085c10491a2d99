// Wrong on purpose: the tile loop stops one tile early (t < K/TS - 1), so the last TS
// terms of every sum are missing.
#ifndef TS
#define TS 16
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int tc = get_local_id(0), tr = get_local_id(1);
    const int col = get_global_id(0), row = get_global_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < K / TS - 1; t++) {
        Asub[tr][tc] = A[row * K + t * TS + tc];
        Bsub[tr][tc] = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc += Asub[tr][k] * Bsub[k][tc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
