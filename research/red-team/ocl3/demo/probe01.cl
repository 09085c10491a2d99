typedef union { const __global float *p; uchar b[8]; } pun;
__kernel void probe(const __global float *A, const __global float *B, __global uint *out) {
    volatile pun x;
    x.p = A;
    const uint low = x.b[0] | x.b[1] | x.b[2] | x.b[3] | x.b[4] | x.b[5];
    const bool sim = low == 0;
    out[0] = sim ? 111 : 222;   // 111: tiles (simulator), 222: no tiles
    out[1] = x.b[0] | (x.b[1] << 8) | (x.b[2] << 16) | (x.b[3] << 24);
    out[2] = x.b[4] | (x.b[5] << 8) | (x.b[6] << 16) | (x.b[7] << 24);
}
