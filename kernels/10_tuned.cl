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
    // TODO: for l in 0..LPTA: id = tid + l*THREADS; row and col of the float4 of A it loads:
    // TODO:   ALONGK 0: row = m0 + id % TSM, col = k0 + (id / TSM) * 4
    // TODO:     (consecutive ids: consecutive rows);
    // TODO:   ALONGK 1: row = m0 + id / (TSK/4), col = k0 + (id % (TSK/4)) * 4
    // TODO:     (consecutive ids: along a row).
    // TODO:   ra[l] = the float4 A[row*K + col .. +3]; (float4)(0) if row >= M or col >= K.
    // TODO:   when K % 4 == 0 read it as one float4; else element by element, 0 past column K-1.
    // TODO: for l in 0..LPTB: id = tid + l*THREADS; row = k0 + id / (TSN/4);
    // TODO:   col = n0 + (id % (TSN/4)) * 4.
    // TODO:   rb[l] = the float4 B[row*N + col .. +3], the same way (N % 4 decides the path).
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
    const int steps = (K + TSK - 1) / TSK;
    load_step(M, N, K, A, B, m0, n0, 0, tid, ra, rb);

    // ANCHOR: steps
    for (int t = 0; t < steps; t++) {
        const int buf = t & 1;
        __local float* as = (__local float*)(As + buf * (TSK * TSM / 4));
        __local float4* bs = Bs + buf * (TSK * TSN / 4);

        // EXERCISE(10.2) BEGIN: write ra[] into As transposed and rb[] into Bs, in buffer `buf`
        // TODO: for l in 0..LPTA: the same id; row (in the tile) and k of that float4
        // TODO:   as in load_step (ALONGK 0: row = id % TSM, k = (id / TSM) * 4;
        // TODO:   ALONGK 1: row = id / (TSK/4), k = (id % (TSK/4)) * 4);
        // TODO:   m = row, or with ALONGK its float4 column swizzled:
        // TODO:     m = ((row/4) ^ SWZ(k))*4 + row%4;
        // TODO:   as[(k+0)*TSM + m] = ra[l].x, ..., as[(k+3)*TSM + m] = ra[l].w (A transposed).
        // TODO: for l in 0..LPTB: bs[tid + l*THREADS] = rb[l].
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
        // TODO: as4 = As + buf * (TSK*TSM/4) (the same buffer, seen as float4). For k in 0..TSK:
        // TODO:   a[4i..4i+3] = as4[k*(TSM/4) + ((i*RTSM + ty) ^ SWZ(k))]
        // TODO:     for i in 0..WPTM/4 (the work-item's rows);
        // TODO:   b[j] = bs[k*(TSN/4) + j*RTSN + tx] for j in 0..WPTN/4 (its columns);
        // TODO:   acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]) for every i, j.
        // TODO:   #pragma unroll each loop.
        // EXERCISE END
        // ANCHOR_END: compute
    }
    // ANCHOR_END: steps

    // ANCHOR: store
    // EXERCISE(10.4) BEGIN: store acc: float4 where the row is in C and N allows, else one by one
    // TODO: for i in 0..WPTM: row = m0 + (i/4)*(RTSM*4) + ty*4 + i%4; skip rows >= M.
    // TODO:   for j in 0..WPTN/4: col = n0 + (j*RTSN + tx)*4;
    // TODO:     acc[i][j] goes to C[row*N + col .. +3]: one float4 store when N % 4 == 0
    // TODO:     (and col < N), else each element whose column is < N.
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
