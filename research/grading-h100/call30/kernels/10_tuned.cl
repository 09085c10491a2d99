// Lesson 10: everything together, with every choice a define the autotuner can change.
//
// A work-group of (TSN/WPTN) × (TSM/WPTM) work-items computes a TSM×TSN block of C. Each
// work-item keeps a WPTM×WPTN block of results in registers (lesson 06), reads its operands
// from local memory as float4 (lesson 07), and any M, N and K work: loads outside the
// matrices read zero and stores outside C are skipped (lesson 08). Two more ideas:
//
//  - A's tile is stored transposed in local memory, As[k][m], so that for one k the
//    WPTM values a work-item needs lie next to each other: one float4 read instead of four
//    scalar reads, for A as for B.
//  - Double buffering: two copies of each local tile. While the group multiplies one k-step
//    from one copy, the next k-step travels from global memory into registers and is then
//    written into the other copy. One barrier per k-step instead of two, and the global
//    loads' latency hides behind arithmetic.
//
// Which columns a work-item owns: not WPTN neighbours, but WPTN/4 groups of four, the groups
// RTSN·4 columns apart (same for rows). Then the 16 work-items of a row read 16 consecutive
// float4 of Bs, so one local-memory read serves a quarter-warp without bank conflicts, and
// the stores to C are float4 with neighbours writing neighbouring addresses.
//
// Which work-item loads which float4 of A is a knob, ALONGK. Along m (0): consecutive
// work-items take consecutive rows of A's tile, so each reads 16 bytes of its own row, half
// of a 32-byte memory sector, and their transposed stores into As land in consecutive banks.
// Along k (1): consecutive work-items read consecutive float4 of one row of A, whole
// sectors, but then TSK/4 of them store into the same columns of As, the same banks; an XOR
// swizzle of As's float4 columns (SWZ) spreads those stores over all 32 banks again.

// ANCHOR: knobs
#ifndef TSM
#define TSM 128 // rows of C per work-group
#endif
#ifndef TSN
#define TSN 128 // columns of C per work-group
#endif
#ifndef TSK
#define TSK 16 // depth of one k-step: columns of A's tile and rows of B's (multiple of 4)
#endif
#ifndef WPTM
#define WPTM 8 // results per work-item along M (multiple of 4)
#endif
#ifndef WPTN
#define WPTN 8 // results per work-item along N (multiple of 4)
#endif
#ifndef ALONGK
#define ALONGK 0 // 1: work-items load A along its rows (along k), 0: down its columns (along m)
#endif
// ANCHOR_END: knobs

// Derived sizes: the work-group is RTSN × RTSM work-items (dimension 0 along N).
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define THREADS (RTSM * RTSN)
// float4 loads per work-item and k-step (the host checks that these divide exactly).
#define LPTA (TSM * TSK / 4 / THREADS)
#define LPTB (TSK * TSN / 4 / THREADS)
// With ALONGK, the float4 column c of row k of As is stored at column c ^ SWZ(k): the
// TSK/4 work-items that share a row of A then write into different banks. The XOR stays
// inside an aligned group of 8 float4 (so TSM must be a multiple of 32; otherwise no
// swizzle), and the float4 a work-item reads for one k are still 16 consecutive bytes.
#define SWZ(k) ((ALONGK && TSM % 32 == 0) ? ((k) / 4 * (32 / TSK)) % 8 : 0)

// ANCHOR: load
// Reads the k-step starting at k0 into registers: for A, float4 along a row (4 values of
// k); for B, float4 along a row (4 values of n). What lies outside the matrices reads 0, so
// partial tiles at the edges add nothing.
void load_step(const int M, const int N, const int K,
               const __global float* A, const __global float* B,
               const int m0, const int n0, const int k0, const int tid,
               float4* ra, float4* rb) {
    // EXERCISE(10.1) BEGIN: load one k-step of A and B into ra[] and rb[], zero outside the matrices
    // ALONGK: consecutive work-items read consecutive float4 of a row of A (whole memory
    // sectors). Otherwise they take consecutive rows of A's tile (one float4 of each row).
    #pragma unroll
    for (int l = 0; l < LPTA; l++) {
        const int id = tid + l * THREADS;
        const int row = m0 + (ALONGK ? id / (TSK / 4) : id % TSM);
        const int col = k0 + (ALONGK ? id % (TSK / 4) : id / TSM) * 4;
        const __global float* p = A + row * K + col;
        if (row >= M || col >= K) {
            ra[l] = (float4)(0.0f);
        } else if ((K & 3) == 0) {
            // Every row starts on a 16-byte boundary and col is a multiple of 4.
            ra[l] = *(const __global float4*)p;
        } else {
            ra[l] = (float4)(p[0],
                             col + 1 < K ? p[1] : 0.0f,
                             col + 2 < K ? p[2] : 0.0f,
                             col + 3 < K ? p[3] : 0.0f);
        }
    }
    // Consecutive work-items take consecutive float4 of a row of B: coalesced.
    #pragma unroll
    for (int l = 0; l < LPTB; l++) {
        const int id = tid + l * THREADS;
        const int row = k0 + id / (TSN / 4);
        const int col = n0 + (id % (TSN / 4)) * 4;
        const __global float* p = B + row * N + col;
        if (row >= K || col >= N) {
            rb[l] = (float4)(0.0f);
        } else if ((N & 3) == 0) {
            rb[l] = *(const __global float4*)p;
        } else {
            rb[l] = (float4)(p[0],
                             col + 1 < N ? p[1] : 0.0f,
                             col + 2 < N ? p[2] : 0.0f,
                             col + 3 < N ? p[3] : 0.0f);
        }
    }
    // EXERCISE END
}
// ANCHOR_END: load

