// research/perf-11/splitk/host.c: lesson 11's kernel with K split over the grid's third
// dimension (splitk.cl), beside the unchanged solution, timed by OpenCL profiling events and
// checked against float64 on the host. Session 8 (2026-11-29).
//
//   ./host M N K "DEFINES" TOKENS [reps=50] [idle_reps=20] [full=0|1]
//
// DEFINES: the kernel's -D options (BM BN BK WM WN STAGES). TOKENS, comma-separated: `sol` the
// unchanged solution (solutions/11_matrix_units.cl), a number S the split kernel with S slices
// (S = 1: one slice, no sum). Per token: C (and the workspace) filled with NaN, 5 warm-ups, then
// `reps` calls back to back on the same A and B (each call = the product and, for S > 1, the
// sum kernel; its time is the sum of both kernels' event times, and the span from the
// product's start to the sum's end), then `idle_reps` calls each after 15 ms of idle GPU.
// Then C is checked: max|C - exact| / max|exact| at 4096 sampled elements (every element with
// full=1), exact in float64. Environment: L11_MMA (the unit, lessons/11_matrix_units/mma.cl),
// L11_SOL (the solution), L11_SPLIT (splitk.cl), L11_PLATFORM (a platform-name substring to
// insist on, e.g. NVIDIA).
//
// L11_IDLE_MODES=1 (call 38) times the idle calls four ways, `idle_reps` each: plain (15 ms idle,
// then the call), wake (15 ms idle, then an empty one-work-item kernel, untimed, then the call),
// fresh (A and B uploaded from the host before the 15 ms, alternately (A, B) and (-A, -B),
// whose product is the same C bit for bit: the course's fresh inputs, checkable), fresh+wake.
#include <unistd.h>
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_CL_H
#include <CL/cl.h>
#else
// The few declarations this file needs (for machines without the headers).
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef uint64_t cl_bitfield;
typedef cl_bitfield cl_device_type, cl_mem_flags, cl_command_queue_properties;
typedef cl_uint cl_bool, cl_platform_info, cl_device_info, cl_program_build_info,
    cl_profiling_info;
typedef intptr_t cl_context_properties;
typedef struct _cl_platform_id* cl_platform_id;
typedef struct _cl_device_id* cl_device_id;
typedef struct _cl_context* cl_context;
typedef struct _cl_command_queue* cl_command_queue;
typedef struct _cl_mem* cl_mem;
typedef struct _cl_program* cl_program;
typedef struct _cl_kernel* cl_kernel;
typedef struct _cl_event* cl_event;
#define CL_SUCCESS 0
#define CL_TRUE 1
#define CL_DEVICE_TYPE_GPU (1 << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_VENDOR 0x102C
#define CL_DRIVER_VERSION 0x102D
#define CL_QUEUE_PROFILING_ENABLE (1 << 1)
#define CL_MEM_READ_WRITE (1 << 0)
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_PROFILING_COMMAND_START 0x1282
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define CL_PROFILING_COMMAND_END 0x1283
#define CL_PROGRAM_BINARY_SIZES 0x1165
#define CL_PROGRAM_BINARIES 0x1166
typedef cl_uint cl_program_info;
cl_int clGetProgramInfo(cl_program, cl_program_info, size_t, void*, size_t*);
cl_int clGetPlatformIDs(cl_uint, cl_platform_id*, cl_uint*);
cl_int clGetPlatformInfo(cl_platform_id, cl_platform_info, size_t, void*, size_t*);
cl_int clGetDeviceIDs(cl_platform_id, cl_device_type, cl_uint, cl_device_id*, cl_uint*);
cl_int clGetDeviceInfo(cl_device_id, cl_device_info, size_t, void*, size_t*);
cl_context clCreateContext(const cl_context_properties*, cl_uint, const cl_device_id*,
                           void (*)(const char*, const void*, size_t, void*), void*, cl_int*);
cl_command_queue clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties,
                                      cl_int*);
cl_program clCreateProgramWithSource(cl_context, cl_uint, const char**, const size_t*, cl_int*);
cl_int clBuildProgram(cl_program, cl_uint, const cl_device_id*, const char*,
                      void (*)(cl_program, void*), void*);
cl_int clGetProgramBuildInfo(cl_program, cl_device_id, cl_program_build_info, size_t, void*,
                             size_t*);
