// Lesson 03b: the BLIS/GotoBLAS design, C = A·B, all matrices row-major.
//
// Lessons 01-03 leave the arithmetic to whatever the compiler makes of `c += a * b`, and every
// multiply-add loads and stores an element of C. Fast BLAS libraries (GotoBLAS, OpenBLAS, BLIS,
// Rust's matrixmultiply) all share one design, built from the inside out:
//
//   1. A micro-kernel keeps an MR×NR tile of C in SIMD registers for the whole K loop. Each
//      step loads MR values of A (broadcast) and NR values of B (NR / LANES vectors) and does
//      MR·NR multiply-adds: (MR + NR) loads for MR·NR FLOP pairs instead of two or three loads
//      for one.
//   2. Packing copies the blocks of A and B about to be used into exactly the order the
//      micro-kernel reads them: contiguous slivers, zero-padded to whole slivers so the
//      micro-kernel never branches on an edge.
//   3. Cache blocking (KC, MC, NC) decides which packed block stays in which cache level.
//   4. Threads take macro-tiles of C (MC rows each): disjoint rows, so no locks.
//
// The loops, outermost first (the names are BLIS's):
//
//   jc: NC columns of B and C        (loop 5)
//     pc: KC deep                    (loop 4) pack B[pc.., jc..] into KC×NC slivers of NR columns
//       ic: MC rows of A and C       (loop 3, threads) pack A[ic.., pc..] into slivers of MR rows
//         ir: one MR-row sliver of A (loop 2)
//           jr: one NR-col sliver of B (loop 1): micro-kernel, MR×NR tile of C
//
// A is m×k, B is k×n, C is m×n. C arrives holding anything (NaN, numbers, an earlier result): every element must be written.

use rayon::prelude::*;

// ANCHOR: constants
/// f32 lanes in one SIMD register: 16 with AVX-512 (zmm), 8 with AVX (ymm), 4 with the SSE2
/// every x86-64 has (xmm). `cfg!` sees the features this file is *compiled* for (set by
/// `-C target-cpu` / `-C target-feature`), not the ones of the machine it later runs on. The
/// grader builds it twice: for this machine's CPU to run and time it (AVX-512 where present),
/// and without AVX-512 for the cache simulator, which cannot run it; so both tiles must work.
const LANES: usize = if cfg!(target_feature = "avx512f") {
    16
} else if cfg!(target_feature = "avx") {
    8
} else {
    4
};

/// SIMD registers the compiler may use: AVX-512 has 32, SSE and AVX 16.
const REGISTERS: usize = if cfg!(target_feature = "avx512f") {
    32
} else {
    16
};

/// Columns of the micro-tile: two vectors of B per step of K (32 floats with AVX-512).
pub const NR: usize = 2 * LANES;

/// Rows of the micro-tile: MR × 2 accumulator registers take 3/4 of the registers (24 of 32,
/// 12 of 16); the rest hold the two vectors of B and the broadcast of A (and, without FMA, the
/// product before it is added). One more row and the accumulators spill to the stack. Fewer
/// would starve the FMA units: an FMA's result is ready 4 cycles later (Zen 4/5, Skylake), and
/// two start each cycle, so at least 4 × 2 = 8 independent accumulators must be in flight.
pub const MR: usize = REGISTERS * 3 / 8;

/// Depth of a block (loop 4). The micro-kernel re-reads one MR×KC sliver of A for every
/// sliver of B, so that sliver should sit in L1: 12·256·4 B = 12 KiB with AVX-512, a quarter
/// of the 48 KiB L1d of a Zen 5 or an Ice Lake (`/sys/devices/system/cpu/cpu0/cache/index0`),
/// leaving room for the B sliver streaming past it. A long KC also spreads the cost of
/// loading and storing the C tile over many multiply-adds.
pub const KC: usize = 256;

/// Rows of A and C per task (loop 3): the A block (MC×KC, 48 KiB with AVX-512) each thread
/// packs for itself and reads one sliver at a time. Small enough that a 1024-row C gives the
/// threads ~20 tasks to balance between them; a multiple of MR so only the last block is ragged.
pub const MC: usize = 4 * MR;

/// Columns of B per panel (loop 5). Every sliver of A sweeps the whole KC×NC packed panel of B,
/// so the panel should stay near the core: 256·1024·4 B = 1 MiB, the L2 of a Zen 5 core (1.25
/// MiB on an Ice Lake Xeon), and what spills is read from L3 (32 MiB, shared), which the
/// other threads fill with the same panel: the micro-kernel asks for only 2·64 B of B per 24
/// FMAs, about 11 B a cycle at two FMAs a cycle.
pub const NC: usize = 1024;
// ANCHOR_END: constants

