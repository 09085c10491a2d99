// research/wgmma-11/host.c: Hopper's wgmma through NVIDIA's OpenCL (inline PTX). Session 10
// (2026-11-30). Subcommands:
//   ./wg test                      wgmma accepted? test.cl (m64n64k8, SS, RS, scale-d 0, chains)
//                                  against float64 on exact and on random inputs
//   ./wg bench TN U WGS FORM CPS ITERS   wgmma rate: CPS work-groups per compute unit, WGS warp
//                                  groups each, U wgmma m64n<TN>k8 per commit group (bench.cl)
//   ./wg mma CH WARPS CPS ITERS    mma.sync m16n8k8 TF32 rate (bench.cl's mma_bench)
//   ./wg gemm M N K reps idle full TOKEN...   C = A·B: `sol` (solutions/11_matrix_units.cl with
//                                  BM=128 BN=128 BK=8 WM=64 WN=64 STAGES=4), `wg|-D ...`
//                                  (wgemm.cl), `w2|-D ...` (wgemm2.cl) or
//                                  `w3|-D ...` (wgemm3.cl, one producer warp more); timed by OpenCL events (median of reps back to back,
//                                  then idle calls each after 15 ms), checked against float64 at
//                                  4096 sampled elements (every element with full=1)
// How a program is built (WG_MODE, default: the first that works, in this order):
//   0  from source, as the course builds (options + -cl-nv-verbose)
//   1  from source with -cl-nv-arch sm_90a
//   2  from source with -D WG_STUB=1 (the wgmma lines are PTX comments "//WGX ..."), then the
//      program's PTX is taken (CL_PROGRAM_BINARIES), uncommented, given ".target sm_90a", and
//      built again with clCreateProgramWithBinary
// Environment: WG_DIR (this folder), L11_MMA, L11_SOL, WG_PTX (folder for each program's PTX).
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

