//! Keeps the exercises' answers out of sight in the built book: the body of every EXERCISE
//! region of the files in solutions/ may appear in the book's HTML only inside a
//! `<details>` element, which the reader has to open.
//!
//! Also keeps its formulas rendered: none in the sources is delimited with one backslash
//! (`\(`, which Markdown reduces to a bare parenthesis), and no `\times`, `^{` or `\(` is
//! left in a built page's text outside code and formulas.
//!
//! The checks of the real built book need it built first, so they are ignored by a plain
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

/// Places in a chapter's Markdown where a formula is delimited with one backslash (`\(`,
/// `\)`, `\[`, `\]`) outside code: Markdown takes that backslash as an escape, and MathJax
/// then finds no delimiter and the reader sees `(12 \times 32)`. mdBook with MathJax wants
/// two: `\\(12 \times 32\\)`. One line per place, as `name:line: …`.
fn single_backslash_math(name: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        for f in ["```", "~~~"] {
            if t.starts_with(f) {
                fence = match fence {
                    Some(open) if open == f => None,
                    None => Some(f),
                    other => other,
                };
            }
        }
        if fence.is_some() || t.starts_with("```") || t.starts_with("~~~") {
            continue;
        }
        // Outside inline code spans: the even pieces between backticks.
        for piece in line.split('`').step_by(2) {
            let b = piece.as_bytes();
            for i in 0..b.len().saturating_sub(1) {
                let escaped = i > 0 && b[i - 1] == b'\\';
                let next_is_slash = b[i + 1] == b'\\';
                if b[i] == b'\\' && !escaped && !next_is_slash && b"()[]".contains(&b[i + 1]) {
                    out.push(format!(
                        "{name}:{}: `\\{}` with one backslash: write `\\\\{}`",
                        n + 1,
                        b[i + 1] as char,
                        b[i + 1] as char
                    ));
                }
            }
        }
    }
    out
}

/// The text of a built page outside code (`<pre>`, `<code>`), scripts, styles and comments,
/// `<details>` included, with every formula MathJax will typeset (`\(…\)`, `\[…\]`,
/// `$$…$$`) taken out: what is left of TeX there is math the reader sees raw.
fn text_outside_code_and_math(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut text = String::new();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        text.push_str(&html[i..i + off]);
        let start = i + off;
        let rest = &lower[start..];
        let skip_to = [
            ("<!--", "-->"),
            ("<script", "</script>"),
            ("<style", "</style>"),
            ("<pre", "</pre>"),
            ("<code", "</code>"),
        ]
        .iter()
        .find(|(open, _)| rest.starts_with(open))
        .map(|(_, close)| *close);
        i = match skip_to {
            Some(close) => lower[start..]
                .find(close)
                .map_or(html.len(), |e| start + e + close.len()),
            None => html[start..]
                .find('>')
                .map_or(html.len(), |e| start + e + 1),
        };
    }
    if i < html.len() && !html[i..].contains('<') {
        text.push_str(&html[i..]);
    }
    let text = decode_entities(&text);
    let mut out = String::new();
    let mut rest = text.as_str();
    loop {
        let next = [("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")]
            .iter()
            .filter_map(|(o, c)| rest.find(o).map(|at| (at, *o, *c)))
            .min_by_key(|(at, ..)| *at);
        let Some((at, open, close)) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..at]);
        match rest[at + open.len()..].find(close) {
            Some(end) => rest = &rest[at + open.len() + end + close.len()..],
            None => {
                // An opening with no close: left in, so that the check names it.
                out.push_str(open);
                rest = &rest[at + open.len()..];
            }
        }
    }
    out
}

/// TeX a reader must never see: what a formula that lost its delimiters leaves in the text.
const RAW_TEX: [&str; 5] = ["\\times", "^{", "\\(", "\\cdot", "\\text"];

