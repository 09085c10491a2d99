//! Grades the student's kernels (kernels/, or $LAB_KERNELS): run with `cargo lab`, or
//! `cargo lab 05` for one lesson. Ignored by a plain `cargo test`, which grades solutions/.

macro_rules! grade {
    ($($name:ident => $n:expr),* $(,)?) => {$(
        #[test]
        #[ignore = "grades your kernels: run `cargo lab`"]
        fn $name() {
            lab::testing::assert_student($n);
        }
    )*};
}

grade! {
    lesson_01_cpu_naive => 1,
    lesson_02_cpu_loop_order => 2,
    lesson_03_cpu_parallel => 3,
    lesson_04_naive_kernel => 4,
    lesson_05_local_tiling => 5,
    lesson_06_register_tiling => 6,
    lesson_07_vectorization => 7,
    lesson_08_padding => 8,
    lesson_09_texture_zero_copy => 9,
    lesson_10_tuned => 10,
}
