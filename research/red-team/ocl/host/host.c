// Minimal OpenCL host: runs lesson 10's `matmul` at one shape, buffers of exactly the matrices'
// sizes, and compares C with a double-precision reference. For running under oclgrind.
// usage: host KERNEL.cl M N K "defines"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
typedef int32_t cl_int; typedef uint32_t cl_uint; typedef uint64_t cl_ulong; typedef cl_ulong cl_bitfield;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_command_queue, *cl_mem, *cl_program, *cl_kernel, *cl_event;
typedef intptr_t cl_context_properties;
cl_int clGetPlatformIDs(cl_uint, cl_platform_id*, cl_uint*);
cl_int clGetDeviceIDs(cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*);
cl_context clCreateContext(const cl_context_properties*, cl_uint, const cl_device_id*, void*, void*, cl_int*);
cl_command_queue clCreateCommandQueue(cl_context, cl_device_id, cl_bitfield, cl_int*);
cl_program clCreateProgramWithSource(cl_context, cl_uint, const char**, const size_t*, cl_int*);
cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id*, const char*, void*, void*);
cl_int clGetProgramBuildInfo(cl_program, cl_device_id, cl_uint, size_t, void*, size_t*);
cl_kernel clCreateKernel(cl_program, const char*, cl_int*);
cl_mem clCreateBuffer(cl_context, cl_bitfield, size_t, void*, cl_int*);
cl_int clSetKernelArg(cl_kernel, cl_uint, size_t, const void*);
cl_int clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, const cl_event*, cl_event*);
cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*, cl_event*);
cl_int clFinish(cl_command_queue);
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_MEM_READ_WRITE (1<<0)
#define CL_MEM_COPY_HOST_PTR (1<<5)
#define CL_PROGRAM_BUILD_LOG 0x1183
static int def(const char* d, const char* name, int dflt) {
    char key[64]; snprintf(key, sizeof key, "-D %s=", name);
    const char* p = strstr(d, key); return p ? atoi(p + strlen(key)) : dflt;
}
int main(int argc, char** argv) {
    if (argc < 6) { fprintf(stderr, "usage\n"); return 2; }
    FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
    char* src = malloc(n + 1); fread(src, 1, n, f); src[n] = 0; fclose(f);
    int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]); const char* d = argv[5];
    int TSM = def(d, "TSM", 128), TSN = def(d, "TSN", 128), WPTM = def(d, "WPTM", 8), WPTN = def(d, "WPTN", 8);
    cl_platform_id pl; cl_device_id dev; cl_int e;
    clGetPlatformIDs(1, &pl, NULL); clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_program prog = clCreateProgramWithSource(ctx, 1, (const char**)&src, NULL, &e);
    if (clBuildProgram(prog, 1, &dev, d, NULL, NULL)) {
        char log[65536]; clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log); return 1;
    }
    cl_kernel k = clCreateKernel(prog, "matmul", &e);
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N), *C = malloc(sizeof(float) * M * N);
    srand(7);
    for (long i = 0; i < (long)M * K; i++) A[i] = rand() / (float)RAND_MAX * 2 - 1;
    for (long i = 0; i < (long)K * N; i++) B[i] = rand() / (float)RAND_MAX * 2 - 1;
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * M * K, A, &e);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * K * N, B, &e);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float) * M * N, NULL, &e);
    clSetKernelArg(k, 0, 4, &M); clSetKernelArg(k, 1, 4, &N); clSetKernelArg(k, 2, 4, &K);
    clSetKernelArg(k, 3, sizeof(cl_mem), &a); clSetKernelArg(k, 4, sizeof(cl_mem), &b); clSetKernelArg(k, 5, sizeof(cl_mem), &c);
    size_t local[2] = { TSN / WPTN, TSM / WPTM };
    size_t global[2] = { (N + TSN - 1) / TSN * local[0], (M + TSM - 1) / TSM * local[1] };
    printf("launch: %zu x %zu work-groups\n", global[0] / local[0], global[1] / local[1]);
    if (getenv("NOLOCAL")) { global[0] = N; global[1] = M; }
    e = clEnqueueNDRangeKernel(q, k, 2, NULL, global, getenv("NOLOCAL") ? NULL : local, 0, NULL, NULL);
    clFinish(q);
    clEnqueueReadBuffer(q, c, 1, 0, sizeof(float) * M * N, C, 0, NULL, NULL);
    double worst = 0;
    for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
        double s = 0, t = 0; for (int p = 0; p < K; p++) { s += (double)A[i*K+p] * B[p*N+j]; t += fabs((double)A[i*K+p] * B[p*N+j]); }
        double r = fabs(C[i*N+j] - s) / (t > 0 ? t : 1); if (!(r <= worst)) worst = r;
    }
    if (getenv("PRINTC")) printf("C[0] = %g, C[last] = %g\n", C[0], C[(long)M*N-1]);
    printf("max relative error of C: %.3g\n", worst);
    return 0;
}
