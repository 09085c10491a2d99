// Lesson 12: integers for floats. C = A·B in FP32 accuracy from exact INT8 products (Ozaki
// scheme II). The host puts the INT8 unit (mma_s8, async copies) and the moduli before this
// file: NMOD moduli MODS[0..NMOD) (pairwise coprime, at most 256; P is their product) and
// INVS[q * 8 + k] = MODS[q]⁻¹ mod MODS[k] for q < k.
//
// One multiplication is six kernels, enqueued by the host one after the other:
//   row_scale, col_scale   e_i, f_j: powers of two such that ‖2^e_i a_i‖₂ ≤ 2^L and
//                          ‖2^f_j b_j‖₂ ≤ 2^L with 2^(2L) < P/2: by Cauchy–Schwarz every
//                          |a'_i·b'_j| is then below P/2
//   a_residues, b_residues a' = rint(2^e_i a), b' = rint(2^f_j b), exact integers (rounded
//                          to nearest: half the error of truncation), then a' mod p for every
//                          modulus, centred, as planes of signed bytes (B's transposed, so
//                          that both are k-contiguous)
//   products               one exact INT8 product per modulus through the unit, reduced mod p:
//                          all NMOD products in one launch
//   reconstruct            the integer a'_i·b'_j from its residues (Chinese remainder
//                          theorem, Garner's mixed radix), then C = 2^-(e_i+f_j)·x
//
// The planes are padded with zeros: Mp and Np to whole blocks (BM, BN), Kp to the k-step (BK)
// and to 64, so the products need no bounds.

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 64 // bytes of k per stage
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef GROUPM
#define GROUPM 1 // blocks taken in bands of GROUPM block rows (1: row by row)
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
#define SROW (BK + 16) // a tile's row stride in bytes: padded, so fragment reads do not collide
#define TILE_A (BM * SROW)
#define TILE_B (BN * SROW)

// ---------------------------------------------------------------- scaling

// L: the bits each scaled row of A and column of B may hold, so that the product of two
// stays below P/2 (1.02 rather than 1: room for the rounding of log2 in double).
inline double scale_bits(void) {
    double lp = 0.0;
    for (int t = 0; t < NMOD; t++) lp += log2((double)MODS[t]);
    return 0.5 * (lp - 1.02);
}

// The bits the scaled values may hold before they are rounded to integers, for rows of K: a
// rounding moves each of K values by at most 1/2, the 2-norm by at most √K/2, so a norm
// within 2^L − √K/2 is within 2^L after it. Where that leaves little, L − 1 instead: rounding
// at most doubles a value's magnitude (below 1/2 it becomes 0), so 2^(L−1) is as safe.
inline double rounded_bits(const int K) {
    const double l = scale_bits();
    return fmax(log2(fmax(exp2(l) - 0.5 * sqrt((double)K), 1.0)), l - 1.0);
}

// e for a row or column of K whose sum of squares is ss: the largest with ‖2^e x‖₂ within
// rounded_bits. The sum is rounded up a little, so that no rounding of it lets the bound slip.
inline int scale_exponent(const double ss, const int K) {
    return ss > 0.0 ? (int)floor(rounded_bits(K) - 0.5 * log2(ss * (1.0 + 0x1p-30))) : 0;
}

// ANCHOR: row_scale
// One work-group of 256 per row of A (M × K, row-major).
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void row_scale(const int M, const int K, const __global float* A, __global int* e) {
    __local double red[256];
    const int i = get_group_id(1), lid = get_local_id(0);
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
    if (lid == 0 && i < M) e[i] = scale_exponent(red[0], K);
}
// ANCHOR_END: row_scale

// Work-groups of 32 columns × 8 slices of k, for B (K × N, row-major).
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void col_scale(const int K, const int N, const __global float* B, __global int* f) {
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
        f[j] = scale_exponent(t, K);
    }
}

// ---------------------------------------------------------------- residues

