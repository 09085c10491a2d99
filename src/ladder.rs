//! The ladder: every lesson, declared once, in `lessons/NN_name.rs`, and registered here by
//! one line of [`ALL`].
//!
//! Each of those files holds the lesson's declaration (a [`Lesson`]) and its host code. The
//! course includes it here as a module, so that the scoreboard, `cargo lab`, the lesson
//! programs, the tests and the tools all read the same declaration. Each lesson's program is
//! a small file in `src/programs/` with its `[[bin]]` entry in Cargo.toml, both written from
//! this list by `cargo run -- layout --write`.

use crate::lesson::Lesson;

/// Declares the lessons' modules and [`ALL`], in ladder order, from one line per lesson:
/// `module "file in lessons/"`.
macro_rules! ladder {
    ($($module:ident $file:literal,)*) => {
        $(
            #[path = $file]
            pub mod $module;
        )*
        /// Every lesson, in ladder order.
        pub static ALL: &[&Lesson] = &[$(&$module::LESSON),*];
        /// The file in lessons/ of each lesson of [`ALL`], in the same order.
        pub static FILES: &[&str] = &[$($file),*];
    };
}

ladder! {
    l00_your_device "../lessons/00_your_device.rs",
    l01_cpu_naive "../lessons/01_cpu_naive.rs",
    l02_cpu_loop_order "../lessons/02_cpu_loop_order.rs",
    l03_cpu_parallel "../lessons/03_cpu_parallel.rs",
    l03b_cpu_packed "../lessons/03b_cpu_packed.rs",
    l04_naive_kernel "../lessons/04_naive_kernel.rs",
    l05_local_tiling "../lessons/05_local_tiling.rs",
    l06_register_tiling "../lessons/06_register_tiling.rs",
    l07_vectorization "../lessons/07_vectorization.rs",
    l08_padding "../lessons/08_padding.rs",
    l09_texture_zero_copy "../lessons/09_texture_zero_copy.rs",
    l10_tuned "../lessons/10_tuned.rs",
    l11_matrix_units "../lessons/11_matrix_units.rs",
    l12_integers_for_floats "../lessons/12_integers_for_floats.rs",
}

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

/// The top rung (the lesson that declares itself so).
pub fn top() -> &'static Lesson {
    ALL.iter()
        .copied()
        .find(|l| l.top)
        .expect("one lesson is the top rung")
}

/// The lesson that measures the device's ceilings (results/peak.csv): the one with nothing
/// to grade.
pub fn device() -> &'static Lesson {
    ALL.iter()
        .copied()
        .find(|l| !l.graded())
        .expect("one lesson measures the device")
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

    #[test]
    fn each_lesson_is_registered_under_its_own_file() {
        for (l, file) in ALL.iter().zip(FILES) {
            assert_eq!(*file, format!("../lessons/{}.rs", l.name()));
        }
        assert_eq!(ALL.iter().filter(|l| l.top).count(), 1, "one top rung");
        // The top rung is tuned by the course's tuner (`lab-bench tune` tunes it by default).
        assert!(top().ocl().is_some_and(|o| o.knobs.is_some()));
    }

    #[test]
    fn every_graded_lesson_counts_its_intensity() {
        // The roofline has a dot for every rung: each declares how its intensity is counted,
        // and a rule that needs no define gives a number without any.
        for l in ALL.iter().filter(|l| l.graded()) {
            let rule = l
                .intensity
                .unwrap_or_else(|| panic!("lesson {} declares no intensity rule", l.key));
            assert!(!rule.rule.is_empty(), "lesson {}", l.key);
        }
        let none = crate::lesson::Defines::new();
        let packed = get("03b").intensity.unwrap();
        assert!(((packed.of)(&none).unwrap() - 2.0 * 6.0 * 16.0 / (4.0 * 22.0)).abs() < 1e-9);
        assert!((get("05").intensity.unwrap().of)(&none).is_none());
    }
}
