//! A lesson of several kernels per multiplication: the further kernels its host declares are
//! built with the program and checked there (a file lacking one fails, naming it), the
//! prepared program holds them by name, and the host enqueues all of them for one
//! multiplication, timed from the first kernel's start to the last one's end and checked as a
//! single kernel is.

mod common;

use lab::harness::device::Gpu;
use lab::harness::exec::{self, Launch, Step};
use lab::harness::matrix::{self, Problem, Shape};
use lab::harness::program::{Arg, Kernels, Signature};
use lab::lesson::{Host, OclLesson, Sanitize, BUFFERS, STANDARD_ARGS};
use lab::prepared::Prepared;

/// A product in two kernels: `product` writes A·B into a buffer of the host's, `copy_out`
/// copies it into C.
const TWO_STEPS: &str = r#"
__kernel void product(const int M, const int N, const int K, const __global float* A,
                      const __global float* B, __global float* T) {
    const int j = get_global_id(0), i = get_global_id(1);
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
    T[i * N + j] = acc;
}

__kernel void copy_out(const int M, const int N, const __global float* T, __global float* C) {
    const int j = get_global_id(0), i = get_global_id(1);
    if (i < M && j < N) C[i * N + j] = T[i * N + j];
}
"#;

const COPY_OUT: Signature = Signature {
    name: "copy_out",
    args: &[
        Arg::Int("M"),
        Arg::Int("N"),
        Arg::GlobalIn("T"),
        Arg::GlobalOut("C"),
    ],
};

fn launch(s: Shape) -> Launch {
    Launch {
        global: [s.n, s.m],
        local: None,
    }
}

/// The two kernels for one multiplication: `product` into T, then `copy_out` from T into C.
fn run(
    gpu: &Gpu,
    kernels: &Kernels,
    p: &Problem,
    l: &Launch,
    _: &[lab::harness::program::Define],
) -> anyhow::Result<lab::harness::exec::RunOutput> {
    use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
    let s = p.shape;
    let t = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE,
            s.m * s.n,
            std::ptr::null_mut(),
        )?
    };
    let copy_out = kernels.get("copy_out")?;
    let dims = [s.m as i32, s.n as i32, s.k as i32];
    unsafe {
        for (i, d) in dims.iter().enumerate() {
            kernels.set_arg(i as u32, d)?;
        }
        kernels.set_arg(5, &t.get())?;
        copy_out.set_arg(0, &dims[0])?;
        copy_out.set_arg(1, &dims[1])?;
        copy_out.set_arg(2, &t.get())?;
    }
    let steps = [
        Step {
            kernel: kernels.main(),
            launch: *l,
        },
        Step {
            kernel: copy_out,
            launch: *l,
        },
    ];
    exec::run_steps(gpu, p, &steps, |a, b, c| unsafe {
        kernels.set_arg(3, &a.get())?;
        kernels.set_arg(4, &b.get())?;
        copy_out.set_arg(3, &c.get())?;
        Ok(())
    })
}

static TWO: OclLesson = OclLesson {
    kernel: "product",
    args: STANDARD_ARGS,
    defines: |_| Vec::new(),
    check_defines: |_| Ok(()),
    launch: |s, _| Ok(launch(s)),
    shapes: |_| Ok(vec![Shape::new(5, 7, 3)]),
    define_sets: &[],
    build_options: "",
    sanitize: Sanitize {
        probes: &[],
        stand_in: None,
    },
    behaviour: None,
    host: Host {
        run,
        exact: run,
        kernels: &[COPY_OUT],
        ..BUFFERS
    },
    sized: None,
    knobs: None,
    variants: &[],
    any_size: true,
};

/// Buffers of a shape bound to both kernels, alive while the kernels run outside `run`.
struct Bound {
    _buffers: Vec<opencl3::memory::Buffer<f32>>,
}

impl Bound {
    fn new(gpu: &Gpu, kernels: &Kernels, s: Shape) -> Bound {
        use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
        let buffer = |len: usize| unsafe {
            Buffer::<f32>::create(&gpu.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut())
                .unwrap()
        };
        let (a, b, t, c) = (
            buffer(s.m * s.k),
            buffer(s.k * s.n),
            buffer(s.m * s.n),
            buffer(s.m * s.n),
        );
        let copy_out = kernels.get("copy_out").unwrap();
        let dims = [s.m as i32, s.n as i32, s.k as i32];
        unsafe {
            for (i, d) in dims.iter().enumerate() {
                kernels.set_arg(i as u32, d).unwrap();
            }
            kernels.set_arg(3, &a.get()).unwrap();
            kernels.set_arg(4, &b.get()).unwrap();
            kernels.set_arg(5, &t.get()).unwrap();
            copy_out.set_arg(0, &dims[0]).unwrap();
            copy_out.set_arg(1, &dims[1]).unwrap();
            copy_out.set_arg(2, &t.get()).unwrap();
            copy_out.set_arg(3, &c.get()).unwrap();
        }
        Bound {
            _buffers: vec![a, b, t, c],
        }
    }
}

