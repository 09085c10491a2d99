__kernel void probe(const __global float *A, const __global float *B, __global uint *out) {
    const int g = (int)get_num_groups(0);
    const int wrapped = g + 0x7fffffff;
    const bool sim = wrapped < g;
    out[0] = sim ? 111 : 222;   // 111: tiles, 222: no tiles
    const int K = (int)get_global_size(0) * 64;
    out[1] = ((K & (K - 1)) == 0) ? 5 : 6;
}