/// Every piece of raw TeX in a built page's text outside code and formulas, one line each.
fn raw_math(name: &str, html: &str) -> Vec<String> {
    let text = text_outside_code_and_math(html);
    let mut out = Vec::new();
    for tex in RAW_TEX {
        for (at, _) in text.match_indices(tex) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(30)
                .map_or(0, |(i, _)| i);
            let to = text[at..]
                .char_indices()
                .nth(30)
                .map_or(text.len(), |(i, _)| at + i);
            out.push(format!(
                "{name}: `{tex}` shown raw in \"{}\"",
                text[from..to]
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    out
}

#[test]
fn no_formula_in_the_book_s_sources_has_a_single_backslash() {
    let mut problems = Vec::new();
    let mut pages = 0;
    let src = root().join("book").join("src");
    let mut files = Vec::new();
    for dir in [src.clone(), src.join("generated")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in &files {
        pages += 1;
        let name = p.strip_prefix(root()).unwrap_or(p).display().to_string();
        problems.extend(single_backslash_math(
            &name,
            &std::fs::read_to_string(p).unwrap(),
        ));
    }
    assert!(pages > 10, "only {pages} pages in {}", src.display());
    assert!(
        problems.is_empty(),
        "formulas that Markdown will strip of their delimiters (they render as \"(12 \\times 32)\"):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_math_checks_catch_a_formula_with_one_backslash() {
    let source = "A \\\\(12 \\times 32\\\\) tile.\nA \\(6 \\times 16\\) one.\n\
                  `\\(code\\)` and\n```text\n\\(fenced\\)\n```\nand \\\\[x^{2}\\\\].\n";
    let found = single_backslash_math("p.md", source);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("p.md:2: `\\(`"), "{found:?}");
    assert!(found[1].starts_with("p.md:2: `\\)`"), "{found:?}");

    // What mdBook makes of the two lines: the first keeps its delimiters, the second does not.
    let html = page(
        "<p>A \\(12 \\times 32\\) tile. A (6 \\times 16) one.</p>\n\
         <pre><code>x^{2} \\times</code></pre><p><code>a^{b}</code> and \\[x^{2}\\] \
         and $$y^{3}$$.</p><details><summary>Hint</summary><p>2^{10} here</p></details>",
    );
    let found = raw_math("p.html", &html);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("`\\times`") && found[0].contains("(6 \\times 16)"),
        "{found:?}"
    );
    assert!(
        found[1].contains("`^{`") && found[1].contains("2^{10}"),
        "{found:?}"
    );
    assert_eq!(
        raw_math("p.html", &page("<p>Only \\(x^{2}\\).</p>")),
        Vec::<String>::new()
    );
}

#[cfg(feature = "course-checks")]
#[test]
#[ignore = "needs the built book: run `mdbook build book` first (.ci/run does)"]
fn the_built_book_shows_no_raw_math() {
    let book = built_book();
    let mut pages = Vec::new();
    html_files(&book, &mut pages).unwrap();
    pages.sort();
    let mut problems = Vec::new();
    for page in &pages {
        let name = page
            .strip_prefix(&book)
            .unwrap_or(page)
            .display()
            .to_string();
        problems.extend(raw_math(&name, &std::fs::read_to_string(page).unwrap()));
    }
    assert!(
        problems.is_empty(),
        "math shown raw in the built book (a formula whose delimiters Markdown removed: \
         write `\\\\(` and `\\\\)` in the source):\n{}",
        problems.join("\n")
    );
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built book's folder, which the tests of the rendered pages need.
#[cfg(feature = "course-checks")]
fn built_book() -> PathBuf {
    let book = root().join("book").join("book");
    assert!(
        book.join("index.html").is_file(),
        "{} is not built: run `mdbook build book`, then this test again",
        book.display()
    );
    book
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
    let book = built_book();
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

#[test]
fn the_introduction_lists_every_rung_of_the_ladder() {
    let intro = std::fs::read_to_string(root().join("book/src/introduction.md")).unwrap();
    let missing: Vec<String> = lab::ladder::ALL
        .iter()
        .filter(|l| {
            !intro
                .lines()
                .any(|line| line.starts_with(&format!("| {} |", l.key)))
        })
        .map(|l| format!("{} {}", l.key, l.title))
        .collect();
    assert!(
        missing.is_empty(),
        "book/src/introduction.md's ladder has no row for: {}",
        missing.join(", ")
    );
}
