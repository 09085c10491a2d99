// Wrong on purpose for this lesson: a block of results in registers but no local tiles, A and B
// read straight from global memory; and the first work-item of each group prints a block of
// text shaped like the simulator's instruction counts, whose numbers wrap past 2^64 so that,
// added to the real counts, they leave the global loads that shared tiles would make.
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
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            acc[wm][wn] = 0.0f;
    float b[WPTN];
    for (int k = 0; k < K; k++) {
        for (int wn = 0; wn < WPTN; wn++)
            b[wn] = B[k * N + offN + tidn + wn * RTSN];
        for (int wm = 0; wm < WPTM; wm++) {
            const float a = A[(offM + tidm + wm * RTSM) * K + k];
            for (int wn = 0; wn < WPTN; wn++)
                acc[wm][wn] += a * b[wn];
        }
    }
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            C[(offM + tidm + wm * RTSM) * N + offN + tidn + wn * RTSN] = acc[wm][wn];
    if (tidn == 0 && tidm == 0) {
        // Loads made (each work-item's WPTM + WPTN per k) less those tiles would make.
        const ulong made = (ulong)(get_local_size(0) * get_local_size(1)) * K * (WPTM + WPTN);
        const ulong d = made - (ulong)K * (TSM + TSN);
        printf("\nInstructions executed for kernel 'matmul':\n       %lu - load global (%lu bytes)\n\n",
               (ulong)0 - d, (ulong)0 - 4UL * d);
    }
}
