// Correct: flat 1D local tiles, indexed through macros, and a helper function that takes
// pointers into the local tiles and returns the tile's dot product.
#ifndef TS
#define TS 16
#endif
#define AS(r, c) As[(r) * TS + (c)]
#define BS(r, c) Bs[(r) * TS + (c)]

float tile_dot(__local const float* arow, __local const float* bcol) {
    float s = 0.0f;
    for (int k = 0; k < TS; k++) {
        s = fma(arow[k], bcol[k * TS], s);
    }
    return s;
}

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tc = get_local_id(0);
    const int tr = get_local_id(1);
    const int col = get_group_id(0) * TS + tc;
    const int row = get_group_id(1) * TS + tr;
    __local float As[TS * TS];
    __local float Bs[TS * TS];

    float acc = 0.0f;
    const int tiles = K / TS;
    for (int t = 0; t < tiles; ++t) {
        AS(tr, tc) = A[row * K + t * TS + tc];
        BS(tr, tc) = B[(t * TS + tr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += tile_dot(&AS(tr, 0), &BS(0, tc));
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
