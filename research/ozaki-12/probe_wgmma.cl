// Call 8: does NVIDIA's OpenCL compiler accept Hopper's wgmma in inline PTX? (build only;
// host.c builds this with OZAKI_CL=research/ozaki-12/probe_wgmma.cl and then stops at the
// missing kernels). The descriptors are arguments: nothing here is meant to run.
__kernel void probe(__global int* out, const ulong da, const ulong db) {
    int d0, d1, d2, d3;
    __asm__ __volatile__("wgmma.fence.sync.aligned;" ::: "memory");
    __asm__ __volatile__(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%0, %1, %2, %3}, %4, %5, p;\n}\n"
        : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
        : "l"(da), "l"(db), "r"(0));
    __asm__ __volatile__("wgmma.commit_group.sync.aligned;" ::: "memory");
    __asm__ __volatile__("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    out[get_global_id(0)] = d0 + d1 + d2 + d3;
}
