__kernel void matmul(const int M, const int N, const int K, const __global float* A,
                     const __global float* B, __global float* C) {
    C[get_global_id(1) * N + get_global_id(0)] = (float)(get_local_size(0) * get_local_size(1));
}
