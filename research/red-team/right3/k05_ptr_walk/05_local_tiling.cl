// Correct: tiled, with pointers that walk along A's row and down B's column one tile at a
// time until A's pointer reaches the row's end.
#ifndef TS
#define TS 16
#endif

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tc = get_local_id(0);
    const int tr = get_local_id(1);
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];

    const __global float* a = A + (size_t)row * K + tc;   // this item's element of A's tile
    const __global float* const a_end = A + (size_t)row * K + K;
    const __global float* b = B + (size_t)tr * N + col;   // this item's element of B's tile
    const size_t b_step = (size_t)TS * N;

    float acc = 0.0f;
    while (a < a_end) {
        Asub[tr][tc] = *a;
        Bsub[tr][tc] = *b;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        a += TS;
        b += b_step;
    }
    C[(size_t)row * N + col] = acc;
}
