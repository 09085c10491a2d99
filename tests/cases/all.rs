// The lessons' tables of cases, for the graders' suite (tests/suite.rs): written from the
// ladder (src/ladder.rs) by `cargo run -- layout --write`.

#[path = "01_cpu_naive.rs"]
mod l01_cpu_naive;
#[path = "02_cpu_loop_order.rs"]
mod l02_cpu_loop_order;
#[path = "03_cpu_parallel.rs"]
mod l03_cpu_parallel;
#[path = "03b_cpu_packed.rs"]
mod l03b_cpu_packed;
#[path = "04_naive_kernel.rs"]
mod l04_naive_kernel;
#[path = "05_local_tiling.rs"]
mod l05_local_tiling;
#[path = "06_register_tiling.rs"]
mod l06_register_tiling;
#[path = "07_vectorization.rs"]
mod l07_vectorization;
#[path = "08_padding.rs"]
mod l08_padding;
#[path = "09_texture_zero_copy.rs"]
mod l09_texture_zero_copy;
#[path = "10_tuned.rs"]
mod l10_tuned;
#[path = "11_matrix_units.rs"]
mod l11_matrix_units;

/// Every lesson's table, in ladder order.
pub const TABLES: &[(&str, &[super::Case])] = &[
    ("01", l01_cpu_naive::CASES),
    ("02", l02_cpu_loop_order::CASES),
    ("03", l03_cpu_parallel::CASES),
    ("03b", l03b_cpu_packed::CASES),
    ("04", l04_naive_kernel::CASES),
    ("05", l05_local_tiling::CASES),
    ("06", l06_register_tiling::CASES),
    ("07", l07_vectorization::CASES),
    ("08", l08_padding::CASES),
    ("09", l09_texture_zero_copy::CASES),
    ("10", l10_tuned::CASES),
    ("11", l11_matrix_units::CASES),
];
