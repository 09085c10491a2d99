//! Every graded lesson's cases, each from its grader test's `pub mod cases`, for the graders'
//! suite (tests/suite.rs). Written from the ladder (src/ladder.rs) by
//! `cargo run -- layout --write`.

use lab::grade::cases::Case;

#[path = "../01_cpu_naive.rs"]
#[allow(unused, clippy::all)]
mod l01_cpu_naive;

#[path = "../02_cpu_loop_order.rs"]
#[allow(unused, clippy::all)]
mod l02_cpu_loop_order;

#[path = "../03_cpu_parallel.rs"]
#[allow(unused, clippy::all)]
mod l03_cpu_parallel;

#[path = "../03b_cpu_packed.rs"]
#[allow(unused, clippy::all)]
mod l03b_cpu_packed;

#[path = "../04_naive_kernel.rs"]
#[allow(unused, clippy::all)]
mod l04_naive_kernel;

#[path = "../05_local_tiling.rs"]
#[allow(unused, clippy::all)]
mod l05_local_tiling;

#[path = "../06_register_tiling.rs"]
#[allow(unused, clippy::all)]
mod l06_register_tiling;

#[path = "../07_vectorization.rs"]
#[allow(unused, clippy::all)]
mod l07_vectorization;

#[path = "../08_padding.rs"]
#[allow(unused, clippy::all)]
mod l08_padding;

#[path = "../09_texture_zero_copy.rs"]
#[allow(unused, clippy::all)]
mod l09_texture_zero_copy;

#[path = "../10_tuned.rs"]
#[allow(unused, clippy::all)]
mod l10_tuned;

#[path = "../11_matrix_units.rs"]
#[allow(unused, clippy::all)]
mod l11_matrix_units;

#[path = "../12_integers_for_floats.rs"]
#[allow(unused, clippy::all)]
mod l12_integers_for_floats;

/// Every graded lesson's key and cases, in ladder order.
pub static TABLES: &[(&str, &[Case])] = &[
    ("01", l01_cpu_naive::cases::CASES),
    ("02", l02_cpu_loop_order::cases::CASES),
    ("03", l03_cpu_parallel::cases::CASES),
    ("03b", l03b_cpu_packed::cases::CASES),
    ("04", l04_naive_kernel::cases::CASES),
    ("05", l05_local_tiling::cases::CASES),
    ("06", l06_register_tiling::cases::CASES),
    ("07", l07_vectorization::cases::CASES),
    ("08", l08_padding::cases::CASES),
    ("09", l09_texture_zero_copy::cases::CASES),
    ("10", l10_tuned::cases::CASES),
    ("11", l11_matrix_units::cases::CASES),
    ("12", l12_integers_for_floats::cases::CASES),
];
