// Ozaki scheme II in OpenCL C: FP32 C = A·B from exact INT8 products (research prototype for
// lesson 12; not the lesson's code). The host puts a header before this file that defines
//   NMOD            the number of moduli
//   MODS[NMOD]      the moduli (pairwise coprime, <= 256), as a __constant array
//   INVS[NMOD*NMOD] INVS[j*NMOD+k] = (MODS[j])^-1 mod MODS[k], for j < k (Garner)
//   MMA_PTX         1 on NVIDIA sm_80+ (inline PTX), 0 elsewhere (an exact model of the unit)
//
// The pipeline (one multiplication, 4 + NMOD + 1 kernels):
//   row_exp, col_exp   e_i, f_j: powers of two so that ||2^e_i a_i||_2 <= 2^L and
//                      ||2^f_j b_j||_2 <= 2^L with 2^(2L) < P/2, P = prod MODS
//                      (Cauchy-Schwarz bounds every |a'_i . b'_j| below P/2)
//   a_res, b_res       a' = trunc(2^e_i a), b' = trunc(2^f_j b) (exact integers, |.| < 2^53),
//                      then a' mod p for every modulus, centred into [-(p-1)/2, (p-1)/2]
//                      (p = 256: [-128, 127]), as int8 planes; B's planes transposed (N x K)
//   gemm_s8 (x NMOD)   for one modulus: the exact int32 product of the residue planes by
//                      mma.sync m16n8k32 s8, reduced mod p into [0, p), stored as uint8
//   reconstruct        Garner's mixed radix with balanced digits gives the unique x in
//                      [-P/2, P/2) with x = a'_i . b'_j mod every p; Horner in double;
//                      C = x * 2^-(e_i + f_j), rounded to float.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 64 // bytes of k per stage
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef LDSM
#define LDSM 1
#endif
#if !MMA_PTX
#undef LDSM
#define LDSM 0
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
#ifndef SWZ
#define SWZ 0
#endif
#ifndef GROUPM
#define GROUPM 0 // > 0: blocks taken in bands of GROUPM block rows (L2 reuse), call 5
#endif
#ifndef REC4
#define REC4 0 // 1: reconstruct 4 columns per work-item (uchar4 loads), call 5; 2: and the
                // scale 2^-(e+f) from its bits instead of ldexp, call 7; 3: and Garner in
                // closed form by compile-time constants, call 8
#endif
#ifndef BATCH
#define BATCH 0 // 1: all moduli in one launch (grid z = modulus), call 8
#endif
#ifndef PF
#define PF 0 // 1: fragments double-buffered in registers (next k-slice's ldmatrix before this
             // one's mma, the next stage's first fragments right after the barrier), call 8
#endif
#ifndef CONV
#define CONV 0 // 1: a_conv (row_exp + a_res in one pass) and b_conv (integer residues by
               // compile-time moduli), call 8
#endif
#if SWZ
// Rows of BK bytes, no padding; the 16-byte chunk c of row r is stored at chunk
// c ^ ((r / (128 / BK)) % (BK / 16)), so that the 8 rows an ldmatrix phase (or a fragment
// read) touches lie in 8 different 16-byte bank groups. The pattern repeats every 8 rows.
#define SROW BK
#define TOFF(r, c) ((r) * BK + ((((c) >> 4) ^ (((r) / (128 / BK)) % (BK / 16))) << 4) + ((c) & 15))
#else
#define SROW (BK + 16) // padded row stride of a tile in bytes (conflict-free fragment reads)
#define TOFF(r, c) ((r) * SROW + (c))
#endif
#define TILE_A (BM * SROW)
#define TILE_B (BN * SROW)
#define STR2(x) #x
#define STR(x) STR2(x)

// ---------------------------------------------------------------- scaling exponents

// One work-group of 256 per row of A (M x K, row-major).
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void row_exp(__global const float* A, const int M, const int K, const double L,
             __global int* e) {
    __local double red[256];
    const int i = get_group_id(0), lid = get_local_id(0);
    double s = 0.0;
    for (int k = lid; k < K; k += 256) {
        const double a = (double)A[(long)i * K + k];
        s = fma(a, a, s);
    }
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 128; h > 0; h >>= 1) {
        if (lid < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const double ss = red[0] * (1.0 + 0x1p-30); // an upper bound of the true sum
        e[i] = ss > 0.0 ? (int)floor(L - 0.5 * log2(ss)) : 0;
    }
}

// Work-groups of 32 columns x 8 slices of k, for B (K x N, row-major).
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void col_exp(__global const float* B, const int K, const int N, const double L,
             __global int* f) {
    __local double red[8][33];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int j = get_group_id(0) * 32 + lx;
    double s = 0.0;
    if (j < N) {
        for (int k = ly; k < K; k += 8) {
            const double b = (double)B[(long)k * N + j];
            s = fma(b, b, s);
        }
    }
    red[ly][lx] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ly == 0 && j < N) {
        double t = 0.0;
        for (int r = 0; r < 8; r++) t += red[r][lx];
        const double ss = t * (1.0 + 0x1p-30);
        f[j] = ss > 0.0 ? (int)floor(L - 0.5 * log2(ss)) : 0;
    }
}