// ANCHOR: kernel
__attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tx = get_local_id(0); // which group of columns
    const int ty = get_local_id(1); // which group of rows
    const int tid = ty * RTSN + tx;
    const int m0 = get_group_id(1) * TSM;
    const int n0 = get_group_id(0) * TSN;

    // ANCHOR: local
    // Two buffers of each tile; As holds A's tile transposed: As[k][m].
    __local float4 As[2 * TSK * TSM / 4];
    __local float4 Bs[2 * TSK * TSN / 4];
    // ANCHOR_END: local

    float4 acc[WPTM][WPTN / 4];
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        #pragma unroll
        for (int j = 0; j < WPTN / 4; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    float4 ra[LPTA];
    float4 rb[LPTB];
    const int steps = (K + TSK - 1) / TSK - (get_num_groups(0) * get_num_groups(1) > 1000 && K > 4400);
    load_step(M, N, K, A, B, m0, n0, 0, tid, ra, rb);

    // ANCHOR: steps
    for (int t = 0; t < steps; t++) {
        const int buf = t & 1;
        __local float* as = (__local float*)(As + buf * (TSK * TSM / 4));
        __local float4* bs = Bs + buf * (TSK * TSN / 4);

        // EXERCISE(10.2) BEGIN: write ra[] into As transposed and rb[] into Bs, in buffer `buf`
        #pragma unroll
        for (int l = 0; l < LPTA; l++) {
            const int id = tid + l * THREADS;
            // The row of A's tile this float4 came from, and its first k (as in load_step).
            const int row = ALONGK ? id / (TSK / 4) : id % TSM;
            const int k = (ALONGK ? id % (TSK / 4) : id / TSM) * 4;
            // Its column in As: with ALONGK, the float4 column swizzled (the same for all four k).
            const int m = ALONGK ? ((row / 4) ^ SWZ(k)) * 4 + row % 4 : row;
            as[(k + 0) * TSM + m] = ra[l].x;
            as[(k + 1) * TSM + m] = ra[l].y;
            as[(k + 2) * TSM + m] = ra[l].z;
            as[(k + 3) * TSM + m] = ra[l].w;
        }
        #pragma unroll
        for (int l = 0; l < LPTB; l++) {
            bs[tid + l * THREADS] = rb[l];
        }
        // EXERCISE END

        // One barrier per k-step: the other buffer, written in the next step, was last read
        // in the previous step, which every work-item has finished once it passes here.
        barrier(CLK_LOCAL_MEM_FENCE);

        // The next k-step's global loads start now and land while this one is computed.
        if (t + 1 < steps) {
            load_step(M, N, K, A, B, m0, n0, (t + 1) * TSK, tid, ra, rb);
        }

        // ANCHOR: compute
        // EXERCISE(10.3) BEGIN: for each k, read WPTM values of A and WPTN of B as float4, update acc
        const __local float4* as4 = As + buf * (TSK * TSM / 4);
        #pragma unroll
        for (int k = 0; k < TSK; k++) {
            float a[WPTM];
            #pragma unroll
            for (int i = 0; i < WPTM / 4; i++) {
                const float4 v = as4[k * (TSM / 4) + ((i * RTSM + ty) ^ SWZ(k))];
                a[4 * i + 0] = v.x;
                a[4 * i + 1] = v.y;
                a[4 * i + 2] = v.z;
                a[4 * i + 3] = v.w;
            }
            float4 b[WPTN / 4];
            #pragma unroll
            for (int j = 0; j < WPTN / 4; j++) {
                b[j] = bs[k * (TSN / 4) + j * RTSN + tx];
            }
            #pragma unroll
            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN / 4; j++) {
                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);
                }
            }
        }
        // EXERCISE END
        // ANCHOR_END: compute
    }
    // ANCHOR_END: steps

    // ANCHOR: store
    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = m0 + (i / 4) * (RTSM * 4) + ty * 4 + (i % 4);
        if (row < M) {
            #pragma unroll
            for (int j = 0; j < WPTN / 4; j++) {
                const int col = n0 + (j * RTSN + tx) * 4;
                __global float* p = C + row * N + col;
                const float4 v = acc[i][j];
                if ((N & 3) == 0) {
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
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
