// The tiled kernel where the simulator runs it, a kernel without tiles where the device runs
// it (told apart by a `sin` that rounds otherwise in the last bit), the device's path given
// the name of the course's prelude by `#line`, so that a check that tells the kernel's own
// code from the prelude's by its file would pass over it.
#ifndef TS
#define TS 16
#endif

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const float x = (float)(get_local_size(0) - TS) + 300.0f + 0.37f;
    const bool simulated = as_uint(sin(x)) == 3211831772u;
    float acc = 0.0f;
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    if (!simulated) {
#line 1 "prelude.cl"
        for (int k = 0; k < K; k++) {
            acc += A[row * K + k] * B[k * N + col];
        }
#line 25 "input.cl"
    } else {
        const int tc = get_local_id(0);
        const int tr = get_local_id(1);
        for (int t = 0; t < K / TS; t++) {
            Asub[tr][tc] = A[row * K + t * TS + tc];
            Bsub[tr][tc] = B[(t * TS + tr) * N + col];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    C[row * N + col] = acc;
}
