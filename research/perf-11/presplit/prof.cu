// research/perf-11/presplit/prof.cu: launches a `matmul` PTX that NVIDIA's OpenCL compiler made
// (host.c's L11_PTX, NULs dropped and %envreg set to 0) through the CUDA driver API, so that
// Nsight Compute can profile it; after research/perf-11/scripts/prof/h.cu. Session 9.
//
//   prof PTX KIND n [reps=20] [bm=128 bn=128 threads=128]
//
// KIND 0: the solution's arguments (M, N, K, A, B, C); KIND 1: the pre-split product's (M, N, K,
// Mp, Np, Kp, A2, B2, C), the planes 2·n·n floats each, filled with big/small pairs of uniform
// values (their order does not matter for the time). Prints the CUDA-event time per launch.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)
static float tf32(float x) { unsigned u; memcpy(&u, &x, 4); u = (u + 0x1000u) & 0xffffe000u; memcpy(&x, &u, 4); return x; }
int main(int argc, char** argv) {
    const char* path = argv[1];
    int kind = atoi(argv[2]), n = atoi(argv[3]), reps = argc > 4 ? atoi(argv[4]) : 20;
    int bm = argc > 5 ? atoi(argv[5]) : 128, bn = argc > 6 ? atoi(argv[6]) : 128, th = argc > 7 ? atoi(argv[7]) : 128;
    FILE* f = fopen(path, "rb"); fseek(f, 0, SEEK_END); long len = ftell(f); rewind(f);
    std::vector<char> ptx(len + 1, 0);
    if (fread(ptx.data(), 1, len, f) != (size_t)len) { fprintf(stderr, "short read of %s\n", path); return 1; }
    fclose(f);
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CUmodule mod; char log[8192] = {0};
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* ov[] = {log, (void*)(size_t)sizeof(log)};
    if (cuModuleLoadDataEx(&mod, ptx.data(), 2, o, ov) != CUDA_SUCCESS) { fprintf(stderr, "load: %s\n", log); return 1; }
    CUfunction fn; CK(cuModuleGetFunction(&fn, mod, "matmul"));
    int regs, smem; CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CK(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    const size_t nn = (size_t)n * n, per = kind ? 2 : 1;
    std::vector<float> h(nn * per); srand(7);
    for (size_t i = 0; i < nn; i++) {
        const float x = rand() / (float)RAND_MAX * 2 - 1;
        if (kind) { h[2 * i] = tf32(x); h[2 * i + 1] = x - tf32(x); } else h[i] = x;
    }
    CUdeviceptr A, B, C; CK(cuMemAlloc(&A, nn * per * 4)); CK(cuMemAlloc(&B, nn * per * 4)); CK(cuMemAlloc(&C, nn * 4));
    CK(cuMemcpyHtoD(A, h.data(), nn * per * 4)); CK(cuMemcpyHtoD(B, h.data(), nn * per * 4));
    int M = n, N = n, K = n;
    void* a0[] = {&M, &N, &K, &A, &B, &C};
    void* a1[] = {&M, &N, &K, &M, &N, &K, &A, &B, &C};
    void** args = kind ? a1 : a0;
    unsigned gx = (N + bn - 1) / bn, gy = (M + bm - 1) / bm;
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    CK(cuEventRecord(e0, 0));
    for (int r = 0; r < reps; r++) CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0));
    CK(cuEventRecord(e1, 0)); CK(cuEventSynchronize(e1));
    float ms; CK(cuEventElapsedTime(&ms, e0, e1)); ms /= reps;
    printf("%s kind=%d n=%d regs=%d static smem=%d B: %.3f ms %.1f GFLOP/s (CUDA driver launch)\n", path, kind, n, regs,
           smem, ms, 2.0 * n * n * (double)n / ms / 1e6);
    return 0;
}
