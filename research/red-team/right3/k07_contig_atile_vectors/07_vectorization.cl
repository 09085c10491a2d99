// Correct: vectorised, with both tiles kept as vectors in local memory: A's tile row-major,
// WIDTH steps of k per vector (not transposed), B's tile as rows of vectors. Each work-item
// owns a contiguous WPTM×WPTN block (rows tidm·WPTM.., vectors tidn·WPTN/WIDTH..), reads a
// vector of A's k-steps and picks its lanes through a union.
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

#if WIDTH == 1
typedef float floatX;
#elif WIDTH == 2
typedef float2 floatX;
#elif WIDTH == 4
typedef float4 floatX;
#elif WIDTH == 8
typedef float8 floatX;
#else
typedef float16 floatX;
#endif
typedef union { floatX v; float s[WIDTH]; } lanes_t;

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NITEMS (RTSM * RTSN)
#define VN (WPTN / WIDTH)
#define KV (TSK / WIDTH)

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;
    const int KW = K / WIDTH;            // row length of A in vectors
    const int NW = N / WIDTH;            // row length of B and C in vectors

    const __global floatX* Av = (const __global floatX*)A;
    const __global floatX* Bv = (const __global floatX*)B;
    __global floatX* Cv = (__global floatX*)C;

    __local floatX As[TSM][KV];
    __local floatX Bs[TSK][TSN / WIDTH];

    floatX acc[WPTM][VN];
    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < VN; j++) acc[i][j] = (floatX)(0.0f);

    for (int kt = 0; kt < K; kt += TSK) {
        for (int id = tid; id < TSM * KV; id += NITEMS) {
            const int r = id / KV, c = id % KV;
            As[r][c] = Av[(offM + r) * KW + kt / WIDTH + c];
        }
        for (int id = tid; id < TSK * (TSN / WIDTH); id += NITEMS) {
            const int r = id / (TSN / WIDTH), c = id % (TSN / WIDTH);
            Bs[r][c] = Bv[(kt + r) * NW + offN / WIDTH + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int kv = 0; kv < KV; kv++) {
            lanes_t a[WPTM];
            for (int i = 0; i < WPTM; i++) a[i].v = As[tidm * WPTM + i][kv];
            for (int w = 0; w < WIDTH; w++) {
                floatX b[VN];
                for (int j = 0; j < VN; j++) b[j] = Bs[kv * WIDTH + w][tidn * VN + j];
                for (int i = 0; i < WPTM; i++)
                    for (int j = 0; j < VN; j++) acc[i][j] += a[i].s[w] * b[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < VN; j++)
            Cv[(offM + tidm * WPTM + i) * NW + offN / WIDTH + tidn * VN + j] = acc[i][j];
}
