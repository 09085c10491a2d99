//! The CPU lessons' Rust code: the student's files (from `kernels/`, or `$LAB_KERNELS` at
//! build time) and the reference answers in `solutions/`.

/// The student's CPU kernels, compiled in by `build.rs`.
pub mod student {
    include!(concat!(env!("OUT_DIR"), "/student_cpu.rs"));
}

/// The reference answers.
pub mod reference {
    pub mod naive {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/solutions/01_cpu_naive.rs"
        ));
    }
    pub mod loop_order {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/solutions/02_cpu_loop_order.rs"
        ));
    }
    pub mod parallel {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/solutions/03_cpu_parallel.rs"
        ));
    }
}
