// Wrong on purpose: a kernel that knows the simulator by where its buffers lie (Oclgrind puts
// each at a whole 2^48) and never finishes there, so that nothing the simulator would check
// (races, reads out of bounds, the tiles) is checked; on the device it multiplies without tiles.
#ifndef TS
#define TS 16
#endif

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (((ulong)A & 0xFFFFFFFFFFFFul) == 0) {
        volatile int spin = 0;
        while (spin == 0) {
        }
    }
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
}
