// research/wgmma-shapes-11/wgs.c: the wgmma 3xTF32 GEMM (wgs.cl) and lesson 11's solution kernel at
// any M×N×K, fresh inputs for every timed call, checked against float64. Build machinery (the
// three build modes; mode 2 is the only one that takes wgmma) copied from research/wgmma-11/host.c.
//
//   ./wgs run M N K reps full TOKEN...
//
// TOKEN: `sol|-D ...` (solutions/11_matrix_units.cl after lessons/11_matrix_units/mma.cl, default
// -D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4, the token's defines after them) or
// `w|-D ...` (wgs.cl). For `w` the host reads -D PAD=1 (pad A to K rounded up to 32 and B to that
// many rows of N rounded up to 4, on the device, on every call, counted in its time; C is not
// padded), -D SPLITK=s (C zeroed by a fill, then s parts of K add into it, counted in the time),
// and adds -D KG and -D AL4 from the shape: AL4=1 when unpadded and K or N is not a multiple of 4,
// KG=1 when the summed K is not a multiple of BK (32 unless -D BK=...).
// Inputs: A and B as research/perf-11 (hash of seed 7, uniform in [-1, 1)), uploaded once; a pool
// of P copies of the pair on the device (P = min(max(3, 160 MB / pair + 1), 16), as
// research/peers-11/scripts/peers_shapes.py), so that copies differ in address (the L2 holds 50 MB).
// Timing: OpenCL profiling events; one call = its commands (fill, pads, kernel), from the first's
// start to the last's end; clFinish after every call (as the peers' CUDA events synchronise).
// `fresh`: call i reads pool pair i % P; `warm`: pair 0 every call; medians of `reps` each.
// Check: C poisoned with NaN (zeroed for a split K), one call on pair 0, max |C - exact| /
// max |exact| over 4096 sampled elements (rows M-1 and columns N-1 among them; every element with
// full=1), exact in float64; every element of C must be finite.
// Environment: WG_DIR (kernel folder), L11_MMA, L11_SOL, WG_PTX, WG_CSV (append one line per
// token: m,n,k,impl,opts,fresh_ms,fresh_tflops,warm_ms,warm_tflops,max_rel_err,ok).
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
cl_int clEnqueueFillBuffer(cl_command_queue, cl_mem, const void*, size_t, size_t, size_t, cl_uint,
                           const cl_event*, cl_event*);
cl_int clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                           const cl_event*, cl_event*);
cl_int clReleaseKernel(cl_kernel);
cl_int clReleaseProgram(cl_program);
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
cl_program clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id*, const size_t*,
                                     const unsigned char**, cl_int*, cl_int*);
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
    const char *s = NULL, *f = d;
    while ((f = strstr(f, key))) s = f++; // the last one: a token's own options come later
    return s ? atoi(s + strlen(key)) : dflt;
}



static int nvidia = 0, ccmaj = 0;
static int wg_mode = -1; // the build mode that worked first (or WG_MODE)
static const char* ptx_dir = NULL;
static int nbuild = 0;

static char* get_log(cl_program p, cl_device_id dev) {
    size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char* log = malloc(n + 1);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    log[n] = 0;
    return log;
}
static void print_log(const char* label, const char* log, int all) {
    char* s = strdup(log);
    int lines = 0;
    for (char* l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
        if (all || strstr(l, "ptxas") || strstr(l, "rror") || strstr(l, "arning")) {
            if (++lines > 80) { printf("#   [%s] ... (log cut)\n", label); break; }
            printf("#   [%s] %s\n", label, l);
        }
    }
    free(s);
}
static char* get_ptx(cl_program p, size_t* len) {
    size_t bsz = 0;
    CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsz, &bsz, NULL));
    unsigned char* bin = malloc(bsz + 1);
    unsigned char* bins[1] = {bin};
    CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
    bin[bsz] = 0;
    // drop NULs
    size_t j = 0;
    for (size_t i = 0; i < bsz; i++) if (bin[i]) bin[j++] = bin[i];
    bin[j] = 0;
    *len = j;
    return (char*)bin;
}
static void save(const char* label, const char* suffix, const char* text) {
    if (!ptx_dir) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%02d-%s%s", ptx_dir, nbuild, label, suffix);
    FILE* fp = fopen(path, "wb");
    if (fp) { fputs(text, fp); fclose(fp); }
}
// Replaces every occurrence of `from` by `to` (a new string).
static char* replace_all(const char* s, const char* from, const char* to) {
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char* p = s; (p = strstr(p, from)); p += lf) n++;
    char* out = malloc(strlen(s) + n * (lt > lf ? lt - lf : 0) + 1);
    char* o = out;
    const char* p = s;
    for (const char* q; (q = strstr(p, from)); p = q + lf) {
        memcpy(o, p, q - p); o += q - p;
        memcpy(o, to, lt); o += lt;
    }
    strcpy(o, p);
    return out;
}

