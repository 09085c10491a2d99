// Host for the Ozaki scheme II prototype (research/ozaki-12/ozaki2.cl).
//
//   ./host M N K NMOD [mode=uniform|wide] [reps=10] [seed=7] [check=0|1] ["build options"]
//
// Makes A (M x K) and B (K x N) from a counter-based hash (gen.py makes the same matrices),
// runs the pipeline (row_exp, col_exp, a_res, b_res, NMOD x gemm_s8, reconstruct) `reps`
// times after two warm-ups, times every kernel with OpenCL profiling events, and prints
// the median time of the whole multiplication and of each phase, and the error
// max|C - exact| / max|exact| at 4096 sampled (i, j) (exact: float64 sums on the host),
// and when M*N*K is small also over every element. check=1 also reads back the residue
// planes and checks a_res, b_res and every gemm_s8 against the host at the samples.
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

// ---------------------------------------------------------------- inputs (as gen.py)
static const uint64_t GOLD = 0x9E3779B97F4A7C15ULL;
static inline uint64_t mix64(uint64_t z) {
    z ^= z >> 30;
    z *= 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 27;
    z *= 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return z;
}
// stream 0: A, 1: B, 2: A's row exponents (wide), 3: B's column exponents (wide)
static inline uint64_t h(uint64_t seed, uint64_t stream, uint64_t idx) {
    return mix64(seed * GOLD + (idx << 2) + stream);
}
static inline float val(uint64_t z) { return (float)((double)(z >> 40) * 0x1p-23 - 1.0); }
static inline int wexp(uint64_t z) { return (int)(z % 41) - 20; }
static inline void sample(uint64_t seed, int s, int M, int N, int* i, int* j) {
    *i = (int)(mix64((seed * GOLD) ^ 0x5A5A5A5A5A5A5A5AULL ^ (uint64_t)(2 * s)) % (uint64_t)M);
    *j = (int)(mix64((seed * GOLD) ^ 0x5A5A5A5A5A5A5A5AULL ^ (uint64_t)(2 * s + 1)) % (uint64_t)N);
}

