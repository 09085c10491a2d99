// Correct: register tiling with the work-items numbered column-major inside the group (a
// flat id split as tm = id % RTSM, tn = id / RTSM), helper functions that take pointers
// (local tile -> private registers, and the rank-1 update), and pointers that walk A's rows
// and B's columns along K with `while`.
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

void gather(__local const float* src, const int stride, float* dst, const int n) {
    for (int i = 0; i < n; i++) {
        dst[i] = src[i * stride];
    }
}

void rank1(float acc[WPTM][WPTN], const float* a, const float* b) {
    for (int i = 0; i < WPTM; i++) {
        for (int j = 0; j < WPTN; j++) {
            acc[i][j] += a[i] * b[j];
        }
    }
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int flat = get_local_id(1) * get_local_size(0) + get_local_id(0);
    const int tm = flat % RTSM;
    const int tn = flat / RTSM;
    const int offM = get_group_id(1) * TSM;
    const int offN = get_group_id(0) * TSN;

    __local float AsubT[TSK][TSM];
    __local float Bsub[TSK][TSN];

    float acc[WPTM][WPTN];
    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < WPTN; j++) acc[i][j] = 0.0f;
    float a[WPTM], b[WPTN];

    // This work-item's first element of each tile it loads, walked along K.
    const __global float* pa = A + (size_t)offM * K;
    const __global float* const pa_end = pa + K;
    const __global float* pb = B + offN;
    while (pa < pa_end) {
        for (int id = flat; id < TSM * TSK; id += NITEMS) {
            const int r = id / TSK, c = id % TSK;
            AsubT[c][r] = pa[(size_t)r * K + c];
        }
        for (int id = flat; id < TSK * TSN; id += NITEMS) {
            const int r = id / TSN, c = id % TSN;
            Bsub[r][c] = pb[(size_t)r * N + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TSK; k++) {
            gather(&AsubT[k][tm], RTSM, a, WPTM);
            gather(&Bsub[k][tn], RTSN, b, WPTN);
            rank1(acc, a, b);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        pa += TSK;
        pb += (size_t)TSK * N;
    }

    for (int i = 0; i < WPTM; i++) {
        __global float* crow = C + (size_t)(offM + tm + i * RTSM) * N + offN + tn;
        for (int j = 0; j < WPTN; j++) {
            crow[j * RTSN] = acc[i][j];
        }
    }
}
