//! Keeps the exercises' answers out of sight in the built book: the body of every EXERCISE
//! region of the files in solutions/ may appear in the book's HTML only inside a
//! `<details>` element, which the reader has to open.
//!
//! The check of the real book needs it built first, so it is ignored by a plain
//! `cargo test` and run by `.ci/run` after `mdbook build book`:
//!
//!     mdbook build book && cargo test --features course-checks --test book -- --ignored

use std::path::{Path, PathBuf};

#[cfg(feature = "course-checks")]
#[path = "book/layout.rs"]
mod page_layout;

/// One EXERCISE region of a solution file.
struct Region {
    /// Where it starts, as `solutions/05_local_tiling.cl:33`.
    place: String,
    /// The label of its BEGIN line, as `EXERCISE(05.1)`.
    label: String,
    /// Its body, normalised.
    body: String,
}

/// A piece of code or text reduced to what a reader sees of it: mdBook's anchor lines
/// dropped (`{{#include}}` leaves them out), every run of white space made one space.
fn normalise(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:"))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The EXERCISE regions of every file in `dir`, sorted by file name.
fn regions(dir: &Path) -> Result<Vec<Region>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = format!(
            "{}/{}",
            dir.file_name().unwrap_or_default().to_string_lossy(),
            file.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut open: Option<(usize, String, Vec<&str>)> = None;
        for (i, line) in text.lines().enumerate() {
            if let Some(at) = line.find("EXERCISE(").filter(|_| line.contains("BEGIN")) {
                if open.is_some() {
                    return Err(format!("{name}:{}: a region opens inside another", i + 1));
                }
                let label = line[at..].split(')').next().unwrap_or_default();
                open = Some((i + 1, format!("{label})"), Vec::new()));
            } else if line.contains("EXERCISE END") {
                let (at, label, body) = open
                    .take()
                    .ok_or_else(|| format!("{name}:{}: EXERCISE END without a BEGIN", i + 1))?;
                let body = normalise(&body.join("\n"));
                if !body.is_empty() {
                    out.push(Region {
                        place: format!("{name}:{at}"),
                        label,
                        body,
                    });
                }
            } else if let Some((_, _, body)) = open.as_mut() {
                body.push(line);
            }
        }
        if let Some((at, ..)) = open {
            return Err(format!("{name}:{at}: this EXERCISE region is never closed"));
        }
    }
    Ok(out)
}

/// Decodes the character references mdBook and its markdown renderer write.
fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ if name.starts_with("#x") || name.starts_with("#X") => {
                    u32::from_str_radix(&name[2..], 16)
                        .ok()
                        .and_then(char::from_u32)
                }
                _ if name.starts_with('#') => name[1..].parse().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of an HTML page that a reader sees without opening anything: tags, comments,
/// scripts and styles removed, and everything inside `<details>` elements (nested ones
/// included) left out. Tags are replaced by nothing, so text split over several elements
/// (syntax highlighting) reads as one.
fn open_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < html.len() {
        let Some(off) = html[i..].find('<') else {
            if depth == 0 {
                out.push_str(&html[i..]);
            }
            break;
        };
        if depth == 0 {
            out.push_str(&html[i..i + off]);
        }
        let start = i + off;
        let rest = &lower[start..];
        // Elements whose content is not text: skip to their end.
        let skip_to = if rest.starts_with("<!--") {
            Some("-->")
        } else if rest.starts_with("<script") {
            Some("</script>")
        } else if rest.starts_with("<style") {
            Some("</style>")
        } else {
            None
        };
        if let Some(end) = skip_to {
            i = match lower[start..].find(end) {
                Some(e) => start + e + end.len(),
                None => html.len(),
            };
            continue;
        }
        let end = match html[start..].find('>') {
            Some(e) => start + e + 1,
            None => html.len(),
        };
        let tag = &lower[start..end];
        let is = |name: &str| {
            tag.strip_prefix(name)
                .is_some_and(|r| r.starts_with(|c: char| c == '>' || c == '/' || c.is_whitespace()))
        };
        if is("<details") {
            depth += 1;
        } else if is("</details") {
            depth = depth.saturating_sub(1);
        }
        i = end;
    }
    decode_entities(&out)
}

/// Every HTML file under `dir`.
fn html_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            html_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    Ok(())
}

