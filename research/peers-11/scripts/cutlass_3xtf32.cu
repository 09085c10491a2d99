// CUTLASS's 3xTF32 GEMM (cutlass::arch::OpMultiplyAddFastF32: each FP32 operand split into a
// big and a small TF32 part, three mma.sync products summed in FP32), the published form of
// lesson 11's algorithm, as a C function PyTorch can call through ctypes on its own tensors.
// Row-major A (M×K), B (K×N) and C (M×N), as the course stores them; the default stream.
// Built on the device by peers.sh with -DTB_M.. (the block) and -DALIGN (4: every side a
// multiple of 4; 1: any side).
#include "cutlass/cutlass.h"
#include "cutlass/gemm/device/gemm.h"

#ifndef LAYOUT_B
#define LAYOUT_B RowMajor
#endif

using Gemm = cutlass::gemm::device::Gemm<
    float, cutlass::layout::RowMajor,                    // A
    float, cutlass::layout::LAYOUT_B,                    // B
    float, cutlass::layout::RowMajor,                    // C
    float,                                               // accumulator
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<TB_M, TB_N, TB_K>,
    cutlass::gemm::GemmShape<W_M, W_N, TB_K>,
    cutlass::gemm::GemmShape<16, 8, 8>,
    cutlass::epilogue::thread::LinearCombination<float, ALIGN, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>,
    STAGES, ALIGN, ALIGN, false, cutlass::arch::OpMultiplyAddFastF32>;

extern "C" int gemm_3xtf32(int m, int n, int k, const float *a, const float *b, float *c) {
  // B's leading dimension: N in row-major, K in column-major (B stored transposed).
  int ldb = std::is_same<cutlass::layout::LAYOUT_B, cutlass::layout::RowMajor>::value ? n : k;
  Gemm::Arguments args({m, n, k}, {a, k}, {b, ldb}, {c, n}, {c, n}, {1.0f, 0.0f});
  Gemm op;
  cutlass::Status s = op.can_implement(args);
  if (s != cutlass::Status::kSuccess) return 1;
  s = op(args);
  return s == cutlass::Status::kSuccess ? 0 : 2;
}

extern "C" int b_is_row_major() {
  return std::is_same<cutlass::layout::LAYOUT_B, cutlass::layout::RowMajor>::value ? 1 : 0;
}
