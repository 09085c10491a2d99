// v20: v19 with CUTLASS's order of the step: the wait and barrier come before the step's last
// k, and the next step's first k is read from local memory while that last k is computed, so
// no warp starts a step waiting for local memory. Needs STAGES >= 3, TSK even.
// v19: cuBLAS's plan (its kernel sm80_xmma_gemm_..._tilesize256x128x8_stage3_..._ffma) with a
// loop as lean as its: asynchronous copies (cp.async, ASYNC=1, NVIDIA only) into a ring of
// STAGES local tiles, and everything the copies need that does not change with k computed
// before the loop: one pointer into A and one into B, advanced by a k-step each step; the
// destinations as constant offsets from the stage's base; which rows of A and which columns
// of B lie inside the matrices as bits. Per step only "is this k inside K" is asked.
// A's tile is stored transposed (As[k][m], float4 columns XOR-swizzled by k) by 4-byte
// copies; B's by 16-byte copies when N is a multiple of 4, else by 4-byte ones.
// ASYNC=0 makes the copies ordinary loads and stores (for checking on other devices).

#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 256
#endif
#ifndef TSK
#define TSK 8
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 16
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef ASYNC
#define ASYNC 1
#endif

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define THREADS (RTSM * RTSN)
#define LPTA (TSM * TSK / THREADS)      // 4-byte copies of A per work-item and step
#define LPTB (TSK * TSN / 4 / THREADS)  // 16-byte copies of B per work-item and step
#define AROWS (THREADS / TSK)           // rows of A's tile between a work-item's copies
#define BROWS (THREADS / (TSN / 4))     // rows of B's tile between a work-item's copies
#if STAGES < 3 || TSK % 2 != 0
#error "v20 needs STAGES >= 3 and an even TSK"
#endif
#if THREADS % TSK != 0 || THREADS % (TSN / 4) != 0 || AROWS % 4 != 0
#error "v19 needs THREADS to be a multiple of TSK and of TSN/4, and AROWS of 4"
#endif
// The swizzle stays below AROWS/4 float4 columns, so that the XOR commutes with the + 8l
// (or + AROWS/4·l) between a work-item's copies.
#define SWZB (AROWS / 4 < 8 ? AROWS / 4 : 8)
#define SWZ(k) ((TSM % 32 == 0) ? ((k) % SWZB) : 0)
#ifndef ORDER
#define ORDER 0 // 0: the multiply-adds row by row of the work-item's block, 1: column by column
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

#if ASYNC
inline void cp4(__local float* dst, const __global float* src, uint bytes) {
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;"
                 :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
}
inline void cp16(__local float* dst, const __global float* src, uint bytes) {
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
}
#define COMMIT() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define WAIT(n) __asm__ __volatile__("cp.async.wait_group " STR(n) ";" ::: "memory")
#else
inline void cp4(__local float* dst, const __global float* src, uint bytes) {
    dst[0] = bytes ? src[0] : 0.0f;
}
inline void cp16(__local float* dst, const __global float* src, uint bytes) {
    *(__local float4*)dst = bytes ? vload4(0, src) : (float4)(0.0f);
}
#define COMMIT()
#define WAIT(n)
#endif

#ifndef STORE1
#define STORE1 0 // 1: results stored one float at a time, so that no four of them must sit in
                 // four consecutive registers (what a float4 store asks of the allocator)
