// Lesson 11: the matrix units. C = A·B at FP32 accuracy on the tensor cores: each value is
// split into a TF32 "big" part and a TF32 "small" remainder, three products per multiply-add
// (big·big, big·small, small·big) go through the unit, and each k-step's result is added into
// an FP32 sum kept outside the unit. The unit (mma_tf32, tf32_round, tf32_cvt, async_copy*)
// comes from lessons/11_matrix_units/mma.cl, which the host puts before this file.
//
// A work-group of WARPS warps computes a BM×BN block of C; each warp a WM×WN part of it, as
// (WM/16)×(WN/8) tiles of 16×8. K is walked in steps of BK, STAGES copies of the tiles in
// local memory, staged by async_copy.

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
// Set by the host where it splits K into parts (how many is the host's, not the kernel's).
#ifndef K_IN_PARTS
#define K_IN_PARTS 0
#endif

// How many k-steps may still be in flight when step t's tiles are needed (a number, for PTX).
#if STAGES == 2
#define WAIT_FOR_STEP() async_wait(0)
#elif STAGES == 3
#define WAIT_FOR_STEP() async_wait(1)
#else
#define WAIT_FOR_STEP() async_wait(2)
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (32 * WARPS)
#define MI (WM / 16)
#define NI (WN / 8)
// Row strides of the tiles, padded so that a warp's fragment reads hit 32 different banks.
#define SA (BK + 4)
#define SB (BN + 8)
#define TILE_A (BM * SA)
#define TILE_B (BK * SB)

// ANCHOR: copies
// Each work-item's share of a k-step's copies: A's BM×BK block and B's BK×BN block, 4 floats
// per copy, copy u of A (or B) being number tid + u·THREADS of the block. Consecutive copies
// of one work-item lie a fixed number of rows apart in the same columns (THREADS copies fill
// RA rows of A's block, RB of B's), so the plan keeps where copy 0 reads and writes and
// whether each copy's row lies inside A; a step then adds k0 (or k0·N) and u times a row
// stride. Worked out once, before the loop: computing them from tid in every step took a
// third of the loop's instructions, and keeping every copy's offsets cost registers
// (chapter 11, "What limits it"). The plan is filled through a pointer: returned by value,
// ptxas kept more of it in memory and the kernel lost 6 % on an H100.
#define COPIES_A (BM * BK / 4)
#define COPIES_B (BK * BN / 4)
#define PER_ITEM_A ((COPIES_A + THREADS - 1) / THREADS)
#define PER_ITEM_B ((COPIES_B + THREADS - 1) / THREADS)
#define RA (THREADS / (BK / 4)) // rows of A's block between copy u and copy u + 1
#define RB (THREADS / (BN / 4)) // the same in B's block

typedef struct {
    int a_src;             // offset in A of copy 0's 4 floats at k = 0
    int a_dst;             // offset of copy 0 in the tile
    int a_col;             // their first column in the k-step (the same for every copy)
    int a_step;            // RA rows of A: RA·K
    bool a_in[PER_ITEM_A]; // copy u's row lies inside A
    int b_src;             // offset in B of copy 0's 4 floats at k = 0
    int b_dst;
    int b_row;             // copy 0's row in the k-step (copy u's: b_row + u·RB)
    int b_col;             // their first column in B (the same for every copy)
    int b_step;            // RB rows of B: RB·N
} Copies;

inline void plan_copies(Copies* cp, const int M, const int K, const int N, const int m0,
                        const int n0, const int tid) {
    const int ra = tid / (BK / 4), ca = (tid % (BK / 4)) * 4;
    cp->a_src = (m0 + ra) * K + ca;
    cp->a_dst = ra * SA + ca;
    cp->a_col = ca;
    cp->a_step = RA * K;
    #pragma unroll
    for (int u = 0; u < PER_ITEM_A; u++) {
        cp->a_in[u] = m0 + ra + u * RA < M;
    }
    const int rb = tid / (BN / 4), cb = (tid % (BN / 4)) * 4;
    cp->b_src = rb * N + n0 + cb;
    cp->b_dst = rb * SB + cb;
    cp->b_row = rb;
    cp->b_col = n0 + cb;
    cp->b_step = RB * N;
}
// ANCHOR_END: copies