cl_kernel clCreateKernel(cl_program, const char*, cl_int*);
cl_int clSetKernelArg(cl_kernel, cl_uint, size_t, const void*);
cl_mem clCreateBuffer(cl_context, cl_mem_flags, size_t, void*, cl_int*);
cl_int clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void*,
                            cl_uint, const cl_event*, cl_event*);
cl_int clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void*, cl_uint,
                           const cl_event*, cl_event*);
cl_int clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t*,
                              const size_t*, const size_t*, cl_uint, const cl_event*,
                              cl_event*);
cl_int clFinish(cl_command_queue);
cl_int clGetEventProfilingInfo(cl_event, cl_profiling_info, size_t, void*, size_t*);
cl_int clReleaseEvent(cl_event);
cl_int clReleaseMemObject(cl_mem);
#endif

#define CHECK(x)                                                                     \
    do {                                                                             \
        cl_int e_ = (x);                                                             \
        if (e_ != CL_SUCCESS) {                                                      \
            fprintf(stderr, "OpenCL error %d at %s:%d: %s\n", e_, __FILE__, __LINE__, #x); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)
#define ARG(k, i, v) CHECK(clSetKernelArg(k, i, sizeof(v), &(v)))

static const uint64_t GOLD = 0x9E3779B97F4A7C15ULL;
static inline uint64_t mix64(uint64_t z) {
    z ^= z >> 30; z *= 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 27; z *= 0x94D049BB133111EBULL;
    z ^= z >> 31; return z;
}
static inline float val(uint64_t seed, uint64_t stream, uint64_t idx) {
    return (float)((double)(mix64(seed * GOLD + (idx << 2) + stream) >> 40) * 0x1p-23 - 1.0);
}
static char* read_file(const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) { perror(path); exit(1); }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char* s = malloc(n + 1);
    if (fread(s, 1, n, fp) != (size_t)n) { perror("read"); exit(1); }
    s[n] = 0;
    fclose(fp);
    return s;
}
static cl_ulong ev_t(cl_event e, int end) {
    cl_ulong a;
    CHECK(clGetEventProfilingInfo(e, end ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
                                  sizeof a, &a, NULL));
    return a;
}
static double ev_ms(cl_event e) { return (ev_t(e, 1) - ev_t(e, 0)) * 1e-6; }
static int cmpd(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
static double median(const double* v, int n) {
    if (n <= 0) return 0;
    double* w = malloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmpd);
    double m = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return m;
}
static double minv(const double* v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++) m = v[i] < m ? v[i] : m;
    return m;
}
static size_t rup(size_t x, size_t m) { return (x + m - 1) / m * m; }
static int defv(const char* d, const char* name, int dflt) {
    char key[32];
    snprintf(key, sizeof key, "-D %s=", name);
    const char* s = strstr(d, key);
    return s ? atoi(s + strlen(key)) : dflt;
}

static cl_program build(cl_context ctx, cl_device_id dev, const char* pre, const char* mma,
                        const char* path, const char* opts) {
    char* kern = read_file(path);
    const char* srcs[4] = {pre, mma, "\n#line 1\n", kern};
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 4, srcs, NULL, &err);
    CHECK(err);
    cl_int berr = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    if (berr != CL_SUCCESS || getenv("L11_LOG")) {
        size_t n = 0;
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char* log = malloc(n + 1);
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
        log[n] = 0;
        fprintf(stderr, "build log of %s (%s):\n%s\n", path, opts, log);
        free(log);
    }
    CHECK(berr);
    free(kern);
    return p;
}

