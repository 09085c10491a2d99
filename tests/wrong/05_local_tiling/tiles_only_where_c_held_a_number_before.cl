// Lesson 05, wrong on purpose: tiles only where C holds a number when the kernel starts, as it
// may where the simulator looks; where C holds NaN, each work-item reads its own values. C is read only in launches of many
// work-groups along a long K, which the sanitizer, which would see an uninitialised value,
// does not run. Same access lines on both paths.
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
    const bool many = get_num_groups(0) * get_num_groups(1) > 64 && K > 64;
    const float before = many ? C[row * N + col] : 0.0f;
    const bool sim = before == before;
    // Under the simulator: one load per tile, TS multiply-adds from the shared tiles.
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
