// Lesson 03b's program: written from the ladder (src/ladder.rs) by `cargo run -- layout --write`.

fn main() -> std::process::ExitCode {
    lab::program::main("03b_cpu_packed")
}
