// Lesson 05, wrong on purpose: tiles only in the unoptimised build, told apart by an undefined
// signed overflow; a power-of-two test the optimiser makes a population count of keeps the
// simulator from running the optimised build, which the device times (no tiles there). The
// same access lines on both paths.
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
    // Undefined: a signed sum past INT_MAX. Built unoptimised it wraps; the optimiser
    // assumes it cannot, and folds the test to false.
    const int items = (int)get_local_size(1);
    const bool unoptimised = items + 0x7fffffff < items;
    // The optimiser makes a population count of this test, which the simulator lacks.
    const bool rows_pow2 = (M & (M - 1)) == 0;
    const int reps = unoptimised ? 1 : TS;
    const int inner = unoptimised ? TS : 1;
    float acc = 0.0f;
    const int tiles = rows_pow2 ? K / TS : (K + TS - 1) / TS;
    for (int t = 0; t < tiles; t++) {
        for (int r = 0; r < reps; r++) {
            const int ka = t * TS + (unoptimised ? tc : r);
            const int kb = t * TS + (unoptimised ? tr : r);
            Asub[tr][tc] = A[row * K + ka];
            Bsub[tr][tc] = B[kb * N + col];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < inner; k++) {
                acc += Asub[tr][unoptimised ? k : tc] * Bsub[unoptimised ? k : tr][tc];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    C[row * N + col] = acc;
}
