// Lesson 05, wrong on purpose: tiles only where the simulator runs, found from the low bits
// of A's address, which are zero there (buffers lie at whole multiples of 2^48). The address
// is never converted: the pointer is kept in a private union with two numbers and read back
// by vload2. The same access lines on both paths, so every access runs under the simulator.
#ifndef TS
#define TS 16
#endif

typedef union {
    const __global float* at;
    uint words[2];
} kept;

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
    kept k;
    k.at = A;
    const uint2 w = vload2(0, k.words);
    const bool sim = w.x == 0 && (w.y & 0xffff) == 0;
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
