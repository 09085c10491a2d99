//! The matrix unit bit for bit (issue: is lesson 11's OpenCL C model the instruction?).
//!
//!     unit-bits [DEVICE]
//!
//! Builds one warp's call of `mma_tf32` with lesson 11's prelude for the device (the tensor
//! cores' `mma.sync` on NVIDIA, the model elsewhere), runs it on sets of chosen 16×8×8
//! fragments (D = A·B + C), and compares every element of D bit for bit with three models
//! computed here in f64: the course's (inputs cut to TF32 by dropping 13 bits, the exact sum
//! truncated toward zero to FP32 once), the same sum rounded to nearest, and inputs rounded
//! (not cut) to TF32. Prints, per set, how many elements each model matches and the largest
//! difference in units in the last place.

use anyhow::{Context as _, Result};
use lab::harness::device::Gpu;
use lab::harness::matrix::Rng;
use lab::harness::program::{self, Arg};
use opencl3::kernel::ExecuteKernel;
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use std::path::Path;

const KERNEL: &str = r#"
__kernel void tile(const __global float* A, const __global float* B, const __global float* C,
                   __global float* D) {
    __local float scratch[MMA_SCRATCH_FLOATS(1)];
    const uint lane = get_local_id(0) & 31, g = lane >> 2, t = lane & 3;
    const uint T = get_group_id(0);
    A += T * 128; B += T * 64; C += T * 128; D += T * 128;
    const float4 a = (float4)(A[g * 8 + t], A[(g + 8) * 8 + t], A[g * 8 + t + 4], A[(g + 8) * 8 + t + 4]);
    const float2 b = (float2)(B[t * 8 + g], B[(t + 4) * 8 + g]);
    const float4 c = (float4)(C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t],
                              C[(g + 8) * 8 + 2 * t + 1]);
    const float4 d = mma_tf32(a, b, c, scratch);
    D[g * 8 + 2 * t] = d.x; D[g * 8 + 2 * t + 1] = d.y;
    D[(g + 8) * 8 + 2 * t] = d.z; D[(g + 8) * 8 + 2 * t + 1] = d.w;
}
"#;

/// One tile's inputs: A 16×8, B 8×8, C 16×8, row-major.
struct Tile {
    a: [f32; 128],
    b: [f32; 64],
    c: [f32; 128],
}

fn cut(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0xffff_e000)
}

fn round_tf32(x: f32) -> f32 {
    let u = x.to_bits();
    f32::from_bits((u + 0xfff + ((u >> 13) & 1)) & 0xffff_e000)
}

