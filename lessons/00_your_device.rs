//! Lesson 00: your device.

fn main() {
    println!("lesson 00 is being written");
}