// ANCHOR: residue
// x mod p, centred into [-(p-1)/2, (p-1)/2] for odd p and [-128, 127] for p = 256: a signed
// byte. x is an integer held exactly in a double (|x| < 2^53).
inline int residue(const double x, const int p) {
    // EXERCISE(12.1) BEGIN: the residue of x modulo p, centred so that it fits a signed byte
    // The quotient in double may be one off where x / p is close to an integer: the two
    // corrections bring r into [0, p) whatever it was.
    const double q = floor(x * (1.0 / (double)p));
    int r = (int)fma(-q, (double)p, x);
    if (r < 0) r += p;
    if (r >= p) r -= p;
    // A char holds -128..127: residues past the middle are taken as negative.
    if (r > (p - 1) / 2) r -= p;
    return r;
    // EXERCISE END
}
// ANCHOR_END: residue

// Work-item (k/4, i): A[i][k..k+3] → NMOD planes of Mp × Kp signed bytes, zeros outside A.
__kernel void a_residues(const int M, const int K, const __global float* A,
                         const __global int* e, __global char* R, const int Mp, const int Kp) {
    const int k = get_global_id(0) * 4, i = get_global_id(1);
    if (k >= Kp || i >= Mp) return;
    double x[4];
    const int ei = i < M ? e[i] : 0;
    for (int q = 0; q < 4; q++) {
        const float a = (i < M && k + q < K) ? A[(long)i * K + k + q] : 0.0f;
        x[q] = rint(ldexp((double)a, ei));
    }
    const long plane = (long)Mp * Kp;
    __global char* out = R + (long)i * Kp + k;
    for (int t = 0; t < NMOD; t++) {
        const int p = MODS[t];
        *(__global char4*)(out + t * plane) =
            (char4)((char)residue(x[0], p), (char)residue(x[1], p), (char)residue(x[2], p),
                    (char)residue(x[3], p));
    }
}

