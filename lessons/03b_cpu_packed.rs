//! Lesson 03b: the BLIS/GotoBLAS design on the CPU: packed panels of A and B, a
//! register-blocked micro-kernel the compiler vectorises, cache blocking around it, threads
//! over macro-tiles. The declaration the grader, the scoreboard and the book read, and the
//! lesson's program:
//!
//! ```text
//! cargo run --release --bin 03b_cpu_packed [-- --solution --size 1024]
//! ```
//!
//! runs your `matmul_packed` (or the reference), checks it and times it against lesson 03.

use lab::harness::cpu_crate::Caches;
use lab::harness::matrix::Shape;
use lab::lesson::{CpuCheck, CpuLesson, Kind, Lesson, Level, Peer};

pub static LESSON: Lesson = Lesson {
    key: "03b",
    slug: "cpu_packed",
    title: "CPU packed panels (BLIS)",
    teaches: "packed panels of A and B, a register-blocked micro-kernel, cache blocking and threads over macro-tiles",
    hint: "in kernels/03b_cpu_packed.rs, start with the micro-kernel (03b.3): an MR×NR array of accumulators updated from one sliver of A and one of B. Then pack A and B into slivers (03b.1, 03b.2), loop over the slivers of a block (03b.4), and finally the blocked loops with rayon over blocks of rows (03b.5).",
    kind: Kind::Cpu(&CPU),
    intensity: Some(INTENSITY),
    peers: &[Peer::Matrixmultiply, Peer::CpuBlas],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// The work is shared among threads (on a problem large enough that a fast kernel still
/// runs for a tenth of a second of CPU time).
static THREADS: CpuCheck = CpuCheck::Threads {
    shape: Shape::new(1536, 1024, 1024),
    pool: 8,
    tries: 3,
    max_share: 0.75,
    // The course has no one-thread packed product to time beside it, and against lesson 02's
    // i-k-j packing alone gains 3 to 4 times: threads cannot be told from packing by speed.
    confirm: None,
};

/// Packing and small slivers show in the first-level misses: the micro-kernel's operands come
/// from a sliver of A that stays in L1 and a packed sliver of B that streams through it.
static REUSE: CpuCheck = CpuCheck::Caches {
    level: Level::L1,
    shape: Shape::new(200, 264, 300),
    caches: Caches {
        l1: (32768, 8, 64),
        ll: (1 << 20, 16, 64),
    },
    good: (&LESSON, "matmul_packed"),
    bad: (&lab::ladder::l02_cpu_loop_order::LESSON, "matmul_ikj"),
    what: "reuse of packed slivers from the first-level cache",
    hint: "pack A into slivers of MR rows and B into slivers of NR columns, and let the micro-kernel read one sliver of A (it stays in L1) against every sliver of B of the packed panel.",
    // Packing gains 3 to 4 times over i-k-j (2-core Xeon with AVX-512, 160×768×733): too
    // little to tell code without it from honest code slower than the course's.
    confirm: None,
};

/// The micro-kernel's MR×NR tile of C stays in registers while each step along K loads MR
/// values of A and NR of B. The tile follows the vector width the student crate is built for
/// (`cpu_crate::RUSTFLAGS`, the machine's own), which `lab-bench ladder` records as `SIMD=` bits:
/// 12×32 with AVX-512's 32 registers of 16 floats, 6×16 with AVX's 16 of 8, unless a row
/// records other MR and NR.
pub const INTENSITY: lab::lesson::Intensity = lab::lesson::Intensity {
    rule: "MR×NR micro-tile (12×32 with AVX-512, else 6×16): 2·MR·NR / (4·(MR+NR))",
    of: |d| {
        let wide = lab::lesson::positive(d, "SIMD").is_some_and(|bits| bits >= 512.0);
        let (mr, nr) = if wide { (12.0, 32.0) } else { (6.0, 16.0) };
        let mr = lab::lesson::positive(d, "MR").unwrap_or(mr);
        let nr = lab::lesson::positive(d, "NR").unwrap_or(nr);
        Some(lab::lesson::register_tile(mr, nr))
    },
    // The reference's panels (`KC`, `NC` in solutions/03b_cpu_packed.rs).
    walk: |_| {
        Some(lab::lesson::Walk::Packed {
            kc: 256.0,
            nc: 1024.0,
        })
    },
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_packed"],
    checks: &[("matmul_packed", &THREADS), ("matmul_packed", &REUSE)],
    not_checked: "register blocking itself: how many values the micro-kernel keeps in registers depends on the compiler and the vector width, so it is judged by the speed beside matrixmultiply, not by a count",
    serial: false,
    variants: None,
};
