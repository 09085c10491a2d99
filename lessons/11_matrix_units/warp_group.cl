// Lesson 11's product on Hopper's warp-group unit (wgmma): the same split and the same three
// products per multiply-add as the lesson's kernel, FP32 sums outside the unit, but each call
// is made by four warps together, takes one of its operands straight from local memory, and
// runs while the work-items go on. C = A·B, row-major, any M, N and K: rows of A and B that do
// not start on 16 bytes are read where they lie (AR, BR below) or padded by the host, which
// chooses by size (`in_place` in warp_group.rs).
//
// The kernel computes C^T = B^T·A^T, so that the operand the unit takes from registers is B's
// (split there: big = tf32_cvt(b), small = b − big) and the one it takes from local memory is
// A's, K-major exactly as cp.async copies it: 8 rows × 4 floats of k per 16-byte "core matrix".
// The unit reads only 19 bits of each value, so A's big part is A itself (the unit drops the
// rest) and its small part, tf32_round(a − trunc(a)), is written once per tile by a pass of
// the work-group beside the unit's first group of calls.
//
// Per k-step of 8 the unit does small·big (starting its temporary from zero), big·small and
// big·big; CHAIN k-steps go into the temporary, which is then added into the FP32 accumulator
// outside the unit: one FP32 add per 8·CHAIN of k, where the lesson's kernel adds after every 8.
//
//   BM      rows of C per work-group: the unit's N, 64, 128 or 192 on the tensor cores
//   WGS     warp groups (1 or 2): 64·WGS columns of C per work-group
//   BK      k per step, STAGES the cp.async stages (copies run STAGES − 1 steps ahead)
//   CHAIN   k-steps of 8 summed inside the unit before one FP32 add
//   KG      1 where K is not a multiple of BK: k past K is copied as zeros
//   AR      1 where K is not a multiple of 4: A's rows start anywhere, a 16-byte copy can only
//           take the aligned 16 bytes around them; each row's copies land shifted in a staging
//           tile one chunk wider, and the pass that makes the small parts also writes the big
//           parts there unshifted (the unit reads the tile as it lies; the pass is the one
//           place where a row's shift can be undone, lesson 08's padding made on chip)
//   BR      1 where N is not a multiple of 4: B's rows likewise; each row one chunk wider, and
//           the work-items add the row's shift when they read their fragments
//   PADDED  1 where A and B are the host's copies with rows rounded up to 4 floats by zeros
//           (K · 4 or N · 4 bytes not a multiple of 16, above the in-place bound): the kernel
//           reads them at those lengths and writes C where it lies, so no copy comes back
#ifndef WGS
#define WGS 2
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef CHAIN
#define CHAIN 4
#endif
#ifndef KG
#define KG 0
#endif
#ifndef AR
#define AR 0
#endif
#ifndef BR
#define BR 0
#endif
#ifndef PADDED
#define PADDED 0
#endif
#define BN (64 * WGS)
#define THREADS (128 * WGS)
#define PF (STAGES - 1)
#define SB (BN + 8)
#define TILE_A (BM * BK)
#define RAW_A ((BK / 4 + AR) * BM * 4)
#define TILE_B (BK * SB)
#define KC (BK / 4)
#define PER_A (BM * BK / 4 / THREADS)
#define PER_B (BK * BN / 4 / THREADS)
#define RA (THREADS / KC)
#define RB (THREADS / (BN / 4))
#define NACC (BM / 2)
#define NG (BK / 8 / CHAIN)

// At the top of step t, step t+1's copies must have landed (its split is made during step t):
// PF + t groups are committed and t + 2 needed.
#if PF == 2
#define WAIT_STEP() async_wait(0)
#elif PF == 3
#define WAIT_STEP() async_wait(1)
#elif PF == 4
#define WAIT_STEP() async_wait(2)
#endif