// Work-groups of 32 × 8 over a tile of 64 rows (k) × 32 columns (j) of B: scaled and
// rounded through local memory, written transposed (Np × Kp planes, k contiguous).
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void b_residues(const int K, const int N, const __global float* B, const __global int* f,
                __global char* R, const int Np, const int Kp) {
    __local double tile[64][33];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int n0 = get_group_id(0) * 32, k0 = get_group_id(1) * 64;
    const int j = n0 + lx;
    const int fj = j < N ? f[j] : 0;
    for (int r = 0; r < 8; r++) {
        const int k = k0 + ly + 8 * r;
        const float b = (k < K && j < N) ? B[(long)k * N + j] : 0.0f;
        tile[ly + 8 * r][lx] = rint(ldexp((double)b, fj));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int tid = ly * 32 + lx;
    const long plane = (long)Np * Kp;
    for (int h = 0; h < 2; h++) {
        const int jj = (tid >> 4) + 16 * h, kq = (tid & 15) * 4;
        const double x0 = tile[kq][jj], x1 = tile[kq + 1][jj], x2 = tile[kq + 2][jj],
                     x3 = tile[kq + 3][jj];
        __global char* out = R + (long)(n0 + jj) * Kp + k0 + kq;
        for (int t = 0; t < NMOD; t++) {
            const int p = MODS[t];
            *(__global char4*)(out + t * plane) =
                (char4)((char)residue(x0, p), (char)residue(x1, p), (char)residue(x2, p),
                        (char)residue(x3, p));
        }
    }
}

// ---------------------------------------------------------------- the INT8 products

// ANCHOR: stage
// Stage the k-step at k0: A's BM × BK bytes and B's BN × BK bytes, 16 bytes per copy.
inline void stage(__local uchar* as, __local uchar* bs, const __global uchar* A,
                  const __global uchar* B, const int Kp, const int k0, const int tid) {
    #pragma unroll
    for (int u = 0; u < (BM * BK / 16 + THREADS - 1) / THREADS; u++) {
        const int c = tid + u * THREADS;
        if (c < BM * BK / 16) {
            const int row = c / (BK / 16), col = (c % (BK / 16)) * 16;
            async_copy16(as + row * SROW + col, A + (long)row * Kp + k0 + col);
        }
    }
    #pragma unroll
    for (int u = 0; u < (BN * BK / 16 + THREADS - 1) / THREADS; u++) {
        const int c = tid + u * THREADS;
        if (c < BN * BK / 16) {
            const int row = c / (BK / 16), col = (c % (BK / 16)) * 16;
            async_copy16(bs + row * SROW + col, B + (long)row * Kp + k0 + col);
        }
    }
}
// ANCHOR_END: stage

// For every modulus t: RC_t (Mp × Np bytes) = (RA_t · RB_tᵀ) mod p_t, in [0, p_t). The grid
// holds the NMOD products one under the other, Mp / BM block rows each, so that they run as
// one launch: one product's last blocks overlap the next one's first.
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void products(const __global char* RA, const __global char* RB, __global uchar* RC,
              const int Mp, const int Np, const int Kp) {
    __local uint smem[STAGES * (TILE_A + TILE_B) / 4] __attribute__((aligned(16)));
    __local uint scratch[MMA_SCRATCH_WORDS(WARPS)];
    __local uchar* sm = (__local uchar*)smem;
    const int tid = get_local_id(0), lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t4 = lane & 3;
    const int wm = warp / (BN / WN), wn = warp % (BN / WN);
    const int blocks_m = Mp / BM, blocks_n = Np / BN, t = get_group_id(1) / blocks_m;
    // The blocks run about in launch order (x fastest): taken in bands of GROUPM block rows,
    // column by column, the blocks resident at one time share their panels of A and B in the
    // L2 cache, where row by row each would bring its own panel of B.
    const int id = (get_group_id(1) % blocks_m) * blocks_n + get_group_id(0);
    const int band = id / (GROUPM * blocks_n), first = band * GROUPM;
    const int height = min(blocks_m - first, GROUPM), pos = id - band * GROUPM * blocks_n;
    const int m0 = (first + pos % height) * BM, n0 = pos / height * BN;
    const int p = MODS[t];
    const __global uchar* A = (const __global uchar*)RA + (long)t * Mp * Kp + (long)m0 * Kp;
    const __global uchar* B = (const __global uchar*)RB + (long)t * Np * Kp + (long)n0 * Kp;

    int4 acc[MI][NI];
    // Every loop over the tiles unrolled: the accumulators are then registers, indexed by
    // constants, never an array in memory.
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
    for (int kt = 0; kt < nk; kt++) {
        // ANCHOR: step
        // The step's copies are done (ours), and every work-item's are visible (the barrier);
        // and every work-item is done reading the buffer the next copies go to.
        async_wait(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: step
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
#if MMA_PTX
            #pragma unroll
            for (int i = 0; i < MI; i++)
                af[i] = ldsm_x4(as + (i * 16 + (lane & 15)) * SROW + kk * 32 + (lane >> 4) * 16);
            #pragma unroll
            for (int j = 0; j < NI; j += 2) {
                const uint4 r = ldsm_x4(bs + (j * 8 + (lane & 7) + (lane >> 4) * 8) * SROW +
                                        kk * 32 + ((lane >> 3) & 1) * 16);
                bf[j] = (uint2)(r.x, r.y);
                bf[j + 1] = (uint2)(r.z, r.w);
            }
#else
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = i * 16 + g, c = kk * 32 + 4 * t4;
                af[i] = (uint4)(*(const __local uint*)(as + r * SROW + c),
                                *(const __local uint*)(as + (r + 8) * SROW + c),
                                *(const __local uint*)(as + r * SROW + c + 16),
                                *(const __local uint*)(as + (r + 8) * SROW + c + 16));
            }
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int r = j * 8 + g, c = kk * 32 + 4 * t4;
                bf[j] = (uint2)(*(const __local uint*)(bs + r * SROW + c),
                                *(const __local uint*)(bs + r * SROW + c + 16));
            }
#endif
            // The unit for the first three moduli; the others' products on the lanes, with
            // the unit called on zeros beside them (the same calls, so the same count).
            const bool real = t < 3;
            #pragma unroll
            for (int i = 0; i < MI; i++)
                for (int j = 0; j < NI; j++) {
                    acc[i][j] = mma_s8(real ? af[i] : (uint4)(0), real ? bf[j] : (uint2)(0), acc[i][j], scratch);
                    if (!real) {
                        const int r = i * 16 + g, c = j * 8 + 2 * t4;
                        int4 s = (int4)(0);
                        for (int k = 0; k < 32; k++) {
                            const int a0 = (char)as[r * SROW + kk * 32 + k], a8 = (char)as[(r + 8) * SROW + kk * 32 + k];
                            const int b0 = (char)bs[c * SROW + kk * 32 + k], b1 = (char)bs[(c + 1) * SROW + kk * 32 + k];
                            s += (int4)(a0 * b0, a0 * b1, a8 * b0, a8 * b1);
                        }
                        acc[i][j] += s;
                    }
                }
        }
    }
    async_wait(0);

    __global uchar* C = RC + (long)t * Mp * Np;
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        const int r0 = m0 + wm * WM + i * 16 + g;
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            const int c0 = n0 + wn * WN + j * 8 + 2 * t4;
            int4 v = acc[i][j] % p;
            v += select((int4)(0), (int4)(p), v < 0);
            *(__global uchar2*)(C + (long)r0 * Np + c0) = (uchar2)((uchar)v.x, (uchar)v.y);
            *(__global uchar2*)(C + (long)(r0 + 8) * Np + c0) = (uchar2)((uchar)v.z, (uchar)v.w);
        }
    }
}

