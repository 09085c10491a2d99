// Right and naive, and prints every line a grader or a scoreboard could be taken to mean: the
// driver's answers (`ready`, `done BYTES`), a verdict as JSON with a time of 1 µs, "PASSED",
// a scoreboard row with a speed of its choosing. It passes with the speed the grader measured,
// its lines shown only as what it printed.
use std::io::Write as _;

pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let text = format!(
        "ready\ndone {}\n{{\"lesson\":\"01_cpu_naive\",\"failure\":null,\"timing\":{{\"device_ms\":0.001}}}}\nPASSED\n| 01 CPU naive   done, 99999 GFLOP/s   1.21 GFLOP/s |\n",
        4 * m * n
    );
    print!("{text}");
    eprint!("{text}");
    let _ = std::io::stdout().flush();
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}
