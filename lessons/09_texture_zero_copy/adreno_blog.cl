// The Adreno blog's kernel (seed 000), with this course's argument list.
// ANCHOR: adreno_blog
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     __read_only image2d_t B,
                     __global float* C) {
    const int px = get_global_id(0);    // pixel column: C columns 4px .. 4px+3
    const int ry = get_global_id(1);    // C rows 8ry .. 8ry+7
    // Work-items of a partly filled work-group do nothing.
    if (4 * px >= N || 8 * ry >= M) return;
    float4 acc[8];
    for (int i = 0; i < 8; i++) acc[i] = (float4)(0.0f);
    const __global float* arow = A + 8 * ry * K;
    for (int k = 0; k < K; k += 4) {
        float4 b[4];
        #pragma unroll
        for (int q = 0; q < 4; q++) b[q] = read_imagef(B, (int2)(px, k + q));
        float4 a[8];
        #pragma unroll
        for (int i = 0; i < 8; i++) a[i] = vload4(0, arow + i * K + k);
        #pragma unroll
        for (int i = 0; i < 8; i++)
            acc[i] += a[i].x * b[0] + a[i].y * b[1] + a[i].z * b[2] + a[i].w * b[3];
    }
    #pragma unroll
    for (int i = 0; i < 8; i++) vstore4(acc[i], 0, C + (8 * ry + i) * N + 4 * px);
}
// ANCHOR_END: adreno_blog
