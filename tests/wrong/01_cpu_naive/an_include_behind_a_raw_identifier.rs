// Wrong on purpose: a raw identifier (r#name), then the course's answer brought in.
#[allow(dead_code, non_upper_case_globals)]
const r#quiet: u8 = 0;
include!(concat!(env!("HOME"), "/../work/main/solutions/01_cpu_naive.rs"));
// "#
