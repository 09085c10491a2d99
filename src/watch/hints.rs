//! A lesson's layered hints, read from its chapter: the `<details><summary>Hint N</summary>`
//! blocks of the chapter's "The exercise" section, each nested inside the one before, so that
//! the book shows one layer at a time. `lab watch` shows them in the same order, one per key
//! press. The chapter is their one source: a hint edited in the book is the hint `lab watch`
//! shows.

use std::path::Path;

use anyhow::{Context as _, Result};

/// One layer: its title as the book shows it (`Hint 3 (the blocked version)`) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub title: String,
    pub text: String,
}

/// The heading of the section whose hints are the exercise's. Later sections have hints of
/// their own (reading the compiler's evidence), which are not the exercise's.
const SECTION: &str = "## The exercise";

/// The hint layers of a chapter's exercise, in order; none when it has no such section.
pub fn parse(chapter: &str) -> Vec<Hint> {
    let mut hints = Vec::new();
    let mut inside = false;
    let mut current: Option<Hint> = None;
    for line in chapter.lines() {
        let trimmed = line.trim();
        if line.starts_with("## ") {
            inside = line.trim_end() == SECTION;
            if let Some(h) = current.take() {
                hints.push(finish(h));
            }
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(title) = summary(trimmed) {
            if let Some(h) = current.take() {
                hints.push(finish(h));
            }
            // Only the hints: a section may also hold other details ("Show the reference
            // answer"), which are not a layer.
            if title.starts_with("Hint") {
                current = Some(Hint {
                    title,
                    text: String::new(),
                });
            }
            continue;
        }
        // A layer's text ends where the next layer's block opens or its own closes.
        if trimmed == "<details>" || trimmed == "</details>" {
            if let Some(h) = current.take() {
                hints.push(finish(h));
            }
            continue;
        }
        if let Some(h) = current.as_mut() {
            h.text.push_str(line);
            h.text.push('\n');
        }
    }
    if let Some(h) = current.take() {
        hints.push(finish(h));
    }
    hints
}

/// `Hint 1` from `<summary>Hint 1</summary>`.
fn summary(line: &str) -> Option<String> {
    let rest = line.strip_prefix("<summary>")?;
    let title = rest.strip_suffix("</summary>")?;
    Some(title.trim().to_string())
}

/// A layer's text as a terminal shows it: without the blank lines around it, and with the
/// book's formula delimiters (`\\(`, `\\)`) taken out.
fn finish(mut h: Hint) -> Hint {
    let text = h
        .text
        .replace("\\\\(", "")
        .replace("\\\\)", "")
        .replace("\\\\[", "")
        .replace("\\\\]", "");
    h.text = text.trim_matches('\n').to_string();
    h
}

/// The hint layers of the chapter `book`/`name`.md (`name`: the lesson's, `04_naive_kernel`).
pub fn of_lesson(book: &Path, name: &str) -> Result<Vec<Hint>> {
    let file = book.join(format!("{name}.md"));
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    Ok(parse(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTER: &str = "# 04 · X\n\n## The exercise\n\nWrite it.\n\n<details>\n<summary>Hint 1</summary>\n\nEach work-item does \\\\((i, j)\\\\).\n\n<details>\n<summary>Hint 2 (the store)</summary>\n\nStore it\nonce.\n\n</details>\n</details>\n\n### Checking it\n\n<details>\n<summary>Show the reference answer</summary>\n\nsecret\n\n</details>\n\n## Your kernel's evidence\n\n<details>\n<summary>Hint 1: where each number is</summary>\n\nnot the exercise's\n\n</details>\n";

    #[test]
    fn the_exercise_hints_are_read_layer_by_layer() {
        let hints = parse(CHAPTER);
        assert_eq!(
            hints,
            vec![
                Hint {
                    title: "Hint 1".into(),
                    text: "Each work-item does (i, j).".into()
                },
                Hint {
                    title: "Hint 2 (the store)".into(),
                    text: "Store it\nonce.".into()
                },
            ]
        );
        assert!(parse("# 00\n\n## Running it\n\ntext\n").is_empty());
    }

    #[test]
    fn every_graded_chapter_has_layered_hints() {
        let course = crate::harness::paths::Course::from_env();
        for l in crate::ladder::ALL.iter().filter(|l| l.graded()) {
            let hints = of_lesson(&course.book(), &l.name()).unwrap();
            assert!(hints.len() >= 2, "{}: {hints:?}", l.name());
            for (i, h) in hints.iter().enumerate() {
                assert!(
                    h.title.starts_with(&format!("Hint {}", i + 1)),
                    "{}: {h:?}",
                    l.name()
                );
                assert!(!h.text.is_empty(), "{}: {h:?}", l.name());
                assert!(!h.text.contains("<details>"), "{}: {h:?}", l.name());
            }
        }
    }
}
