// Correct: register tiling whose local tiles are filled by the work-group's asynchronous
// copies (async_work_group_copy, one per row of each tile, chained through one event_t kept
// in private memory; wait_group_events before the tiles are read), each work-item's
// WPTM×WPTN block strided as in the lesson, both operands taken into registers for every k.
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

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;

    __local float Asub[TSM][TSK];
    __local float Bsub[TSK][TSN];

    float acc[WPTM][WPTN];
    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < WPTN; j++) acc[i][j] = 0.0f;
    float areg[WPTM], breg[WPTN];

    for (int kt = 0; kt < K; kt += TSK) {
        event_t ev = 0;
        for (int r = 0; r < TSM; r++) {
            ev = async_work_group_copy(&Asub[r][0], A + (size_t)(offM + r) * K + kt, TSK, ev);
        }
        for (int r = 0; r < TSK; r++) {
            ev = async_work_group_copy(&Bsub[r][0], B + (size_t)(kt + r) * N + offN, TSN, ev);
        }
        wait_group_events(1, &ev);

        for (int k = 0; k < TSK; k++) {
            for (int i = 0; i < WPTM; i++) areg[i] = Asub[tidm + i * RTSM][k];
            for (int j = 0; j < WPTN; j++) breg[j] = Bsub[k][tidn + j * RTSN];
            for (int i = 0; i < WPTM; i++)
                for (int j = 0; j < WPTN; j++) acc[i][j] = fma(areg[i], breg[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < WPTN; j++)
            C[(size_t)(offM + tidm + i * RTSM) * N + offN + tidn + j * RTSN] = acc[i][j];
}
