//! The ladder: every lesson, declared once, in `lessons/NN_name.rs`.
//!
//! Each of those files holds the lesson's declaration (a [`Lesson`]), its host code and its
//! program's `main`: Cargo builds it as the lesson's binary, and the course includes it here
//! as a module, so that the scoreboard, `cargo lab`, the tests and the tools all read the same
//! declaration.

use crate::lesson::Lesson;

#[path = "../lessons/00_your_device.rs"]
pub mod l00_your_device;
#[path = "../lessons/01_cpu_naive.rs"]
pub mod l01_cpu_naive;
#[path = "../lessons/02_cpu_loop_order.rs"]
pub mod l02_cpu_loop_order;
#[path = "../lessons/03_cpu_parallel.rs"]
pub mod l03_cpu_parallel;
#[path = "../lessons/03b_cpu_packed.rs"]
pub mod l03b_cpu_packed;
#[path = "../lessons/04_naive_kernel.rs"]
pub mod l04_naive_kernel;
#[path = "../lessons/05_local_tiling.rs"]
pub mod l05_local_tiling;
#[path = "../lessons/06_register_tiling.rs"]
pub mod l06_register_tiling;
#[path = "../lessons/07_vectorization.rs"]
pub mod l07_vectorization;
#[path = "../lessons/08_padding.rs"]
pub mod l08_padding;
#[path = "../lessons/09_texture_zero_copy.rs"]
pub mod l09_texture_zero_copy;
#[path = "../lessons/10_tuned.rs"]
pub mod l10_tuned;
#[path = "../lessons/11_matrix_units.rs"]
pub mod l11_matrix_units;

/// Every lesson, in ladder order.
pub static ALL: &[&Lesson] = &[
    &l00_your_device::LESSON,
    &l01_cpu_naive::LESSON,
    &l02_cpu_loop_order::LESSON,
    &l03_cpu_parallel::LESSON,
    &l03b_cpu_packed::LESSON,
    &l04_naive_kernel::LESSON,
    &l05_local_tiling::LESSON,
    &l06_register_tiling::LESSON,
    &l07_vectorization::LESSON,
    &l08_padding::LESSON,
    &l09_texture_zero_copy::LESSON,
    &l10_tuned::LESSON,
    &l11_matrix_units::LESSON,
];

/// A lesson by key (`05`, `5`, `03b`) or name (`05_local_tiling`).
pub fn find(key: &str) -> Option<&'static Lesson> {
    let key = key.trim().to_lowercase();
    if key.is_empty() {
        return None;
    }
    let padded = match key.find(|c: char| !c.is_ascii_digit()) {
        // "5" → "05", "3b" → "03b"
        Some(0) => key.clone(),
        Some(i) => format!("{:0>2}{}", &key[..i], &key[i..]),
        None => format!("{key:0>2}"),
    };
    ALL.iter()
        .copied()
        .find(|l| l.name() == key || l.key == padded)
}

/// The lesson by key; panics on a key not in the ladder (a bug in the course).
pub fn get(key: &str) -> &'static Lesson {
    find(key).unwrap_or_else(|| panic!("no lesson {key}"))
}

/// The rung before `lesson`, if any.
pub fn previous(lesson: &Lesson) -> Option<&'static Lesson> {
    let i = ALL.iter().position(|l| l.key == lesson.key)?;
    i.checked_sub(1).map(|j| ALL[j])
}

/// The keys of every lesson, for messages: `00, 01, ..., 10`.
pub fn keys() -> String {
    ALL.iter().map(|l| l.key).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lessons_are_found_by_number_key_and_name() {
        assert_eq!(find("5").unwrap().key, "05");
        assert_eq!(find("05").unwrap().key, "05");
        assert_eq!(find("05_local_tiling").unwrap().key, "05");
        assert!(find("42").is_none());
        assert!(find("").is_none());
        assert_eq!(find("3b").unwrap().key, "03b");
        assert_eq!(previous(get("04")).unwrap().key, "03b");
        assert!(previous(get("00")).is_none());
    }

    #[test]
    fn keys_and_names_are_unique_and_in_order() {
        let mut names: Vec<String> = ALL.iter().map(|l| l.name()).collect();
        let sorted = {
            let mut s = names.clone();
            s.sort();
            s
        };
        assert_eq!(names, sorted, "ALL must be in ladder order");
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }
}