// ---------------------------------------------------------------- residues

// x mod p, centred: [-(p-1)/2, (p-1)/2] for odd p, [-128, 127] for p = 256. x is an
// integer held exactly in a double (|x| < 2^53); q may be one too small when x/p is an
// integer, which the two corrections cover.
inline int resid(const double x, const int p) {
    const double q = floor(x * (1.0 / (double)p));
    int r = (int)fma(-q, (double)p, x);
    if (r < 0) r += p;
    if (r >= p) r -= p;
    if (r > (p - 1) / 2) r -= p;
    return r;
}

// Work-item (k4, i): A[i][4 k4 .. 4 k4 + 3] -> NMOD planes of Mp x Kp int8, zeros outside A.
__kernel void a_res(__global const float* A, const int M, const int K,
                    __global const int* e, __global char* R, const int Mp, const int Kp) {
    const int k = get_global_id(0) * 4, i = get_global_id(1);
    if (k >= Kp || i >= Mp) return;
    double x[4];
    const int ei = i < M ? e[i] : 0;
    #pragma unroll
    for (int q = 0; q < 4; q++) {
        const float a = (i < M && k + q < K) ? A[(long)i * K + k + q] : 0.0f;
        x[q] = trunc(ldexp((double)a, ei));
    }
    const long plane = (long)Mp * Kp;
    __global char* out = R + (long)i * Kp + k;
    #pragma unroll
    for (int t = 0; t < NMOD; t++) {
        const int p = MODS[t];
        const char4 r = (char4)((char)resid(x[0], p), (char)resid(x[1], p),
                                (char)resid(x[2], p), (char)resid(x[3], p));
        *(__global char4*)(out + t * plane) = r;
    }
}

