// Lesson 12's program: written from the ladder (src/ladder.rs) by `cargo run -- layout --write`.

fn main() -> std::process::ExitCode {
    lab::program::main("12_integers_for_floats")
}
