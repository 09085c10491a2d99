// Red-team: shared tiles only where the two local tiles are not adjacent in memory. PoCL
// lays __local arrays one after the other (Asub + TS*TS == Bsub, a one-past-the-end pointer
// compared with ==, which C allows and the address reader leaves alone); Oclgrind puts each
// at a 2^48 of its own. Elsewhere each work-item reads its own values; same lines.
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
    const bool sim = &Asub[0][0] + TS * TS != &Bsub[0][0];
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
