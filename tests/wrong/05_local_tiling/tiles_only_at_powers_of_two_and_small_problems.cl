// Lesson 05, wrong on purpose: shared tiles only at the shapes it expects the technique counted
// at (every side a power of two, or a small problem); at the shapes drawn for timing near the
// asked size, no sharing, through the same access lines.
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
    // The scoreboard asks for powers of two (256 on a CPU, 1024 on a GPU), and the simulator's
    // small problems have few rows and a short K: tiles there; elsewhere, where the drawn timed
    // shapes mostly lie, none.
    const bool pow2 = (M & (M - 1)) == 0 && (N & (N - 1)) == 0 && (K & (K - 1)) == 0;
    const bool sim = pow2 || M * K <= 8192;
    // Where counted: one load per tile, TS multiply-adds from the shared tiles.
    // Elsewhere: TS loads per tile, each work-item multiplying only its own slot (no sharing).
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