// ---------------------------------------------------------------- moduli
static const int MODS_ALL[] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                               223, 217, 211, 199, 197, 193, 191, 181, 179, 173};
static int inv_mod(int a, int m) {
    a %= m;
    for (int x = 1; x < m; x++)
        if ((a * x) % m == 1) return x;
    fprintf(stderr, "no inverse of %d mod %d\n", a, m);
    exit(1);
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

static double ev_ms(cl_event e) {
    cl_ulong a, b;
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    return (b - a) * 1e-6;
}
static cl_ulong ev_t(cl_event e, int end) {
    cl_ulong a;
    CHECK(clGetEventProfilingInfo(e, end ? CL_PROFILING_COMMAND_END : CL_PROFILING_COMMAND_START,
                                  sizeof a, &a, NULL));
    return a;
}
static int cmpd(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}
static double median(double* v, int n) {
    double* w = malloc(n * sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmpd);
    double m = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return m;
}
static size_t rup(size_t x, size_t m) { return (x + m - 1) / m * m; }

#define ARG(k, i, v) CHECK(clSetKernelArg(k, i, sizeof(v), &(v)))

int main(int argc, char** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s M N K NMOD [uniform|wide] [reps] [seed] [check] [opts]\n", argv[0]);
        return 1;
    }
    const int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]), NM = atoi(argv[4]);
    const char* mode = argc > 5 ? argv[5] : "uniform";
    const int reps = argc > 6 ? atoi(argv[6]) : 10;
    const uint64_t seed = argc > 7 ? strtoull(argv[7], 0, 10) : 7;
    const int check = argc > 8 ? atoi(argv[8]) : 0;
    const char* extra = argc > 9 ? argv[9] : "";
    const int wide = strcmp(mode, "wide") == 0;
    const char* src_path = getenv("OZAKI_CL") ? getenv("OZAKI_CL") : "research/ozaki-12/ozaki2.cl";

    // ---- device
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    cl_device_id dev = 0;
    cl_platform_id plat = 0;
    // A GPU first (the device machine also has PoCL's CPU platform), then anything.
    for (int pass = 0; pass < 2 && !dev; pass++)
        for (cl_uint p = 0; p < np && !dev; p++) {
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[p], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1,
                               &dev, &nd) != CL_SUCCESS || nd == 0)
                dev = 0;
            else
                plat = plats[p];
        }
    if (!dev) { fprintf(stderr, "no OpenCL device\n"); return 1; }
    char dname[256] = "", dvendor[256] = "", drv[256] = "", pname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof dvendor, dvendor, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv, drv, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    const int nvidia = strstr(dvendor, "NVIDIA") != NULL;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);

    // ---- moduli, header, program
    if (NM < 2 || NM > 20) { fprintf(stderr, "NMOD in 2..20\n"); return 1; }
    double log2P = 0;
    for (int t = 0; t < NM; t++) log2P += log2((double)MODS_ALL[t]);
    const double L = (log2P - 1.0 - 0.02) / 2.0; // 2^(2L) = 2^-0.02 P/2 < P/2 - 1
    char* hdr = malloc(1 << 16);
    int o = sprintf(hdr, "#define NMOD %d\n#define MMA_PTX %d\n__constant int MODS[%d] = {", NM,
                    nvidia, NM);
    for (int t = 0; t < NM; t++) o += sprintf(hdr + o, "%d%s", MODS_ALL[t], t + 1 < NM ? ", " : "};\n");
    o += sprintf(hdr + o, "__constant int INVS[%d] = {", NM * NM);
    for (int j = 0; j < NM; j++)
        for (int k = 0; k < NM; k++)
            o += sprintf(hdr + o, "%d%s", j < k ? inv_mod(MODS_ALL[j], MODS_ALL[k]) : 0,
                         j * NM + k + 1 < NM * NM ? ", " : "};\n");
    // Call 8: the moduli and Garner's closed-form constants as ?: chains (compile-time in
    // unrolled loops): PM(t), GC(k) = (p_0..p_{k-1})^-1 mod p_k, GG(q, k) = (p_0..p_{q-1}) GC(k)
    // mod p_k.
    o += sprintf(hdr + o, "#define PM(t) (");
    for (int t = 0; t < NM; t++) o += sprintf(hdr + o, "(t) == %d ? %d : ", t, MODS_ALL[t]);
    o += sprintf(hdr + o, "0)\n#define GC(k) (");
    for (int k = 0; k < NM; k++) {
        int w = 1;
        for (int r = 0; r < k; r++) w = (w * (MODS_ALL[r] % MODS_ALL[k])) % MODS_ALL[k];
        o += sprintf(hdr + o, "(k) == %d ? %d : ", k, k == 0 ? 1 : inv_mod(w, MODS_ALL[k]));
    }
    o += sprintf(hdr + o, "0)\n#define GG(q, k) (");
    for (int k = 1; k < NM; k++) {
        int wk = 1;
        for (int r = 0; r < k; r++) wk = (wk * (MODS_ALL[r] % MODS_ALL[k])) % MODS_ALL[k];
        const int ck = inv_mod(wk, MODS_ALL[k]);
        for (int q = 0; q < k; q++) {
            int w = 1;
            for (int r = 0; r < q; r++) w = (w * (MODS_ALL[r] % MODS_ALL[k])) % MODS_ALL[k];
            o += sprintf(hdr + o, "((q) == %d && (k) == %d) ? %d : ", q, k, (w * ck) % MODS_ALL[k]);
        }
    }
    o += sprintf(hdr + o, "0)\n");
    char* body = read_file(src_path);
    const char* srcs[2] = {hdr, body};
    cl_program prog = clCreateProgramWithSource(ctx, 2, srcs, NULL, &err);
    CHECK(err);
    char opts[1024];
    snprintf(opts, sizeof opts, "%s %s", nvidia ? "-cl-nv-verbose" : "", extra);
    cl_int berr = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
    {
        size_t n = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char* log = malloc(n + 1);
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
        log[n] = 0;
        if (berr != CL_SUCCESS || getenv("OZAKI_LOG")) fprintf(stderr, "build log (%s):\n%s\n", opts, log);
        free(log);
    }
    CHECK(berr);
    if (getenv("OZAKI_PTX")) { // the program's binary (PTX on NVIDIA), for prof/drv.cu under ncu
        size_t bsz = 0;
        CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL));
        unsigned char* bin = malloc(bsz + 1);
        unsigned char* bins[1] = {bin};
        CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
        FILE* fp = fopen(getenv("OZAKI_PTX"), "wb");
        if (fp) { fwrite(bin, 1, bsz, fp); fclose(fp); }
        free(bin);
    }
    cl_kernel k_row = clCreateKernel(prog, "row_exp", &err); CHECK(err);
    cl_kernel k_col = clCreateKernel(prog, "col_exp", &err); CHECK(err);
    cl_kernel k_ares = clCreateKernel(prog, "a_res", &err); CHECK(err);
    cl_kernel k_bres = clCreateKernel(prog, "b_res", &err); CHECK(err);
    cl_kernel k_gemm = clCreateKernel(prog, "gemm_s8", &err); CHECK(err);
    cl_kernel k_rec = clCreateKernel(prog, "reconstruct", &err); CHECK(err);
    // CONV=1: a_conv + col_exp + b_conv (call 8); CONV=2: a_conv + col_part + col_fin + b_conv
    const int conv2 = strstr(extra, "-D CONV=2") != NULL;
    const int conv = conv2 || strstr(extra, "-D CONV=1") != NULL;
    const int batch = strstr(extra, "-D BATCH=1") != NULL; // one gemm_s8 launch, grid z = modulus
    cl_kernel k_aconv = 0, k_bconv = 0, k_cpart = 0, k_cfin = 0;
    if (conv2) {
        k_cpart = clCreateKernel(prog, "col_part", &err); CHECK(err);
        k_cfin = clCreateKernel(prog, "col_fin", &err); CHECK(err);
    }
    if (conv) {
        k_aconv = clCreateKernel(prog, "a_conv", &err); CHECK(err);
        k_bconv = clCreateKernel(prog, "b_conv", &err); CHECK(err);
    }

    // Block shape as the kernel was built (parsed from the options; defaults as in the .cl).
    int BMv = 128, BNv = 128, WMv = 64, WNv = 32;
    { const char* s;
      if ((s = strstr(extra, "-D BM="))) BMv = atoi(s + 6);
      if ((s = strstr(extra, "-D BN="))) BNv = atoi(s + 6);
      if ((s = strstr(extra, "-D WM="))) WMv = atoi(s + 6);
      if ((s = strstr(extra, "-D WN="))) WNv = atoi(s + 6); }
    const int rec4 = strstr(extra, "-D REC4=1") || strstr(extra, "-D REC4=2") ||
                     strstr(extra, "-D REC4=3"); // 4 columns per work-item
    const size_t threads = 32 * (BMv / WMv) * (BNv / WNv);
    int BKv = 64;
    { const char* s; if ((s = strstr(extra, "-D BK="))) BKv = atoi(s + 6); }
    const int rnd = strstr(extra, "-D RND=1") != NULL; // rint instead of trunc (call 9)
    // (call 9: K padded to the k-step when that is more than 64 bytes, for BK=128)
    const int Mp = (int)rup(M, BMv), Np = (int)rup(N, BNv), Kp = (int)rup(K, BKv > 64 ? BKv : 64);
    // the exponents' target: 2^L, or with rounding 2^L - sqrt(K)/2 (see ozaki2.cl, RND)
    const double Lk = rnd ? log2(exp2(L) - 0.5 * sqrt((double)K)) : L;

    // ---- inputs
    float* A = malloc((size_t)M * K * sizeof(float));
    float* B = malloc((size_t)K * N * sizeof(float));
    for (size_t i = 0; i < (size_t)M; i++) {
        const float sc = wide ? ldexpf(1.0f, wexp(h(seed, 2, i))) : 1.0f;
        for (size_t k = 0; k < (size_t)K; k++) A[i * K + k] = val(h(seed, 0, i * K + k)) * sc;
    }
    float* colsc = malloc(N * sizeof(float));
    for (int j = 0; j < N; j++) colsc[j] = wide ? ldexpf(1.0f, wexp(h(seed, 3, j))) : 1.0f;
    for (size_t k = 0; k < (size_t)K; k++)
        for (size_t j = 0; j < (size_t)N; j++) B[k * N + j] = val(h(seed, 1, k * N + j)) * colsc[j];

    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)M * K * 4, NULL, &err); CHECK(err);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)K * N * 4, NULL, &err); CHECK(err);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)M * N * 4, NULL, &err); CHECK(err);
    cl_mem de = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)Mp * 4, NULL, &err); CHECK(err);
    cl_mem df = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)Np * 4, NULL, &err); CHECK(err);
    cl_mem dRA = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)NM * Mp * Kp, NULL, &err); CHECK(err);
    cl_mem dRB = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)NM * Np * Kp, NULL, &err); CHECK(err);
    cl_mem dRC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)NM * Mp * Np, NULL, &err); CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, dA, CL_TRUE, 0, (size_t)M * K * 4, A, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, dB, CL_TRUE, 0, (size_t)K * N * 4, B, 0, NULL, NULL));

    // ---- kernel arguments
    ARG(k_row, 0, dA); ARG(k_row, 1, M); ARG(k_row, 2, K); ARG(k_row, 3, Lk); ARG(k_row, 4, de);
    ARG(k_col, 0, dB); ARG(k_col, 1, K); ARG(k_col, 2, N); ARG(k_col, 3, Lk); ARG(k_col, 4, df);
    ARG(k_ares, 0, dA); ARG(k_ares, 1, M); ARG(k_ares, 2, K); ARG(k_ares, 3, de);
    ARG(k_ares, 4, dRA); ARG(k_ares, 5, Mp); ARG(k_ares, 6, Kp);
    ARG(k_bres, 0, dB); ARG(k_bres, 1, K); ARG(k_bres, 2, N); ARG(k_bres, 3, df);
    ARG(k_bres, 4, dRB); ARG(k_bres, 5, Np); ARG(k_bres, 6, Kp);
    ARG(k_gemm, 0, dRA); ARG(k_gemm, 1, dRB); ARG(k_gemm, 2, dRC);
    ARG(k_gemm, 6, Kp); ARG(k_gemm, 7, Np);
    if (strstr(extra, "-D GROUPM=")) ARG(k_gemm, 9, Mp); // GROUPM's kernel takes Mp
    if (conv) {
        ARG(k_aconv, 0, dA); ARG(k_aconv, 1, M); ARG(k_aconv, 2, K); ARG(k_aconv, 3, Lk);
        ARG(k_aconv, 4, de); ARG(k_aconv, 5, dRA); ARG(k_aconv, 6, Mp); ARG(k_aconv, 7, Kp);
        ARG(k_bconv, 0, dB); ARG(k_bconv, 1, K); ARG(k_bconv, 2, N); ARG(k_bconv, 3, df);
        ARG(k_bconv, 4, dRB); ARG(k_bconv, 5, Np); ARG(k_bconv, 6, Kp);
    }
    const int nslice = (K + 255) / 256;
    cl_mem dPart = 0;
    if (conv2) {
        dPart = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)nslice * Np * 8, NULL, &err); CHECK(err);
        ARG(k_cpart, 0, dB); ARG(k_cpart, 1, K); ARG(k_cpart, 2, N); ARG(k_cpart, 3, Np);
        ARG(k_cpart, 4, dPart);
        ARG(k_cfin, 0, dPart); ARG(k_cfin, 1, nslice); ARG(k_cfin, 2, N); ARG(k_cfin, 3, Np);
        ARG(k_cfin, 4, Lk); ARG(k_cfin, 5, df);
    }
    if (batch) { // plane sizes; p unused
        const cl_ulong aoff = (cl_ulong)Mp * Kp, boff = (cl_ulong)Np * Kp, coff = (cl_ulong)Mp * Np;
        const int p0 = 0;
        ARG(k_gemm, 3, aoff); ARG(k_gemm, 4, boff); ARG(k_gemm, 5, coff); ARG(k_gemm, 8, p0);
    }
    ARG(k_rec, 0, dRC); ARG(k_rec, 1, Mp); ARG(k_rec, 2, Np); ARG(k_rec, 3, de);
    ARG(k_rec, 4, df); ARG(k_rec, 5, dC); ARG(k_rec, 6, M); ARG(k_rec, 7, N);

    const size_t g_row[1] = {(size_t)M * 256}, l_row[1] = {256};
    const size_t g_col[2] = {rup(N, 32), 8}, l_col[2] = {32, 8};
    const size_t g_ares[2] = {(size_t)Kp / 4, (size_t)Mp}, l_ares[2] = {16, 16};
    const size_t g_bres[2] = {(size_t)Np, (size_t)Kp / 64 * 8}, l_bres[2] = {32, 8};
    const size_t g_gemm[3] = {(size_t)(Np / BNv) * threads, (size_t)(Mp / BMv), (size_t)NM},
                 l_gemm[3] = {threads, 1, 1};
    const size_t g_aconv[1] = {(size_t)Mp * 256}, l_aconv[1] = {256};
    const size_t g_cpart[2] = {rup(N, 32), (size_t)nslice * 8}, l_cpart[2] = {32, 8};
    const size_t g_cfin[1] = {rup(N, 128)}, l_cfin[1] = {128};
    const size_t g_rec[2] = {rec4 ? rup((N + 3) / 4, 128) : rup(N, 128), (size_t)M},
                 l_rec[2] = {128, 1};

    // Events: name index and category (0 scaling, 1 residues, 2 GEMM, 3 reconstruct) each.
    enum { K_ROW, K_COL, K_ARES, K_BRES, K_ACONV, K_BCONV, K_GEMM, K_REC, K_CPART, K_CFIN, NKN };
    static const char* kname[NKN] = {"row_exp", "col_exp", "a_res", "b_res", "a_conv", "b_conv",
                                     "gemm_s8", "reconstruct", "col_part", "col_fin"};
    static const int kcat[NKN] = {0, 0, 1, 1, 1, 1, 2, 3, 0, 0};
    const int nev_max = 8 + NM;
    cl_event* ev = malloc(nev_max * sizeof(cl_event));
    int* evk = malloc(nev_max * sizeof(int));
    const int total_runs = 2 + reps;
    double* t_total = malloc(total_runs * sizeof(double));
    double* t_cat = calloc(4 * total_runs, sizeof(double));
    double* t_kern = calloc(NKN * total_runs, sizeof(double));
    double* t_gemm1 = malloc(total_runs * NM * sizeof(double));
    int n_g1 = 0;
    for (int r = 0; r < total_runs; r++) {
        int ne = 0;
#define ENQ(kern, id, dim, g, l)                                                              \
        do {                                                                                  \
            evk[ne] = (id);                                                                   \
            CHECK(clEnqueueNDRangeKernel(q, kern, dim, NULL, g, l, 0, NULL, &ev[ne]));       \
            ne++;                                                                             \
        } while (0)
        if (conv) {
            ENQ(k_aconv, K_ACONV, 1, g_aconv, l_aconv);
            if (conv2) {
                ENQ(k_cpart, K_CPART, 2, g_cpart, l_cpart);
                ENQ(k_cfin, K_CFIN, 1, g_cfin, l_cfin);
            } else
                ENQ(k_col, K_COL, 2, g_col, l_col);
            ENQ(k_bconv, K_BCONV, 2, g_bres, l_bres);
        } else {
            ENQ(k_row, K_ROW, 1, g_row, l_row);
            ENQ(k_col, K_COL, 2, g_col, l_col);
            ENQ(k_ares, K_ARES, 2, g_ares, l_ares);
            ENQ(k_bres, K_BRES, 2, g_bres, l_bres);
        }
        if (batch) {
            ENQ(k_gemm, K_GEMM, 3, g_gemm, l_gemm);
        } else {
            for (int t = 0; t < NM; t++) {
                const cl_ulong aoff = (cl_ulong)t * Mp * Kp, boff = (cl_ulong)t * Np * Kp,
                               coff = (cl_ulong)t * Mp * Np;
                const int p = MODS_ALL[t];
                ARG(k_gemm, 3, aoff); ARG(k_gemm, 4, boff); ARG(k_gemm, 5, coff); ARG(k_gemm, 8, p);
                ENQ(k_gemm, K_GEMM, 2, g_gemm, l_gemm);
            }
        }
        ENQ(k_rec, K_REC, 2, g_rec, l_rec);
        CHECK(clFinish(q));
        t_total[r] = (ev_t(ev[ne - 1], 1) - ev_t(ev[0], 0)) * 1e-6;
        for (int e = 0; e < ne; e++) {
            const double m = ev_ms(ev[e]);
            t_cat[kcat[evk[e]] * total_runs + r] += m;
            t_kern[evk[e] * total_runs + r] += m;
            if (evk[e] == K_GEMM && r >= 2) t_gemm1[n_g1++] = batch ? m / NM : m;
            clReleaseEvent(ev[e]);
        }
    }
    const double mt = median(t_total + 2, reps), ms = median(t_cat + 0 * total_runs + 2, reps),
                 mr = median(t_cat + 1 * total_runs + 2, reps),
                 mg = median(t_cat + 2 * total_runs + 2, reps),
                 mrec = median(t_cat + 3 * total_runs + 2, reps), mg1 = median(t_gemm1, n_g1);
    const double flop = 2.0 * M * N * K;

    // ---- errors
    float* C = malloc((size_t)M * N * 4);
    CHECK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, (size_t)M * N * 4, C, 0, NULL, NULL));
    const int S = 4096;
    int* si = malloc(S * sizeof(int));
    int* sj = malloc(S * sizeof(int));
    double maxerr = 0, maxex = 0, cwise = 0;
    int nonfinite = 0;
    for (int s = 0; s < S; s++) {
        int i, j;
        sample(seed, s, M, N, &i, &j);
        si[s] = i; sj[s] = j;
        double ex = 0, ab = 0;
        for (int k = 0; k < K; k++) {
            const double p = (double)A[(size_t)i * K + k] * (double)B[(size_t)k * N + j];
            ex += p;
            ab += fabs(p);
        }
        const double c = C[(size_t)i * N + j];
        if (!isfinite(c)) nonfinite++;
        const double d = fabs(c - ex);
        if (d > maxerr) maxerr = d;
        if (fabs(ex) > maxex) maxex = fabs(ex);
        if (ab > 0 && d / ab > cwise) cwise = d / ab;
    }
    if (getenv("OZAKI_DUMP")) { // C as raw float32 (M x N), for fullerr.py (call 9)
        FILE* fp = fopen(getenv("OZAKI_DUMP"), "wb");
        if (fp) { fwrite(C, 4, (size_t)M * N, fp); fclose(fp); }
    }
    double full_rel = -1;
    if ((double)M * N * K <= 6e8) {
        double me = 0, mx = 0;
        double* row = malloc(N * sizeof(double));
        for (int i = 0; i < M; i++) {
            for (int j = 0; j < N; j++) row[j] = 0;
            for (int k = 0; k < K; k++) {
                const double a = A[(size_t)i * K + k];
                const float* b = B + (size_t)k * N;
                for (int j = 0; j < N; j++) row[j] += a * (double)b[j];
            }
            for (int j = 0; j < N; j++) {
                const double d = fabs((double)C[(size_t)i * N + j] - row[j]);
                if (!(d <= me)) me = d; // NaN counts
                if (fabs(row[j]) > mx) mx = fabs(row[j]);
            }
        }
        full_rel = me / mx;
        free(row);
    }

    // ---- residue checks (check=1)
    long bad_a = -1, bad_b = -1, bad_c = -1;
    if (check) {
        int* e = malloc(Mp * 4);
        int* f = malloc(Np * 4);
        signed char* RA = malloc((size_t)NM * Mp * Kp);
        signed char* RB = malloc((size_t)NM * Np * Kp);
        unsigned char* RC = malloc((size_t)NM * Mp * Np);
        CHECK(clEnqueueReadBuffer(q, de, CL_TRUE, 0, (size_t)M * 4, e, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(q, df, CL_TRUE, 0, (size_t)N * 4, f, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(q, dRA, CL_TRUE, 0, (size_t)NM * Mp * Kp, RA, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(q, dRB, CL_TRUE, 0, (size_t)NM * Np * Kp, RB, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(q, dRC, CL_TRUE, 0, (size_t)NM * Mp * Np, RC, 0, NULL, NULL));
        bad_a = bad_b = bad_c = 0;
        for (int s = 0; s < S; s++) {
            const int i = si[s], j = sj[s];
            for (int t = 0; t < NM; t++) {
                const int p = MODS_ALL[t];
                long long acc = 0;
                for (int k = 0; k < Kp; k++) {
                    double xa = k < K ? ldexp((double)A[(size_t)i * K + k], e[i]) : 0;
                    double xb = k < K ? ldexp((double)B[(size_t)k * N + j], f[j]) : 0;
                    xa = rnd ? nearbyint(xa) : trunc(xa);
                    xb = rnd ? nearbyint(xb) : trunc(xb);
                    long long ra = (long long)fmod(xa, p), rb = (long long)fmod(xb, p);
                    if (ra < 0) ra += p;
                    if (rb < 0) rb += p;
                    if (ra > (p - 1) / 2) ra -= p;
                    if (rb > (p - 1) / 2) rb -= p;
                    const int ga = RA[(size_t)t * Mp * Kp + (size_t)i * Kp + k];
                    const int gb = RB[(size_t)t * Np * Kp + (size_t)j * Kp + k];
                    if (ga != ra) bad_a++;
                    if (gb != rb) bad_b++;
                    acc += (long long)ga * gb;
                }
                long long c = acc % p;
                if (c < 0) c += p;
                if (RC[(size_t)t * Mp * Np + (size_t)i * Np + j] != c) bad_c++;
            }
        }
        free(e); free(f); free(RA); free(RB); free(RC);
    }

    printf("DEVICE,%s,%s,%s\n", dname, drv, pname);
    printf("RESULT,M=%d,N=%d,K=%d,nmod=%d,mode=%s,opts=\"%s\",total_ms=%.4f,tflops=%.2f,"
           "scale_ms=%.4f,res_ms=%.4f,gemm_ms=%.4f,rec_ms=%.4f,gemm1_ms=%.4f,gemm_tops=%.1f,"
           "err_samples=%.3e,err_full=%.3e,cwise=%.3e,nonfinite=%d,log2P=%.2f,L=%.3f",
           M, N, K, NM, mode, extra, mt, flop / mt * 1e-9, ms, mr, mg, mrec, mg1,
           flop / mg1 * 1e-9, maxerr / maxex, full_rel, cwise, nonfinite, log2P, L);
    if (check) printf(",bad_ares=%ld,bad_bres=%ld,bad_gemm=%ld", bad_a, bad_b, bad_c);
    printf("\n");
    printf("KERN");
    for (int kn = 0; kn < NKN; kn++) {
        double any = 0;
        for (int r = 2; r < total_runs; r++) any += t_kern[kn * total_runs + r];
        if (any > 0) printf(",%s=%.4f", kname[kn], median(t_kern + kn * total_runs + 2, reps));
    }
    printf("\n");
    fflush(stdout);
    return 0;
}
