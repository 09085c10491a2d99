// Lesson 08's program: written from the ladder (src/ladder.rs) by `cargo run -- layout --write`.

fn main() -> std::process::ExitCode {
    lab::program::main("08_padding")
}
