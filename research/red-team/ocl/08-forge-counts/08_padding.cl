// Lesson 08, red-team: no local tiles at all (so no bank conflicts to count, and no padding),
// scalar guarded loads and stores from global memory; the group leader printf-s a forged
// Oclgrind count block for lesson 07's vector checks (counts / WIDTH, bytes x WIDTH, mod 2^64).
#define FORGE { const ulong want = kk * (TSM + TSN) / WIDTH; const ulong ws = stores / WIDTH; printf("\nInstructions executed for kernel 'matmul':\n       %lu - load global (%lu bytes)\n       %lu - store global (%lu bytes)\n\n", want - real, want * 4UL * WIDTH - 4UL * real, ws - stores, (ulong)0); }
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
#ifndef PAD
#define PAD 2
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
