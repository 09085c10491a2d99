//! Lesson 12's host: the buffers that pass from kernel to kernel, the six launches of one
//! multiplication, and the run (guarded and timed as one, [`exec::run_steps`]).

use anyhow::{Context as _, Result};
use lab::harness::device::Gpu;
use lab::harness::exec::{self, Launch, RunOutput, Step};
use lab::harness::matrix::{Problem, Shape};
use lab::harness::program::{Arg, Define, Kernels, Signature};
use lab::lesson::{define, round_up};
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::cl_int;

/// The lesson's own kernel (the first of a multiplication): A's scaling exponents.
pub const ROW_SCALE: Signature = Signature {
    name: "row_scale",
    args: &[
        Arg::Int("M"),
        Arg::Int("K"),
        Arg::GlobalIn("A"),
        Arg::GlobalInts("e"),
    ],
};

/// The further kernels of the file, in the order the host enqueues them after `row_scale`.
pub const FURTHER: &[Signature] = &[
    Signature {
        name: "col_scale",
        args: &[
            Arg::Int("K"),
            Arg::Int("N"),
            Arg::GlobalIn("B"),
            Arg::GlobalInts("f"),
        ],
    },
    Signature {
        name: "a_residues",
        args: &[
            Arg::Int("M"),
            Arg::Int("K"),
            Arg::GlobalIn("A"),
            Arg::GlobalInts("e"),
            Arg::GlobalBytes("R"),
            Arg::Int("Mp"),
            Arg::Int("Kp"),
        ],
    },
    Signature {
        name: "b_residues",
        args: &[
            Arg::Int("K"),
            Arg::Int("N"),
            Arg::GlobalIn("B"),
            Arg::GlobalInts("f"),
            Arg::GlobalBytes("R"),
            Arg::Int("Np"),
            Arg::Int("Kp"),
        ],
    },
    Signature {
        name: "products",
        args: &[
            Arg::GlobalBytes("RA"),
            Arg::GlobalBytes("RB"),
            Arg::GlobalBytes("RC"),
            Arg::Int("Mp"),
            Arg::Int("Np"),
            Arg::Int("Kp"),
        ],
    },
    Signature {
        name: "reconstruct",
        args: &[
            Arg::Int("M"),
            Arg::Int("N"),
            Arg::GlobalBytes("R"),
            Arg::Int("Mp"),
            Arg::Int("Np"),
            Arg::GlobalInts("e"),
            Arg::GlobalInts("f"),
            Arg::GlobalOut("C"),
        ],
    },
];

/// The sizes of one multiplication: the problem, the moduli, and the planes padded with zeros
/// (Mp and Np to whole blocks, and Np to b_residues' 32 columns; Kp to the k-step and to
/// b_residues' 64 rows), so that the products need no bounds.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub shape: Shape,
    pub nmod: usize,
    pub mp: usize,
    pub np: usize,
    pub kp: usize,
    bm: usize,
    bn: usize,
    threads: usize,
}

fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

impl Plan {
    pub fn new(s: Shape, d: &[Define]) -> Result<Plan, String> {
        let (bm, bn) = (define(d, "BM")?, define(d, "BN")?);
        let warps = (bm / define(d, "WM")?) * (bn / define(d, "WN")?);
        Ok(Plan {
            shape: s,
            nmod: define(d, "NMOD")?,
            mp: round_up(s.m, bm),
            np: round_up(s.n, lcm(bn, 32)),
            kp: round_up(s.k, lcm(define(d, "BK")?, 64)),
            bm,
            bn,
            threads: 32 * warps,
        })
    }

    /// `row_scale`'s launch: one work-group of 256 per row of A.
    pub fn first(&self) -> Launch {
        Launch {
            global: [256, self.shape.m],
            local: Some([256, 1]),
        }
    }

    /// The launches after the first, in the order of [`FURTHER`].
    fn further(&self) -> [Launch; 5] {
        let s = self.shape;
        [
            Launch {
                global: [round_up(s.n, 32), 8],
                local: Some([32, 8]),
            },
            Launch {
                global: [self.kp / 4, self.mp],
                local: None,
            },
            Launch {
                global: [self.np, self.kp / 64 * 8],
                local: Some([32, 8]),
            },
            Launch {
                global: [self.np / self.bn * self.threads, self.mp / self.bm * self.nmod],
                local: Some([self.threads, 1]),
            },
            // Four columns of C per work-item.
            Launch {
                global: [s.n.div_ceil(4), s.m],
                local: None,
            },
        ]
    }
}

/// What the kernels leave for one another: the exponents, the residue planes of A and B, and
/// the products' residues.
pub struct Between {
    pub e: Buffer<cl_int>,
    pub f: Buffer<cl_int>,
    pub ra: Buffer<i8>,
    pub rb: Buffer<i8>,
    pub rc: Buffer<u8>,
}

/// A buffer between two kernels: left uninitialised for the device's runs (every element the
/// next kernel reads is written by the one before), zero-filled for the simulator's, since
/// Oclgrind 21.10 counts what one kernel wrote to a buffer made without host data as never
/// initialised when the next kernel reads it.
fn buffer<T: Clone + Default>(gpu: &Gpu, len: usize, what: &str, zeroed: bool) -> Result<Buffer<T>> {
    let mut zeros = match zeroed {
        true => vec![T::default(); len.max(1)],
        false => Vec::new(),
    };
    let (flags, host) = match zeroed {
        true => (
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            zeros.as_mut_ptr().cast(),
        ),
        false => (CL_MEM_READ_WRITE, std::ptr::null_mut()),
    };
    unsafe { Buffer::<T>::create(&gpu.context, flags, len.max(1), host) }
        .with_context(|| format!("allocating {what}"))
}