int main(int argc, char** argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s M N K \"DEFINES\" TOKENS [reps] [idle_reps] [full]\n", argv[0]);
        return 1;
    }
    const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    const char* defs = argv[4];
    char* tokens = strdup(argv[5]);
    const int reps = argc > 6 ? atoi(argv[6]) : 50;
    const int idle_reps = argc > 7 ? atoi(argv[7]) : 20;
    const int full = argc > 8 ? atoi(argv[8]) : 0;
    const uint64_t seed = 7;
    const char* want = getenv("L11_PLATFORM");

    // ---- device: the platform asked for (by name), else a GPU, else anything
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    cl_device_id dev = 0;
    cl_platform_id plat = 0;
    for (int pass = 0; pass < 2 && !dev; pass++)
        for (cl_uint p = 0; p < np && !dev; p++) {
            char pn[256] = "";
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
            if (want && !strstr(pn, want)) continue;
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1,
                               &dev, &nd) != CL_SUCCESS || nd == 0)
                dev = 0;
            else
                plat = plats[p];
        }
    if (!dev) { fprintf(stderr, "no OpenCL device (platform %s)\n", want ? want : "any"); return 1; }
    char dname[256] = "", dvendor[256] = "", drv[256] = "", pname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof dvendor, dvendor, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv, drv, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    cl_uint cus = 0, ccmaj = 0, ccmin = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    const int nvidia = strstr(dvendor, "NVIDIA") != NULL;
    if (nvidia) {
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof ccmaj, &ccmaj, NULL);
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof ccmin, &ccmin, NULL);
    }
    printf("# device: %s | %s | driver %s | platform %s | %u CUs | cc %u.%u\n", dname, dvendor,
           drv, pname, cus, ccmaj, ccmin);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);

    // ---- programs: the lesson's prelude (the unit), then the kernel, as the course builds it
    const char* mma_path = getenv("L11_MMA") ? getenv("L11_MMA") : "lessons/11_matrix_units/mma.cl";
    const char* sol_path = getenv("L11_SOL") ? getenv("L11_SOL") : "solutions/11_matrix_units.cl";
    const char* split_path = getenv("L11_SPLIT") ? getenv("L11_SPLIT") : "research/perf-11/splitk/splitk.cl";
    char* mma = read_file(mma_path);
    char pre[128];
    snprintf(pre, sizeof pre, "#define MMA_PTX %d\n#define TF32_CVT %d\n", nvidia,
             nvidia && ccmaj >= 9);
    char opts[1024];
    snprintf(opts, sizeof opts, "%s -cl-kernel-arg-info", defs);
    const int BM = defv(defs, "BM", 64), BN = defv(defs, "BN", 64), BK = defv(defs, "BK", 8);
    const int WM = defv(defs, "WM", 32), WN = defv(defs, "WN", 32);
    const size_t threads = 32 * (BM / WM) * (BN / WN);
    int need_sol = strstr(tokens, "sol") != NULL, need_split = 0;
    for (const char* c = tokens; *c; c++) need_split |= (*c >= '0' && *c <= '9');
    cl_program psol = need_sol ? build(ctx, dev, pre, mma, sol_path, opts) : 0;
    cl_program pspl = need_split ? build(ctx, dev, pre, mma, split_path, opts) : 0;
    cl_kernel ksol = psol ? clCreateKernel(psol, "matmul", &err) : 0;
    if (psol) CHECK(err);
    cl_kernel kspl = pspl ? clCreateKernel(pspl, "matmul", &err) : 0;
    if (pspl) CHECK(err);
    cl_kernel ksum = pspl ? clCreateKernel(pspl, "sum_parts", &err) : 0;
    if (pspl) CHECK(err);

    // ---- inputs: uniform [-1, 1) from a counter-based hash, seed 7
    const size_t MN = (size_t)M * N;
    float* A = malloc((size_t)M * K * 4);
    float* B = malloc((size_t)K * N * 4);
    float* C = malloc(MN * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = val(seed, 0, i);
    for (size_t i = 0; i < (size_t)K * N; i++) B[i] = val(seed, 1, i);
    // the sampled elements and their exact values (float64 sums), or every element with full=1
    const int ns = full ? (int)MN : 4096;
    int* si = malloc(ns * sizeof(int));
    int* sj = malloc(ns * sizeof(int));
    double* ex = malloc(ns * sizeof(double));
    double exmax = 0;
    for (int s = 0; s < ns; s++) {
        if (full) { si[s] = s / N; sj[s] = s % N; }
        else {
            // the edges first (last row and column), then hashed points
            si[s] = s < 64 ? M - 1 : s < 128 ? (int)(mix64(s) % M) : (int)(mix64(seed * GOLD ^ (2 * s)) % M);
            sj[s] = s < 64 ? (int)(mix64(s + 99) % N) : s < 128 ? N - 1 : (int)(mix64(seed * GOLD ^ (2 * s + 1)) % N);
        }
        double acc = 0;
        for (int k = 0; k < K; k++) acc += (double)A[(size_t)si[s] * K + k] * (double)B[(size_t)k * N + sj[s]];
        ex[s] = acc;
        exmax = fabs(acc) > exmax ? fabs(acc) : exmax;
    }

    int Smax = 1;
    for (char* t = tokens; *t; t++) if (*t >= '0' && *t <= '9') { int v = atoi(t); Smax = v > Smax ? v : Smax; while (t[1] >= '0' && t[1] <= '9') t++; }
    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)M * K * 4, NULL, &err); CHECK(err);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)K * N * 4, NULL, &err); CHECK(err);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, MN * 4, NULL, &err); CHECK(err);
    const size_t wplanes = Smax > 1 ? Smax - 1 : 1;
    cl_mem dW = clCreateBuffer(ctx, CL_MEM_READ_WRITE, wplanes * MN * 4, NULL, &err); CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, dA, CL_TRUE, 0, (size_t)M * K * 4, A, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, dB, CL_TRUE, 0, (size_t)K * N * 4, B, 0, NULL, NULL));
    float* nans = malloc(wplanes * MN * 4);
    for (size_t i = 0; i < wplanes * MN; i++) nans[i] = NAN;
    const double flop = 2.0 * M * N * (double)K;

    const int modes = getenv("L11_IDLE_MODES") && atoi(getenv("L11_IDLE_MODES")) ? 4 : 1;
    static const char* mname[4] = {"plain", "wake", "fresh", "fresh+wake"};
    const char* wsrc = "__kernel void wake(__global float* x) { if (get_global_id(0) == 1) x[0] = 0.0f; }\n";
    cl_program pw = clCreateProgramWithSource(ctx, 1, &wsrc, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(pw, 1, &dev, "", NULL, NULL));
    cl_kernel kwake = clCreateKernel(pw, "wake", &err);
    CHECK(err);
    ARG(kwake, 0, dW);
    const size_t gw[1] = {1};
    float* An = malloc((size_t)M * K * 4);
    float* Bn = malloc((size_t)K * N * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) An[i] = -A[i];
    for (size_t i = 0; i < (size_t)K * N; i++) Bn[i] = -B[i];
    const int nrun = 5 + reps + modes * idle_reps;
    cl_event* evp = malloc(nrun * sizeof(cl_event));
    cl_event* evs = malloc(nrun * sizeof(cl_event));
    double *tp = malloc(nrun * 8), *tr = malloc(nrun * 8), *tsum = malloc(nrun * 8), *tspan = malloc(nrun * 8);
    int bad_total = 0;
    for (char* tok = strtok(tokens, ","); tok; tok = strtok(NULL, ",")) {
        const int is_sol = strcmp(tok, "sol") == 0;
        const int S = is_sol ? 1 : atoi(tok);
        if (!is_sol && (S < 1 || S > Smax)) { fprintf(stderr, "bad token %s\n", tok); return 1; }
        // slices: KS a multiple of BK; the number of non-empty slices
        const int KS = (int)rup((K + S - 1) / S, BK);
        const int Se = (K + KS - 1) / KS;
        cl_kernel kp = is_sol ? ksol : kspl;
        ARG(kp, 0, M); ARG(kp, 1, N); ARG(kp, 2, K); ARG(kp, 3, dA); ARG(kp, 4, dB); ARG(kp, 5, dC);
        if (!is_sol) { ARG(kp, 6, KS); ARG(kp, 7, dW); }
        const int planes = Se - 1, MNi = (int)MN;
        if (!is_sol) { ARG(ksum, 0, MNi); ARG(ksum, 1, planes); ARG(ksum, 2, dC); ARG(ksum, 3, dW); }
        const size_t g[3] = {(size_t)((N + BN - 1) / BN) * threads, (size_t)((M + BM - 1) / BM), (size_t)Se};
        const size_t l[3] = {threads, 1, 1};
        const size_t gs[1] = {rup(MN % 4 == 0 ? MN / 4 : MN, 256)}, ls[1] = {256};
        CHECK(clEnqueueWriteBuffer(q, dC, CL_TRUE, 0, MN * 4, nans, 0, NULL, NULL));
        if (!is_sol) CHECK(clEnqueueWriteBuffer(q, dW, CL_TRUE, 0, wplanes * MN * 4, nans, 0, NULL, NULL));
        for (int r = 0; r < nrun; r++) {
            const int idle = r >= 5 + reps;
            const int mode = idle ? (r - 5 - reps) / idle_reps : 0;
            if (idle && mode >= 2) { // fresh inputs: (-A, -B) or (A, B), uploaded before the idle time
                const int neg = (r - 5 - reps) % 2 == 0;
                CHECK(clEnqueueWriteBuffer(q, dA, CL_TRUE, 0, (size_t)M * K * 4, neg ? An : A, 0, NULL, NULL));
                CHECK(clEnqueueWriteBuffer(q, dB, CL_TRUE, 0, (size_t)K * N * 4, neg ? Bn : B, 0, NULL, NULL));
            }
            if (idle) { CHECK(clFinish(q)); usleep(15000); }
            if (idle && (mode == 1 || mode == 3)) CHECK(clEnqueueNDRangeKernel(q, kwake, 1, NULL, gw, NULL, 0, NULL, NULL));
            CHECK(clEnqueueNDRangeKernel(q, kp, 3, NULL, g, l, 0, NULL, &evp[r]));
            evs[r] = 0;
            if (planes > 0) CHECK(clEnqueueNDRangeKernel(q, ksum, 1, NULL, gs, ls, 0, NULL, &evs[r]));
            if (idle || r == 4) CHECK(clFinish(q));
        }
        CHECK(clFinish(q));
        for (int r = 0; r < nrun; r++) {
            tp[r] = ev_ms(evp[r]);
            tr[r] = evs[r] ? ev_ms(evs[r]) : 0;
            tsum[r] = tp[r] + tr[r];
            tspan[r] = ((evs[r] ? ev_t(evs[r], 1) : ev_t(evp[r], 1)) - ev_t(evp[r], 0)) * 1e-6;
            clReleaseEvent(evp[r]);
            if (evs[r]) clReleaseEvent(evs[r]);
        }
        const double *wp = tp + 5, *wr = tr + 5, *ws = tsum + 5, *wsp = tspan + 5;
        const double *is = tsum + 5 + reps;
        const double msum = median(ws, reps), mspan = median(wsp, reps), midle = median(is, idle_reps);
        // check C
        CHECK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, MN * 4, C, 0, NULL, NULL));
        double emax = 0;
        int nonfinite = 0;
        for (int s = 0; s < ns; s++) {
            const float c = C[(size_t)si[s] * N + sj[s]];
            if (!isfinite(c)) { nonfinite++; continue; }
            const double e = fabs((double)c - ex[s]);
            emax = e > emax ? e : emax;
        }
        // and that no element anywhere is NaN (the poison)
        size_t nan_any = 0;
        for (size_t i = 0; i < MN; i++) nan_any += !isfinite(C[i]);
        const double rel = emax / (exmax > 0 ? exmax : 1);
        const int bad = nonfinite || nan_any || !(rel < 1e-5);
        bad_total += bad;
        printf("RESULT %dx%dx%d | BM=%d BN=%d BK=%d WM=%d WN=%d | %s S=%d KS=%d | prod %.4f sum %.4f "
               "total %.4f (min %.4f) span %.4f idle %.4f ms | TFLOP/s %.2f span %.2f idle %.2f | "
               "err %.2e (%d pts%s) %s\n",
               M, N, K, BM, BN, BK, WM, WN, is_sol ? "solution" : "split", Se, is_sol ? K : KS,
               median(wp, reps), median(wr, reps), msum, minv(ws, reps), mspan, midle,
               flop / msum * 1e-9, flop / mspan * 1e-9, flop / midle * 1e-9, rel, ns,
               full ? ", all" : "", bad ? "FAIL" : "ok");
        if (nonfinite || nan_any) printf("  %d sampled and %zu elements in all not finite\n", nonfinite, nan_any);
        for (int md = 1; md < modes; md++) {
            const double mi = median(is + md * idle_reps, idle_reps);
            printf("  idle %-10s %.4f ms %.2f TFLOP/s (product alone %.4f ms)\n", mname[md], mi,
                   flop / mi * 1e-9, median(tp + 5 + reps + md * idle_reps, idle_reps));
        }
        fflush(stdout);
    }
    return bad_total ? 2 : 0;
}
