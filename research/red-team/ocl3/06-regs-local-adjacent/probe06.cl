// lesson 06's tiles with the device's own defines (TSK=16 TSM=TSN=32): loose = adjacent
__kernel void probe(const __global float *A, const __global float *B, __global uint *out) {
    __local float Asub[16][32];
    __local float Bsub[16][32];
    const bool loose = &Asub[0][0] + 16 * 32 == &Bsub[0][0];
    out[0] = loose ? 222 : 111;   // 222: B re-read from local for every wm (no register reuse); 111: register block
    Asub[get_local_id(0)][0] = 1; Bsub[get_local_id(0)][0] = 2;
}