/// The buffers between the kernels for `plan`, every argument but A, B and C set, and the six
/// steps of one multiplication.
fn bind<'k>(
    gpu: &Gpu,
    k: &'k Kernels,
    plan: &Plan,
    zeroed: bool,
) -> Result<(Between, Vec<Step<'k>>)> {
    let s = plan.shape;
    let between = Between {
        e: buffer(gpu, s.m, "A's exponents", zeroed)?,
        f: buffer(gpu, s.n, "B's exponents", zeroed)?,
        ra: buffer(gpu, plan.nmod * plan.mp * plan.kp, "A's residues", zeroed)?,
        rb: buffer(gpu, plan.nmod * plan.np * plan.kp, "B's residues", zeroed)?,
        rc: buffer(gpu, plan.nmod * plan.mp * plan.np, "the products' residues", zeroed)?,
    };
    let int = |x: usize| x as cl_int;
    let (m, n, kk) = (int(s.m), int(s.n), int(s.k));
    let (mp, np, kp) = (int(plan.mp), int(plan.np), int(plan.kp));
    let b = &between;
    unsafe {
        let row = k.main();
        row.set_arg(0, &m)?;
        row.set_arg(1, &kk)?;
        row.set_arg(3, &b.e.get())?;
        let col = k.get("col_scale")?;
        col.set_arg(0, &kk)?;
        col.set_arg(1, &n)?;
        col.set_arg(3, &b.f.get())?;
        let ar = k.get("a_residues")?;
        ar.set_arg(0, &m)?;
        ar.set_arg(1, &kk)?;
        ar.set_arg(3, &b.e.get())?;
        ar.set_arg(4, &b.ra.get())?;
        ar.set_arg(5, &mp)?;
        ar.set_arg(6, &kp)?;
        let br = k.get("b_residues")?;
        br.set_arg(0, &kk)?;
        br.set_arg(1, &n)?;
        br.set_arg(3, &b.f.get())?;
        br.set_arg(4, &b.rb.get())?;
        br.set_arg(5, &np)?;
        br.set_arg(6, &kp)?;
        let pr = k.get("products")?;
        pr.set_arg(0, &b.ra.get())?;
        pr.set_arg(1, &b.rb.get())?;
        pr.set_arg(2, &b.rc.get())?;
        pr.set_arg(3, &mp)?;
        pr.set_arg(4, &np)?;
        pr.set_arg(5, &kp)?;
        let re = k.get("reconstruct")?;
        re.set_arg(0, &m)?;
        re.set_arg(1, &n)?;
        re.set_arg(2, &b.rc.get())?;
        re.set_arg(3, &mp)?;
        re.set_arg(4, &np)?;
        re.set_arg(5, &b.e.get())?;
        re.set_arg(6, &b.f.get())?;
    }
    let mut steps = vec![Step {
        kernel: k.main(),
        launch: plan.first(),
    }];
    for (sig, launch) in FURTHER.iter().zip(plan.further()) {
        steps.push(Step {
            kernel: k.get(sig.name)?,
            launch,
        });
    }
    Ok((between, steps))
}

/// Gives the kernels that take them A, B and C.
fn set_abc(k: &Kernels, a: &Buffer<f32>, b: &Buffer<f32>, c: &Buffer<f32>) -> Result<()> {
    unsafe {
        k.main().set_arg(2, &a.get()).context("setting A")?;
        k.get("a_residues")?
            .set_arg(2, &a.get())
            .context("setting A")?;
        k.get("col_scale")?
            .set_arg(2, &b.get())
            .context("setting B")?;
        k.get("b_residues")?
            .set_arg(2, &b.get())
            .context("setting B")?;
        k.get("reconstruct")?
            .set_arg(7, &c.get())
            .context("setting C")?;
    }
    Ok(())
}

/// One multiplication, guarded and timed as one, and what its kernels left between them (for
/// the check of each stage).
pub fn run(
    gpu: &Gpu,
    k: &Kernels,
    p: &Problem,
    d: &[Define],
) -> Result<(RunOutput, Between, Plan)> {
    let plan = Plan::new(p.shape, d).map_err(anyhow::Error::msg)?;
    let (between, steps) = bind(gpu, k, &plan, false)?;
    let out = exec::run_steps(gpu, p, &steps, |a, b, c| set_abc(k, a, b, c))?;
    Ok((out, between, plan))
}

/// One multiplication for the simulator, on buffers of exactly the matrices' sizes.
pub fn exact(gpu: &Gpu, k: &Kernels, p: &Problem, _: &Launch, d: &[Define]) -> Result<RunOutput> {
    let plan = Plan::new(p.shape, d).map_err(anyhow::Error::msg)?;
    let (_between, steps) = bind(gpu, k, &plan, true)?;
    exec::run_steps_exact(gpu, p, &steps, |a, b, c| set_abc(k, a, b, c))
}
