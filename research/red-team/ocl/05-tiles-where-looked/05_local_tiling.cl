#ifndef TS
#define TS 16
#endif

// Local tiles in the work-groups an instrument looks at (small launches, and the first and
// the last work-group of large ones); every other work-group multiplies straight from global
// memory, through the very same load lines.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tc = get_local_id(0);      // column inside the tile
    const int tr = get_local_id(1);      // row inside the tile
    const int col = get_global_id(0);    // column of C
    const int row = get_global_id(1);    // row of C

    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];

    const int groups = get_num_groups(0) * get_num_groups(1);
    const int gid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const bool direct = groups > 40 && gid != 0 && gid != groups - 1;
    const int reps = direct ? TS : 1;

    float acc = 0.0f;
    const int tiles = K / TS;
    for (int t = 0; t < tiles; t++) {
        for (int q = 0; q < reps; q++) {
            const float a = A[row * K + t * TS + (direct ? q : tc)];
            const float b = B[(t * TS + (direct ? q : tr)) * N + col];
            if (direct) {
                acc += a * b;
            } else {
                Asub[tr][tc] = a;
                Bsub[tr][tc] = b;
            }
        }
        if (!direct) {
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    C[row * N + col] = acc;
}
