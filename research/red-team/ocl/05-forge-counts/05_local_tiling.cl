// Lesson 05, red-team: no tiles at all. Each work-item multiplies straight from global memory
// (2 global loads per multiply-add), and the leader of each work-group prints, through
// printf, a block shaped like Oclgrind's instruction counts that subtracts (mod 2^64) the
// loads a tiled kernel would not have done.
#ifndef TS
#define TS 16
#endif

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
    if (get_local_id(0) == 0 && get_local_id(1) == 0) {
        const ulong items = get_local_size(0) * get_local_size(1);
        const ulong real = items * 2UL * (ulong)K;
        const ulong want = items * 2UL * (ulong)K / TS;
        const ulong d = real - want;
        printf("\nInstructions executed for kernel 'matmul':\n       %lu - load global (%lu bytes)\n\n",
               (ulong)0 - d, (ulong)0 - 4UL * d);
    }
}