// ANCHOR: split_a
// The small parts of one A tile (TILE_A floats at `as`): small = tf32_round(a − trunc(a)).
inline void split_a(const __local float* as, __local float* sml, const int tid) {
    #pragma unroll
    for (int i = 0; i < TILE_A / 4 / THREADS; i++) {
        const int o = (tid + i * THREADS) * 4;
        const float4 v = *(const __local float4*)(as + o);
        const float4 r = v - as_float4(as_uint4(v) & (uint4)(0xffffe000u));
        *(__local float4*)(sml + o) =
            (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
    }
}
// ANCHOR_END: split_a

#if AR
// One A tile staged shifted (`raw`, BK/4 + 1 chunks per row, row m's k starting `shift` floats
// into its first chunk) made into the unit's layout: its big parts (A itself) at `big`, its
// small parts at `sml`.
inline void unshift_a(const __local float* raw, __local float* big, __local float* sml,
                      const int tid, const int m0, const int K) {
    #pragma unroll
    for (int i = 0; i < TILE_A / 4 / THREADS; i++) {
        const int q = tid + i * THREADS, m = q % BM, o = q * 4;
        const float4 lo = *(const __local float4*)(raw + o);
        const float4 hi = *(const __local float4*)(raw + o + BM * 4);
        const int shift = (int)(((size_t)(m0 + m) * K) & 3);
        // One of four swizzles: 5 to 7 % faster at 1023³ on an H200 than one shuffle2 of a
        // run-time mask (research/padded-inputs-11/). Oclgrind 21.10's optimised build takes
        // the wrong case of this choice (research/oclgrind-selects/): run it there unoptimised.
        const float4 v = shift == 0 ? lo
                       : shift == 1 ? (float4)(lo.yzw, hi.x)
                       : shift == 2 ? (float4)(lo.zw, hi.xy)
                                    : (float4)(lo.w, hi.xyz);
        *(__local float4*)(big + o) = v;
        const float4 r = v - as_float4(as_uint4(v) & (uint4)(0xffffe000u));
        *(__local float4*)(sml + o) =
            (float4)(tf32_round(r.x), tf32_round(r.y), tf32_round(r.z), tf32_round(r.w));
    }
}
#define SPLIT_A(t) unshift_a(As + ((t) % STAGES) * RAW_A, Abig + ((t) % 2) * TILE_A, \
                             Asm + ((t) % 2) * TILE_A, tid, m0, K)
#define BIG_A(t) (Abig + ((t) % 2) * TILE_A)
#else
#define SPLIT_A(t) split_a(As + ((t) % STAGES) * TILE_A, Asm + ((t) % 2) * TILE_A, tid)
#define BIG_A(t) (As + ((t) % STAGES) * TILE_A)
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K, const __global float* A,
            const __global float* B, __global float* C) {
    __local float As[STAGES * RAW_A] __attribute__((aligned(128)));
    __local float Asm[2 * TILE_A] __attribute__((aligned(128)));
#if AR
    __local float Abig[2 * TILE_A] __attribute__((aligned(128)));
#endif
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(128)));
    __local float scratch[WG_SCRATCH_FLOATS(WGS)];

    const int tid = get_local_id(0);
    const int wg = tid / 128, warp = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN, m0 = get_group_id(1) * BM;
    // The lengths of A's and B's rows as the kernel reads them: the host's padded copies' where
    // PADDED (k past K is zeros there, and read as such), else K and N. C's rows are N floats.
#if PADDED
    const int KS = (K + 3) & ~3, NS = (N + 3) & ~3;
#else
    const int KS = K, NS = N;
#endif
    const int steps = (KS + BK - 1) / BK;

    // Copy u of A: row ma + u·RA of the block, floats 4·kca … 4·kca+3 of the step, stored
    // K-major (the unit's layout); copy u of B: row rb + u·RB of the step, columns cb … cb+3.
    const int ma = tid % 8 + 8 * (tid / (8 * KC)), kca = (tid / 8) % KC;
    // Where a row does not start on 16 bytes (AR, BR), each copy takes the aligned 16 bytes
    // that start `shift` floats before its own: the row's first k (or column) lands at that
    // place of the first chunk, and one more chunk per row (in A_STAGE, B_MORE) holds the end.
    const int a_dst = (kca * BM + ma) * 4;
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
    const int b_dst = rb * SB + cb;