/// `x` rounded up to a multiple of `to`.
fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

// ANCHOR: madd
/// `a * b + c`, as one fused instruction where the build has FMA.
///
/// `f32::mul_add` promises a single rounding. With the `fma` target feature that is one
/// `vfmadd` instruction; without it (baseline x86-64 has no FMA) the compiler must call the
/// C library's `fmaf`, which emulates the exact result in software: a function call per
/// element, tens of times slower, and it stops vectorisation. So without FMA we accept two
/// roundings and write the multiply and the add.
#[inline(always)]
fn madd(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_feature = "fma")]
    {
        a.mul_add(b, c)
    }
    #[cfg(not(target_feature = "fma"))]
    {
        a * b + c
    }
}
// ANCHOR_END: madd

// ANCHOR: pack_a
/// Packs the mc×kc block of A starting at `a[0]` (row stride `lda`) into slivers of MR rows.
/// In a sliver, the MR values of one column of A sit side by side: element (i, p) of sliver s
/// goes to `packed[s * MR * kc + p * MR + i]`, which is the order the micro-kernel reads.
/// Rows past `mc` are zeros: the last sliver is always whole, and its extra rows of C are
/// computed and never stored.
fn pack_a(a: &[f32], lda: usize, mc: usize, kc: usize, packed: &mut [f32]) {
    // EXERCISE(03b.1) BEGIN: copy each row of A into every MR-th place of its sliver; zero-pad
    // TODO: for each sliver s of `packed` (chunks_exact_mut(MR * kc)) and each row i in 0..MR
    // TODO: of it, copy row s * MR + i of A (a[row * lda..row * lda + kc])
    // TODO: into places i, i + MR, i + 2·MR, ...
    // TODO: of the sliver (`sliver.iter_mut().skip(i).step_by(MR)`); a row at or past mc is zeros.
    let _ = (a, lda, mc, kc, packed);
    todo!("lesson 03b: pack A into slivers of MR rows")
    // EXERCISE END
}
// ANCHOR_END: pack_a

// ANCHOR: pack_b
/// Packs the kc×nc block of B starting at `b[0]` (row stride `ldb`) into slivers of NR
/// columns: element (p, j) of sliver s goes to `packed[s * NR * kc + p * NR + j]`. Each row of
/// a sliver is NR contiguous floats of B; columns past `nc` are zeros.
fn pack_b(b: &[f32], ldb: usize, kc: usize, nc: usize, packed: &mut [f32]) {
    // EXERCISE(03b.2) BEGIN: copy NR-wide pieces of each row of B into its sliver; zero-pad
    // TODO: sliver s (packed.chunks_exact_mut(NR * kc)) holds columns s * NR.. of B: NR of them, or
    // TODO: fewer (`width`) in the last one. Its row p (sliver.chunks_exact_mut(NR)) is those
    // TODO: columns of row p of B (b[p * ldb + s * NR..][..width]), then zeros up to NR.
    // TODO: The slivers are independent: packed.par_chunks_mut(NR * kc) packs them in parallel.
    let _ = (b, ldb, kc, nc, packed);
    let _ = [0.0f32].par_iter(); // keeps `use rayon::prelude::*` in use until you write the loop
    todo!("lesson 03b: pack B into slivers of NR columns")
    // EXERCISE END
}
// ANCHOR_END: pack_b

// ANCHOR: micro_kernel
/// The MR×NR tile of A_sliver · B_sliver, over the whole depth of the slivers.
///
/// Written for the auto-vectoriser: `acc` is a fixed-size local array, so after unrolling the
/// two inner loops (their bounds are constants) every row of it becomes NR / LANES vector
/// registers; each step broadcasts one value of A and multiply-adds it with the vectors of B.
/// No bounds checks: `chunks_exact` hands out whole steps, and the inner loops zip.
#[inline(always)]
fn micro_kernel(a_sliver: &[f32], b_sliver: &[f32]) -> [[f32; NR]; MR] {
    // EXERCISE(03b.3) BEGIN: for each step p, acc[i][j] += a[p][i] * b[p][j], in registers
    // TODO: start from acc = [[0.0f32; NR]; MR]; for each step p (a_sliver.chunks_exact(MR) zipped
    // TODO: with b_sliver.chunks_exact(NR)), for each row i and column j:
    // TODO: acc[i][j] = madd(a[i], b[j], acc[i][j]).
    // TODO: Keep acc a local array and the loops over MR and NR constant-length: that is what
    // TODO: lets the compiler hold it in registers and vectorise along j.
    let _ = (a_sliver, b_sliver);
    todo!("lesson 03b: the MR×NR micro-kernel")
    // EXERCISE END
}
// ANCHOR_END: micro_kernel

