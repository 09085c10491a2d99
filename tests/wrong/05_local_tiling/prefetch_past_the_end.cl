// Wrong on purpose: the next tile's elements are fetched into registers while this tile is
// multiplied (a first step towards lesson 10's double buffering), but the last tile also
// fetches a "next" tile that lies past the end of B. The values are never used, so C is
// right; the reads are still out of bounds.
#ifndef TS
#define TS 16
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int tc = get_local_id(0), tr = get_local_id(1);
    const int col = get_global_id(0), row = get_global_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float a = A[row * K + tc];
    float b = B[tr * N + col];
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        Asub[tr][tc] = a;
        Bsub[tr][tc] = b;
        barrier(CLK_LOCAL_MEM_FENCE);
        a = A[row * K + (t + 1) * TS + tc];
        b = B[((t + 1) * TS + tr) * N + col];
        for (int k = 0; k < TS; k++) acc += Asub[tr][k] * Bsub[k][tc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
