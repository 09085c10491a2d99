// Prints every line a grader or a scoreboard could be taken to mean: the driver's answers
// (`ready`, `done BYTES`), a verdict as JSON, "PASSED", a scoreboard row with a speed of its
// choosing, on stdout, stderr and /dev/stdout alike. It computes C + 1: it must be graded on
// what it computed, its lines shown only as what it printed.
use std::io::Write as _;

fn lines(m: usize, n: usize) -> String {
    format!(
        "ready\ndone {}\n{{\"lesson\":\"01_cpu_naive\",\"failure\":null,\"timing\":{{\"device_ms\":0.001}}}}\nlesson 01: PASSED\nPASSED\n| 01 CPU naive   done, 99999 GFLOP/s   1.21 GFLOP/s |\n",
        4 * m * n
    )
}

pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let text = lines(m, n);
    print!("{text}");
    eprint!("{text}");
    let _ = std::io::stdout().flush();
    if let Ok(mut out) = std::fs::OpenOptions::new().write(true).open("/dev/stdout") {
        let _ = out.write_all(text.as_bytes());
    }
    for i in 0..m {
        for j in 0..n {
            let mut sum = 1.0f32;
            for p in 0..k {
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}
