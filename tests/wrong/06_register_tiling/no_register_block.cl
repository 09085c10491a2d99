// Wrong on purpose for this lesson: one result per work-item (lesson 05's idea), no block of
// results in registers.
#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
#endif
#ifndef TSK
#define TSK 16
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int col = get_global_id(0), row = get_global_id(1);
    const int tc = get_local_id(0), tr = get_local_id(1);
    __local float Asub[TSN / WPTN][TSN / WPTN];
    __local float Bsub[TSN / WPTN][TSN / WPTN];
    const int TS = TSN / WPTN;
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        Asub[tr][tc] = A[row * K + t * TS + tc];
        Bsub[tr][tc] = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc += Asub[tr][k] * Bsub[k][tc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