#define SHIFT(row, len) ((int)(((size_t)(row) * (len)) & 3))
    // A's rows where they start on 16 bytes (AR = 0; with AR each copy finds its row's shift).
    const __global float* a_src = A + (size_t)(m0 + ma) * KS + 4 * kca;
    // B's rows s·BK + rb + u·RB: BK and RB are multiples of 4, so one shift for all of them.
    const int b_shift = BR ? SHIFT(rb, N) : 0;
    const __global float* b_src = B + (size_t)rb * NS + n0 + cb - b_shift;
    // Bytes of a copy of B's row whose first column is `c`: columns past N are zeros.
#define B_BYTES(c) ((c) + 4 <= N ? 16 : (c) < N ? 4 * (N - (c)) : 0)
    const bool b_in = n0 + cb - b_shift < N;

    float acc[NACC], t0[NACC];
    #pragma unroll
    for (int i = 0; i < NACC; i++) { acc[i] = 0.0f; t0[i] = 0.0f; }

    // Rows of A past M, columns of B past N and k past K are copied as zeros.
#if KG
#define A_KIN(s) ((s) * BK + 4 * kca < KS)
#define B_KIN(s, u) ((s) * BK + rb + (u) * RB < KS)
#else
#define A_KIN(s) true
#define B_KIN(s, u) true
#endif
#if AR
    // A's copies: k from s·BK + 4·kca − shift on, zeros from K on (the row after, or past
    // the buffer); one more chunk per row, by the work-items below BM.
#define A_COPY(dst, row, k)                                                                \
    do {                                                                                   \
        const int sh_ = SHIFT(row, K), k0_ = (k) - sh_;                                   \
        const bool in_ = (row) < M && k0_ < K;                                             \
        async_copy16(dst, in_ ? A + (size_t)(row) * K + k0_ : A,                           \
                     in_ ? (k0_ + 4 <= K ? 16 : 4 * (K - k0_)) : 0);                       \
    } while (0)
#define A_STAGE(as_, s)                                                                    \
    do {                                                                                   \
        _Pragma("unroll") for (int u = 0; u < PER_A; u++)                                 \
            A_COPY(as_ + a_dst + u * RA * 4, m0 + ma + u * RA, (s) * BK + 4 * kca);        \
        if (tid < BM) A_COPY(as_ + (KC * BM + tid) * 4, m0 + tid, (s) * BK + BK);         \
    } while (0)
#else
#define A_STAGE(as_, s)                                                                    \
    do {                                                                                   \
        const bool k_ = A_KIN(s);                                                          \
        _Pragma("unroll") for (int u = 0; u < PER_A; u++) {                               \
            const bool in_ = k_ && m0 + ma + u * RA < M;                                   \
            async_copy16(as_ + a_dst + u * RA * 4,                                         \
                         in_ ? a_src + (size_t)u * RA * KS + (s) * BK : A, in_ ? 16 : 0);  \
        }                                                                                  \
    } while (0)
#endif
#if BR
    // The last chunk of each of the step's BK rows, by the work-items below BK.
#define B_MORE(bs_, s)                                                                     \
    do {                                                                                   \
        if (tid < BK) {                                                                    \
            const int r_ = (s) * BK + tid, c_ = n0 + BN - SHIFT(tid, N);                   \
            const bool in_ = r_ < K && c_ < N;                                             \
            async_copy16(bs_ + tid * SB + BN, in_ ? B + (size_t)r_ * N + c_ : B,           \
                         in_ ? B_BYTES(c_) : 0);                                           \
        }                                                                                  \
    } while (0)
