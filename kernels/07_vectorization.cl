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
    // TODO: const __global floatX* Av = (const __global floatX*)A; the same for B (Bv), and
    // TODO: __global floatX* Cv for C.
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

    for (int kt = 0; kt < K; kt += TSK) {
        // ANCHOR: load
        // EXERCISE(07.2) BEGIN: load both tiles with vector reads, then synchronise
        // TODO: for l in 0 .. LPTA-1: id = l*RTSM*RTSN + tid, r = id / (TSK/WIDTH),
        // TODO: c = (id % (TSK/WIDTH)) * WIDTH;
        // TODO: read the vector a.v = Av[((offM + r)*K + kt + c) / WIDTH] (a is a lanesX)
        // TODO: and put lane w in Asub[c + w][r].
        // TODO: for l in 0 .. LPTB-1: id as above, r = id / (TSN/WIDTH), c = id % (TSN/WIDTH);
        // TODO: Bsub[r][c] = Bv[((kt + r)*N + offN) / WIDTH + c].
        // TODO: barrier(CLK_LOCAL_MEM_FENCE).
        // EXERCISE END
        // ANCHOR_END: load

        // ANCHOR: compute
        // EXERCISE(07.3) BEGIN: accumulate the tile's TSK steps with vectors, then synchronise
        // TODO: for k in 0 .. TSK-1: Breg[wv] = Bsub[k][tidn + wv*RTSN] for every wv;
        // TODO: for every wm: a = Asub[k][tidm + wm*RTSM];
        // TODO: acc[wm][wv] += a * Breg[wv] (a float times a vector) for every wv.
        // TODO: barrier(CLK_LOCAL_MEM_FENCE) again.
        // EXERCISE END
        // ANCHOR_END: compute
    }

    // ANCHOR: store
    // EXERCISE(07.4) BEGIN: store the results as vectors
    // TODO: Cv[((offM + tidm + wm*RTSM)*N + offN) / WIDTH + tidn + wv*RTSN] = acc[wm][wv]
    // TODO: for every wm, wv.
    // EXERCISE END
    // ANCHOR_END: store
}
// ANCHOR_END: kernel
