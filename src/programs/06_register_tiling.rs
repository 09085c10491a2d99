// Lesson 06's program: written from the ladder (src/ladder.rs) by `cargo run -- layout --write`.

fn main() -> std::process::ExitCode {
    lab::program::main("06_register_tiling")
}