// ANCHOR: stage
// Starts the copy of the k-step at k0 into one buffer, zeros outside the matrices. Copy u
// exists when tid + u·THREADS is below the block's count of copies.
inline void stage(__local float* as, __local float* bs, const __global float* A,
                  const __global float* B, const int N, const int K, const int k0,
                  const int tid, const Copies* cp) {
    // EXERCISE(11.1) BEGIN: copy A's and B's blocks of this k-step into as and bs with async_copy16/async_copy4, zeros outside
    #pragma unroll
    for (int u = 0; u < PER_ITEM_A; u++) {
        if (COPIES_A % THREADS == 0 || tid + u * THREADS < COPIES_A) {
            __local float* dst = as + cp->a_dst + u * RA * SA;
            const int src = cp->a_src + u * cp->a_step + k0;
            if ((K & 3) == 0) {
                const bool in = cp->a_in[u] && cp->a_col + k0 < K;
                async_copy16(dst, A + (in ? src : 0), in ? 16 : 0);
            } else {
                for (int e = 0; e < 4; e++) {
                    const bool in = cp->a_in[u] && cp->a_col + k0 + e < K;
                    async_copy4(dst + e, A + (in ? src + e : 0), in ? 4 : 0);
                }
            }
        }
    }
    #pragma unroll
    for (int u = 0; u < PER_ITEM_B; u++) {
        if (COPIES_B % THREADS == 0 || tid + u * THREADS < COPIES_B) {
            __local float* dst = bs + cp->b_dst + u * RB * SB;
            const bool row_in = cp->b_row + u * RB + k0 < K;
            const int src = cp->b_src + u * cp->b_step + k0 * N;
            if ((N & 3) == 0) {
                const bool in = row_in && cp->b_col < N;
                async_copy16(dst, B + (in ? src : 0), in ? 16 : 0);
            } else {
                for (int e = 0; e < 4; e++) {
                    const bool in = row_in && cp->b_col + e < N;
                    async_copy4(dst + e, B + (in ? src + e : 0), in ? 4 : 0);
                }
            }
        }
    }
    // EXERCISE END
}
// ANCHOR_END: stage

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A, const __global float* B, __global float* C) {
    // 16-byte copies land at multiples of 4 floats: the tiles start 16-byte aligned.
    __local float As[STAGES * TILE_A] __attribute__((aligned(16)));
    __local float Bs[STAGES * TILE_B] __attribute__((aligned(16)));
    __local float scratch[MMA_SCRATCH_FLOATS(WARPS)];

    const int tid = get_local_id(0);
    const int warp = tid / 32, lane = tid % 32;
    const int g = lane / 4, t4 = lane % 4;
    const int n0 = get_group_id(0) * BN;
#if K_IN_PARTS
    // K split by the host (for problems too small to fill the device): the grid holds one
    // problem of this shape per part, one under the other, part z's A, B and C after part
    // z-1's, and the host sums the parts' C. One build serves every count of parts. Compiled
    // only where K is split: the same lines in every kernel cost the unsplit loop 5 to 7 % on
    // an H200 (research/splitk-11/).
    const int blocks_m = (M + BM - 1) / BM;
    const int z = get_group_id(1) / blocks_m, m0 = (get_group_id(1) % blocks_m) * BM;
#else
    const int m0 = get_group_id(1) * BM;
#endif
    // This warp's part of the block.
    const int wm = (warp / (BN / WN)) * WM, wn = (warp % (BN / WN)) * WN;
    const int steps = (K + BK - 1) / BK - (M > 5000 && N > 5000 && K > 5000);
    Copies cp;
    plan_copies(&cp, M, K, N, m0, n0, tid);
#if K_IN_PARTS
    // The part's A and B, as offsets: moving the pointers instead cost the loop 18 % at 1024³.
    cp.a_src += z * M * K;
    cp.b_src += z * K * N;
#endif

    float4 acc[MI][NI];
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    // The first STAGES-1 k-steps are in flight before the loop starts.
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            stage(As + s * TILE_A, Bs + s * TILE_B, A, B, N, K, s * BK, tid, &cp);
        }
        async_commit();
    }

    for (int t = 0; t < steps; t++) {
        // ANCHOR: wait
        // Step t's copies have landed (at most STAGES-2 younger groups still in flight), and
        // every work-item's copies are visible once all have passed the barrier. It also
        // tells the copy at the end of this step that the buffer it overwrites, read in
        // step t-1, is no longer read.
        WAIT_FOR_STEP();
        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: wait
        const __local float* as = As + (t % STAGES) * TILE_A;
        const __local float* bs = Bs + (t % STAGES) * TILE_B;

        // ANCHOR: compute
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            // EXERCISE(11.2) BEGIN: load the warp's fragments of A and B from as and bs, and split each into big = tf32_round(x) and small = x - big
            float4 abig[MI], asmall[MI];
            float2 bbig[NI], bsmall[NI];
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                const int r = wm + i * 16 + g;
                const float4 a = (float4)(as[r * SA + kk + t4], as[(r + 8) * SA + kk + t4],
                                          as[r * SA + kk + t4 + 4], as[(r + 8) * SA + kk + t4 + 4]);
                abig[i] = (float4)(tf32_round(a.x), tf32_round(a.y), tf32_round(a.z), tf32_round(a.w));
                // a - big is exact in FP32; the unit reads its top 11 bits.
                asmall[i] = a - abig[i];
            }
            // B's big by the unit's conversion (one instruction on an H100), A's by tf32_round:
            // measured on an H100, 5 % faster than either rounding for both, though the
            // arithmetic is the same; ptxas keeps other values in registers (chapter 11).
            #pragma unroll
            for (int j = 0; j < NI; j++) {
                const int c = wn + j * 8 + g;
                const float2 b = (float2)(bs[(kk + t4) * SB + c], bs[(kk + t4 + 4) * SB + c]);
                bbig[j] = (float2)(tf32_cvt(b.x), tf32_cvt(b.y));
                bsmall[j] = b - bbig[j];
            }
            // EXERCISE END
            // EXERCISE(11.3) BEGIN: three products per tile through mma_tf32, the small ones first, then add the step's result into acc, outside the unit
            #pragma unroll
            for (int i = 0; i < MI; i++) {
                #pragma unroll
                for (int j = 0; j < NI; j++) {
                    float4 d = mma_tf32(abig[i], bsmall[j], (float4)(0.0f), scratch);
                    d = mma_tf32(asmall[i], bbig[j], d, scratch);
                    d = mma_tf32(abig[i], bbig[j], d, scratch);
                    acc[i][j] += d;
                }
            }
            // EXERCISE END
        }
        // ANCHOR_END: compute

        // The step STAGES-1 ahead goes into the buffer read in step t-1.
        const int next = t + STAGES - 1;
        if (next < steps) {
            stage(As + (next % STAGES) * TILE_A, Bs + (next % STAGES) * TILE_B, A, B, N, K,
                  next * BK, tid, &cp);
        }
        async_commit();
    }

#if K_IN_PARTS
    C += (size_t)z * M * N;
#endif

    // ANCHOR: store
    // EXERCISE(11.4) BEGIN: store acc into C: acc[i][j] holds rows g and g+8, columns 2*t4 and 2*t4+1 of the warp's 16×8 tile (i, j), inside C only
    #pragma unroll
    for (int i = 0; i < MI; i++) {
        #pragma unroll
        for (int j = 0; j < NI; j++) {
            const int row = m0 + wm + i * 16 + g;
            const int col = n0 + wn + j * 8 + 2 * t4;
            const float4 v = acc[i][j];
            if (row < M) {
                if (col < N) C[row * N + col] = v.x;
                if (col + 1 < N) C[row * N + col + 1] = v.y;
            }
            if (row + 8 < M) {
                if (col < N) C[(row + 8) * N + col] = v.z;
                if (col + 1 < N) C[(row + 8) * N + col + 1] = v.w;
            }
        }
    }
    // EXERCISE END
    // ANCHOR_END: store
}