/// Stores the top-left rows×cols of a micro-tile into C at `c[0]` (row stride `ldc`): the
/// first K block overwrites C (which arrives holding anything), later ones add to it. Zero padding made
/// the micro-kernel compute a whole tile; only this store knows where C ends.
fn store_tile(
    acc: &[[f32; NR]; MR],
    c: &mut [f32],
    ldc: usize,
    rows: usize,
    cols: usize,
    overwrite: bool,
) {
    for (acc_row, c_row) in acc.iter().zip(c.chunks_mut(ldc)).take(rows) {
        let c_row = &mut c_row[..cols];
        if overwrite {
            c_row.copy_from_slice(&acc_row[..cols]);
        } else {
            for (c_ij, &v) in c_row.iter_mut().zip(acc_row) {
                *c_ij += v;
            }
        }
    }
}

/// The shape of one macro-tile: rows, columns and depth, and whether it is the first K block.
#[derive(Clone, Copy, Debug)]
struct Block {
    mc: usize,
    nc: usize,
    kc: usize,
    overwrite: bool,
}

// ANCHOR: macro_kernel
/// Loops 2 and 1: every (MR-row sliver of A) × (NR-column sliver of B) pair of a packed block,
/// into C at `c[0]` (row stride `ldc`).
///
/// The sliver of A is the outer loop: it stays in L1 while every sliver of the B panel streams
/// past it from L2. (BLIS, column-major, keeps B's sliver fixed instead: in row-major the roles
/// of A and B swap, because here B supplies the vectors and A the broadcasts.)
fn macro_kernel(a_block: &[f32], b_panel: &[f32], c: &mut [f32], ldc: usize, blk: Block) {
    // EXERCISE(03b.4) BEGIN: for each sliver of A, for each sliver of B: micro-kernel, then store
    // TODO: for each sliver ir of a_block (chunks_exact(MR * blk.kc)), for each sliver jr of
    // TODO: b_panel (chunks_exact(NR * blk.kc)): acc = micro_kernel(a sliver, b sliver), then
    // TODO: store_tile it at row ir * MR, column jr * NR of c, clipped to the rows left of blk.mc
    // TODO: and columns left of blk.nc.
    let _ = (a_block, b_panel, c, ldc, blk);
    todo!("lesson 03b: loops 2 and 1 around the micro-kernel")
    // EXERCISE END
}
// ANCHOR_END: macro_kernel

// ANCHOR: packed
pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let c = &mut c[..m * n];
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        c.fill(0.0); // an empty sum; no K block below would write C
        return;
    }
    // One buffer for the packed panel of B, reused by every (jc, pc) block.
    let mut b_buf = vec![0.0f32; round_up(n.min(NC), NR) * k.min(KC)];

    // EXERCISE(03b.5) BEGIN: loops 5 and 4 (pack B), then loop 3 in parallel (pack A, macro-kernel)
    // TODO: loop 5: jc over 0..n in steps of NC (nc = NC.min(n - jc));
    // TODO: loop 4: pc over 0..k in steps of KC.
    // TODO: pack B[pc.., jc..] (it starts at b[pc * n + jc], row stride n) into
    // TODO: b_buf[..round_up(nc, NR) * kc].
    // TODO: loop 3, in parallel: c.par_chunks_mut(MC * n).enumerate() gives each task MC rows of C;
    // TODO: for_each_init(|| vec![0.0f32; MC * KC], ...) gives it a buffer to pack its A block into
    // TODO: (A[ic.., pc..] starts at a[ic * k + pc]);
    // TODO: then macro_kernel(.., &mut c_rows[jc..], n, Block { .. }),
    // TODO: with overwrite only for the first K block (pc == 0).
    let _ = (a, b, &mut *c, &mut b_buf, m, n, k);
    todo!("lesson 03b: the blocked loops, with threads over blocks of rows")
    // EXERCISE END
}
// ANCHOR_END: packed