// ---------------------------------------------------------------- test
static int cmd_test(void) {
    const int TN = 64;
    float A[64 * 8], B[8 * 64], C[64 * 64];
    double R[64 * 64], Rt[64 * 64], Rr[64 * 64];
    char* test_src = read_file(path_in(wg_dir, "test.cl"));
    const char* srcs[4] = {pre, wgmma_src, "\n#line 1\n", test_src};
    cl_program p = build(ctx, dev, srcs, 4, "-D TN=64", "test", 1);
    if (!p) { printf("RESULT test: no build mode accepted wgmma\n"); return 1; }
    cl_int err;
    cl_kernel k = clCreateKernel(p, "wg_test", &err); CHECK(err);
    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof A, NULL, &err); CHECK(err);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof B, NULL, &err); CHECK(err);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof C, NULL, &err); CHECK(err);
    int bad = 0;
    for (int hyp = 0; hyp < 2; hyp++)
    for (int inputs = 0; inputs < 2; inputs++) {
        for (int r = 0; r < 64; r++) for (int kk = 0; kk < 8; kk++)
            A[r * 8 + kk] = inputs == 0 ? (float)(((r * 3 + kk * 5) % 7) - 3) : val(11, 0, r * 8 + kk);
        for (int kk = 0; kk < 8; kk++) for (int n = 0; n < TN; n++)
            B[kk * TN + n] = inputs == 0 ? (float)(((kk * 7 + n * 3) % 9) - 4) : val(11, 1, kk * TN + n);
        double rmax = 0;
        for (int r = 0; r < 64; r++) for (int n = 0; n < TN; n++) {
            double s = 0, st = 0, sr = 0;
            for (int kk = 0; kk < 8; kk++) {
                const float a = A[r * 8 + kk], b = B[kk * TN + n];
                uint32_t ua, ub; memcpy(&ua, &a, 4); memcpy(&ub, &b, 4);
                uint32_t ta = ua & 0xffffe000u, tb = ub & 0xffffe000u;
                uint32_t ra = (ua + 0x1000u) & 0xffffe000u, rb2 = (ub + 0x1000u) & 0xffffe000u;
                float fta, ftb, fra, frb; memcpy(&fta, &ta, 4); memcpy(&ftb, &tb, 4);
                memcpy(&fra, &ra, 4); memcpy(&frb, &rb2, 4);
                s += (double)a * b; st += (double)fta * ftb; sr += (double)fra * frb;
            }
            R[r * TN + n] = s; Rt[r * TN + n] = st; Rr[r * TN + n] = sr;
            rmax = fabs(s) > rmax ? fabs(s) : rmax;
        }
        CHECK(clEnqueueWriteBuffer(q, dA, CL_TRUE, 0, sizeof A, A, 0, NULL, NULL));
        CHECK(clEnqueueWriteBuffer(q, dB, CL_TRUE, 0, sizeof B, B, 0, NULL, NULL));
        {
            // hyp 0: leading byte offset = between core matrices along K, stride = along M/N
            cl_uint lboA = hyp ? 128 : 64 * 16, sboA = hyp ? 64 * 16 : 128;
            cl_uint lboB = hyp ? 128 : TN * 16, sboB = hyp ? TN * 16 : 128;
            for (int mode = 0; mode < 4; mode++) {
                if (inputs == 1 && mode == 2) continue;
                ARG(k, 0, dA); ARG(k, 1, dB); ARG(k, 2, dC); ARG(k, 3, lboA); ARG(k, 4, sboA);
                ARG(k, 5, lboB); ARG(k, 6, sboB); ARG(k, 7, mode);
                const float nanv = NAN;
                CHECK(clEnqueueFillBuffer(q, dC, &nanv, 4, 0, sizeof C, 0, NULL, NULL));
                size_t gsz = 128, lsz = 128;
                cl_int e = clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL);
                cl_int e2 = clFinish(q);
                if (e != CL_SUCCESS || e2 != CL_SUCCESS) {
                    printf("RESULT test inputs=%s hyp=%d mode=%d: launch error %d / %d\n",
                           inputs ? "random" : "exact", hyp, mode, e, e2);
                    bad++;
                    continue;
                }
                CHECK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, sizeof C, C, 0, NULL, NULL));
                const double f = mode == 3 ? 3.0 : 1.0;
                double e_exact = 0, e_trunc = 0, e_round = 0;
                int nbad = 0, shown = 0;
                for (int i = 0; i < 64 * TN; i++) {
                    const double c = C[i];
                    const double d0 = fabs(c - f * R[i]), d1 = fabs(c - f * Rt[i]), d2 = fabs(c - f * Rr[i]);
                    if (!(d0 <= 1e300)) { e_exact = e_trunc = e_round = INFINITY; }
                    e_exact = d0 > e_exact ? d0 : e_exact;
                    e_trunc = d1 > e_trunc ? d1 : e_trunc;
                    e_round = d2 > e_round ? d2 : e_round;
                    if (inputs == 0 && !(d0 == 0)) {
                        nbad++;
                        if (shown++ < 4) printf("#   C[%d][%d] = %g, exact %g\n", i / TN, i % TN, c, f * R[i]);
                    }
                }
                const double sc = f * rmax;
                const int ok = inputs == 0 ? nbad == 0 : e_trunc / sc < 1e-5;
                printf("RESULT test inputs=%s hyp=%d (lboA %u sboA %u lboB %u sboB %u) mode=%d (%s): "
                       "max|C-exact|/max|exact| %.3e, vs TF32-truncated inputs %.3e, vs TF32-rounded %.3e%s | %s\n",
                       inputs ? "random" : "exact", hyp, lboA, sboA, lboB, sboB, mode,
                       mode == 0 ? "SS" : mode == 1 ? "RS" : mode == 2 ? "SS scale-d 0" : "SS x3 chain",
                       e_exact / sc, e_trunc / sc, e_round / sc,
                       inputs == 0 ? (nbad ? " (elements wrong)" : " (bit-exact)") : "", ok ? "ok" : "WRONG");
                if (!ok && hyp == 0) bad++;
            }
        }
    }
    clReleaseKernel(k);
    clReleaseProgram(p);
    return bad ? 2 : 0;
}

