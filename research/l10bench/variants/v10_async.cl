// v10: lesson 10 with NVIDIA's asynchronous copies (cp.async, sm_80+) through inline PTX and a
// STAGES-deep ring of local tiles, as cuBLAS's "stage3" SIMT kernels do: no staging
// registers, no stores into local memory in the loop, and the loads of STAGES-1 k-steps in
// flight while one is computed. A's tile is stored transposed (As[k][m]) by 4-byte copies,
// its float4 columns XOR-swizzled by k so that a warp's copies land in 32 banks; B's tile by
// 16-byte copies (4-byte when N is not a multiple of 4). Outside the matrices the copy's
// source size is 0, which fills zeros.

#ifndef TSM
#define TSM 128
#endif
#ifndef TSN
#define TSN 256
#endif
#ifndef TSK
#define TSK 8
#endif
#ifndef WPTM
#define WPTM 8
#endif
#ifndef WPTN
#define WPTN 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef CG
#define CG 1 // B's 16-byte copies bypass L1 (.cg); A's 4-byte copies must use .ca
#endif

#define RTSM (TSM / WPTM)
#define RTSN (TSN / WPTN)
#define THREADS (RTSM * RTSN)
#define LPTA (TSM * TSK / THREADS)
#define LPTB (TSK * TSN / 4 / THREADS)
#define SWZ(k) ((TSM % 32 == 0) ? ((k) % 8) : 0)

#define STR2(x) #x
#define STR(x) STR2(x)

inline void cp4(__local float* dst, const __global float* src, int bytes) {
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;"
                 :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
}
inline void cp16(__local float4* dst, const __global float* src, int bytes) {
#if CG
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
#else
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 16, %2;"
                 :: "r"((uint)(ulong)dst), "l"(src), "r"(bytes) : "memory");
#endif
}
inline void commit(void) { __asm__ __volatile__("cp.async.commit_group;" ::: "memory"); }
#define WAIT(n) __asm__ __volatile__("cp.async.wait_group " STR(n) ";" ::: "memory")

// Starts the copies of the k-step at k0 into stage s.
inline void issue(const int M, const int N, const int K,
                  const __global float* A, const __global float* B,
                  const int m0, const int n0, const int k0, const int tid,
                  __local float* as, __local float4* bs) {
    #pragma unroll
    for (int l = 0; l < LPTA; l++) {
        const int id = tid + l * THREADS;
        const int m = id / TSK;      // consecutive work-items: along k, whole sectors
        const int k = id % TSK;
        const int row = m0 + m, col = k0 + k;
        const bool in = row < M && col < K;
        const __global float* src = in ? A + row * K + col : A;
        cp4(as + k * TSM + ((m / 4) ^ SWZ(k)) * 4 + m % 4, src, in ? 4 : 0);
    }
    #pragma unroll
    for (int l = 0; l < LPTB; l++) {
        const int id = tid + l * THREADS;
        const int k = id / (TSN / 4);
        const int c4 = id % (TSN / 4);
        const int row = k0 + k, col = n0 + c4 * 4;
        if ((N & 3) == 0) {
            const bool in = row < K && col < N;
            cp16(bs + k * (TSN / 4) + c4, in ? B + row * N + col : B, in ? 16 : 0);
        } else {
            __local float* d = (__local float*)(bs + k * (TSN / 4) + c4);
            for (int e = 0; e < 4; e++) {
                const bool in = row < K && col + e < N;
                cp4(d + e, in ? B + row * N + col + e : B, in ? 4 : 0);
            }
        }
    }
}

__attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
__kernel void matmul(const int M, const int N, const int K,
                     const __global float* A,
                     const __global float* B,
                     __global float* C) {
    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tid = ty * RTSN + tx;
    const int m0 = get_group_id(1) * TSM;
    const int n0 = get_group_id(0) * TSN;

    __local float4 As[STAGES * TSK * TSM / 4];
    __local float4 Bs[STAGES * TSK * TSN / 4];

    float4 acc[WPTM][WPTN / 4];
    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        #pragma unroll
        for (int j = 0; j < WPTN / 4; j++) {
            acc[i][j] = (float4)(0.0f);
        }
    }

    const int steps = (K + TSK - 1) / TSK;
    #pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps) {
            issue(M, N, K, A, B, m0, n0, s * TSK, tid,
                  (__local float*)(As + s * (TSK * TSM / 4)), Bs + s * (TSK * TSN / 4));
        }
        commit();
    }

    for (int t = 0; t < steps; t++) {
        // This work-item's copies of step t have landed; after the barrier, everyone's have,
        // and everyone has finished step t-1, whose stage the next copies overwrite.
        WAIT(STAGES - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        const int next = t + STAGES - 1;
        if (next < steps) {
            const int s = next % STAGES;
            issue(M, N, K, A, B, m0, n0, next * TSK, tid,
                  (__local float*)(As + s * (TSK * TSM / 4)), Bs + s * (TSK * TSN / 4));
        }
        commit();

        const int s = t % STAGES;
        const __local float4* as4 = As + s * (TSK * TSM / 4);
        const __local float4* bs = Bs + s * (TSK * TSN / 4);
        #pragma unroll
        for (int k = 0; k < TSK; k++) {
            float a[WPTM];
            #pragma unroll
            for (int i = 0; i < WPTM / 4; i++) {
                const float4 v = as4[k * (TSM / 4) + ((i * RTSM + ty) ^ SWZ(k))];
                a[4 * i + 0] = v.x;
                a[4 * i + 1] = v.y;
                a[4 * i + 2] = v.z;
                a[4 * i + 3] = v.w;
            }
            float4 b[WPTN / 4];
            #pragma unroll
            for (int j = 0; j < WPTN / 4; j++) {
                b[j] = bs[k * (TSN / 4) + j * RTSN + tx];
            }
            #pragma unroll
            for (int i = 0; i < WPTM; i++) {
                #pragma unroll
                for (int j = 0; j < WPTN / 4; j++) {
                    acc[i][j] = mad((float4)(a[i]), b[j], acc[i][j]);
                }
            }
        }
    }
    WAIT(0);

    #pragma unroll
    for (int i = 0; i < WPTM; i++) {
        const int row = m0 + (i / 4) * (RTSM * 4) + ty * 4 + (i % 4);
        if (row < M) {
            #pragma unroll
            for (int j = 0; j < WPTN / 4; j++) {
                const int col = n0 + (j * RTSN + tx) * 4;
                __global float* p = C + row * N + col;
                const float4 v = acc[i][j];
                if ((N & 3) == 0) {
                    if (col < N) {
                        *(__global float4*)p = v;
                    }
                } else {
                    if (col + 0 < N) p[0] = v.x;
                    if (col + 1 < N) p[1] = v.y;
                    if (col + 2 < N) p[2] = v.z;
                    if (col + 3 < N) p[3] = v.w;
                }
            }
        }
    }
}
