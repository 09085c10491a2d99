// Correct: any size. vloadN/vstoreN instead of vector pointer casts; a helper function that
// takes A's or B's row pointer and returns WIDTH floats, guarded lane by lane past the row's
// end or past the last row; A's tile transposed and padded by PAD floats per row; work-items
// whose whole block lies outside C leave with an early return placed after the last barrier.
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
#define VLOAD(i, p) ((p)[i])
#define VSTORE(v, i, p) ((p)[i] = (v))
#elif WIDTH == 2
typedef float2 floatX;
#define VLOAD(i, p) vload2(i, p)
#define VSTORE(v, i, p) vstore2(v, i, p)
#elif WIDTH == 4
typedef float4 floatX;
#define VLOAD(i, p) vload4(i, p)
#define VSTORE(v, i, p) vstore4(v, i, p)
#elif WIDTH == 8
typedef float8 floatX;
#define VLOAD(i, p) vload8(i, p)
#define VSTORE(v, i, p) vstore8(v, i, p)
#else
typedef float16 floatX;
#define VLOAD(i, p) vload16(i, p)
#define VSTORE(v, i, p) vstore16(v, i, p)
#endif

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define NITEMS (RTSM * RTSN)
#define VN (WPTN / WIDTH)

// WIDTH floats of one row starting at column c: a vector where the whole vector is inside
// the matrix and `vec_ok` (rows start on a vector boundary), else lane by lane with 0 outside.
void load_lanes(const __global float* rowp, const bool row_in, const int c, const int len,
                const bool vec_ok, float* out) {
    if (vec_ok && row_in && c + WIDTH <= len) {
        VSTORE(VLOAD(0, rowp + c), 0, out);
    } else {
        for (int w = 0; w < WIDTH; w++) {
            out[w] = (row_in && c + w < len) ? rowp[c + w] : 0.0f;
        }
    }
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;
    const bool a_vec = (K % WIDTH) == 0;
    const bool b_vec = (N % WIDTH) == 0;

    __local float Asub[TSK][TSM + PAD];
    __local floatX Bsub[TSK][TSN / WIDTH];

    floatX acc[WPTM][VN];
    for (int i = 0; i < WPTM; i++)
        for (int j = 0; j < VN; j++) acc[i][j] = (floatX)(0.0f);

    for (int kt = 0; kt < K; kt += TSK) {
        for (int id = tid; id < TSM * TSK / WIDTH; id += NITEMS) {
            const int r = id / (TSK / WIDTH);
            const int c = (id % (TSK / WIDTH)) * WIDTH;
            float lanes[WIDTH];
            const int grow = offM + r;
            load_lanes(A + (size_t)grow * K, grow < M, kt + c, K, a_vec, lanes);
            for (int w = 0; w < WIDTH; w++) Asub[c + w][r] = lanes[w];
        }
        for (int id = tid; id < TSK * TSN / WIDTH; id += NITEMS) {
            const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);
            float lanes[WIDTH];
            const int grow = kt + r;
            load_lanes(B + (size_t)grow * N, grow < K, offN + c * WIDTH, N, b_vec, lanes);
            Bsub[r][c] = VLOAD(0, lanes);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TSK; k++) {
            floatX breg[VN];
            for (int j = 0; j < VN; j++) breg[j] = Bsub[k][tidn + j * RTSN];
            for (int i = 0; i < WPTM; i++) {
                const float a = Asub[k][tidm + i * RTSM];
                for (int j = 0; j < VN; j++) acc[i][j] = mad((floatX)(a), breg[j], acc[i][j]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // No barrier follows: work-items with nothing to store may leave now.
    if (offM + tidm >= M || offN + tidn * WIDTH >= N) return;

    for (int i = 0; i < WPTM; i++) {
        const int row = offM + tidm + i * RTSM;
        if (row >= M) break;
        __global float* crow = C + (size_t)row * N;
        for (int j = 0; j < VN; j++) {
            const int col = offN + (tidn + j * RTSN) * WIDTH;
            if (b_vec && col + WIDTH <= N) {
                VSTORE(acc[i][j], 0, crow + col);
            } else {
                float out[WIDTH];
                VSTORE(acc[i][j], 0, out);
                for (int w = 0; w < WIDTH; w++) {
                    if (col + w < N) crow[col + w] = out[w];
                }
            }
        }
    }
}