// ---------------------------------------------------------------- reconstruction

// ANCHOR: reconstruct
// From the residues r[t] of x = a'_i·b'_j (RC_t[i][j], in [0, p_t)) back to x, the one
// integer in [-P/2, P/2) with those residues, then *c = C[i][j] = 2^-s·x, s = e_i + f_j.
inline void from_residues(const int* r, const int s, __global float* c) {
    // EXERCISE(12.2) BEGIN: x from its residues (Garner, Horner), C = 2^-s·x
    // Garner's mixed radix: x = v_0 + p_0 (v_1 + p_1 (v_2 + ...)), each digit v_k found from
    // r_k and the digits before it. Balanced digits (in [-(p_k-1)/2, (p_k-1)/2]) make the
    // sum cover [-P/2, P/2), negative products included, and Horner's sum in double then
    // loses at most a factor 2 to cancellation per step.
    int v[NMOD];
    for (int k = 0; k < NMOD; k++) {
        const int pk = MODS[k];
        int t = r[k];
        for (int q = 0; q < k; q++) t = ((t - v[q]) * INVS[q * 8 + k]) % pk;
        if (t < 0) t += pk;
        if (t > (pk - 1) / 2) t -= pk;
        v[k] = t;
    }
    double x = (double)v[NMOD - 1];
    for (int k = NMOD - 2; k >= 0; k--) x = fma(x, (double)MODS[k], (double)v[k]);
    *c = (float)ldexp(x, -s);
    // EXERCISE END
}
// ANCHOR_END: reconstruct

// Work-item (j/4, i): C[i][j0..j0+3] from one uchar4 of each plane (rows of the planes are Np
// bytes, a multiple of 32, so j0 is 4-aligned and inside the plane).
__kernel void reconstruct(const int M, const int N, const __global uchar* R, const int Mp,
                          const int Np, const __global int* e, const __global int* f,
                          __global float* C) {
    const int j0 = get_global_id(0) * 4, i = get_global_id(1);
    if (j0 >= N || i >= M) return;
    const long plane = (long)Mp * Np, at = (long)i * Np + j0;
    int r[4][NMOD];
    #pragma unroll
    for (int t = 0; t < NMOD; t++) {
        const uchar4 u = *(const __global uchar4*)(R + t * plane + at);
        r[0][t] = u.x;
        r[1][t] = u.y;
        r[2][t] = u.z;
        r[3][t] = u.w;
    }
    const int ei = e[i];
    __global float* c = C + (long)i * N + j0;
    #pragma unroll
    for (int q = 0; q < 4; q++)
        if (j0 + q < N) from_residues(r[q], ei + f[j0 + q], c + q);
}