#endif
#ifndef SWAPC
#define SWAPC 0
#endif
// SWAPC=1: each float4 of results is kept with its components swapped in pairs (y, x, w, z),
// and B's float4 read the same way, so that a result and the B value it is multiplied by
// sit in registers of opposite parity when both come in aligned groups of four: the two
// register banks, one read each.
#if SWAPC
#define SWAPB(v) ((v).yxwz)
#else
#define SWAPB(v) (v)
#endif
__attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * RTSN + tx;
    const int m0 = get_group_id(1) * TSM;
    const int n0 = get_group_id(0) * TSN;

    __local float4 As[STAGES * TSK * TSM / 4];
    __local float4 Bs[STAGES * TSK * TSN / 4];

    // A: copy l of a step is row am + l·AROWS, column ak of the tile; consecutive work-items
    // take consecutive k of one row (whole 32-byte sectors).
    const int am = tid / TSK, ak = tid % TSK;
    const __global float* pa = A + (long)(m0 + am) * K + ak;
    const long sa = (long)AROWS * K;
    uint arow = 0;
    #pragma unroll
    for (int l = 0; l < LPTA; l++) {
        arow |= (m0 + am + l * AROWS < M) ? 1u << l : 0u;
    }
    // Its place in a stage: (am/4 + l·AROWS/4) ^ SWZ(ak) = ((am/4) ^ SWZ(ak)) + l·AROWS/4,
    // since the XOR touches only bits below AROWS/4: copy l lands AROWS floats after copy 0.
    __local float* da = (__local float*)As + ak * TSM + (((am / 4) ^ SWZ(ak)) * 4 + am % 4);

    // B: copy l of a step is row bk + l·BROWS, float4 column bc of the tile.
    const int bk = tid / (TSN / 4), bc = tid % (TSN / 4);
    const __global float* pb = B + (long)bk * N + n0 + bc * 4;
    const long sb = (long)BROWS * N;
    const bool vecb = (N & 3) == 0;
    const int bcol = n0 + bc * 4;
    __local float* db = (__local float*)Bs + bk * TSN + bc * 4;

    float4 acc[WPTM][WPTN / 4];
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        #pragma unroll
        for (int j = 0; j < WPTN / 4; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    const int steps = (K + TSK - 1) / TSK;
    int k0 = 0;  // the next step to copy
    int ws = 0;  // the stage it goes to

#define ISSUE()                                                                          \
    {                                                                                    \
        const uint kin = k0 + ak < K;                                                    \
        _Pragma("unroll") for (int l = 0; l < LPTA; l++) {                               \
            const uint ok = (arow >> l) & kin;                                           \
            cp4(da + ws * (TSK * TSM) + l * AROWS, pa + l * sa, ok * 4);                 \
        }                                                                                \
        if (vecb) {                                                                      \
            _Pragma("unroll") for (int l = 0; l < LPTB; l++) {                           \
                const uint ok = (k0 + bk + l * BROWS < K) && bcol < N;                   \
                cp16(db + ws * (TSK * TSN) + l * BROWS * TSN, pb + l * sb, ok * 16);     \
            }                                                                            \
        } else {                                                                         \
            _Pragma("unroll") for (int l = 0; l < LPTB; l++) {                           \
                const bool okk = k0 + bk + l * BROWS < K;                                \
                _Pragma("unroll") for (int e = 0; e < 4; e++) {                          \
                    const uint ok = okk && bcol + e < N;                                 \
                    cp4(db + ws * (TSK * TSN) + l * BROWS * TSN + e, pb + l * sb + e, ok * 4); \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        pa += TSK;                                                                       \
        pb += (long)TSK * N;                                                             \
        k0 += TSK;                                                                       \
        ws = ws == STAGES - 1 ? 0 : ws + 1;                                              \
    }

    #pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            ISSUE()
        }
        COMMIT();
    }
    // Step 0 has landed (all but the STAGES-2 later groups) and is visible to all.
    WAIT(STAGES - 2);
    barrier(CLK_LOCAL_MEM_FENCE);

    // The operands of one k: this k's (in use) and the next k's (in flight), in registers.
    float a[2][WPTM];
    float4 b[2][WPTN / 4];
#define READ(f, as4, bs, k)                                                              \
    {                                                                                    \
        _Pragma("unroll") for (int i = 0; i < WPTM / 4; i++) {                           \
            const float4 v = (as4)[(k) * (TSM / 4) + ((i * RTSM + ty) ^ SWZ(k))];        \
            a[f][4 * i + 0] = v.x;                                                       \
            a[f][4 * i + 1] = v.y;                                                       \
            a[f][4 * i + 2] = v.z;                                                       \
            a[f][4 * i + 3] = v.w;                                                       \
        }                                                                                \
        _Pragma("unroll") for (int j = 0; j < WPTN / 4; j++) {                           \
            b[f][j] = (bs)[(k) * (TSN / 4) + j * RTSN + tx];                             \
        }                                                                                \
    }
    READ(0, As, Bs, 0)

    int rs = 0;  // the stage computed
    for (int t = 0; t < steps; t++) {
        const __local float4* as4 = As + rs * (TSK * TSM / 4);
        const __local float4* bs = Bs + rs * (TSK * TSN / 4);
        const int rn = rs == STAGES - 1 ? 0 : rs + 1;
        #pragma unroll
        for (int k = 0; k < TSK; k++) {
            if (k == TSK - 1) {
                // Before the step's last k: the next step must have landed (all groups but
                // the STAGES-3 latest), and after the barrier everyone has finished step
                // t-1, whose stage the next copies overwrite.
                WAIT(STAGES - 3);
                barrier(CLK_LOCAL_MEM_FENCE);
                if (t + STAGES - 1 < steps) {
                    ISSUE()
                }
                COMMIT();
                // The next step's first k, read while this step's last one is computed
                // (past the last step it reads a stage nobody uses: harmless).
                READ((k + 1) & 1, As + rn * (TSK * TSM / 4), Bs + rn * (TSK * TSN / 4), 0)
            } else {
                READ((k + 1) & 1, as4, bs, k + 1)
            }
            #pragma unroll
            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN / 4; j++) {
                    acc[i][j] = mad((float4)(a[k & 1][i]), SWAPB(b[k & 1][j]), acc[i][j]);
                }
            }
        }
        rs = rn;
    }
    WAIT(0);

    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = m0 + (i / 4) * (RTSM * 4) + ty * 4 + (i % 4);
        if (row < M) {
            #pragma unroll
            for (int j = 0; j < WPTN / 4; j++) {
                const int col = n0 + (j * RTSN + tx) * 4;
                __global float* p = C + row * N + col;
                const float4 v = SWAPB(acc[i][j]);
                if (!STORE1 && (N & 3) == 0) {
                    if (col < N) {
                        *(__global float4*)p = v;
                    }
                } else {
                    if (col + 0 < N) p[0] = v.x;
                    if (col + 1 < N) p[1] = v.y;
                    if (col + 2 < N) p[2] = v.z;
                    if (col + 3 < N) p[3] = v.w;
                }
            }
        }
    }
}