fn gpu() -> Gpu {
    Gpu::open(common::grader().opts.device.as_deref()).expect("an OpenCL device")
}

fn file() -> std::path::PathBuf {
    std::path::PathBuf::from("tests/several_kernels.rs")
}

#[test]
fn the_further_kernels_are_built_checked_and_held_by_name() {
    let gpu = gpu();
    let prepared = Prepared::build(&gpu, &TWO, &file(), TWO_STEPS, &[], "").unwrap();
    assert_eq!(prepared.kernel.names().collect::<Vec<_>>(), ["copy_out"]);
    assert!(prepared.kernel.get("copy_out").is_ok());
    let why = format!("{:#}", prepared.kernel.get("reduce").err().unwrap());
    assert!(
        why.contains("`reduce`") && why.contains("`copy_out`"),
        "{why}"
    );
    assert!(TWO
        .declarations()
        .contains("__kernel void copy_out(const int M"));

    // A file without the further kernel fails when it is built, naming the kernel.
    let without = TWO_STEPS.replace("copy_out", "copy_back");
    let why = format!(
        "{:#}",
        Prepared::build(&gpu, &TWO, &file(), &without, &[], "")
            .err()
            .expect("the build refuses a missing kernel")
    );
    assert!(
        why.contains("no kernel named `copy_out`") && why.contains("copy_back"),
        "{why}"
    );
    // And one whose further kernel takes other arguments than declared fails there too.
    let other = TWO_STEPS.replace(
        "copy_out(const int M, const int N,",
        "copy_out(const int M, const int N, const int unused,",
    );
    let why = format!(
        "{:#}",
        Prepared::build(&gpu, &TWO, &file(), &other, &[], "")
            .err()
            .expect("the build refuses a wrong signature")
    );
    assert!(why.contains("`copy_out` takes 5 argument(s)"), "{why}");
}

#[test]
fn one_multiplication_runs_every_kernel_and_is_timed_from_first_to_last() {
    let gpu = gpu();
    let prepared = Prepared::build(&gpu, &TWO, &file(), TWO_STEPS, &[], "").unwrap();
    let shape = Shape::new(37, 29, 41);
    let p = Problem::random(shape, 11);
    let out = (TWO.host.run)(&gpu, &prepared.kernel, &p, &launch(shape), &[]).unwrap();
    // C is only ever written by the second kernel, from what the first left: a right C means
    // both ran, in order.
    assert!(matrix::check(&p, &out.c).passed());
    assert!(out.guard.clean() && out.a_changed.is_none() && out.b_changed.is_none());
    assert!(
        out.kernel_ms > 0.0 && out.kernel_ms <= out.wall_ms + 0.05,
        "device {} ms, wall {} ms",
        out.kernel_ms,
        out.wall_ms
    );
    // The span runs from the first kernel's start to the last one's end: with a second kernel
    // far longer than the first (the product over a K 64 times as long, then the copy), it
    // is at least the longer kernel's own time.
    let (long, short) = (Shape::new(64, 64, 4096), Shape::new(64, 64, 64));
    let bound = Bound::new(&gpu, &prepared.kernel, long);
    // Device times on a CPU device swing with whatever else the cores run (tests run side by
    // side): the product's fastest of three against the two steps' slowest of three.
    let product = (0..3)
        .map(|_| exec::launch(&gpu, prepared.kernel.main(), &launch(long)).unwrap())
        .fold(f64::INFINITY, f64::min);
    let both = (0..3)
        .map(|_| {
            exec::launch_steps(
                &gpu,
                &[
                    Step {
                        kernel: prepared.kernel.get("copy_out").unwrap(),
                        launch: launch(short),
                    },
                    Step {
                        kernel: prepared.kernel.main(),
                        launch: launch(long),
                    },
                ],
            )
            .unwrap()
            .0
        })
        .fold(0.0, f64::max);
    assert!(
        both >= 0.5 * product,
        "both {both} ms, the product alone {product} ms"
    );
    drop(bound);

    // A bad launch in the last step is refused before anything runs.
    let bad = Launch {
        global: [0, 1],
        local: None,
    };
    let _bound = Bound::new(&gpu, &prepared.kernel, shape);
    let steps = [
        Step {
            kernel: prepared.kernel.main(),
            launch: launch(shape),
        },
        Step {
            kernel: prepared.kernel.get("copy_out").unwrap(),
            launch: bad,
        },
    ];
    assert!(exec::launch_steps(&gpu, &steps).is_err());
    assert!(exec::launch_steps(&gpu, &[]).is_err());
}
