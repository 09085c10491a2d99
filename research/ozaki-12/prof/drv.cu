// Launches gemm_s8 from the PTX that NVIDIA's OpenCL compiler made (host.c with OZAKI_PTX=file)
// through the CUDA driver API, so that Nsight Compute (which does not profile OpenCL) can
// measure it. As research/perf-11/scripts/prof/h.cu; the %envreg registers (OpenCL's group
// offsets) must be replaced by 0 in the PTX first (sed).
//   drv PTX n [reps=10] [BM=128] [BN=128] [threads=256] [p=251]
// Planes: A (n x n) and B (n x n, k contiguous) int8 from rand() in [-127, 127], C n x n uint8.
// Prints the mean time of `reps` launches and checks C[0][0..7] against the host.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)
int main(int argc, char** argv) {
    const char* path = argv[1];
    const int n = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 10;
    const int bm = argc > 4 ? atoi(argv[4]) : 128, bn = argc > 5 ? atoi(argv[5]) : 128;
    const int th = argc > 6 ? atoi(argv[6]) : 256, p = argc > 7 ? atoi(argv[7]) : 251;
    FILE* f = fopen(path, "rb"); if (!f) { perror(path); return 1; }
    fseek(f, 0, SEEK_END); long len = ftell(f); rewind(f);
    std::vector<char> ptx(len + 1, 0);
    if (fread(ptx.data(), 1, len, f) != (size_t)len) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
    CUmodule mod; char log[8192] = {0};
    CUjit_option o[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* ov[] = {log, (void*)(size_t)sizeof(log)};
    if (cuModuleLoadDataEx(&mod, ptx.data(), 2, o, ov) != CUDA_SUCCESS) { fprintf(stderr, "load: %s\n", log); return 1; }
    CUfunction fn; CK(cuModuleGetFunction(&fn, mod, "gemm_s8"));
    int regs, smem; CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CK(cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    const size_t sz = (size_t)n * n;
    std::vector<signed char> ha(sz), hb(sz); srand(7);
    for (auto& x : ha) x = (signed char)(rand() % 255 - 127);
    for (auto& x : hb) x = (signed char)(rand() % 255 - 127);
    CUdeviceptr A, B, C; CK(cuMemAlloc(&A, sz)); CK(cuMemAlloc(&B, sz)); CK(cuMemAlloc(&C, sz));
    CK(cuMemcpyHtoD(A, ha.data(), sz)); CK(cuMemcpyHtoD(B, hb.data(), sz));
    unsigned long long z = 0; int Kp = n, Np = n, Mp = n;
    void* args[] = {&A, &B, &C, &z, &z, &z, &Kp, &Np, (void*)&p, &Mp}; // Mp: GROUPM builds only
    unsigned gx = n / bn, gy = n / bm;
    CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
    CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0)); CK(cuCtxSynchronize());
    CK(cuEventRecord(e0, 0));
    for (int r = 0; r < reps; r++) CK(cuLaunchKernel(fn, gx, gy, 1, th, 1, 1, 0, 0, args, 0));
    CK(cuEventRecord(e1, 0)); CK(cuEventSynchronize(e1));
    float ms; CK(cuEventElapsedTime(&ms, e0, e1)); ms /= reps;
    std::vector<unsigned char> c(8); CK(cuMemcpyDtoH(c.data(), C, 8));
    int bad = 0;
    for (int j = 0; j < 8; j++) {
        long long s = 0;
        for (int k = 0; k < n; k++) s += (long long)ha[k] * hb[(size_t)j * n + k];
        long long m = s % p; if (m < 0) m += p;
        if (m != c[j]) bad++;
    }
    printf("DRV,%s,n=%d,regs=%d,smem=%d,ms=%.4f,tops=%.1f,bad_c0=%d\n", path, n, regs, smem, ms,
           2.0 * n * n * (double)n / ms / 1e9, bad);
    return 0;
}