// One build attempt in mode m; NULL on failure (its log printed).
static cl_program try_build(cl_context ctx, cl_device_id dev, const char** srcs, int ns,
                            const char* opts, const char* label, int m) {
    cl_int err;
    char o2[2048];
    snprintf(o2, sizeof o2, "%s%s%s%s", opts, m == 1 ? " -cl-nv-arch sm_90a" : "",
             m == 2 ? " -D WG_STUB=1" : "", nvidia ? " -cl-nv-verbose" : "");
    cl_program p = clCreateProgramWithSource(ctx, ns, srcs, NULL, &err);
    CHECK(err);
    cl_int berr = clBuildProgram(p, 1, &dev, o2, NULL, NULL);
    char* log = get_log(p, dev);
    printf("# build %s mode %d (%s): %s\n", label, m, o2, berr == CL_SUCCESS ? "ok" : "FAILED");
    if (berr != CL_SUCCESS) {
        printf("#   error %d; build log:\n", berr);
        print_log(label, log, 1);
        free(log);
        clReleaseProgram(p);
        return NULL;
    }
    if (m != 2) print_log(label, log, !strncmp(label, "test", 4));
    free(log);
    size_t len = 0;
    char* ptx = get_ptx(p, &len);
    if (m != 2) { save(label, ".ptx", ptx); free(ptx); return p; }
    // mode 2: uncomment the wgmma lines, target sm_90a, PTX ISA >= 8.0, build from the PTX
    clReleaseProgram(p);
    int nstub = 0;
    for (const char* q = ptx; (q = strstr(q, "//WGX ")); q++) nstub++;
    char* a = replace_all(ptx, "//WGX ", "");
    char* b = replace_all(a, ".target sm_90\n", ".target sm_90a\n");
    char* c = replace_all(b, ".target sm_90,", ".target sm_90a,");
    char* v = strstr(c, ".version ");
    char vers[32] = "?";
    if (v) {
        int X = 0, Y = 0;
        sscanf(v + 9, "%d.%d", &X, &Y);
        snprintf(vers, sizeof vers, "%d.%d", X, Y);
        if (X < 8) { v[9] = '8'; v[10] = '.'; v[11] = '0'; } // same length: "7.x" -> "8.0"
    }
    const char* tg = strstr(c, ".target");
    char tline[64] = "";
    if (tg) { int k = 0; while (tg[k] && tg[k] != '\n' && k < 63) { tline[k] = tg[k]; k++; } tline[k] = 0; }
    printf("#   PTX from the stub build: %zu bytes, %d stub lines uncommented, .version %s, now '%s'\n",
           len, nstub, vers, tline);
    save(label, ".patched.ptx", c);
    size_t clen = strlen(c);
    const unsigned char* bin = (const unsigned char*)c;
    cl_int st;
    cl_program p2 = clCreateProgramWithBinary(ctx, 1, &dev, &clen, &bin, &st, &err);
    if (err != CL_SUCCESS) {
        printf("#   clCreateProgramWithBinary: error %d (status %d)\n", err, st);
        return NULL;
    }
    berr = clBuildProgram(p2, 1, &dev, nvidia ? "-cl-nv-verbose" : "", NULL, NULL);
    log = get_log(p2, dev);
    printf("#   build of the patched PTX: %s\n", berr == CL_SUCCESS ? "ok" : "FAILED");
    print_log(label, log, berr != CL_SUCCESS || !strncmp(label, "test", 4));
    free(log);
    free(ptx); free(a); free(b); free(c);
    if (berr != CL_SUCCESS) { clReleaseProgram(p2); return NULL; }
    return p2;
}
static cl_program build(cl_context ctx, cl_device_id dev, const char** srcs, int ns,
                        const char* opts, const char* label, int need_wg) {
    nbuild++;
    if (!need_wg) {
        cl_program p = try_build(ctx, dev, srcs, ns, opts, label, 0);
        if (!p) exit(1);
        return p;
    }
    if (wg_mode >= 0) {
        cl_program p = try_build(ctx, dev, srcs, ns, opts, label, wg_mode);
        if (p) return p;
        printf("# build mode %d failed for %s\n", wg_mode, label);
        return NULL;
    }
    for (int m = 0; m < 3; m++) {
        cl_program p = try_build(ctx, dev, srcs, ns, opts, label, m);
        if (p) { wg_mode = m; printf("# => build mode %d works (%s)\n", m, label); return p; }
    }
    return NULL;
}

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static cl_uint cus = 0;
static const char *wg_dir, *mma_src, *wgmma_src;
static char pre[160];

