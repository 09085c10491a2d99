// The lane of (1, 2, 3, 4) picked by the two lowest bits of K * 5 (out[0..7]) and of K
// (out[8..15]): run with `oclgrind-kernel bits.sim` at K = 256 (right), 16 and 77 (wrong).
__kernel void f(__global float* out, const int K) {
    __local float4 lanes[1];
    const int tid = get_local_id(0);
    if (tid == 0) lanes[0] = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    const float4 lo = lanes[0];
    const int w = (K * 5 + 64) & 3;
    const float first = w == 0 ? lo.x : w == 1 ? lo.y : w == 2 ? lo.z : lo.w;
    out[tid] = first;
    const int w2 = (K + tid * 4 + 64) & 3;
    out[8 + tid] = w2 == 0 ? lo.x : w2 == 1 ? lo.y : w2 == 2 ? lo.z : lo.w;
}
