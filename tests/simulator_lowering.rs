//! The optimiser's intrinsics that Oclgrind 21.10 lacks, written out for it
//! (`src/harness/oclgrind/lower.rs`), compute what the intrinsics mean: a kernel whose
//! optimised build calls them runs under the simulator, and every value is compared with the
//! same operation computed here. The test runs itself again as a child that sees Oclgrind as
//! its only OpenCL platform (so that the LLVM in its process is the simulator's).

use std::process::Command;

use lab::harness::oclgrind::{self, lower};

const CHILD: &str = "LAB_LOWERING_CHILD";

/// Each work-item's ten values, each through code the optimiser makes an intrinsic of.
const KERNEL: &str = "__kernel void ops(__global const uint* xs, __global const uint* ys,
                  __global uint* out) {
    const int i = get_global_id(0);
    const uint x = xs[i], y = ys[i];
    const int s = (int)(y & 31u);
    const int xi = (int)x;
    __global uint* o = out + i * 10;
    int bits = 0;
    for (uint v = x; v; v &= v - 1) bits++;
    int width = 0;
    for (uint v = x; v; v >>= 1) width++;
    const ulong xl = ((ulong)x << 32) | y;
    o[0] = (x & (x - 1)) == 0;
    o[1] = (uint)bits;
    o[2] = (uint)(xi < 0 ? -xi : xi);
    o[3] = (x << s) | (x >> ((32 - s) & 31));
    o[4] = (x >> s) | (x << ((32 - s) & 31));
    o[5] = x > y ? x - y : 0u;
    o[6] = x + y < x ? 0xffffffffu : x + y;
    o[7] = y != 0 && (x * y) / y != x;
    o[8] = (xl & (xl - 1)) == 0;
    o[9] = (uint)(32 - width);
}
";

/// What the kernel computes for `x` and `y`, computed here.
fn expected(x: u32, y: u32) -> [u32; 10] {
    let s = y & 31;
    let xl = ((x as u64) << 32) | y as u64;
    [
        (x & x.wrapping_sub(1) == 0) as u32,
        x.count_ones(),
        (x as i32).wrapping_abs() as u32,
        x.rotate_left(s),
        x.rotate_right(s),
        x.saturating_sub(y),
        x.saturating_add(y),
        x.checked_mul(y).is_none() as u32,
        (xl & xl.wrapping_sub(1) == 0) as u32,
        x.leading_zeros(),
    ]
}

/// Inputs at the edges (zero, one bit, every bit, the sign) and spread between them.
fn inputs() -> (Vec<u32>, Vec<u32>) {
    let mut xs = vec![
        0,
        1,
        2,
        3,
        0x8000_0000,
        0xffff_ffff,
        0x7fff_ffff,
        0x8000_0001,
        64,
        96,
    ];
    let mut ys = vec![0, 1, 31, 32, 0xffff_ffff, 1, 0x8000_0000, 7, 0, 33];
    let mut h = 0x9e37_79b9u32;
    while xs.len() < 256 {
        h ^= h << 13;
        h ^= h >> 17;
        h ^= h << 5;
        xs.push(if xs.len() % 4 == 0 { 1 << (h % 32) } else { h });
        ys.push(h.rotate_left(11) >> (h % 29));
    }
    (xs, ys)
}

#[test]
fn the_simulator_computes_the_intrinsics_it_lacks_as_they_are_defined() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let icd = oclgrind::find_icd().expect("Oclgrind is installed (scripts/setup.sh installs it)");
    let scratch = lab::harness::child::Scratch::new("lowering").unwrap();
    let env = oclgrind::environment(&icd, &scratch.dir, &oclgrind::Options::metrics()).unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "the_simulator_computes_the_intrinsics_it_lacks_as_they_are_defined",
        "--nocapture",
        "--test-threads=1",
    ]);
    for v in oclgrind::REMOVE_FROM_ENVIRONMENT {
        cmd.env_remove(v);
    }
    let out = cmd.envs(env).env(CHILD, "1").output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("lowered and right"), "{text}");
}

/// In the child: the optimised build calls the intrinsics; the build the course makes for
/// the simulator runs, and every value is right.
fn child() {
    use opencl3::kernel::ExecuteKernel;
    use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
    use opencl3::types::CL_BLOCKING;

    let gpu = lab::harness::device::Gpu::open(None).unwrap();
    assert!(
        gpu.info.platform.contains("Oclgrind"),
        "{}",
        gpu.info.platform
    );
    // The optimiser's build as Oclgrind makes it calls the intrinsics the test is about.
    let mut raw = opencl3::program::Program::create_from_source(&gpu.context, KERNEL).unwrap();
    raw.build(&[gpu.device.id()], "").unwrap();
    let bitcode = raw.get_binaries().unwrap().remove(0);
    for name in [
        "llvm.ctpop.",
        "llvm.abs.",
        "llvm.fshl.",
        "llvm.usub.sat.",
        "llvm.uadd.sat.",
    ] {
        let found = bitcode.windows(name.len()).any(|w| w == name.as_bytes());
        assert!(found, "the optimised build does not call {name}");
    }
    assert!(lower::needed(&bitcode));
    let path = std::path::Path::new("ops.cl");
    let program = lab::harness::program::build_source(&gpu, path, KERNEL, &[], "").unwrap();
    let kernel = opencl3::kernel::Kernel::create(&program, "ops").unwrap();

    let (xs, ys) = inputs();
    let n = xs.len();
    let buffer = |len: usize| unsafe {
        Buffer::<u32>::create(&gpu.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut()).unwrap()
    };
    let (mut bx, mut by, out) = (buffer(n), buffer(n), buffer(n * 10));
    unsafe {
        gpu.queue
            .enqueue_write_buffer(&mut bx, CL_BLOCKING, 0, &xs, &[])
            .unwrap();
        gpu.queue
            .enqueue_write_buffer(&mut by, CL_BLOCKING, 0, &ys, &[])
            .unwrap();
        ExecuteKernel::new(&kernel)
            .set_arg(&bx)
            .set_arg(&by)
            .set_arg(&out)
            .set_global_work_size(n)
            .enqueue_nd_range(&gpu.queue)
            .unwrap();
    }
    let mut got = vec![0u32; n * 10];
    unsafe {
        gpu.queue
            .enqueue_read_buffer(&out, CL_BLOCKING, 0, &mut got, &[])
            .unwrap();
    }
    for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        assert_eq!(
            got[i * 10..i * 10 + 10],
            expected(x, y),
            "x = {x:#x}, y = {y:#x}"
        );
    }
    println!("{n} inputs lowered and right");
}
