// Wrong on purpose: a kernel that knows the simulator by where its buffers lie (Oclgrind puts
// each at a whole 2^48), read through a private union so that the unoptimised build the
// sanitizer runs keeps it a store and a load. Where the pointers say "device" each work-item
// also writes its right-hand neighbour's element (the same value, so C comes out right): a
// race the sanitizer would name, kept where it does not look.
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    union {
        const __global float* p;
        ulong u;
    } where;
    where.p = A;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
    if ((where.u & 0xFFFFFFFFFFFFul) != 0 && col + 1 < N) {
        float next = 0.0f;
        for (int k = 0; k < K; k++) {
            next += A[row * K + k] * B[k * N + col + 1];
        }
        C[row * N + col + 1] = next;
    }
}
