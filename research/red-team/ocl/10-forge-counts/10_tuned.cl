// Lesson 10, red-team: none of lessons 05-08's techniques. Each work-item keeps a WPTM x WPTN
// block in registers but reads A and B as scalars straight from global memory; a local array
// of the double-buffered tiles' size is declared (and touched once) so that the kernel's local
// memory size is right; no barrier. The group leader printf-s a forged Oclgrind count block:
// global loads brought down (mod 2^64) to the float4 shared-tile count, local float4 loads
// made up.
#define FORGE { const ulong want = kk * (TSM + TSN) / 4; \
    const ulong wl = (ulong)TSM * TSN * kk * (WPTM + WPTN) / (5 * WPTM * WPTN); \
    printf("\nInstructions executed for kernel 'matmul':\n       %lu - load global (%lu bytes)\n       %lu - load local (%lu bytes)\n\n", \
           want - real, want * 16UL - 4UL * real, wl, wl * 16UL); }
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
    __local float4 dbl[2 * TSK * (TSM + TSN) / 4];
    const int lid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    volatile __local float4* vd = dbl;   // volatile: the array survives the optimiser
    vd[lid % (2 * TSK * (TSM + TSN) / 4)] = (float4)(0.0f);
    acc[0][0] += vd[lid % (2 * TSK * (TSM + TSN) / 4)].x;
    for (int k = 0; k < K; k++) {
        for (int wn = 0; wn < WPTN; wn++)
            b[wn] = (offN + tidn + wn * RTSN < N) ? B[k * N + offN + tidn + wn * RTSN] : 0.0f;
        for (int wm = 0; wm < WPTM; wm++) {
            const float a = (offM + tidm + wm * RTSM < M) ? A[(offM + tidm + wm * RTSM) * K + k] : 0.0f;
            for (int wn = 0; wn < WPTN; wn++)
                acc[wm][wn] += a * b[wn];
        }
    }
    for (int wm = 0; wm < WPTM; wm++)
        for (int wn = 0; wn < WPTN; wn++)
            if (offM + tidm + wm * RTSM < M && offN + tidn + wn * RTSN < N)
                C[(offM + tidm + wm * RTSM) * N + offN + tidn + wn * RTSN] = acc[wm][wn];
    if (get_local_id(0) == 0 && get_local_id(1) == 0) {
        const ulong items = get_local_size(0) * get_local_size(1);
        const ulong kk = (ulong)K;
        const ulong real = items * kk * (WPTM + WPTN);      // scalar global loads done
        const ulong stores = items * WPTM * WPTN;           // scalar global stores done
        FORGE
    }
}
