// The INT8 matrix unit, as lesson 12's kernels call it. The host puts this file before the
// kernel's own source, after the moduli (MODS, INVS) it writes for the lesson. On an NVIDIA
// GPU of compute capability 8.0 or newer (MMA_PTX = 1) each call is one tensor-core
// instruction; everywhere else it is an OpenCL C model of that instruction with the same
// fragment layout. Integer products are exact, so the model is the unit bit for bit: a kernel
// graded on PoCL or under Oclgrind computes exactly what it computes on the tensor cores.
//
// One call is made by a whole warp of 32 work-items (lanes): D = A·B + C for A 16×32 and B
// 32×8 of signed bytes, C and D 16×8 of 32-bit integers. With g = lane / 4 and t = lane % 4,
// each 32-bit register holding 4 consecutive k (the lowest k in the lowest byte):
//
//   A:     a.x = A[g][4t..4t+3]    a.y = A[g+8][4t..]    a.z = A[g][16+4t..]    a.w = A[g+8][16+4t..]
//   B:     b.x = B[4t..4t+3][g]    b.y = B[16+4t..][g]
//   C, D:  c.x = C[g][2t]   c.y = C[g][2t+1]   c.z = C[g+8][2t]   c.w = C[g+8][2t+1]
//
// The lanes of a warp are 32 consecutive work-items of a one-dimensional work-group, and
// every work-item of the group makes the same calls (the model exchanges fragments through
// local memory and waits at barriers, so a call is collective over the work-group).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define UNIT_STR2(x) #x
#define UNIT_STR(x) UNIT_STR2(x)

#if MMA_PTX
// The instruction needs no local memory: one word keeps the declaration legal.
#define MMA_SCRATCH_WORDS(warps) 1

// ANCHOR: ptx
inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {
    int4 d;
    __asm__ __volatile__(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
        : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y),
          "r"(c.x), "r"(c.y), "r"(c.z), "r"(c.w));
    return d;
}
// ANCHOR_END: ptx

// Four 8×8 matrices of 16-bit words from local memory, one row address per lane: the
// fragments of a 16×32 block of A, or of two 8-column blocks of B, in one instruction.
inline uint4 ldsm_x4(__local const uchar* p) {
    uint4 r;
    __asm__ __volatile__("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                         : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                         : "r"((uint)(ulong)p)
                         : "memory");
    return r;
}

// 16 bytes from global to local memory, in flight while the warp goes on: async_wait(n)
// waits until at most n committed groups are still in flight. Other work-items see the
// bytes only after a barrier.
inline void async_copy16(__local uchar* dst, const __global uchar* src) {
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16;"
                         :: "r"((uint)(ulong)dst), "l"(src) : "memory");
}
#define async_commit() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define async_wait(n) __asm__ __volatile__("cp.async.wait_group " UNIT_STR(n) ";" ::: "memory")

#else
// Words of local memory the model needs per warp: one A and one B fragment of every lane.
#define MMA_SCRATCH_WORDS(warps) ((warps) * (128 + 64))

// ANCHOR: model
// The model of one warp's instruction: each lane leaves its fragments in its warp's part of
// `scratch`, then computes its four elements of D exactly in 32-bit integers. Each
// multiply-add is a mad24 (exact: the bytes fit its 24 bits), so that the simulator's count of
// mad24 is the unit's work.
inline int4 mma_s8(uint4 a, uint2 b, int4 c, __local uint* scratch) {
    const int lane = get_local_id(0) & 31, g = lane >> 2, t = lane & 3;
    __local uint* sa = scratch + (get_local_id(0) >> 5) * (128 + 64);
    __local uint* sb = sa + 128;
    sa[g * 8 + t] = a.x;
    sa[(g + 8) * 8 + t] = a.y;
    sa[g * 8 + 4 + t] = a.z;
    sa[(g + 8) * 8 + 4 + t] = a.w;
    sb[g * 8 + t] = b.x;
    sb[g * 8 + 4 + t] = b.y;
    barrier(CLK_LOCAL_MEM_FENCE);
    const __local char* A8 = (const __local char*)sa; // 16 rows of 32 bytes (k)
    const __local char* B8 = (const __local char*)sb; // 8 columns of 32 bytes (k)
    int4 d = c;
    for (int k = 0; k < 32; k++) {
        d.x = mad24((int)A8[g * 32 + k], (int)B8[(2 * t) * 32 + k], d.x);
        d.y = mad24((int)A8[g * 32 + k], (int)B8[(2 * t + 1) * 32 + k], d.y);
        d.z = mad24((int)A8[(g + 8) * 32 + k], (int)B8[(2 * t) * 32 + k], d.z);
        d.w = mad24((int)A8[(g + 8) * 32 + k], (int)B8[(2 * t + 1) * 32 + k], d.w);
    }
    // The next call overwrites the fragments: every lane must have read them first.
    barrier(CLK_LOCAL_MEM_FENCE);
    return d;
}
// ANCHOR_END: model

// The copies of the model: an ordinary load and store, done at once.
inline void async_copy16(__local uchar* dst, const __global uchar* src) {
    *(__local uint4*)dst = *(const __global uint4*)src;
}
#define async_commit()
#define async_wait(n)
#endif
