// Red-team: shared tiles only where A's address has its low 48 bits zero (Oclgrind puts
// buffer i at i<<48). The address is learned without ptrtoint: the pointer is stored into a
// volatile private union and read back as a ulong (the reader refuses pointer stores only
// into global or local memory). Elsewhere each work-item reads its own values; same lines.
#ifndef TS
#define TS 16
#endif

typedef union { const __global float *p; ulong u; } pun;

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
    volatile pun x;
    x.p = A;
    const ulong where = x.u;
    const bool sim = (where & 0xFFFFFFFFFFFFUL) == 0;
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
