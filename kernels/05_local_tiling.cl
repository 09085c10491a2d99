// Lesson 05: tiling in local memory. A work-group of TS×TS work-items computes a TS×TS tile
// of C. It walks along K one tile at a time: the group loads a TS×TS tile of A and one of B
// into fast __local memory (each work-item loads one element of each), then every
// work-item reads TS values of each from there. Each element loaded from global memory is
// used TS times instead of once.
//
// M, N and K must be multiples of TS (lesson 08 lifts this).

// Tile size: the work-group is TS×TS work-items (set by the host with -D TS=...).
// ANCHOR: defaults
#ifndef TS
#define TS 16
#endif
// ANCHOR_END: defaults

// ANCHOR: kernel
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tc = get_local_id(0);      // column inside the tile
    const int tr = get_local_id(1);      // row inside the tile
    const int col = get_global_id(0);    // column of C
    const int row = get_global_id(1);    // row of C

    // ANCHOR: tiles
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    // ANCHOR_END: tiles

    float acc = 0.0f;
    const int tiles = K / TS;
    for (int t = 0; t < tiles; t++) {
        // ANCHOR: tile_loop
        // EXERCISE(05.1) BEGIN: load one tile of A and one of B, synchronise, accumulate, synchronise
        // TODO: Asub[tr][tc] = element (row, t*TS + tc) of A;
        // TODO: Bsub[tr][tc] = element (t*TS + tr, col) of B.
        // TODO: barrier(CLK_LOCAL_MEM_FENCE), so the whole tile is loaded before anyone reads it.
        // TODO: add Asub[tr][k] * Bsub[k][tc] for k = 0 .. TS-1 to acc.
        // TODO: barrier(CLK_LOCAL_MEM_FENCE) again, before the next iteration overwrites the tiles.
        // EXERCISE END
        // ANCHOR_END: tile_loop
    }
    // EXERCISE(05.2) BEGIN: store the result
    // TODO: store acc in C[row * N + col].
    // EXERCISE END
}
// ANCHOR_END: kernel