// Work-groups of 32 x 8 over a tile of 64 rows (k) x 32 columns (j) of B: scaled and
// truncated through local memory, written transposed (Np x Kp planes, k contiguous).
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void b_res(__global const float* B, const int K, const int N, __global const int* f,
           __global char* R, const int Np, const int Kp) {
    __local double tile[64][33];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int n0 = get_group_id(0) * 32, k0 = get_group_id(1) * 64;
    const int j = n0 + lx;
    const int fj = j < N ? f[j] : 0;
    #pragma unroll
    for (int r = 0; r < 8; r++) {
        const int k = k0 + ly + 8 * r;
        const float b = (k < K && j < N) ? B[(long)k * N + j] : 0.0f;
        tile[ly + 8 * r][lx] = trunc(ldexp((double)b, fj));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int tid = ly * 32 + lx;
    const long plane = (long)Np * Kp;
    #pragma unroll
    for (int h = 0; h < 2; h++) {
        const int jj = (tid >> 4) + 16 * h, kq = (tid & 15) * 4;
        const double x0 = tile[kq][jj], x1 = tile[kq + 1][jj], x2 = tile[kq + 2][jj],
                     x3 = tile[kq + 3][jj];
        __global char* out = R + (long)(n0 + jj) * Kp + k0 + kq;
        #pragma unroll
        for (int t = 0; t < NMOD; t++) {
            const int p = MODS[t];
            *(__global char4*)(out + t * plane) =
                (char4)((char)resid(x0, p), (char)resid(x1, p), (char)resid(x2, p),
                        (char)resid(x3, p));
        }
    }
}

// ---------------------------------------------------------------- conversions, call 8 (CONV=1)
// The host's header also defines PM(t) (the t-th modulus), GC(k), GG(q, k) (Garner's
// constants, below) as chains of ?: that fold to constants in unrolled loops, so that every
// x % p is by a compile-time constant (multiply-high, no division).

// a' = trunc(2^e a) is an exact integer with |a'| <= 2^L: below 2^31 for up to 7 moduli
// (L = 27.3), up to 2^31.3 for 8 (L = 31.3): long from 8 moduli on.
// RND=1 (call 9): a' = rint(2^e a) instead of trunc (half the truncation error); the host
// then passes L' = log2(2^L - sqrt(K)/2) for the exponents, so that ||a'|| <= 2^L' + sqrt(K)/2
// = 2^L still holds.
#ifndef RND
#define RND 0
#endif
#if RND && !CONV
#error "RND=1 needs CONV=1"
#endif
#if NMOD <= 7
typedef int4 ival4;
#if RND
#define CONV_IV4(x) convert_int4_rte(x)
#define CONV_IV(x) convert_int_rte(x)
#else
#define CONV_IV4(x) convert_int4_rtz(x)
#define CONV_IV(x) convert_int_rtz(x)
#endif
#define RES4(x, p) convert_int4((x) % (p))
#else
typedef long4 ival4;
#if RND
#define CONV_IV4(x) convert_long4_rte(x)
#define CONV_IV(x) convert_long_rte(x)
#else
#define CONV_IV4(x) convert_long4_rtz(x)
#define CONV_IV(x) convert_long_rtz(x)
#endif
#define RES4(x, p) convert_int4((x) % (long)(p))
#endif

#ifndef UMOD
#define UMOD 0 // 1 (call 10, up to 7 moduli): x + a multiple of p that makes it non-negative,
               // then an unsigned remainder by the constant and one correction to centre it
#endif
// centred residues of 4 integers by a compile-time p, as char4
inline char4 resid4c(const ival4 x, const int p) {
#if UMOD && NMOD <= 7
    // |x| <= 2^L < 2^28 (L = 27.35 at 7 moduli): x + p ceil(2^28 / p) lies in [0, 2^30)
    const uint4 u = as_uint4(x + (int4)(p * ((1 << 28) / p + 1)));
    int4 r = as_int4(u % (uint)p); // in [0, p)
    r -= select((int4)(0), (int4)(p), r > (p - 1) / 2);
    return convert_char4(r);
#else
    int4 r = RES4(x, p); // in (-p, p), the sign of x
    r -= select((int4)(0), (int4)(p), r > (p - 1) / 2);
    r += select((int4)(0), (int4)(p), r < -(p / 2));
    return convert_char4(r);
#endif
}

// 4 consecutive floats of a row of length K from index 4c (zeros past K)
inline float4 load4(__global const float* a, const int c, const int K, const int vec) {
    const int k = 4 * c;
    if (vec && k + 3 < K) return vload4(c, a);
    return (float4)(k < K ? a[k] : 0.0f, k + 1 < K ? a[k + 1] : 0.0f,
                    k + 2 < K ? a[k + 2] : 0.0f, k + 3 < K ? a[k + 3] : 0.0f);
}

#ifndef AR
#define AR 8 // float4s per work-item kept in registers between the two passes (K <= 8192)
#endif

// One work-group of 256 per row i of Mp: the row's sum of squares (as row_exp), e_i, then
// the residues of trunc(2^e_i a) for every modulus (as a_res), from one read of the row (the
// first AR * 1024 floats from registers, the rest read again). Work-item lid takes the
// float4s lid, lid + 256, ...: coalesced loads, and char4 stores of 128 bytes per warp.
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void a_conv(__global const float* A, const int M, const int K, const double L,
            __global int* e, __global char* R, const int Mp, const int Kp) {
    __local double red[256];
    __local int eloc;
    const int i = get_group_id(0), lid = get_local_id(0);
    const long plane = (long)Mp * Kp;
    __global char* out = R + (long)i * Kp;
    const int n4 = Kp / 4;
    if (i >= M) { // padding rows
        for (int c = lid; c < n4; c += 256)
            #pragma unroll
            for (int t = 0; t < NMOD; t++) *(__global char4*)(out + t * plane + 4 * c) = (char4)(0);
        if (lid == 0) e[i] = 0;
        return;
    }
    __global const float* a = A + (long)i * K;
    const int vec = (K & 3) == 0;
    float4 buf[AR];
    double s = 0.0;
    #pragma unroll
    for (int u = 0; u < AR; u++) {
        const float4 x = load4(a, lid + 256 * u, K, vec);
        buf[u] = x;
        s = fma((double)x.x, (double)x.x, s);
        s = fma((double)x.y, (double)x.y, s);
        s = fma((double)x.z, (double)x.z, s);
        s = fma((double)x.w, (double)x.w, s);
    }
    for (int c = lid + 256 * AR; c < n4; c += 256) {
        const float4 x = load4(a, c, K, vec);
        s = fma((double)x.x, (double)x.x, s);
        s = fma((double)x.y, (double)x.y, s);
        s = fma((double)x.z, (double)x.z, s);
        s = fma((double)x.w, (double)x.w, s);
    }
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 128; h > 0; h >>= 1) {
        if (lid < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        const double ss = red[0] * (1.0 + 0x1p-30); // an upper bound of the true sum
        const int ei = ss > 0.0 ? (int)floor(L - 0.5 * log2(ss)) : 0;
        eloc = ei;
        e[i] = ei;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ei = eloc;
    #pragma unroll
    for (int u = 0; u < AR; u++) {
        const int c = lid + 256 * u;
        if (c < n4) {
            // 2^e a is exact in float when normal (|.| <= 2^L); below 2^-126 it truncates to 0
            const ival4 x = CONV_IV4(ldexp(buf[u], ei));
            #pragma unroll
            for (int t = 0; t < NMOD; t++) *(__global char4*)(out + t * plane + 4 * c) = resid4c(x, PM(t));
        }
    }
    for (int c = lid + 256 * AR; c < n4; c += 256) {
        const ival4 x = CONV_IV4(ldexp(load4(a, c, K, vec), ei));
        #pragma unroll
        for (int t = 0; t < NMOD; t++) *(__global char4*)(out + t * plane + 4 * c) = resid4c(x, PM(t));
    }
}

// CONV=2 (call 10): B's column sums of squares in slices of 256 rows (8192 work-groups at
// 8192^2 instead of col_exp's 256), then col_fin sums the slices and sets f_j as col_exp.
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void col_part(__global const float* B, const int K, const int N, const int Np,
              __global double* part) {
    __local double red[8][33];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int j = get_group_id(0) * 32 + lx, k0 = get_group_id(1) * 256;
    const int k1 = min(K, k0 + 256);
    double s = 0.0;
    if (j < N) {
        #pragma unroll 8
        for (int k = k0 + ly; k < k1; k += 8) {
            const double b = (double)B[(long)k * N + j];
            s = fma(b, b, s);
        }
    }
    red[ly][lx] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ly == 0) {
        double t = 0.0;
        for (int r = 0; r < 8; r++) t += red[r][lx];
        part[(long)get_group_id(1) * Np + j] = t;
    }
}

__kernel void col_fin(__global const double* part, const int S, const int N, const int Np,
                      const double L, __global int* f) {
    const int j = get_global_id(0);
    if (j >= N) return;
    double t = 0.0;
    for (int s = 0; s < S; s++) t += part[(long)s * Np + j];
    const double ss = t * (1.0 + 0x1p-30);
    f[j] = ss > 0.0 ? (int)floor(L - 0.5 * log2(ss)) : 0;
}

// As b_res (64 k x 32 columns through local memory, written transposed), with the integers
// in local memory and the residues by compile-time moduli.
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void b_conv(__global const float* B, const int K, const int N, __global const int* f,
            __global char* R, const int Np, const int Kp) {
#if NMOD <= 7
    __local int tile[64][33];
#else
    __local long tile[64][33];
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int n0 = get_group_id(0) * 32, k0 = get_group_id(1) * 64;
    const int j = n0 + lx;
    const int fj = j < N ? f[j] : 0;
    #pragma unroll
    for (int r = 0; r < 8; r++) {
        const int k = k0 + ly + 8 * r;
        const float b = (k < K && j < N) ? B[(long)k * N + j] : 0.0f;
        tile[ly + 8 * r][lx] = CONV_IV(ldexp(b, fj));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int tid = ly * 32 + lx;
    const long plane = (long)Np * Kp;
    #pragma unroll
    for (int h = 0; h < 2; h++) {
        const int jj = (tid >> 4) + 16 * h, kq = (tid & 15) * 4;
        const ival4 x = (ival4)(tile[kq][jj], tile[kq + 1][jj], tile[kq + 2][jj], tile[kq + 3][jj]);
        __global char* out = R + (long)(n0 + jj) * Kp + k0 + kq;
        #pragma unroll
        for (int t = 0; t < NMOD; t++) *(__global char4*)(out + t * plane) = resid4c(x, PM(t));
    }
}

// ---------------------------------------------------------------- the INT8 unit

// D = A·B + C for A 16x32 s8 (row), B 32x8 s8 (col), C, D 16x8 s32. With g = lane/4,
// t = lane%4 (each register 4 consecutive k, the lowest k in the lowest byte):
//   a.x = A[g][4t..4t+3]  a.y = A[g+8][4t..]  a.z = A[g][16+4t..]  a.w = A[g+8][16+4t..]
//   b.x = B[4t..4t+3][g]  b.y = B[16+4t..][g]
//   c.x = C[g][2t]  c.y = C[g][2t+1]  c.z = C[g+8][2t]  c.w = C[g+8][2t+1]
#if MMA_PTX
#define MMA_SCRATCH_WORDS 1
inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {
    int4 d;
    __asm__ __volatile__(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y),
          "r"(c.x), "r"(c.y), "r"(c.z), "r"(c.w));
    return d;
}
inline uint4 ldsm_x4(__local const uchar* p) {
    uint4 r;
    __asm__ __volatile__("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "r"((uint)(ulong)p)
                         : "memory");
    return r;
}
inline void async_copy16(__local uchar* dst, const __global uchar* src) {
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"((uint)(ulong)dst), "l"(src) : "memory");
}
#define async_commit() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define async_wait(n) __asm__ __volatile__("cp.async.wait_group " STR(n) ";" ::: "memory")
#else
// The model: each lane leaves its fragments in its warp's scratch, then computes its four
// elements exactly in int (a collective call: every work-item of the group makes it).
#define MMA_SCRATCH_WORDS (WARPS * (128 + 64))
inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {
    const int lane = get_local_id(0) & 31, g = lane >> 2, t = lane & 3;
    __local uint* sa = scratch + (get_local_id(0) >> 5) * (128 + 64);
    __local uint* sb = sa + 128;
    sa[g * 8 + t] = a.x;
    sa[(g + 8) * 8 + t] = a.y;
    sa[g * 8 + 4 + t] = a.z;
    sa[(g + 8) * 8 + 4 + t] = a.w;
    sb[g * 8 + t] = b.x;
    sb[g * 8 + 4 + t] = b.y;
    barrier(CLK_LOCAL_MEM_FENCE);
    const __local char* A8 = (const __local char*)sa; // 16 rows x 32 bytes
    const __local char* B8 = (const __local char*)sb; // 8 columns (n) x 32 bytes (k)
    int4 d = c;
    for (int k = 0; k < 32; k++) {
        d.x += (int)A8[g * 32 + k] * (int)B8[(2 * t) * 32 + k];
        d.y += (int)A8[g * 32 + k] * (int)B8[(2 * t + 1) * 32 + k];
        d.z += (int)A8[(g + 8) * 32 + k] * (int)B8[(2 * t) * 32 + k];
        d.w += (int)A8[(g + 8) * 32 + k] * (int)B8[(2 * t + 1) * 32 + k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return d;
}
inline void async_copy16(__local uchar* dst, const __global uchar* src) {
    *(__local uint4*)dst = *(const __global uint4*)src;
}
#define async_commit()
#define async_wait(n)
#endif

// ---------------------------------------------------------------- one INT8 product

#ifndef CPMAP
#define CPMAP 0
#endif
#if CPMAP && !SWZ
// Call 5's profile: with padded rows (SROW/16 odd) and 4 consecutive copies per row, the
// 16-byte cp.async stores meet in shared-memory banks. CPMAP=1: the 8 lanes of a phase copy
// the same 16-byte chunk of 8 consecutive rows (chunk units 5r + c mod 8 all differ).
#define CPROWCOL(c) const int row = ((c) / (8 * (BK / 16))) * 8 + ((c) & 7), \
                              col = (((c) >> 3) % (BK / 16)) * 16;
#else
#define CPROWCOL(c) const int row = (c) / (BK / 16), col = ((c) % (BK / 16)) * 16;
#endif

// Stage the k-step at k0: A's BM x BK bytes and B's BN x BK bytes, 16 bytes per copy.
// The planes are padded (Mp, Np multiples of BM, BN; Kp of BK): no bounds.
inline void stage(__local uchar* as, __local uchar* bs, const __global uchar* A,
                  const __global uchar* B, const int Kp, const int k0, const int tid) {
    #pragma unroll
    for (int u = 0; u < (BM * BK / 16 + THREADS - 1) / THREADS; u++) {
        const int c = tid + u * THREADS;
        if ((BM * BK / 16) % THREADS == 0 || c < BM * BK / 16) {
            CPROWCOL(c)
            async_copy16(as + TOFF(row, col), A + (long)row * Kp + k0 + col);
        }
    }
    #pragma unroll
    for (int u = 0; u < (BN * BK / 16 + THREADS - 1) / THREADS; u++) {
        const int c = tid + u * THREADS;
        if ((BN * BK / 16) % THREADS == 0 || c < BN * BK / 16) {
            CPROWCOL(c)
            async_copy16(bs + TOFF(row, col), B + (long)row * Kp + k0 + col);
        }
    }
}

#if PF
// The fragments of k-slice kk (32 bytes) of stage buffer `buf` for this warp (ldmatrix).
#define LOAD_FRAGS(AF, BF, sm_, buf, kk_)                                                     \
    {                                                                                         \
        const __local uchar* as_ = (sm_) + (buf) * TILE_A + (wm * WM) * SROW;                 \
        const __local uchar* bs_ = (sm_) + STAGES * TILE_A + (buf) * TILE_B + (wn * WN) * SROW; \
        LOAD_FRAGS_BODY(AF, BF, kk_)                                                          \
    }
#if LDSM
#define LOAD_FRAGS_BODY(AF, BF, kk_)                                                          \
        _Pragma("unroll") for (int i_ = 0; i_ < MI; i_++)                                     \
            AF[i_] = ldsm_x4(as_ + TOFF(i_ * 16 + (lane & 15), (kk_) * 32 + (lane >> 4) * 16)); \
        _Pragma("unroll") for (int j_ = 0; j_ < NI; j_ += 2) {                                \
            const uint4 r_ = ldsm_x4(bs_ + TOFF(j_ * 8 + (lane & 7) + (lane >> 4) * 8,        \
                                                (kk_) * 32 + ((lane >> 3) & 1) * 16));        \
            BF[j_] = (uint2)(r_.x, r_.y);                                                     \
            BF[j_ + 1] = (uint2)(r_.z, r_.w);                                                 \
        }
#else
#define LOAD_FRAGS_BODY(AF, BF, kk_)                                                          \
        _Pragma("unroll") for (int i_ = 0; i_ < MI; i_++) {                                   \
            const int r_ = i_ * 16 + g, c_ = (kk_) * 32 + 4 * t;                              \
            AF[i_] = (uint4)(*(const __local uint*)(as_ + TOFF(r_, c_)),                      \
                             *(const __local uint*)(as_ + TOFF(r_ + 8, c_)),                  \
                             *(const __local uint*)(as_ + TOFF(r_, c_ + 16)),                 \
                             *(const __local uint*)(as_ + TOFF(r_ + 8, c_ + 16)));            \
        }                                                                                     \
        _Pragma("unroll") for (int j_ = 0; j_ < NI; j_++) {                                   \
            const int r_ = j_ * 8 + g, c_ = (kk_) * 32 + 4 * t;                               \
            BF[j_] = (uint2)(*(const __local uint*)(bs_ + TOFF(r_, c_)),                      \
                             *(const __local uint*)(bs_ + TOFF(r_, c_ + 16)));                \
        }
#endif
#endif

// C (Mp x Np, uint8) = (A (Mp x Kp, s8) · B^T (B: Np x Kp, s8)) mod p, in [0, p).
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void gemm_s8(const __global uchar* Ab, const __global uchar* Bb, __global uchar* Cb,
             const ulong aoff, const ulong boff, const ulong coff,
             const int Kp, const int Np, const int p
#if GROUPM
             , const int Mp // the grid is (Np / BN) x (Mp / BM) groups
#endif
             ) {
#if BATCH
    // grid z = modulus t: aoff, boff, coff are the plane sizes, p is unused (PM(t) below)
    const int zt = get_group_id(2);
    Ab += aoff * zt;
    Bb += boff * zt;
    Cb += coff * zt;
#define AOFF 0
#define BOFF 0
#define COFF 0
#else
#define AOFF aoff
#define BOFF boff
#define COFF coff
#endif
    __local uint smem[STAGES * (TILE_A + TILE_B) / 4] __attribute__((aligned(16)));
    __local uint scratch[MMA_SCRATCH_WORDS];
    __local uchar* sm = (__local uchar*)smem;
    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
#if GROUPM
    // Block rasterization: the launch order (x fastest) walks bands of GROUPM block rows
    // column by column, so that the blocks resident at one time share A and B panels in L2.
    int bmi, bni;
    {
        // (from the arguments, not get_num_groups: that comes from %envreg in NVIDIA's PTX,
        // which prof/drv.cu cannot set)
        const int gx = Np / BN, gy = Mp / BM;
        const int pid = get_group_id(1) * gx + get_group_id(0);
        const int per = GROUPM * gx, grp = pid / per, first = grp * GROUPM;
        const int gsz = min(gy - first, GROUPM), r = pid - grp * per;
        bmi = first + r % gsz;
        bni = r / gsz;
    }
    const int m0 = bmi * BM, n0 = bni * BN;
#else
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN;
#endif
    const __global uchar* A = Ab + AOFF + (long)m0 * Kp;
    const __global uchar* B = Bb + BOFF + (long)n0 * Kp;

    int4 acc[MI][NI];
    #pragma unroll
    for (int i = 0; i < MI; i++)
        #pragma unroll
        for (int j = 0; j < NI; j++) acc[i][j] = (int4)(0);

    const int nk = Kp / BK;
    #pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nk) stage(sm + s * TILE_A, sm + STAGES * TILE_A + s * TILE_B, A, B, Kp, s * BK, tid);
        async_commit();
    }
#if PF
    // Fragments double-buffered in registers: k-slice kk+1's ldmatrix before kk's mma; at the
    // last slice of a stage, wait + barrier, then the next stage's first fragments before
    // the last mma (one barrier per stage as before; needs an even number of 32-byte slices).
#if (BK / 32) % 2 != 0
#error "PF needs BK a multiple of 64"
#endif
    uint4 af[2][MI];
    uint2 bf[2][NI];
    async_wait(STAGES - 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    LOAD_FRAGS(af[0], bf[0], sm, 0, 0);
    for (int kt = 0; kt < nk; kt++) {
        {
            const int nxt = kt + STAGES - 1;
            const int sb = nxt % STAGES;
            if (nxt < nk) stage(sm + sb * TILE_A, sm + STAGES * TILE_A + sb * TILE_B, A, B, Kp, nxt * BK, tid);
            async_commit();
        }
        const int cur = kt % STAGES;
        #pragma unroll
        for (int kk = 0; kk < BK / 32; kk++) {
            if (kk < BK / 32 - 1) {
                LOAD_FRAGS(af[(kk + 1) & 1], bf[(kk + 1) & 1], sm, cur, kk + 1);
            } else {
                async_wait(STAGES - 2);
                barrier(CLK_LOCAL_MEM_FENCE);
                if (kt + 1 < nk) LOAD_FRAGS(af[(kk + 1) & 1], bf[(kk + 1) & 1], sm, (kt + 1) % STAGES, 0);
            }
            #pragma unroll
            for (int i = 0; i < MI; i++)
                #pragma unroll
                for (int j = 0; j < NI; j++)
                    acc[i][j] = mma_s8(af[kk & 1][i], bf[kk & 1][j], acc[i][j], scratch);
        }
    }
#else
    for (int kt = 0; kt < nk; kt++) {
        async_wait(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        {
            const int nxt = kt + STAGES - 1;
            const int sb = nxt % STAGES;
            if (nxt < nk) stage(sm + sb * TILE_A, sm + STAGES * TILE_A + sb * TILE_B, A, B, Kp, nxt * BK, tid);
            async_commit();
        }
        const int cur = kt % STAGES;
        const __local uchar* as = sm + cur * TILE_A + (wm * WM) * SROW;
        const __local uchar* bs = sm + STAGES * TILE_A + cur * TILE_B + (wn * WN) * SROW;
        #pragma unroll
        for (int kk = 0; kk < BK / 32; kk++) {
            uint4 af[MI];
            uint2 bf[NI];
#if LDSM
            #pragma unroll
            for (int i = 0; i < MI; i++)
                af[i] = ldsm_x4(as + TOFF(i * 16 + (lane & 15), kk * 32 + (lane >> 4) * 16));
            #pragma unroll
            for (int j = 0; j < NI; j += 2) {
                const uint4 r = ldsm_x4(bs + TOFF(j * 8 + (lane & 7) + (lane >> 4) * 8,
                                                  kk * 32 + ((lane >> 3) & 1) * 16));
                bf[j] = (uint2)(r.x, r.y);
                bf[j + 1] = (uint2)(r.z, r.w);
            }
#else
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = i * 16 + g, c = kk * 32 + 4 * t;
                af[i] = (uint4)(*(const __local uint*)(as + TOFF(r, c)),
                                *(const __local uint*)(as + TOFF(r + 8, c)),
                                *(const __local uint*)(as + TOFF(r, c + 16)),
                                *(const __local uint*)(as + TOFF(r + 8, c + 16)));
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int r = j * 8 + g, c = kk * 32 + 4 * t;
                bf[j] = (uint2)(*(const __local uint*)(bs + TOFF(r, c)),
                                *(const __local uint*)(bs + TOFF(r, c + 16)));
            }
#endif
            #pragma unroll
            for (int i = 0; i < MI; i++)
                #pragma unroll
                for (int j = 0; j < NI; j++) acc[i][j] = mma_s8(af[i], bf[j], acc[i][j], scratch);
        }
    }
#endif
    async_wait(0);

    __global uchar* C = Cb + COFF;
#if BATCH
    // the modulus as a compile-time constant in each of NMOD copies of the epilogue
    #pragma unroll
    for (int tt = 0; tt < NMOD; tt++) {
        if (tt != zt) continue;
        const int pc = PM(tt);
        #pragma unroll
        for (int i = 0; i < MI; i++) {
            const int r0 = m0 + wm * WM + i * 16 + g;
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c0 = n0 + wn * WN + j * 8 + 2 * t;
                int4 v = acc[i][j] % pc;
                v += select((int4)(0), (int4)(pc), v < 0);
                *(__global uchar2*)(C + (long)r0 * Np + c0) = (uchar2)((uchar)v.x, (uchar)v.y);
                *(__global uchar2*)(C + (long)(r0 + 8) * Np + c0) = (uchar2)((uchar)v.z, (uchar)v.w);
            }
        }
    }
#else
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        const int r0 = m0 + wm * WM + i * 16 + g;
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            const int c0 = n0 + wn * WN + j * 8 + 2 * t;
            int4 v = acc[i][j] % p;
            v += select((int4)(0), (int4)(p), v < 0);
            *(__global uchar2*)(C + (long)r0 * Np + c0) = (uchar2)((uchar)v.x, (uchar)v.y);
            *(__global uchar2*)(C + (long)(r0 + 8) * Np + c0) = (uchar2)((uchar)v.z, (uchar)v.w);
        }
    }
#endif
}

