// Probe host: runs kernel `probe(A, B, out)` (A, B: n floats each; out: 4096 uints, zeroed)
// with global G0xG1 and local L0xL1 on the PoCL platform (or whatever oclgrind provides),
// and prints out's nonzero words. usage: probe FILE.cl n G0 G1 L0 L1 [build options]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef int32_t cl_int; typedef uint32_t cl_uint; typedef uint64_t cl_ulong; typedef cl_ulong cl_bitfield;
typedef void *cl_platform_id, *cl_device_id, *cl_context, *cl_command_queue, *cl_mem, *cl_program, *cl_kernel, *cl_event;
typedef intptr_t cl_context_properties;
cl_int clGetPlatformIDs(cl_uint, cl_platform_id*, cl_uint*);
cl_int clGetPlatformInfo(cl_platform_id, cl_uint, size_t, void*, size_t*);
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
#define CL_PLATFORM_NAME 0x0902
int main(int argc, char** argv) {
    FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); rewind(f);
    char* src = malloc(n + 1); fread(src, 1, n, f); src[n] = 0; fclose(f);
    size_t cnt = atol(argv[2]);
    size_t global[2] = {atol(argv[3]), atol(argv[4])}, local[2] = {atol(argv[5]), atol(argv[6])};
    const char* opts = argc > 7 ? argv[7] : "";
    cl_platform_id pls[8], pl = 0; cl_uint np = 0; clGetPlatformIDs(8, pls, &np);
    for (cl_uint i = 0; i < np; i++) { char name[256] = {0}; clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, 256, name, NULL);
        if (np == 1 || strstr(name, "Portable") || strstr(name, "Oclgrind")) { pl = pls[i]; printf("platform: %s\n", name); break; } }
    cl_device_id dev; cl_int e; clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_program prog = clCreateProgramWithSource(ctx, 1, (const char**)&src, NULL, &e);
    if (clBuildProgram(prog, 1, &dev, opts, NULL, NULL)) { char log[65536]; clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL); fprintf(stderr, "build failed:\n%s\n", log); return 1; }
    cl_kernel k = clCreateKernel(prog, "probe", &e);
    if (e) { fprintf(stderr, "kernel %d\n", e); return 1; }
    float* A = calloc(cnt, 4); for (size_t i = 0; i < cnt; i++) A[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f; static uint32_t out[1 << 20];
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * cnt, A, &e);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4 * cnt, A, &e);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out, &e);
    clSetKernelArg(k, 0, sizeof(cl_mem), &a); clSetKernelArg(k, 1, sizeof(cl_mem), &b); clSetKernelArg(k, 2, sizeof(cl_mem), &o);
    e = clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL);
    if (e) { fprintf(stderr, "enqueue %d\n", e); return 1; }
    clEnqueueReadBuffer(q, o, 1, 0, sizeof out, out, 0, NULL, NULL); clFinish(q);
    for (int i = 0; i < 4; i++) if (out[i]) printf("out[%d] = %u (0x%08x)\n", i, out[i], out[i]);
    return 0;
}
