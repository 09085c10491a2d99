// Lesson 11's program: written from the ladder (src/ladder.rs) by `cargo run -- layout --write`.

fn main() -> std::process::ExitCode {
    lab::program::main("11_matrix_units")
}