/// f64 to f32 toward zero.
fn rz(s: f64) -> f32 {
    let r = s as f32; // nearest
    if (r as f64).abs() > s.abs() {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// Element (i, j) of D under a model: inputs mapped by `input`, the f64 sum of C and the
/// eight products (in k order) finished by `finish`.
fn model(t: &Tile, i: usize, j: usize, input: fn(f32) -> f32, finish: fn(f64) -> f32) -> f32 {
    let mut s = t.c[i * 8 + j] as f64;
    for k in 0..8 {
        s += input(t.a[i * 8 + k]) as f64 * input(t.b[k * 8 + j]) as f64;
    }
    finish(s)
}

fn ulps(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let u = x.to_bits() as i64;
        if u < 0x8000_0000 {
            u
        } else {
            0x8000_0000 - u
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// The sets of tiles: (name, tiles).
fn sets() -> Vec<(&'static str, Vec<Tile>)> {
    let mut rng = Rng::new(20261128);
    let mut uniform = |n: usize, scale_c: f32, tf32_inputs: bool| -> Vec<Tile> {
        (0..n)
            .map(|_| {
                let mut t = Tile {
                    a: [0.0; 128],
                    b: [0.0; 64],
                    c: [0.0; 128],
                };
                for x in t.a.iter_mut() {
                    let v = rng.next_f32();
                    *x = if tf32_inputs { round_tf32(v) } else { v };
                }
                for x in t.b.iter_mut() {
                    let v = rng.next_f32();
                    *x = if tf32_inputs { round_tf32(v) } else { v };
                }
                for x in t.c.iter_mut() {
                    *x = rng.next_f32() * scale_c;
                }
                t
            })
            .collect()
    };
    let full = uniform(256, 1.0, false);
    let tf32 = uniform(256, 1.0, true);
    let zero_c = uniform(256, 0.0, false);
    let big_c = uniform(256, 4096.0, false);
    // Products that land between two floats of a large C: C = ±1 + random, products of
    // 2^-12 · 2^-12 scale, so the sum needs rounding in its last bits.
    let mut small = Vec::new();
    for n in 0..256 {
        let mut t = Tile {
            a: [0.0; 128],
            b: [0.0; 64],
            c: [0.0; 128],
        };
        for x in t.a.iter_mut() {
            *x = round_tf32(rng.next_f32()) * (1.0 / 4096.0);
        }
        for x in t.b.iter_mut() {
            *x = round_tf32(rng.next_f32()) * (1.0 / 4096.0);
        }
        let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
        for x in t.c.iter_mut() {
            *x = sign * (1.0 + rng.next_f32().abs());
        }
        small.push(t);
    }
    vec![
        (
            "uniform [-1,1), inputs with all 23 mantissa bits, C uniform",
            full,
        ),
        ("inputs already TF32, C uniform", tf32),
        ("C = 0", zero_c),
        ("C uniform in [-4096, 4096)", big_c),
        (
            "C = ±(1..2), products about 2^-24: the sum's last bits",
            small,
        ),
    ]
}

fn main() -> Result<()> {
    let selector = std::env::args().nth(1);
    // With a folder, every set's A, B, C and D are written there (little-endian f32, in that
    // order, one file per set) so that other models can be tried offline.
    let dump = std::env::args().nth(2).map(std::path::PathBuf::from);
    let gpu = Gpu::open(selector.as_deref())?;
    let prelude = lab::ladder::l11_matrix_units::unit::prelude(&gpu);
    println!(
        "device: {} ({}), driver {}",
        gpu.info.name, gpu.info.platform, gpu.info.driver
    );
    println!("unit: {}", prelude.note);
    let source = format!("{}\n{KERNEL}", prelude.source);
    let path = Path::new("unit-bits.cl");
    let prog = program::build_source(&gpu, path, &source, &[], "")?;
    let args = [
        Arg::GlobalIn("A"),
        Arg::GlobalIn("B"),
        Arg::GlobalIn("C"),
        Arg::GlobalOut("D"),
    ];
    let kernel = program::kernel(&prog, path, "tile", &args)?;
    let models: [(&str, fn(f32) -> f32, fn(f64) -> f32); 3] = [
        ("course's model: inputs cut, sum truncated", cut, rz),
        ("inputs cut, sum rounded to nearest", cut, |s| s as f32),
        ("inputs rounded to TF32, sum truncated", round_tf32, rz),
    ];
    let mut sets_done = 0;
    for (name, tiles) in sets() {
        let n = tiles.len();
        let mut a: Vec<f32> = tiles.iter().flat_map(|t| t.a).collect();
        let mut b: Vec<f32> = tiles.iter().flat_map(|t| t.b).collect();
        let mut c: Vec<f32> = tiles.iter().flat_map(|t| t.c).collect();
        let make = |v: &mut Vec<f32>| unsafe {
            Buffer::<f32>::create(
                &gpu.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                v.len(),
                v.as_mut_ptr().cast(),
            )
        };
        let (ba, bb, bc) = (make(&mut a)?, make(&mut b)?, make(&mut c)?);
        let mut d = vec![f32::NAN; n * 128];
        let bd = make(&mut d)?;
        unsafe {
            ExecuteKernel::new(&kernel)
                .set_arg(&ba)
                .set_arg(&bb)
                .set_arg(&bc)
                .set_arg(&bd)
                .set_global_work_size(32 * n)
                .set_local_work_size(32)
                .enqueue_nd_range(&gpu.queue)
                .context("launching")?;
            gpu.queue
                .enqueue_read_buffer(&bd, CL_BLOCKING, 0, &mut d, &[])
                .context("reading D")?;
        }
        println!("\n{name}: {n} tiles, {} elements", n * 128);
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir)?;
            let index = sets_done;
            let bytes: Vec<u8> = a
                .iter()
                .chain(&b)
                .chain(&c)
                .chain(&d)
                .flat_map(|x| x.to_le_bytes())
                .collect();
            std::fs::write(dir.join(format!("set{index}.f32")), bytes)?;
        }
        sets_done += 1;
        for (mname, input, finish) in models {
            // Differences in units of 2^-24 of the sum of the terms' magnitudes (an ulp count
            // means little where the terms cancel).
            let (mut same, mut worst, mut worst_rel) = (0usize, 0u64, 0f64);
            for (ti, t) in tiles.iter().enumerate() {
                for i in 0..16 {
                    for j in 0..8 {
                        let want = model(t, i, j, input, finish);
                        let got = d[ti * 128 + i * 8 + j];
                        let u = ulps(got, want);
                        if u == 0 {
                            same += 1;
                        }
                        worst = worst.max(u);
                        let mut size = (t.c[i * 8 + j] as f64).abs();
                        for k in 0..8 {
                            size += (t.a[i * 8 + k] as f64 * t.b[k * 8 + j] as f64).abs();
                        }
                        if size > 0.0 {
                            let rel = (got as f64 - want as f64).abs() / size * (1u64 << 24) as f64;
                            worst_rel = worst_rel.max(rel);
                        }
                    }
                }
            }
            println!(
                "  {mname:<45} {same:>6} of {} bit for bit, worst {worst} ulp, {worst_rel:.2} × 2^-24 of the terms' size",
                n * 128
            );
        }
    }
    Ok(())
}