#else
#define B_MORE(bs_, s)
#endif
#define STAGE(s)                                                                           \
    do {                                                                                   \
        __local float* as_ = As + ((s) % STAGES) * RAW_A;                                  \
        __local float* bs_ = Bs + ((s) % STAGES) * TILE_B;                                 \
        A_STAGE(as_, s);                                                                   \
        _Pragma("unroll") for (int u = 0; u < PER_B; u++) {                               \
            const bool in_ = b_in && B_KIN(s, u);                                          \
            async_copy16(bs_ + b_dst + u * RB * SB,                                        \
                         in_ ? b_src + (size_t)((s) * BK + u * RB) * NS : B,               \
                         in_ ? (BR ? B_BYTES(n0 + cb - b_shift) : 16) : 0);                \
        }                                                                                  \
        B_MORE(bs_, s);                                                                    \
    } while (0)

    for (int s = 0; s < PF; s++) {
        if (s < steps) STAGE(s);
        async_commit();
    }
    // Step 0's small parts, before the loop.
    async_wait(PF - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    SPLIT_A(0);
    FENCE_PROXY_ASYNC();
    const int nb = wg * 64 + warp * 16 + g;
    // Rows k + t4 and k + t4 + 4 of a step, k a multiple of 8: one shift for both (BR).
    const int nbs = nb + (BR ? SHIFT(t4, N) : 0);

    // ANCHOR: loop
    for (int t = 0; t < steps; t++) {
        WAIT_STEP();
        FENCE_PROXY_ASYNC();
        barrier(CLK_LOCAL_MEM_FENCE);
        const __local float* as = BIG_A(t);
        const __local float* bs = Bs + (t % STAGES) * TILE_B;
        const __local float* asm_ = Asm + (t % 2) * TILE_A;
        const wg_desc_t d_big0 = wg_desc(as, BM * 16, 128);
        const wg_desc_t d_sml0 = wg_desc(asm_, BM * 16, 128);

        #pragma unroll
        for (int grp = 0; grp < NG; grp++) {
            // The group's fragments of B first, loaded and split, then its 3·CHAIN calls.
            float4 gb[CHAIN], sb[CHAIN];
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) {
                const int k = (grp * CHAIN + c) * 8;
                const float4 b = (float4)(bs[(k + t4) * SB + nbs], bs[(k + t4) * SB + nbs + 8],
                                          bs[(k + t4 + 4) * SB + nbs], bs[(k + t4 + 4) * SB + nbs + 8]);
                gb[c] = (float4)(tf32_cvt(b.x), tf32_cvt(b.y), tf32_cvt(b.z), tf32_cvt(b.w));
                sb[c] = b - gb[c];
            }
            WG_FENCE();
            #pragma unroll
            for (int c = 0; c < CHAIN; c++) {
                const int kk = grp * CHAIN + c;
                const wg_desc_t d_big = wg_advance(d_big0, 8 * kk * BM);
                const wg_desc_t d_sml = wg_advance(d_sml0, 8 * kk * BM);
                WG_MMA(BM, t0, sb[c], d_big, c, scratch); // the chain's first starts from zero
                WG_MMA(BM, t0, gb[c], d_sml, 1, scratch);
                WG_MMA(BM, t0, gb[c], d_big, 1, scratch);
            }
            WG_COMMIT();
            if (grp == 0) {
                // While the unit works: the copies STAGES − 1 steps ahead, and the next
                // tile's small parts.
                if (t + PF < steps) STAGE(t + PF);
                async_commit();
                if (t + 1 < steps) SPLIT_A(t + 1);
            }
            WG_WAIT(0);
            WG_KEEP(BM, t0);
            #pragma unroll
            for (int i = 0; i < NACC; i++) acc[i] += t0[i];
        }
        FENCE_PROXY_ASYNC();
    }
    // ANCHOR_END: loop

    #pragma unroll
    for (int j = 0; j < BM / 8; j++) {
        const int row = m0 + 8 * j + 2 * t4, col = n0 + nb;
        if (row < M) {
            if (col < N) C[(size_t)row * N + col] = acc[4 * j];
            if (col + 8 < N) C[(size_t)row * N + col + 8] = acc[4 * j + 2];
        }
        if (row + 1 < M) {
            if (col < N) C[(size_t)(row + 1) * N + col] = acc[4 * j + 1];
            if (col + 8 < N) C[(size_t)(row + 1) * N + col + 8] = acc[4 * j + 3];
        }
    }
}
