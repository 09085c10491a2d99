// Loads the PTX that NVIDIA's OpenCL compiler made for lesson 11 and launches it through the
// CUDA driver API, so that Nsight Compute (which does not profile OpenCL) can measure it.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)
int main(int argc, char** argv) {
    const char* path = argv[1];
    int n = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 20;
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
    int regs; CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    size_t bytes = (size_t)n * n * 4;
    std::vector<float> h(n * (size_t)n); srand(7);
    for (auto& x : h) x = rand() / (float)RAND_MAX * 2 - 1;
    CUdeviceptr A, B, C; CK(cuMemAlloc(&A, bytes)); CK(cuMemAlloc(&B, bytes)); CK(cuMemAlloc(&C, bytes));
    CK(cuMemcpyHtoD(A, h.data(), bytes)); CK(cuMemcpyHtoD(B, h.data(), bytes));
    int M = n, N = n, K = n;
    void* args[] = {&M, &N, &K, &A, &B, &C};
    int bm = argc > 4 ? atoi(argv[4]) : 128, bn = argc > 5 ? atoi(argv[5]) : 128, th = argc > 6 ? atoi(argv[6]) : 128;
    unsigned gx = (N + bn - 1) / bn, gy = (M + bm - 1) / bm;
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    CK(cuEventRecord(e0, 0));
    for (int r = 0; r < reps; r++) CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0));
    CK(cuEventRecord(e1, 0)); CK(cuEventSynchronize(e1));
    float ms; CK(cuEventElapsedTime(&ms, e0, e1)); ms /= reps;
    std::vector<float> c(16); CK(cuMemcpyDtoH(c.data(), C, 64));
    // C[0][0..3] against a host dot product, as a sanity check of the launch.
    double err = 0;
    for (int j = 0; j < 4; j++) { double s = 0; for (int k = 0; k < K; k++) s += (double)h[k] * h[(size_t)k * N + j]; err = fmax(err, fabs(s - c[j])); }
    printf("%s n=%d regs=%d %.3f ms %.1f GFLOP/s, |err| C[0][0..3] %.2e\n", path, n, regs, ms, 2.0 * n * n * (double)n / ms / 1e6, err);
    return 0;
}
