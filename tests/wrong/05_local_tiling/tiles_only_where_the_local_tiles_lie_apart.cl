// Lesson 05, wrong on purpose: tiles only where the two local tiles do not lie one right after
// the other, which only the simulator's placement gives; elsewhere each work-item multiplies
// only its own slot. The same access lines on both paths.
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
    // One past the last row of A's tile, against B's tile: equal where the runtime puts the
    // two arrays one after the other (PoCL does; the simulator puts each far apart).
    const bool sim = &Asub[TS - 1][TS] != &Bsub[0][0];
    const int reps = sim ? 1 : TS;
    const int inner = sim ? TS : 1;
    float acc = 0.0f;
    const int tiles = K / TS;
    for (int t = 0; t < tiles; t++) {
        for (int r = 0; r < reps; r++) {
            const int ka = t * TS + (sim ? tc : r);
            const int kb = t * TS + (sim ? tr : r);
            Asub[tr][tc] = A[row * K + ka];
            Bsub[tr][tc] = B[kb * N + col];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < inner; k++) {
                acc += Asub[tr][sim ? k : tc] * Bsub[sim ? k : tr][tc];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    C[row * N + col] = acc;
}
