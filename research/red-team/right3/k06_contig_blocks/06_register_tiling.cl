// Correct: register tiling where each work-item owns a contiguous WPTM×WPTN block of the
// tile (rows tidm·WPTM.., columns tidn·WPTN..), A's tile kept row-major (not transposed),
// both operands copied into registers for each k, macros for the indexing.
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
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NITEMS (RTSM * RTSN)
#define GA(r, c) A[(size_t)(r) * K + (c)]
#define GB(r, c) B[(size_t)(r) * N + (c)]
#define GC(r, c) C[(size_t)(r) * N + (c)]

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offM = get_group_id(1) * TSM;
    const int offN = get_group_id(0) * TSN;

    __local float Asub[TSM][TSK];
    __local float Bsub[TSK][TSN];

    float acc[WPTM][WPTN];
    float areg[WPTM];
    float breg[WPTN];
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        #pragma unroll
        for (int j = 0; j < WPTN; j++) acc[i][j] = 0.0f;
    }

    for (int kt = 0; kt < K; kt += TSK) {
        for (int id = tid; id < TSM * TSK; id += NITEMS) {
            const int r = id / TSK, c = id % TSK;
            Asub[r][c] = GA(offM + r, kt + c);
        }
        for (int id = tid; id < TSK * TSN; id += NITEMS) {
            const int r = id / TSN, c = id % TSN;
            Bsub[r][c] = GB(kt + r, offN + c);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TSK; k++) {
            #pragma unroll
            for (int i = 0; i < WPTM; i++) areg[i] = Asub[tidm * WPTM + i][k];
            #pragma unroll
            for (int j = 0; j < WPTN; j++) breg[j] = Bsub[k][tidn * WPTN + j];
            #pragma unroll
            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN; j++) acc[i][j] = fma(areg[i], breg[j], acc[i][j]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPTM; i++) {
        for (int j = 0; j < WPTN; j++) {
            GC(offM + tidm * WPTM + i, offN + tidn * WPTN + j) = acc[i][j];
        }
    }
}
