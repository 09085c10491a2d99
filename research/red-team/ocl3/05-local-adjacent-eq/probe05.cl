__kernel void probe(const __global float *A, const __global float *B, __global uint *out) {
    __local float Asub[16][16];
    __local float Bsub[16][16];
    __local float *a = &Asub[0][0], *b = &Bsub[0][0];
    out[0] = (a < b) ? 1 : 2;
    out[1] = (a + 256 == b) ? 3 : 4;
    out[2] = (b + 256 == a) ? 5 : 6;
    Asub[0][0] = 1; Bsub[0][0] = 2;
}
