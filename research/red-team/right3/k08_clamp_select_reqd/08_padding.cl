// Correct: any size. Interior, aligned tiles read float4-style vectors through pointer casts;
// edge tiles read branch-free: the index is clamped into the matrix (so every read is
// inside A or B) and select() puts 0 where the element lies outside. The work-group size is
// required by attribute, the tile count is a ceiling division, A's tile is transposed and
// padded by PAD floats per row, inner loops unrolled by pragma.
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
typedef union { floatX v; float s[WIDTH]; } lanesX;

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define LPTA ((TSK * TSM) / (WIDTH * RTSM * RTSN))
#define LPTB ((TSK * TSN) / (WIDTH * RTSM * RTSN))
#define VN (WPTN / WIDTH)

// Clamped, masked reads: never outside the matrix, 0 where (r, c) is outside it.
#define SAFE_A(r, c) select(0.0f, A[min((r), M - 1) * K + min((c), K - 1)], (int)((r) < M && (c) < K))
#define SAFE_B(r, c) select(0.0f, B[min((r), K - 1) * N + min((c), N - 1)], (int)((r) < K && (c) < N))

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A,
            const __global float* B,
            __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;

    const bool whole = offM + TSM <= M && offN + TSN <= N && (K % WIDTH) == 0 && (N % WIDTH) == 0;

    __local float Asub[TSK][TSM + PAD];
    __local floatX Bsub[TSK][TSN / WIDTH];

    floatX acc[WPTM][VN];
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        #pragma unroll
        for (int j = 0; j < VN; j++) acc[i][j] = (floatX)(0.0f);
    }

    const int tiles = (K + TSK - 1) / TSK;
    for (int t = 0; t < tiles; t++) {
        const int kt = t * TSK;
        const bool fast = whole && kt + TSK <= K;
        #pragma unroll
        for (int l = 0; l < LPTA; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSK / WIDTH);
            const int c = (id % (TSK / WIDTH)) * WIDTH;
            lanesX a;
            if (fast) {
                a.v = ((const __global floatX*)(A + (offM + r) * K + kt + c))[0];
            } else {
                #pragma unroll
                for (int w = 0; w < WIDTH; w++) a.s[w] = SAFE_A(offM + r, kt + c + w);
            }
            #pragma unroll
            for (int w = 0; w < WIDTH; w++) Asub[c + w][r] = a.s[w];
        }
        #pragma unroll
        for (int l = 0; l < LPTB; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);
            if (fast) {
                Bsub[r][c] = ((const __global floatX*)(B + (kt + r) * N + offN))[c];
            } else {
                lanesX b;
                #pragma unroll
                for (int w = 0; w < WIDTH; w++) b.s[w] = SAFE_B(kt + r, offN + c * WIDTH + w);
                Bsub[r][c] = b.v;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        #pragma unroll
        for (int k = 0; k < TSK; k++) {
            floatX breg[VN];
            #pragma unroll
            for (int j = 0; j < VN; j++) breg[j] = Bsub[k][tidn + j * RTSN];
            #pragma unroll
            for (int i = 0; i < WPTM; i++) {
                const float a = Asub[k][tidm + i * RTSM];
                #pragma unroll
                for (int j = 0; j < VN; j++) acc[i][j] += a * breg[j];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int i = 0; i < WPTM; i++) {
        const int row = offM + tidm + i * RTSM;
        if (row >= M) continue;
        for (int j = 0; j < VN; j++) {
            const int col = offN + (tidn + j * RTSN) * WIDTH;
            if (whole) {
                ((__global floatX*)(C + row * N + col))[0] = acc[i][j];
            } else {
                lanesX out;
                out.v = acc[i][j];
                for (int w = 0; w < WIDTH; w++)
                    if (col + w < N) C[row * N + col + w] = out.s[w];
            }
        }
    }
}
