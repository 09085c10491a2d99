
// Four floats per work-item: one 16-byte store where the output's rows are whole quads, four
// scalar reads (the source's rows start anywhere), no loop. Up to two copies in one launch
// (the third index says which), so that padding A and B pays one launch's fixed cost: each
// copy's sizes are rows, cols, from, into, out_rows, part_rows, part_cols.
__kernel void copy_rows(const int8 first, const int8 second,
                        __global const float* restrict src0, __global float* restrict dst0,
                        __global const float* restrict src1, __global float* restrict dst1) {
    const bool one = get_global_id(2) == 1;
    const int8 n = one ? second : first;
    const int rows = n.s0, cols = n.s1, from = n.s2, into = n.s3, out_rows = n.s4;
    const int part_rows = n.s5, part_cols = n.s6;
    __global const float* src = one ? src1 : src0;
    __global float* dst = one ? dst1 : dst0;
    const size_t w = get_local_size(0), l = get_local_id(0);
    const size_t c0 = 4 * (get_global_id(0) - l) + l;
    const size_t r = get_global_id(1);
    if (c0 >= (size_t)into || r >= (size_t)out_rows) return;
    const size_t z = r / (size_t)part_rows, i = r % (size_t)part_rows;
    const long left = (long)cols - (long)z * part_cols;
    const size_t have = i >= (size_t)rows || left < 0
        ? 0 : (left < part_cols || part_cols == 0 ? left : part_cols);
    __global const float* in = src + i * from + z * part_cols;
    __global float* out = dst + r * into;
    float v[4];
    #pragma unroll
    for (int j = 0; j < 4; j++) {
        const size_t c = c0 + j * w;
        v[j] = c < have ? in[c] : 0.0f;
    }
    #pragma unroll
    for (int j = 0; j < 4; j++) {
        const size_t c = c0 + j * w;
        if (c < (size_t)into) out[c] = v[j];
    }
}

// Four floats per work-item: 16-byte reads of the parts where their rows are whole quads, the
// parts added in order, element by element as the host's check does.
__kernel void sum_parts(const int rows, const int cols, const int from, const int parts,
                        const long part, __global const float* src, __global float* dst) {
    const size_t c = 4 * get_global_id(0);
    const size_t r = get_global_id(1);
    if (r >= (size_t)rows || c >= (size_t)cols) return;
    const bool quads = (from & 3) == 0 && (part & 3) == 0;
    __global const float* in = src + r * from + c;
    float4 s;
    if (quads) {
        s = vload4(0, in);
        for (int z = 1; z < parts; z++) s += vload4(0, in + z * part);
    } else {
        const size_t n = min((size_t)4, (size_t)from - c);
        s = (float4)(in[0], n > 1 ? in[1] : 0.0f, n > 2 ? in[2] : 0.0f, n > 3 ? in[3] : 0.0f);
        for (int z = 1; z < parts; z++) {
            __global const float* p = in + z * part;
            s += (float4)(p[0], n > 1 ? p[1] : 0.0f, n > 2 ? p[2] : 0.0f, n > 3 ? p[3] : 0.0f);
        }
    }
    __global float* out = dst + r * cols;
    if ((cols & 3) == 0) {
        vstore4(s, 0, out + c);
    } else {
        out[c] = s.x;
        if (c + 1 < (size_t)cols) out[c + 1] = s.y;
        if (c + 2 < (size_t)cols) out[c + 2] = s.z;
        if (c + 3 < (size_t)cols) out[c + 3] = s.w;
    }
}
