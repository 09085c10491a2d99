// Correct: the tiled kernel with `restrict` pointers, each tile's products summed by a helper
// whose `restrict` parameters the optimiser inlines into alias-scope declarations.
#ifndef TS
#define TS 16
#endif

static float tile_dot(const __local float* restrict a, const __local float* restrict b) {
    float s = 0.0f;
    for (int k = 0; k < TS; k++) {
        s += a[k] * b[k * TS];
    }
    return s;
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* restrict A,
                     const __global float* restrict B,
                     __global float* restrict C) {
    const int tc = get_local_id(0);
    const int tr = get_local_id(1);
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        Asub[tr][tc] = A[row * K + t * TS + tc];
        Bsub[tr][tc] = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += tile_dot(&Asub[tr][0], &Bsub[0][tc]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
