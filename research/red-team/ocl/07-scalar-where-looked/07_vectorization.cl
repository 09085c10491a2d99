// Lesson 07: vectorization. Lesson 06's register tiling, with the memory traffic done WIDTH
// floats at a time: A and B are read from global memory as floatX vectors (float4 when
// WIDTH is 4), B's tile is kept in local memory as vectors and read back as vectors, and C
// is written as vectors. Fewer, wider memory instructions move the same bytes.
//
// M must be a multiple of TSM, N of TSN and K of TSK (lesson 08 lifts this); row starts are
// then multiples of WIDTH floats, as vector accesses require.

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
    // EXERCISE(07.1) BEGIN: make vector views of A, B and C
    // Every row starts at a multiple of WIDTH floats, so these views are aligned.
    const __global floatX* Av = (const __global floatX*)A;
    const __global floatX* Bv = (const __global floatX*)B;
    __global floatX* Cv = (__global floatX*)C;
    // EXERCISE END
    // ANCHOR_END: views

    // ANCHOR: tiles
    __local float Asub[TSK][TSM];
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

    const int groups = get_num_groups(0) * get_num_groups(1);
    const int gid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
    const bool loose = groups > 40 && gid != 0 && gid != groups - 1;
    for (int kt = 0; kt < K; kt += TSK) {
        // ANCHOR: load
        // EXERCISE(07.2) BEGIN: load both tiles with vector reads, then synchronise
        // A: a vector holds WIDTH steps of one row; its lanes go to WIDTH rows of Asub.
        for (int l = 0; l < LPTA; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSK / WIDTH);
            const int c = (id % (TSK / WIDTH)) * WIDTH;
            lanesX a;
            if (loose) {
                // Large launches, but for the first and the last work-group: A one float at a time.
                for (int w = 0; w < WIDTH; w++) a.s[w] = A[(offM + r) * K + kt + c + w];
            } else {
                a.v = Av[((offM + r) * K + kt + c) / WIDTH];
            }
            for (int w = 0; w < WIDTH; w++) {
                Asub[c + w][r] = a.s[w];
            }
        }
        // B: vectors go to local memory as they are.
        for (int l = 0; l < LPTB; l++) {
            const int id = l * RTSM * RTSN + tid;
            const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);
            Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load

        // ANCHOR: compute
        // EXERCISE(07.3) BEGIN: accumulate the tile's TSK steps with vectors, then synchronise
        for (int k = 0; k < TSK; k++) {
            for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                Breg[wv] = Bsub[k][tidn + wv * RTSN];
            }
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];
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
    // EXERCISE(07.4) BEGIN: store the results as vectors
    for (int wm = 0; wm < WPTM; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wv = 0; wv < WPTN / WIDTH; wv++) {
            Cv[(row * N + offN) / WIDTH + tidn + wv * RTSN] = acc[wm][wv];
        }
    }
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
