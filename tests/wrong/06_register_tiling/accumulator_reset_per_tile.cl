// Wrong on purpose: the accumulators are reset at every tile, so only the last tile's
// terms survive.
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

#if TSM % WPTM != 0 || TSN % WPTN != 0 || (TSK * TSM) % (RTSM * RTSN) != 0 || (TSK * TSN) % (RTSM * RTSN) != 0
#error "each of TSM, TSN must divide by WPTM, WPTN, and each local tile must split evenly among the work-items"
#endif

__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;        // 0 .. RTSM·RTSN-1, for sharing the loads
    const int offN = get_group_id(0) * TSN;    // first column of this group's tile of C
    const int offM = get_group_id(1) * TSM;    // first row

    // Both tiles are stored k-major: step k of the product needs row k of each.
    __local float Asub[TSK][TSM];
    __local float Bsub[TSK][TSN];

    // This work-item's block of C: rows tidm + wm·RTSM, columns tidn + wn·RTSN.
    float acc[WPTM][WPTN];
    for (int wm = 0; wm < WPTM; wm++) {
        for (int wn = 0; wn < WPTN; wn++) {
            acc[wm][wn] = 0.0f;
        }
    }
    float Breg[WPTN];

    for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wn = 0; wn < WPTN; wn++) {
                acc[wm][wn] = 0.0f;
            }
        }
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

        for (int k = 0; k < TSK; k++) {
            // WPTN values of B, each used WPTM times; one value of A at a time, used WPTN times.
            for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn] = Bsub[k][tidn + wn * RTSN];
            }
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];
                }
            }
        }
        // Nobody may overwrite the tiles (next iteration) while others still read them.
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int wm = 0; wm < WPTM; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wn = 0; wn < WPTN; wn++) {
            C[row * N + offN + tidn + wn * RTSN] = acc[wm][wn];
        }
    }
}
