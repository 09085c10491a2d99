// Prints what an earlier grader protocol looked like, with a passing verdict, and computes
// nothing: it must be graded on what it computed.
pub fn matmul(_a: &[f32], _b: &[f32], c: &mut [f32], _m: usize, _n: usize, _k: usize) {
    println!("LAB-EVENT {{\"Done\":{{\"lesson\":\"01_cpu_naive\",\"failure\":null}}}}");
    eprintln!("{{\"Done\":{{\"failure\":null}}}}");
    c.fill(1.0);
}
