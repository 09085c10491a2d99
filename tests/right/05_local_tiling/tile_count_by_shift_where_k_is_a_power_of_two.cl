// Correct: the tiled kernel, counting its tiles with a shift where K is a power of two (a test
// an optimising compiler turns into a population count) and with a division elsewhere.
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
    int log_ts = 0;
    while ((1 << log_ts) < TS) {
        log_ts++;
    }
    const bool power_of_two = (K & (K - 1)) == 0 && (1 << log_ts) == TS;
    const int tiles = power_of_two ? K >> log_ts : K / TS;
    float acc = 0.0f;
    for (int t = 0; t < tiles; t++) {
        Asub[tr][tc] = A[row * K + t * TS + tc];
        Bsub[tr][tc] = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