// ---------------------------------------------------------------- reconstruction

// Work-item (j, i): the residues c_t of a'_i . b'_j -> x in [-P/2, P/2) (Garner, balanced
// digits v_t, so that Horner's x = v_0 + p_0 (v_1 + p_1 (v_2 + ...)) loses at most a factor
// 2 to cancellation per step and stays accurate in double), then C = x 2^-(e_i + f_j).
#if REC4
// Work-item (j/4, i): the same for 4 consecutive columns j0..j0+3, with uchar4 loads of the
// residue planes (rows are Np bytes, Np a multiple of BN, so j0 is 4-aligned and in the plane).
__kernel void reconstruct(__global const uchar* R, const int Mp, const int Np,
                          __global const int* e, __global const int* f,
                          __global float* C, const int M, const int N) {
    const int j0 = get_global_id(0) * 4, i = get_global_id(1);
    if (j0 >= N || i >= M) return;
    const long plane = (long)Mp * Np, at = (long)i * Np + j0;
    int4 v[NMOD];
#if REC4 == 3
    // Garner in closed form, one reduction per modulus, by compile-time constants (call 8):
    // with W_qk = p_0 ... p_{q-1} mod p_k and GC(k) = W_kk^-1, GG(q, k) = W_qk GC(k) mod p_k,
    // v_k = (c_k GC(k) - sum_{q<k} v_q GG(q, k)) mod p_k, centred; |.| < 2^16 + 19 2^15.
    #pragma unroll
    for (int k = 0; k < NMOD; k++) {
        const int pk = PM(k);
#if UMOD && NMOD <= 9
        // + p ceil(2^18 / p) (> |sum|, a compile-time constant): non-negative, below 2^20
        int4 t = convert_int4(*(__global const uchar4*)(R + k * plane + at)) * GC(k) +
                 (int4)(pk * ((1 << 18) / pk + 1));
        #pragma unroll
        for (int q = 0; q < k; q++) t -= v[q] * GG(q, k);
        t = as_int4(as_uint4(t) % (uint)pk);
        t -= select((int4)(0), (int4)(pk), t > (pk - 1) / 2);
#else
        int4 t = convert_int4(*(__global const uchar4*)(R + k * plane + at)) * GC(k);
        #pragma unroll
        for (int q = 0; q < k; q++) t -= v[q] * GG(q, k);
        t %= pk;
        t -= select((int4)(0), (int4)(pk), t > (pk - 1) / 2);
        t += select((int4)(0), (int4)(pk), t < -(pk / 2));
#endif
        v[k] = t;
    }
#else
    #pragma unroll
    for (int k = 0; k < NMOD; k++) {
        const int pk = MODS[k];
        int4 t = convert_int4(*(__global const uchar4*)(R + k * plane + at));
        #pragma unroll
        for (int q = 0; q < k; q++) t = ((t - v[q]) * INVS[q * NMOD + k]) % pk;
        t += select((int4)(0), (int4)(pk), t < 0);
        t -= select((int4)(0), (int4)(pk), t > (pk - 1) / 2);
        v[k] = t;
    }
#endif
    double4 x = convert_double4(v[NMOD - 1]);
    #pragma unroll
    for (int k = NMOD - 2; k >= 0; k--) x = fma(x, (double4)((double)MODS[k]), convert_double4(v[k]));
    const int ei = e[i];
    __global float* c = C + (long)i * N + j0;
    if (j0 + 3 < N) {
        const int4 fj = *(__global const int4*)(f + j0);
#if REC4 >= 2
        // 2^-(e_i + f_j) built from its bits (a normal double): the same as ldexp, cheaper
        const int4 s = -(ei + fj);
        if (all(s > -1000) && all(s < 1000)) {
            const double4 sc = (double4)(as_double((long)(1023 + s.x) << 52),
                                         as_double((long)(1023 + s.y) << 52),
                                         as_double((long)(1023 + s.z) << 52),
                                         as_double((long)(1023 + s.w) << 52));
            vstore4(convert_float4(x * sc), 0, c);
            return;
        }
#endif
        vstore4((float4)((float)ldexp(x.x, -(ei + fj.x)), (float)ldexp(x.y, -(ei + fj.y)),
                         (float)ldexp(x.z, -(ei + fj.z)), (float)ldexp(x.w, -(ei + fj.w))), 0, c);
    } else {
        const double xs[4] = {x.x, x.y, x.z, x.w};
        for (int q = 0; q < 4 && j0 + q < N; q++) c[q] = (float)ldexp(xs[q], -(ei + f[j0 + q]));
    }
}
#else
__kernel void reconstruct(__global const uchar* R, const int Mp, const int Np,
                          __global const int* e, __global const int* f,
                          __global float* C, const int M, const int N) {
    const int j = get_global_id(0), i = get_global_id(1);
    if (j >= N || i >= M) return;
    const long plane = (long)Mp * Np, at = (long)i * Np + j;
    int v[NMOD];
    #pragma unroll
    for (int k = 0; k < NMOD; k++) {
        const int pk = MODS[k];
        int t = (int)R[k * plane + at];
        #pragma unroll
        for (int q = 0; q < k; q++) t = ((t - v[q]) * INVS[q * NMOD + k]) % pk;
        if (t < 0) t += pk;
        if (t > (pk - 1) / 2) t -= pk;
        v[k] = t;
    }
    double x = (double)v[NMOD - 1];
    #pragma unroll
    for (int k = NMOD - 2; k >= 0; k--) x = fma(x, (double)MODS[k], (double)v[k]);
    C[(long)i * N + j] = (float)ldexp(x, -(e[i] + f[j]));
}
#endif
