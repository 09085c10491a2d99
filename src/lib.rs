//! The course's harness: devices, programs, matrices, the CPU reference, checking, timing,
//! reports and grading. Lesson binaries, graders and benchmarks are thin layers over it.

pub mod clblast;
pub mod cli;
pub mod cpu_kernels;
pub mod device;
pub mod exec;
pub mod grade;
pub mod lessons;
pub mod matrix;
pub mod microbench;
pub mod oclgrind;
pub mod paths;
pub mod peak;
pub mod program;
pub mod record;
pub mod report;
pub mod runner;
pub mod scoreboard;
pub mod testing;
pub mod texture;
pub mod tuner;