// ---------------------------------------------------------------- rate
static double run_timed(cl_kernel k, size_t gsz, size_t lsz, int reps) {
    cl_event ev[16];
    double t[16];
    for (int r = 0; r < 2; r++) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, &lsz, 0, NULL, NULL));
    CHECK(clFinish(q));
    for (int r = 0; r < reps; r++) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, &lsz, 0, NULL, &ev[r]));
    CHECK(clFinish(q));
    for (int r = 0; r < reps; r++) { t[r] = ev_ms(ev[r]); clReleaseEvent(ev[r]); }
    return median(t, reps);
}
static int cmd_bench(int argc, char** argv, int is_mma) {
    char* bsrc = read_file(path_in(wg_dir, "bench.cl"));
    const char* srcs[4] = {pre, wgmma_src, "\n#line 1\n", bsrc};
    char opts[512], label[128];
    int TN = 0, U = 0, WGS = 0, FORM = 0, CH = 0, WARPS = 0, CPS, iters;
    if (!is_mma) {
        if (argc < 8) { fprintf(stderr, "bench TN U WGS FORM CPS ITERS\n"); return 1; }
        TN = atoi(argv[2]); U = atoi(argv[3]); WGS = atoi(argv[4]); FORM = atoi(argv[5]);
        CPS = atoi(argv[6]); iters = atoi(argv[7]);
        snprintf(opts, sizeof opts, "-D TN=%d -D U=%d -D WGS=%d -D FORM=%d", TN, U, WGS, FORM);
        snprintf(label, sizeof label, "bench-n%d-u%d-wg%d-%s", TN, U, WGS, FORM ? "rs" : "ss");
    } else {
        if (argc < 6) { fprintf(stderr, "mma CH WARPS CPS ITERS\n"); return 1; }
        CH = atoi(argv[2]); WARPS = atoi(argv[3]); CPS = atoi(argv[4]); iters = atoi(argv[5]);
        snprintf(opts, sizeof opts, "-D CH=%d -D MMA_WARPS=%d", CH, WARPS);
        snprintf(label, sizeof label, "mma-ch%d-w%d", CH, WARPS);
    }
    cl_program p = build(ctx, dev, srcs, 4, opts, label, 1);
    if (!p) { printf("RESULT %s: not built\n", label); return 1; }
    cl_int err;
    cl_kernel k = clCreateKernel(p, is_mma ? "mma_bench" : "wg_bench", &err); CHECK(err);
    const size_t nsrc = 65536;
    float* h = malloc(nsrc * 4);
    for (size_t i = 0; i < nsrc; i++) h[i] = val(5, 2, i);
    cl_mem dsrc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nsrc * 4, NULL, &err); CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, dsrc, CL_TRUE, 0, nsrc * 4, h, 0, NULL, NULL));
    const size_t lsz = is_mma ? 32 * WARPS : 128 * WGS, gsz = (size_t)cus * CPS * lsz;
    cl_mem dout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gsz * 4, NULL, &err); CHECK(err);
    ARG(k, 0, dsrc); ARG(k, 1, dout); ARG(k, 2, iters);
    const double ms = run_timed(k, gsz, lsz, 7);
    double flop;
    if (!is_mma) flop = 2.0 * 64 * TN * 8 * U * (double)iters * WGS * cus * CPS;
    else flop = 2.0 * 16 * 8 * 8 * CH * (double)iters * WARPS * cus * CPS;
    if (!is_mma)
        printf("RESULT rate wgmma m64n%dk8 tf32 %s | U=%d per group, %d warp groups x %d work-groups per CU (%u CUs) | "
               "%d iters | %.4f ms | %.1f TFLOP/s (TF32 work) | %.1f per SM per clock at 1.98 GHz\n",
               TN, FORM ? "RS" : "SS", U, WGS, CPS, cus, iters, ms, flop / ms * 1e-9,
               flop / (ms * 1e-3) / cus / 1.98e9);
    else
        printf("RESULT rate mma.sync m16n8k8 tf32 | %d chains per warp, %d warps x %d work-groups per CU (%u CUs) | "
               "%d iters | %.4f ms | %.1f TFLOP/s (TF32 work) | %.1f per SM per clock at 1.98 GHz\n",
               CH, WARPS, CPS, cus, iters, ms, flop / ms * 1e-9, flop / (ms * 1e-3) / cus / 1.98e9);
    fflush(stdout);
    clReleaseMemObject(dsrc); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(p);
    free(h);
    return 0;
}

