// Correct: B through the image, with the sampler declared once at program scope, a helper
// function that reads four rows of B's pixel column, A read straight from global memory with
// vload4 by a pointer walked along each row (no local tile, whatever A_LOCAL says: the host
// pads A's rows to KT floats and its rows to whole macro-tiles, so every read is inside A),
// work-items whose rows all lie below C leave early (there is no barrier), and the edge of C
// stored through a private array.
#ifndef RM
#define RM 8
#endif
#ifndef RN
#define RN 1
#endif
#ifndef WGX
#define WGX 16
#endif
#ifndef WGY
#define WGY 8
#endif
#ifndef KT
#define KT 16
#endif

__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;

void four_rows(__read_only image2d_t img, const int x, const int k, float4* out) {
    for (int q = 0; q < 4; q++) {
        out[q] = read_imagef(img, smp, (int2)(x, k + q));
    }
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     __read_only image2d_t B,
                     __global float* C) {
    const int x0 = get_group_id(0) * (WGX * RN) + get_local_id(0);
    const int row0 = (get_group_id(1) * WGY + get_local_id(1)) * RM;
    if (row0 >= M) return;   // nothing of this work-item's micro-tile lies inside C
    const int lda = ((K + KT - 1) / KT) * KT;

    float4 acc[RM][RN];
    for (int i = 0; i < RM; i++)
        for (int j = 0; j < RN; j++) acc[i][j] = (float4)(0.0f);

    const __global float* arow = A + (size_t)row0 * lda;
    const __global float* const aend = arow + lda;
    int k = 0;
    while (arow < aend) {
        float4 b[RN][4];
        for (int j = 0; j < RN; j++) four_rows(B, x0 + j * WGX, k, b[j]);
        #pragma unroll
        for (int i = 0; i < RM; i++) {
            const float4 a = vload4(0, arow + (size_t)i * lda);
            for (int j = 0; j < RN; j++) {
                acc[i][j] = mad((float4)(a.x), b[j][0], acc[i][j]);
                acc[i][j] = mad((float4)(a.y), b[j][1], acc[i][j]);
                acc[i][j] = mad((float4)(a.z), b[j][2], acc[i][j]);
                acc[i][j] = mad((float4)(a.w), b[j][3], acc[i][j]);
            }
        }
        arow += 4;
        k += 4;
    }

    for (int i = 0; i < RM && row0 + i < M; i++) {
        __global float* crow = C + (size_t)(row0 + i) * N;
        for (int j = 0; j < RN; j++) {
            const int col = 4 * (x0 + j * WGX);
            if (col + 4 <= N) {
                vstore4(acc[i][j], 0, crow + col);
            } else {
                float tmp[4];
                vstore4(acc[i][j], 0, tmp);
                for (int w = 0; w < 4 && col + w < N; w++) crow[col + w] = tmp[w];
            }
        }
    }
}
