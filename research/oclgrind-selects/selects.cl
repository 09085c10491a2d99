// Four floats starting `shift` floats into two float4s, written two ways: nested selects per
// lane (`sel`) and one shuffle2 (`ref`). The same value by the OpenCL C standard.
__kernel void f(__global const float* in, __global float* sel, __global float* ref,
                const int K) {
    __local float raw[64];
    const int tid = get_local_id(0);
    raw[tid] = in[tid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 2; i++) {
        const int q = tid + i * 8, m = q % 8;
        const float4 lo = *(const __local float4*)(raw + 4 * m);
        const float4 hi = *(const __local float4*)(raw + 4 * m + 4);
        const int shift = ((3 + m) * K) & 3;
        const float4 v = (float4)(
            shift == 0 ? lo.x : shift == 1 ? lo.y : shift == 2 ? lo.z : lo.w,
            shift == 0 ? lo.y : shift == 1 ? lo.z : shift == 2 ? lo.w : hi.x,
            shift == 0 ? lo.z : shift == 1 ? lo.w : shift == 2 ? hi.x : hi.y,
            shift == 0 ? lo.w : shift == 1 ? hi.x : shift == 2 ? hi.y : hi.z);
        vstore4(v, q, sel);
        vstore4(shuffle2(lo, hi, (uint4)(shift) + (uint4)(0, 1, 2, 3)), q, ref);
    }
}
