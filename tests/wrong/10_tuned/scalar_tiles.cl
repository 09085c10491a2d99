// Wrong on purpose for this lesson: right for any size, but with one result at a time per
// work-item, read one float at a time: no register blocks and no wide loads.
#ifndef TSM
#define TSM 64
#endif
#ifndef TSN
#define TSN 64
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A, const __global float* B, __global float* C) {
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int m0 = get_group_id(1) * TSM, n0 = get_group_id(0) * TSN;
    __local float As[RTSM][RTSN];
    // The RTSM×RTSN work-items sweep their TSM×TSN block one RTSM×RTSN patch at a time.
    for (int bi = 0; bi < TSM; bi += RTSM) {
        for (int bj = 0; bj < TSN; bj += RTSN) {
            const int row = m0 + bi + ty, col = n0 + bj + tx;
            float acc = 0.0f;
            for (int k0 = 0; k0 < K; k0 += RTSN) {
                As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int k = 0; k < RTSN && k0 + k < K; k++) {
                    acc += As[ty][k] * (col < N ? B[(k0 + k) * N + col] : 0.0f);
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (row < M && col < N) C[row * N + col] = acc;
        }
    }
}
