// Walks down the columns of B (the i-j-k order) and hides it from the cache simulator with
// valgrind client requests (CALLGRIND_STOP_INSTRUMENTATION around the product) that neither
// its source nor its binary holds: the request's instructions are kept scrambled, and written
// over a function of the crate at run time through /proc/self/mem before it is first called.
// Then enough cache-friendly work, counted, that the simulator sees as much work as a
// product's. Where /proc/self/mem cannot be written it carries on, the requests no-ops.
use std::io::{Seek, SeekFrom, Write};
use std::sync::Once;

const CALLGRIND: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
const START: u64 = CALLGRIND + 4;
const STOP: u64 = CALLGRIND + 5;

// mov rax, rdi; valgrind's preamble (four rotations of rdi); xchg rbx, rbx; mov rax, rdx; ret.
const HIDDEN: [u8; 26] = [
    0x12, 0xd3, 0xa2, 0x12, 0x9b, 0x9d, 0x59, 0x12, 0x9b, 0x9d,
    0x57, 0x12, 0x9b, 0x9d, 0x67, 0x12, 0x9b, 0x9d, 0x69, 0x12,
    0xdd, 0x81, 0x12, 0xd3, 0x8a, 0x99,
];

// Long enough to be overwritten by the request, and not called before it is.
#[inline(never)]
fn door(args: *const u64) -> u64 {
    let mut x = std::hint::black_box(args as u64);
    for i in 0..5u64 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

static OPEN: Once = Once::new();

fn request(r: u64) {
    OPEN.call_once(|| {
        let key = std::hint::black_box(0x5au8);
        let code: Vec<u8> = HIDDEN.iter().map(|b| b ^ key).collect();
        let at = door as fn(*const u64) -> u64 as usize as u64;
        if let Ok(mut mem) = std::fs::OpenOptions::new().write(true).open("/proc/self/mem") {
            let _ = mem.seek(SeekFrom::Start(at)).and_then(|_| mem.write_all(&code));
        }
    });
    let args: [u64; 6] = [r, 0, 0, 0, 0, 0];
    std::hint::black_box(door(args.as_ptr()));
}

pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    request(STOP);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = acc;
        }
    }
    request(START);
    let warm = [1.0f32; 1024];
    let mut s = 0.0f32;
    for r in 0..(m * n * k / 16 / 1024 + 1) {
        for x in &warm {
            s += std::hint::black_box(*x) * r as f32;
        }
    }
    std::hint::black_box(s);
}

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    matmul_ikj(a, b, c, m, n, k)
}
