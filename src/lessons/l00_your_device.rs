use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 0,
    slug: "your_device",
    title: "Your device",
    hint: "run `cargo run --release --bin 00_your_device` to measure your device's peak",
    kind: Kind::Device,
};
