//! Grades one lesson in its own process, so that the grader survives a kernel that hangs
//! or crashes. Started by the harness with one argument (the request); not for people.

fn main() -> std::process::ExitCode {
    let Some(request) = std::env::args().nth(1) else {
        eprintln!(
            "lab-worker is started by the grader; grade with `cargo lab` or `cargo run --release`"
        );
        return std::process::ExitCode::FAILURE;
    };
    match lab::grade::worker_main(&request) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