/// Checks a built book: no EXERCISE region of `solutions` may appear, normalised, in the
/// open text of any HTML page under `book`. Returns one line per region and page that
/// breaks the rule.
fn check_book(book: &Path, solutions: &Path) -> Result<(), Vec<String>> {
    let regions = regions(solutions).map_err(|e| vec![e])?;
    if regions.is_empty() {
        return Err(vec![format!(
            "{}: no EXERCISE region found",
            solutions.display()
        )]);
    }
    let mut pages = Vec::new();
    html_files(book, &mut pages).map_err(|e| vec![e])?;
    pages.sort();
    if pages.is_empty() {
        return Err(vec![format!("{}: no HTML page found", book.display())]);
    }
    let mut problems = Vec::new();
    for page in &pages {
        let html =
            std::fs::read_to_string(page).map_err(|e| vec![format!("{}: {e}", page.display())])?;
        let text = normalise(&open_text(&html));
        for r in &regions {
            if text.contains(&r.body) {
                problems.push(format!(
                    "{}: shows the answer of {} ({}) outside a <details> element",
                    page.strip_prefix(book).unwrap_or(page).display(),
                    r.label,
                    r.place
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[cfg(feature = "course-checks")]
#[test]
#[ignore = "needs the built book: run `mdbook build book` first (.ci/run does)"]
fn the_built_book_shows_no_answer_in_the_open() {
    let book = root().join("book").join("book");
    if !book.is_dir() {
        eprintln!(
            "{} is not there: build the book with `mdbook build book`, then run this test again",
            book.display()
        );
        return;
    }
    if let Err(problems) = check_book(&book, &root().join("solutions")) {
        panic!(
            "the book shows exercise answers in the open; put them inside \
             <details><summary>Show the reference answer</summary> … </details>:\n{}",
            problems.join("\n")
        );
    }
}

#[cfg(feature = "course-checks")]
#[test]
#[ignore = "needs the built book and Chromium: run `mdbook build book` first (.ci/run does)"]
fn every_page_of_the_built_book_fits_1280_px_without_sideways_scrolling() {
    let book = root().join("book").join("book");
    assert!(
        book.join("index.html").is_file(),
        "{} is not built: run `mdbook build book`, then this test again",
        book.display()
    );
    let chromium = page_layout::chromium().expect(
        "no Chromium found: install it (`apt-get install chromium`) or set $CHROMIUM to one",
    );
    let script = std::fs::read_to_string(root().join("tests/book/layout.js")).unwrap();
    let mut pages = Vec::new();
    html_files(&book, &mut pages).unwrap();
    pages.sort();
    // print.html repeats every chapter; toc.html is the sidebar alone.
    pages.retain(|p| !p.ends_with("print.html") && !p.ends_with("toc.html"));
    assert!(
        pages.len() > 10,
        "only {} pages in {}",
        pages.len(),
        book.display()
    );
    let tmp = scratch("book-layout");
    let mut problems = Vec::new();
    for page in &pages {
        let name = page
            .strip_prefix(&book)
            .unwrap_or(page)
            .display()
            .to_string();
        match page_layout::check_page(&chromium, page, &tmp.dir, &script) {
            Ok(found) => problems.extend(found.into_iter().map(|p| format!("{name}: {p}"))),
            Err(e) => problems.push(e),
        }
    }
    assert!(
        problems.is_empty(),
        "at {} px, {} element(s) of the book would need sideways scrolling or did not render; \
         wrap the line, narrow the table, or move the text into prose:\n{}",
        page_layout::WIDTH,
        problems.len(),
        problems.join("\n")
    );
}

/// A scratch folder for one test, emptied first.
fn scratch(name: &str) -> lab::harness::child::Scratch {
    lab::harness::child::Scratch::new(name).unwrap()
}

fn escape(code: &str) -> String {
    code.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A page as mdBook writes one, with the given body.
fn page(body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><title>05</title><script>var x = 1 < 2;</script></head>\n\
         <body><main>\n<h1>05 · Local-memory tiling</h1>\n{body}\n</main></body></html>\n"
    )
}

const SOLUTION: &str = "\
__kernel void matmul(__global float* C) {
    // ANCHOR: store
    // EXERCISE(99.1) BEGIN: store the result
    // the answer, with <, > and & in it
    C[row * N + col] = acc > 0.0f && ok ? acc : 0.0f;
    // EXERCISE END
    // ANCHOR_END: store
}
";

#[test]
fn the_check_fails_on_an_open_answer_and_passes_on_a_collapsed_one() {
    let tmp = scratch("book-check");
    let dir = tmp.dir.clone();
    let solutions = dir.join("solutions");
    std::fs::create_dir_all(&solutions).unwrap();
    std::fs::write(solutions.join("99_example.cl"), SOLUTION).unwrap();
    // The region as mdBook shows it after `{{#include ...:store}}`: anchor lines dropped,
    // the code escaped, and split into spans as a syntax highlighter would.
    let shown: String = SOLUTION
        .lines()
        .filter(|l| !l.contains("ANCHOR"))
        .skip(1)
        .take(4)
        .map(|l| format!("{}\n", escape(l)))
        .collect();
    let shown = shown.replacen("acc", "<span class=\"hljs-built_in\">acc</span>", 1);
    let code = format!("<pre><code class=\"language-c\">{shown}</code></pre>");

    let open = dir.join("open");
    std::fs::create_dir_all(&open).unwrap();
    std::fs::write(
        open.join("05_local_tiling.html"),
        page(&format!("<p>The answer:</p>\n{code}")),
    )
    .unwrap();
    let problems = check_book(&open, &solutions).expect_err("an open answer must fail");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("05_local_tiling.html") && problems[0].contains("EXERCISE(99.1)"),
        "{problems:?}"
    );

    let collapsed = dir.join("collapsed");
    std::fs::create_dir_all(&collapsed).unwrap();
    std::fs::write(
        collapsed.join("05_local_tiling.html"),
        page(&format!(
            "<details>\n<summary>Hint 1</summary>\n<p>Store it.</p>\n\
             <details>\n<summary>Hint 2</summary>\n<p>Guard it.</p>\n</details>\n</details>\n\
             <details>\n<summary>Show the reference answer</summary>\n{code}\n</details>\n\
             <p>After the answer.</p>"
        )),
    )
    .unwrap();
    assert_eq!(check_book(&collapsed, &solutions), Ok(()));

    // Only what is inside the <details> is hidden: the same code after it is open again.
    std::fs::write(
        collapsed.join("05_local_tiling.html"),
        page(&format!(
            "<details><summary>Hint</summary><p>Store it.</p></details>\n{code}"
        )),
    )
    .unwrap();
    assert!(check_book(&collapsed, &solutions).is_err());
}

#[test]
fn every_solution_has_exercise_regions_to_check() {
    let found = regions(&root().join("solutions")).unwrap();
    for lesson in [
        "01_cpu_naive.rs",
        "04_naive_kernel.cl",
        "05_local_tiling.cl",
        "10_tuned.cl",
    ] {
        assert!(
            found.iter().any(|r| r.place.contains(lesson)),
            "no EXERCISE region found in solutions/{lesson}"
        );
    }
}