// ---------------------------------------------------------------- gemm
static int cmd_gemm(int argc, char** argv) {
    if (argc < 9) { fprintf(stderr, "gemm M N K reps idle full TOKEN...\n"); return 1; }
    const int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
    const int reps = atoi(argv[5]), idle_reps = atoi(argv[6]), full = atoi(argv[7]);
    const uint64_t seed = 7;
    const char* sol_path = getenv("L11_SOL") ? getenv("L11_SOL") : "solutions/11_matrix_units.cl";
    char* sol_src = read_file(sol_path);
    char* wg_src = read_file(path_in(wg_dir, "wgemm.cl"));
    char* w2_src = read_file(path_in(wg_dir, "wgemm2.cl"));
    char* w3_src = read_file(path_in(wg_dir, "wgemm3.cl"));
    const size_t MN = (size_t)M * N;
    float* A = malloc((size_t)M * K * 4);
    float* B = malloc((size_t)K * N * 4);
    float* C = malloc(MN * 4);
    float* C0 = malloc(MN * 4);
    for (size_t i = 0; i < (size_t)M * K; i++) A[i] = val(seed, 0, i);
    for (size_t i = 0; i < (size_t)K * N; i++) B[i] = val(seed, 1, i);
    const int ns = full ? (int)MN : 4096;
    int* si = malloc(ns * sizeof(int));
    int* sj = malloc(ns * sizeof(int));
    double* ex = malloc(ns * sizeof(double));
    double exmax = 0;
    for (int s = 0; s < ns; s++) {
        if (full) { si[s] = s / N; sj[s] = s % N; }
        else {
            si[s] = s < 64 ? M - 1 : s < 128 ? (int)(mix64(s) % M) : (int)(mix64(seed * GOLD ^ (2 * s)) % M);
            sj[s] = s < 64 ? (int)(mix64(s + 99) % N) : s < 128 ? N - 1 : (int)(mix64(seed * GOLD ^ (2 * s + 1)) % N);
        }
        double acc = 0;
        for (int k = 0; k < K; k++) acc += (double)A[(size_t)si[s] * K + k] * (double)B[(size_t)k * N + sj[s]];
        ex[s] = acc;
        exmax = fabs(acc) > exmax ? fabs(acc) : exmax;
    }
    cl_int err;
    cl_mem dA = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)M * K * 4, NULL, &err); CHECK(err);
    cl_mem dB = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)K * N * 4, NULL, &err); CHECK(err);
    cl_mem dC = clCreateBuffer(ctx, CL_MEM_READ_WRITE, MN * 4, NULL, &err); CHECK(err);
    CHECK(clEnqueueWriteBuffer(q, dA, CL_TRUE, 0, (size_t)M * K * 4, A, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, dB, CL_TRUE, 0, (size_t)K * N * 4, B, 0, NULL, NULL));
    const float nanv = NAN;
    const double flop = 2.0 * M * N * (double)K;
    const int nrun = 5 + reps + idle_reps;
    cl_event* ev = malloc(nrun * sizeof(cl_event));
    double* tt = malloc(nrun * 8);
    int bad_total = 0, have0 = 0;
    for (int ti = 8; ti < argc; ti++) {
        const char* tok = argv[ti];
        const int is_sol = strncmp(tok, "sol", 3) == 0;
        const int is_w2 = strncmp(tok, "w2", 2) == 0, is_w3 = strncmp(tok, "w3", 2) == 0;
        if (!is_sol && strncmp(tok, "wg", 2) != 0 && !is_w2 && !is_w3) { fprintf(stderr, "bad token %s\n", tok); return 1; }
        const char* extra = strchr(tok, '|') ? strchr(tok, '|') + 1 : "";
        char opts[1024], label[64];
        cl_program p;
        size_t threads, BMb, BNb;
        snprintf(label, sizeof label, "tok%d-%s", ti - 8, is_sol ? "sol" : is_w2 ? "w2" : is_w3 ? "w3" : "wg");
        if (is_sol) {
            snprintf(opts, sizeof opts, "-D BM=128 -D BN=128 -D BK=8 -D WM=64 -D WN=64 -D STAGES=4 %s", extra);
            const char* srcs[4] = {pre, mma_src, "\n#line 1\n", sol_src};
            p = build(ctx, dev, srcs, 4, opts, label, 0);
            BMb = defv(opts, "BM", 64); BNb = defv(opts, "BN", 64);
            threads = 32 * (BMb / defv(opts, "WM", 32)) * (BNb / defv(opts, "WN", 32));
        } else {
            snprintf(opts, sizeof opts, "%s", extra);
            const char* srcs[5] = {pre, mma_src, wgmma_src, "\n#line 1\n", is_w2 ? w2_src : is_w3 ? w3_src : wg_src};
            p = build(ctx, dev, srcs, 5, opts, label, 1);
            const int WGS = defv(opts, "WGS", 2), BK = defv(opts, "BK", is_w2 || is_w3 ? 32 : 16);
            BMb = defv(opts, "BM", 128); BNb = 64 * WGS; threads = 128 * WGS + (is_w3 ? 32 : 0);
            if ((!is_w2 && (M % BMb || N % BNb)) || K % BK || N % 4) {
                printf("RESULT %dx%dx%d | %s | skipped: M %% %zu, N %% %zu, K %% %d must be 0\n", M, N, K, tok, BMb, BNb, BK);
                if (p) clReleaseProgram(p);
                continue;
            }
        }
        if (!p) { printf("RESULT %dx%dx%d | %s | not built\n", M, N, K, tok); bad_total++; continue; }
        cl_kernel kp = clCreateKernel(p, "matmul", &err); CHECK(err);
        ARG(kp, 0, M); ARG(kp, 1, N); ARG(kp, 2, K); ARG(kp, 3, dA); ARG(kp, 4, dB); ARG(kp, 5, dC);
        const size_t g[2] = {(size_t)((N + BNb - 1) / BNb) * threads, (size_t)((M + BMb - 1) / BMb)};
        const size_t l[2] = {threads, 1};
        CHECK(clEnqueueFillBuffer(q, dC, &nanv, 4, 0, MN * 4, 0, NULL, NULL));
        CHECK(clFinish(q));
        int failed = 0;
        for (int r = 0; r < nrun && !failed; r++) {
            const int idle = r >= 5 + reps;
            if (idle) { CHECK(clFinish(q)); usleep(15000); }
            cl_int e = clEnqueueNDRangeKernel(q, kp, 2, NULL, g, l, 0, NULL, &ev[r]);
            if (e != CL_SUCCESS) { printf("RESULT %s: enqueue error %d\n", tok, e); failed = 1; break; }
            if (idle || r == 4) {
                cl_int e2 = clFinish(q);
                if (e2 != CL_SUCCESS) { printf("RESULT %s: run error %d\n", tok, e2); failed = 1; }
            }
        }
        if (failed) { bad_total++; clReleaseKernel(kp); clReleaseProgram(p); break; }
        CHECK(clFinish(q));
        for (int r = 0; r < nrun; r++) { tt[r] = ev_ms(ev[r]); clReleaseEvent(ev[r]); }
        const double mb = median(tt + 5, reps), mi = idle_reps ? median(tt + 5 + reps, idle_reps) : 0;
        CHECK(clEnqueueReadBuffer(q, dC, CL_TRUE, 0, MN * 4, C, 0, NULL, NULL));
        double emax = 0;
        int nonfinite = 0;
        for (int s = 0; s < ns; s++) {
            const float c = C[(size_t)si[s] * N + sj[s]];
            if (!isfinite(c)) { nonfinite++; continue; }
            const double e = fabs((double)c - ex[s]);
            emax = e > emax ? e : emax;
        }
        size_t nan_any = 0, ndiff = 0;
        for (size_t i = 0; i < MN; i++) nan_any += !isfinite(C[i]);
        if (!have0) { memcpy(C0, C, MN * 4); have0 = 1; }
        else for (size_t i = 0; i < MN; i++) ndiff += memcmp(&C[i], &C0[i], 4) != 0;
        const double rel = emax / (exmax > 0 ? exmax : 1);
        const int bad = nonfinite || nan_any || !(rel < 1e-5);
        bad_total += bad;
        printf("RESULT %dx%dx%d | %s | %s | %.4f ms (min %.4f) idle %.4f ms | TFLOP/s %.2f idle %.2f | "
               "err %.2e (%d pts%s) | vs first: %zu differ | %s\n",
               M, N, K, tok, opts, mb, minv(tt + 5, reps), mi, flop / mb * 1e-9,
               idle_reps ? flop / mi * 1e-9 : 0.0, rel, ns, full ? ", all" : "", ndiff, bad ? "FAIL" : "ok");
        if (nonfinite || nan_any) printf("  %d sampled and %zu elements in all not finite\n", nonfinite, nan_any);
        if (bad && full) { // where the wrong elements are
            int shown = 0;
            for (int s = 0; s < ns && shown < 6; s++) {
                const float c = C[(size_t)si[s] * N + sj[s]];
                if (!(fabs((double)c - ex[s]) <= 1e-5 * exmax)) {
                    printf("  C[%d][%d] = %g, exact %g\n", si[s], sj[s], c, ex[s]);
                    shown++;
                }
            }
        }
        fflush(stdout);
        clReleaseKernel(kp);
        clReleaseProgram(p);
    }
    return bad_total ? 2 : 0;
}

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s test | bench ... | mma ... | gemm ...\n", argv[0]); return 1; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    wg_dir = getenv("WG_DIR") ? getenv("WG_DIR") : "research/wgmma-11";
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
    snprintf(pre, sizeof pre, "#define MMA_PTX %d\n#define TF32_CVT %d\n", nvidia, nvidia && ccmaj >= 9);
    if (!strcmp(argv[1], "test")) return cmd_test();
    if (!strcmp(argv[1], "bench")) return cmd_bench(argc, argv, 0);
    if (!strcmp(argv[1], "mma")) return cmd_bench(argc, argv, 1);
    if (!strcmp(argv[1], "gemm")) return cmd_gemm(argc, argv);
    fprintf(stderr, "unknown subcommand %s\n", argv[1]);
    return 1;
}
