// Correct: vectorised with vloadN/vstoreN (names built by token pasting) instead of casting
// pointers: A and B read WIDTH floats at a time from global memory, B's tile kept as plain
// floats in local memory but written and read back with vstoreN/vloadN, C written with
// vstoreN; A's vector spilled to a private array with vstoreN to scatter its lanes.
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
#ifndef WIDTH
#define WIDTH 4
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if WIDTH == 1
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
typedef float vecX;
#else
#define VLOAD(i, p) CAT(vload, WIDTH)(i, p)
#define VSTORE(v, i, p) CAT(vstore, WIDTH)(v, i, p)
typedef CAT(float, WIDTH) vecX;
#endif

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NITEMS (RTSM * RTSN)
#define VPTN (WPTN / WIDTH)

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;

    __local float Asub[TSK][TSM];
    __local float Bsub[TSK][TSN];

    vecX acc[WPTM][VPTN];
    for (int wm = 0; wm < WPTM; wm++)
        for (int v = 0; v < VPTN; v++) acc[wm][v] = (vecX)(0.0f);

    for (int kt = 0; kt < K; kt += TSK) {
        for (int id = tid; id < TSM * TSK / WIDTH; id += NITEMS) {
            const int r = id / (TSK / WIDTH);
            const int c = (id % (TSK / WIDTH)) * WIDTH;
            float lanes[WIDTH];
            VSTORE(VLOAD(0, A + (size_t)(offM + r) * K + kt + c), 0, lanes);
            for (int w = 0; w < WIDTH; w++) Asub[c + w][r] = lanes[w];
        }
        for (int id = tid; id < TSK * TSN / WIDTH; id += NITEMS) {
            const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);
            VSTORE(VLOAD(c, B + (size_t)(kt + r) * N + offN), c, &Bsub[r][0]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TSK; k++) {
            vecX breg[VPTN];
            for (int v = 0; v < VPTN; v++) breg[v] = VLOAD(tidn + v * RTSN, &Bsub[k][0]);
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];
                for (int v = 0; v < VPTN; v++) acc[wm][v] = mad((vecX)(a), breg[v], acc[wm][v]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int wm = 0; wm < WPTM; wm++) {
        __global float* crow = C + (size_t)(offM + tidm + wm * RTSM) * N + offN;
        for (int v = 0; v < VPTN; v++) VSTORE(acc[wm][v], tidn + v * RTSN, crow);
    }
}
