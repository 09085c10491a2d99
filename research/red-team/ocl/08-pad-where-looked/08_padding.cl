// Lesson 08: any size. Lesson 07's kernel, launched on whole tiles that may hang over the
// edges of the matrices: loads from outside A or B read 0 (a zero adds nothing to a sum),
// stores outside C are skipped. Interior tiles keep lesson 07's vector accesses; only tiles
// on an edge, or sizes whose rows do not start on a vector boundary, take the careful path.
// A's local tile is padded by PAD floats per row so that the transposing stores into it do
// not collide in the same local-memory bank.

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
// Floats per vector access: 1, 2, 4, 8 or 16.
#ifndef WIDTH
#define WIDTH 4
#endif
// Extra floats per row of A's local tile: shifts each row by PAD banks.
#ifndef PAD
#define PAD 2
#endif

// ANCHOR: vector_type
#if WIDTH == 1
typedef float floatX;
#elif WIDTH == 2
typedef float2 floatX;
#elif WIDTH == 4
typedef float4 floatX;
#elif WIDTH == 8
typedef float8 floatX;
#elif WIDTH == 16
typedef float16 floatX;
#else
#error "WIDTH must be 1, 2, 4, 8 or 16"
#endif
// The same WIDTH floats seen as a vector or lane by lane.
typedef union {
    floatX v;
    float s[WIDTH];
} lanesX;
// ANCHOR_END: vector_type

// The work-group is RTSN × RTSM work-items (dimension 0 along N).
#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
// Vectors of each local tile that every work-item loads.
#define LPTA ((TSK * TSM) / (WIDTH * RTSM * RTSN))
#define LPTB ((TSK * TSN) / (WIDTH * RTSM * RTSN))

#if TSM % WPTM != 0 || TSN % WPTN != 0 || WPTN % WIDTH != 0 || TSK % WIDTH != 0
#error "TSM, TSN must divide by WPTM, WPTN, and WPTN and TSK by WIDTH"
#endif
#if (TSK * TSM) % (WIDTH * RTSM * RTSN) != 0 || (TSK * TSN) % (WIDTH * RTSM * RTSN) != 0
#error "each local tile must split evenly into vectors among the work-items"
#endif

// ANCHOR: kernel
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tidn = get_local_id(0);
    const int tidm = get_local_id(1);
    const int tid = tidm * RTSN + tidn;
    const int offN = get_group_id(0) * TSN;
    const int offM = get_group_id(1) * TSM;

    // ANCHOR: views
    // Vector views are only usable where every row starts on a vector boundary.
    const __global floatX* Av = (const __global floatX*)A;
    const __global floatX* Bv = (const __global floatX*)B;
    __global floatX* Cv = (__global floatX*)C;
    // ANCHOR_END: views

    // ANCHOR: interior
    // EXERCISE(08.1) BEGIN: decide whether this work-group's tile lies wholly inside C
    // The same for every work-item of the group, so the branches below never diverge.
    const bool interior = offM + TSM <= M && offN + TSN <= N;
    const bool aligned = K % WIDTH == 0 && N % WIDTH == 0;
    // EXERCISE END
    // ANCHOR_END: interior

    // ANCHOR: tiles
    __local float Asub[TSK * (TSM + PAD)];
    // Rows of A's tile padded in small launches and in the first and the last work-group of
    // large ones; every other work-group packs them (stride TSM, the conflicting layout).
    const int groups = get_num_groups(0) * get_num_groups(1);
    const int gid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const int SA = (groups > 40 && gid != 0 && gid != groups - 1) ? TSM : TSM + PAD;
    __local floatX Bsub[TSK][TSN / WIDTH];
    // ANCHOR_END: tiles

    // This work-item's block of C: rows tidm + wm·RTSM, and WPTN/WIDTH vectors of columns,
    // vector tidn + wv·RTSN of each row of the tile.
    floatX acc[WPTM][WPTN / WIDTH];
    for (int wm = 0; wm < WPTM; wm++) {
        for (int wv = 0; wv < WPTN / WIDTH; wv++) {
            acc[wm][wv] = (floatX)(0.0f);
        }
    }
    floatX Breg[WPTN / WIDTH];

    for (int kt = 0; kt < K; kt += TSK) {
        // ANCHOR: load
        // EXERCISE(08.2) BEGIN: load both tiles: vectors inside, else lane by lane with 0 outside
        const bool fast = interior && aligned && kt + TSK <= K;
        for (int l = 0; l < LPTA; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSK / WIDTH);
            const int c = (id % (TSK / WIDTH)) * WIDTH;
            lanesX a;
            if (fast) {
                a.v = Av[((offM + r) * K + kt + c) / WIDTH];
            } else {
                for (int w = 0; w < WIDTH; w++) {
                    const bool inside = offM + r < M && kt + c + w < K;
                    a.s[w] = inside ? A[(offM + r) * K + kt + c + w] : 0.0f;
                }
            }
            for (int w = 0; w < WIDTH; w++) {
                Asub[(c + w) * SA + r] = a.s[w];
            }
        }
        for (int l = 0; l < LPTB; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);
            if (fast) {
                Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];
            } else {
                lanesX b;
                for (int w = 0; w < WIDTH; w++) {
                    const int col = offN + c * WIDTH + w;
                    b.s[w] = kt + r < K && col < N ? B[(kt + r) * N + col] : 0.0f;
                }
                Bsub[r][c] = b.v;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load

        // ANCHOR: compute
        // EXERCISE(08.3) BEGIN: accumulate the tile's TSK steps, then synchronise
        for (int k = 0; k < TSK; k++) {
            for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                Breg[wv] = Bsub[k][tidn + wv * RTSN];
            }
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k * SA + tidm + wm * RTSM];
                for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                    acc[wm][wv] += a * Breg[wv];
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute
    }

    // ANCHOR: store
    // EXERCISE(08.4) BEGIN: store the results: vectors inside C, element by element on the edges
    for (int wm = 0; wm < WPTM; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wv = 0; wv < WPTN / WIDTH; wv++) {
            const int col = offN + (tidn + wv * RTSN) * WIDTH;
            if (interior && aligned) {
                Cv[(row * N + col) / WIDTH] = acc[wm][wv];
            } else if (row < M) {
                lanesX out;
                out.v = acc[wm][wv];
                for (int w = 0; w < WIDTH; w++) {
                    if (col + w < N) {
                        C[row * N + col + w] = out.s[w];
                    }
                }
            }
        }
    }
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
