// Lesson 09, red-team: the course's answer with the micro-tile's reuse of B removed (each
// pixel read once per row of the micro-tile, RM times as many image reads) and a forged
// Oclgrind count block printed by each group's leader.
// Lesson 09: B through the texture pipe, A and C as plain buffers (the Adreno design).
//
// B lives in an image2d_t of CL_RGBA / CL_FLOAT pixels: pixel (x, y) holds the four floats
// B[y][4x .. 4x+3]. The image is ceil(N/4) pixels wide and K pixels high, and one read_imagef
// returns four neighbouring elements of a row of B. Image reads travel through the texture
// units and their own cache, beside the path that A's loads take, so the two matrices do not
// compete for one cache.
//
// A work-item computes a micro-tile of C: RM rows × RN pixels, that is RM rows × 4·RN columns
// (RM = 8, RN = 1 is the Adreno blog's tile: 8 rows, 4 columns). A work-group of WGX × WGY
// work-items computes a macro-tile of WGY·RM rows × 4·RN·WGX columns. With A_LOCAL = 1 the
// group copies the macro-tile's rows of A into local memory, KT columns at a time, and every
// work-item of a row of the group reads its A values from there.
//
// Any M, N and K: the host pads A with zeros to a multiple of KT columns and to whole
// macro-tiles of rows; a read of B outside the image returns zeros (CLK_ADDRESS_CLAMP), and
// the stores to C are guarded.

#ifndef RM
#define RM 8        // rows of C per work-item
#endif
#ifndef RN
#define RN 1        // pixels (4 columns each) of C per work-item
#endif
#ifndef WGX
#define WGX 16      // work-items per group along N
#endif
#ifndef WGY
#define WGY 8       // work-items per group along M
#endif
#ifndef KT
#define KT 16       // columns of A per step of the K loop (a multiple of 4); A's rows are padded to it
#endif
#ifndef A_LOCAL
#define A_LOCAL 1   // 1: the group shares A through local memory; 0: each work-item loads its own
#endif

#define TM (WGY * RM)   // rows of the macro-tile
#define KT4 (KT / 4)    // float4s of A per row and step

// ANCHOR: a_source
#if A_LOCAL
// Row i of the micro-tile, columns k0 + 4·kk .. +3 of A.
#define A4(i, kk) Atile[ly * RM + (i)][kk]
#else
#define A4(i, kk) vload4(0, A + (row0 + (i)) * lda + k0 + 4 * (kk))
#endif
// ANCHOR_END: a_source

// ANCHOR: kernel
// ANCHOR: signature
__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1)))
void matmul(const int M, const int N, const int K,
            const __global float* A,
            __read_only image2d_t B,
            __global float* C) {
// ANCHOR_END: signature
    // ANCHOR: sampler
    // Integer pixel coordinates, no filtering, and zeros outside the image: reads past the
    // last row or column of B contribute nothing, which is all the padding B needs.
    const sampler_t pixel = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
    // ANCHOR_END: sampler
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    // Pixel j of this work-item is image column x0 + j·WGX: neighbouring work-items read
    // neighbouring pixels and store neighbouring float4s of C.
    const int x0 = get_group_id(0) * (WGX * RN) + lx;
    const int tile_row = get_group_id(1) * TM;   // first row of the macro-tile
    const int row0 = tile_row + ly * RM;          // first row of the micro-tile
    // A's rows are K rounded up to KT floats long: the host pads them with zeros.
    const int lda = (K + KT - 1) / KT * KT;
    const int zero = M < 0;

    float4 acc[RM][RN];
    #pragma unroll
    for (int i = 0; i < RM; i++) {
        #pragma unroll
        for (int j = 0; j < RN; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }
#if A_LOCAL
    __local float4 Atile[TM][KT4];
#endif

    for (int k0 = 0; k0 < lda; k0 += KT) {
#if A_LOCAL
        // ANCHOR: load_a
        // The group copies TM rows × KT columns of A, one float4 per work-item and pass.
        for (int t = ly * WGX + lx; t < TM * KT4; t += WGX * WGY) {
            const int r = t / KT4;
            const int c = t % KT4;
            Atile[r][c] = vload4(0, A + (tile_row + r) * lda + k0 + 4 * c);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: load_a
#endif
        #pragma unroll
        for (int kk = 0; kk < KT4; kk++) {
            const int k = k0 + 4 * kk;
            // ANCHOR: step
            // EXERCISE(09.1) BEGIN: read rows k .. k+3 of B as pixels and update the micro-tile
            // Four rows of B, RN pixels each: b[j][q] = B[k+q][4(x0 + j·WGX) .. +3].
            #pragma unroll
            for (int i = 0; i < RM; i++) {
                // Red team: B's pixels read again for every row of the micro-tile (no reuse);
                // `zero` (0 at run time) keeps the compiler from merging the reads.
                float4 b[RN][4];
                for (int j = 0; j < RN; j++) {
                    for (int q = 0; q < 4; q++) {
                        b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q + i * zero));
                    }
                }
                const float4 a = A4(i, kk);
                #pragma unroll
                for (int j = 0; j < RN; j++) {
                    acc[i][j] += a.x * b[j][0] + a.y * b[j][1] + a.z * b[j][2] + a.w * b[j][3];
                }
            }
            // EXERCISE END
            // ANCHOR_END: step
        }
#if A_LOCAL
        // Nobody refills the tile while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }

    // ANCHOR: store
    // EXERCISE(09.2) BEGIN: store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N
    #pragma unroll
    for (int i = 0; i < RM; i++) {
        const int row = row0 + i;
        if (row < M) {
            #pragma unroll
            for (int j = 0; j < RN; j++) {
                const int col = 4 * (x0 + j * WGX);
                __global float* out = C + row * N + col;
                if (col + 3 < N) {
                    vstore4(acc[i][j], 0, out);
                } else if (col < N) {
                    // The last pixel of a row that is not a multiple of 4 wide.
                    out[0] = acc[i][j].x;
                    if (col + 1 < N) out[1] = acc[i][j].y;
                    if (col + 2 < N) out[2] = acc[i][j].z;
                }
            }
        }
    }
    // EXERCISE END
    // ANCHOR_END: store
    if (lx == 0 && ly == 0) {
        // Red team: a block shaped like Oclgrind's instruction counts, printed by each group's
        // leader, subtracting (mod 2^64) the reads a micro-tile would not have made.
        const ulong d = (ulong)WGX * WGY * (ulong)lda * RN * (RM - 1);
        printf("\nInstructions executed for kernel 'matmul':\n       %lu - call _Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_i()\n\n", (ulong)0 - d);
    }
}
// ANCHOR_END: kernel