static char* path_in(const char* dir, const char* name) {
    static char buf[4][1024];
    static int k = 0;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}


// ---------------------------------------------------------------- programs, built once each
#define MAXP 64
static struct { char key[1200]; cl_program p; } progs[MAXP];
static int nprogs = 0;
static char *sol_src, *wgs_src;
static cl_program get_prog(int is_sol, const char* opts, const char* label) {
    char key[1200];
    snprintf(key, sizeof key, "%d|%s", is_sol, opts);
    for (int i = 0; i < nprogs; i++) if (!strcmp(progs[i].key, key)) return progs[i].p;
    cl_program p;
    if (is_sol) {
        const char* srcs[4] = {pre, mma_src, "\n#line 1\n", sol_src};
        p = build(ctx, dev, srcs, 4, opts, label, 0);
    } else {
        const char* srcs[5] = {pre, mma_src, wgmma_src, "\n#line 1\n", wgs_src};
        p = build(ctx, dev, srcs, 5, opts, label, 1);
    }
    if (nprogs < MAXP) { snprintf(progs[nprogs].key, sizeof progs[nprogs].key, "%s", key); progs[nprogs++].p = p; }
    return p;
}

// ---------------------------------------------------------------- run
static int cmd_run(int argc, char** argv) {
    if (argc < 8) { fprintf(stderr, "run M N K reps full TOKEN...\n"); return 1; }
    const int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
    const int reps = atoi(argv[5]), full = atoi(argv[6]);
    const uint64_t seed = 7;
    const char* csv = getenv("WG_CSV");
    const size_t MK = (size_t)M * K, KN = (size_t)K * N, MN = (size_t)M * N;
    float* A = malloc(MK * 4);
    float* B = malloc(KN * 4);
    float* C = malloc(MN * 4);
    for (size_t i = 0; i < MK; i++) A[i] = val(seed, 0, i);
    for (size_t i = 0; i < KN; i++) B[i] = val(seed, 1, i);
    const int ns = full ? (int)MN : 4096;
    int* si = malloc(ns * sizeof(int));
    int* sj = malloc(ns * sizeof(int));
    double* ex = calloc(ns, sizeof(double));
    for (int s = 0; s < ns; s++) {
        if (full) { si[s] = s / N; sj[s] = s % N; }
        else {
            si[s] = s < 64 ? M - 1 : s < 128 ? (int)(mix64(s) % M) : (int)(mix64(seed * GOLD ^ (2 * s)) % M);
            sj[s] = s < 64 ? (int)(mix64(s + 99) % N) : s < 128 ? N - 1 : (int)(mix64(seed * GOLD ^ (2 * s + 1)) % N);
        }
    }
    // k outermost: B's row k is read once, A's sampled rows stay in cache.
    for (int k = 0; k < K; k++) {
        const float* brow = B + (size_t)k * N;
        for (int s = 0; s < ns; s++) ex[s] += (double)A[(size_t)si[s] * K + k] * (double)brow[sj[s]];
    }
    double exmax = 0;
    for (int s = 0; s < ns; s++) exmax = fabs(ex[s]) > exmax ? fabs(ex[s]) : exmax;
    cl_int err;
    const size_t pair = (MK + KN) * 4;
    int P = (int)((160u << 20) / pair) + 1;
    P = P < 3 ? 3 : P > 16 ? 16 : P;
    cl_mem dA[16], dB[16];
    for (int i = 0; i < P; i++) {
        dA[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, MK * 4, NULL, &err); CHECK(err);
        dB[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, KN * 4, NULL, &err); CHECK(err);
    }
    CHECK(clEnqueueWriteBuffer(q, dA[0], CL_TRUE, 0, MK * 4, A, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, dB[0], CL_TRUE, 0, KN * 4, B, 0, NULL, NULL));
    for (int i = 1; i < P; i++) {
        CHECK(clEnqueueCopyBuffer(q, dA[0], dA[i], 0, 0, MK * 4, 0, NULL, NULL));
        CHECK(clEnqueueCopyBuffer(q, dB[0], dB[i], 0, 0, KN * 4, 0, NULL, NULL));
    }
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, MN * 4, NULL, &err); CHECK(err);
    // Padded copies (K rounded up to 32, N to 4), made on every call of a PAD token.
    const int Kp = (int)rup(K, 32), Np = (int)rup(N, 4);
    cl_mem dAp = NULL, dBp = NULL;
    CHECK(clFinish(q));
    const float nanv = NAN, zero = 0.0f;
    const double flop = 2.0 * M * N * (double)K;
    printf("# shape %dx%dx%d: pool of %d input pairs (%.1f MB each)\n", M, N, K, P, pair / 1e6);
    int bad_total = 0;
    double* tf = malloc(reps * 8);
    double* tw = malloc(reps * 8);
    for (int ti = 7; ti < argc; ti++) {
        const char* tok = argv[ti];
        const int is_sol = !strncmp(tok, "sol", 3);
        if (!is_sol && tok[0] != 'w') { fprintf(stderr, "bad token %s\n", tok); return 1; }
        const char* extra = strchr(tok, '|') ? strchr(tok, '|') + 1 : "";
        char opts[1024], label[64];
        size_t g[3], l[3] = {0, 1, 1};
        int padm = 0, split = 1, ks = K;
        snprintf(label, sizeof label, "%s-%dx%dx%d", is_sol ? "sol" : "w", M, N, K);
        if (is_sol) {
            snprintf(opts, sizeof opts, "-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4 %s", extra);
            const int BMb = defv(opts, "BM", 64), BNb = defv(opts, "BN", 64);
            l[0] = 32 * (BMb / defv(opts, "WM", 32)) * (BNb / defv(opts, "WN", 32));
            g[0] = (size_t)((N + BNb - 1) / BNb) * l[0]; g[1] = (M + BMb - 1) / BMb; g[2] = 1;
        } else {
            padm = defv(extra, "PAD", 0);
            split = defv(extra, "SPLITK", 1);
            const int Ke = padm ? Kp : K, BKs = defv(extra, "BK", 32);
            ks = (int)rup((Ke + split - 1) / split, BKs);
            const int kg = Ke % BKs != 0; // then only the last part's last step is ragged
            const int al4 = !padm && (K % 4 || N % 4);
            snprintf(opts, sizeof opts, "%s -D KG=%d -D AL4=%d", extra, kg, al4);
            const int BMb = defv(opts, "BM", 128), WGS = defv(opts, "WGS", 2);
            l[0] = 128 * WGS;
            g[0] = (size_t)((N + 64 * WGS - 1) / (64 * WGS)) * l[0]; g[1] = (M + BMb - 1) / BMb; g[2] = split;
            if (padm && !dAp) {
                dAp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)M * Kp * 4, NULL, &err); CHECK(err);
                dBp = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)Kp * Np * 4, NULL, &err); CHECK(err);
            }
        }
        cl_program p = get_prog(is_sol, opts, label);
        if (!p) { printf("RESULT %dx%dx%d | %s | not built\n", M, N, K, tok); bad_total++; continue; }
        cl_kernel kp = clCreateKernel(p, "matmul", &err); CHECK(err);
        cl_kernel kpad = NULL;
        if (padm) { kpad = clCreateKernel(p, "pad", &err); CHECK(err); }
        const int Ke = padm ? Kp : K, lda = padm ? Kp : K, ldb = padm ? Np : N;
        // One call on pool pair i: its commands' events in ev[0..n).
        #define CALL(i, ev, n)                                                                       \
            do {                                                                                     \
                n = 0;                                                                               \
                cl_mem a_ = dA[i], b_ = dB[i];                                                       \
                if (!is_sol && split > 1)                                                            \
                    CHECK(clEnqueueFillBuffer(q, dC, &zero, 4, 0, MN * 4, 0, NULL, &ev[n++]));       \
                if (padm) {                                                                          \
                    const size_t pl = 256, pgA = (size_t)M * 256, pgB = (size_t)Kp * 256;            \
                    ARG(kpad, 0, M); ARG(kpad, 1, K); ARG(kpad, 2, Kp); ARG(kpad, 3, a_); ARG(kpad, 4, dAp); \
                    CHECK(clEnqueueNDRangeKernel(q, kpad, 1, NULL, &pgA, &pl, 0, NULL, &ev[n++]));   \
                    ARG(kpad, 0, K); ARG(kpad, 1, N); ARG(kpad, 2, Np); ARG(kpad, 3, b_); ARG(kpad, 4, dBp); \
                    CHECK(clEnqueueNDRangeKernel(q, kpad, 1, NULL, &pgB, &pl, 0, NULL, &ev[n++]));   \
                    a_ = dAp; b_ = dBp;                                                              \
                }                                                                                    \
                if (is_sol) {                                                                        \
                    ARG(kp, 0, M); ARG(kp, 1, N); ARG(kp, 2, K); ARG(kp, 3, a_); ARG(kp, 4, b_); ARG(kp, 5, dC); \
                } else {                                                                             \
                    ARG(kp, 0, M); ARG(kp, 1, N); ARG(kp, 2, Ke); ARG(kp, 3, lda); ARG(kp, 4, ldb); \
                    ARG(kp, 5, ks); ARG(kp, 6, a_); ARG(kp, 7, b_); ARG(kp, 8, dC);                 \
                }                                                                                    \
                CHECK(clEnqueueNDRangeKernel(q, kp, is_sol ? 2 : 3, NULL, g, l, 0, NULL, &ev[n++])); \
            } while (0)
        cl_event ev[4];
        int n = 0;
        // Warm-up: 3 calls.
        for (int r = 0; r < 3; r++) {
            CALL(r % P, ev, n);
            CHECK(clFinish(q));
            for (int e = 0; e < n; e++) clReleaseEvent(ev[e]);
        }
        for (int pass = 0; pass < 2; pass++) {
            double* tt = pass ? tw : tf;
            for (int r = 0; r < reps; r++) {
                CALL(pass ? 0 : r % P, ev, n);
                CHECK(clFinish(q));
                tt[r] = (ev_t(ev[n - 1], 1) - ev_t(ev[0], 0)) * 1e-6;
                for (int e = 0; e < n; e++) clReleaseEvent(ev[e]);
            }
        }
        // The check: C poisoned, one call on pair 0.
        if (is_sol || split == 1) CHECK(clEnqueueFillBuffer(q, dC, &nanv, 4, 0, MN * 4, 0, NULL, NULL));
        CALL(0, ev, n);
        CHECK(clFinish(q));
        for (int e = 0; e < n; e++) clReleaseEvent(ev[e]);
        CHECK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, MN * 4, C, 0, NULL, NULL));
        double emax = 0;
        int nonfinite = 0;
        for (int s = 0; s < ns; s++) {
            const float c = C[(size_t)si[s] * N + sj[s]];
            if (!isfinite(c)) { nonfinite++; continue; }
            const double e = fabs((double)c - ex[s]);
            emax = e > emax ? e : emax;
        }
        size_t nan_any = 0;
        for (size_t i = 0; i < MN; i++) nan_any += !isfinite(C[i]);
        const double rel = emax / (exmax > 0 ? exmax : 1);
        const int bad = nonfinite || nan_any || !(rel < 1e-5);
        bad_total += bad;
        const double mf = median(tf, reps), mw = median(tw, reps);
        printf("RESULT %dx%dx%d | %s | %s | fresh %.4f ms (min %.4f) %.2f TFLOP/s | warm %.4f ms %.2f TFLOP/s | "
               "err %.3e (%d pts%s) | %s\n",
               M, N, K, is_sol ? "sol" : "wgs", opts, mf, minv(tf, reps), flop / mf * 1e-9, mw, flop / mw * 1e-9,
               rel, ns, full ? ", all" : "", bad ? "FAIL" : "ok");
        if (nonfinite || nan_any) printf("  %d sampled and %zu elements in all not finite\n", nonfinite, nan_any);
        if (bad && full) {
            int shown = 0;
            for (int s = 0; s < ns && shown < 6; s++) {
                const float c = C[(size_t)si[s] * N + sj[s]];
                if (!(fabs((double)c - ex[s]) <= 1e-5 * exmax)) {
                    printf("  C[%d][%d] = %g, exact %g\n", si[s], sj[s], c, ex[s]);
                    shown++;
                }
            }
        }
        if (csv) {
            FILE* fp = fopen(csv, "a");
            if (fp) {
                fprintf(fp, "%d,%d,%d,%s,\"%s\",%.4f,%.2f,%.4f,%.2f,%.3g,%s\n", M, N, K, is_sol ? "sol-research-host" : "wgmma",
                        opts, mf, flop / mf * 1e-9, mw, flop / mw * 1e-9, rel, bad ? "FAIL" : "ok");
                fclose(fp);
            }
        }
        fflush(stdout);
        clReleaseKernel(kp);
        if (kpad) clReleaseKernel(kpad);
    }
    for (int i = 0; i < P; i++) { clReleaseMemObject(dA[i]); clReleaseMemObject(dB[i]); }
    clReleaseMemObject(dC);
    if (dAp) { clReleaseMemObject(dAp); clReleaseMemObject(dBp); }
    free(A); free(B); free(C); free(si); free(sj); free(ex); free(tf); free(tw);
    return bad_total ? 2 : 0;
}

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s run M N K reps full TOKEN... [-- M N K reps full TOKEN... ]\n", argv[0]); return 1; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    wg_dir = getenv("WG_DIR") ? getenv("WG_DIR") : "research/wgmma-shapes-11";
    ptx_dir = getenv("WG_PTX");
    if (getenv("WG_MODE")) wg_mode = atoi(getenv("WG_MODE"));
    const char* want = getenv("L11_PLATFORM");
    cl_platform_id plats[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, plats, &np));
    cl_platform_id plat = 0;
    dev = 0;
    for (int pass = 0; pass < 2 && !dev; pass++)
        for (cl_uint pi = 0; pi < np && !dev; pi++) {
            char pn[256] = "";
            clGetPlatformInfo(plats[pi], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
            if (want && !strstr(pn, want)) continue;
            cl_uint nd = 0;
            if (clGetDeviceIDs(plats[pi], pass == 0 ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
                dev = 0;
            else
                plat = plats[pi];
        }
    if (!dev) { fprintf(stderr, "no OpenCL device\n"); return 1; }
    char dname[256] = "", dvendor[256] = "", drv[256] = "", pname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof dvendor, dvendor, NULL);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv, drv, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    nvidia = strstr(dvendor, "NVIDIA") != NULL;
    cl_uint mj = 0, mn = 0;
    if (nvidia) {
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof mj, &mj, NULL);
        clGetDeviceInfo(dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof mn, &mn, NULL);
    }
    ccmaj = mj;
    printf("# device: %s | %s | driver %s | platform %s | %u CUs | cc %u.%u\n", dname, dvendor, drv,
           pname, cus, mj, mn);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err); CHECK(err);
    q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err); CHECK(err);
    mma_src = read_file(getenv("L11_MMA") ? getenv("L11_MMA") : "lessons/11_matrix_units/mma.cl");
    wgmma_src = read_file(path_in(wg_dir, "wgmma.cl"));
    sol_src = read_file(getenv("L11_SOL") ? getenv("L11_SOL") : "solutions/11_matrix_units.cl");
    wgs_src = read_file(path_in(wg_dir, "wgs.cl"));
    snprintf(pre, sizeof pre, "#define MMA_PTX %d\n#define TF32_CVT %d\n", nvidia, nvidia && ccmaj >= 9);
    // Several runs in one process (programs built once): "run ... -- run ..." is split at "--".
    int rc = 0, start = 1;
    for (int i = 1; i <= argc; i++) {
        if (i == argc || !strcmp(argv[i], "--")) {
            if (i - start >= 1) {
                char** sub = argv + start - 1; // sub[0] unused, sub[1] = "run"
                const int sc = i - start + 1;
                if (strcmp(sub[1], "run")) { fprintf(stderr, "unknown subcommand %s\n", sub[1]); return 1; }
                const int r = cmd_run(sc, sub);
                rc = rc ? rc : r;
            }
            start = i + 1;
        }
    }
    return rc;
}
