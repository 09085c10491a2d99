//! Renders every page of the built book in headless Chromium at 1280 px and reports each code
//! block, table or displayed formula wider than the text column (the reader would have to
//! scroll it sideways), each formula MathJax could not render, and a page whose math was not
//! rendered at all. Offline: the page is a copy of the built one with a `<base>` pointing
//! back at the book, plus the measuring script `tests/book/layout.js`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The window the book is checked at: a laptop's, with the sidebar open.
pub const WIDTH: u32 = 1280;

/// The Chromium to run: `$CHROMIUM`, else the first of the usual names on the `PATH`.
pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
    .find(|p| p.is_file())
}

/// Renders one page and returns the lines of its layout report (empty when it fits).
pub fn check_page(
    chromium: &Path,
    page: &Path,
    scratch: &Path,
    script: &str,
) -> Result<Vec<String>, String> {
    let html = std::fs::read_to_string(page).map_err(|e| format!("{}: {e}", page.display()))?;
    let dir = page.parent().unwrap_or(Path::new("."));
    let base = format!("<base href=\"file://{}/\">", dir.display());
    let head = html
        .find("<head>")
        .map(|at| at + "<head>".len())
        .ok_or_else(|| format!("{}: no <head>", page.display()))?;
    let end = html
        .rfind("</body>")
        .ok_or_else(|| format!("{}: no </body>", page.display()))?;
    let copy = format!(
        "{}\n{base}\n{}<script>\n{script}\n</script>\n{}",
        &html[..head],
        &html[head..end],
        &html[end..]
    );
    let name = page.file_name().unwrap_or_default().to_string_lossy();
    let file = scratch.join(format!("layout-{name}"));
    std::fs::write(&file, copy).map_err(|e| format!("{}: {e}", file.display()))?;
    let profile = scratch.join("profile");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            &format!("--window-size={WIDTH},900"),
            "--virtual-time-budget=20000",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
        ])
        .arg(format!("file://{}", file.display()))
        .output()
        .map_err(|e| format!("running {}: {e}", chromium.display()))?;
    let dom = String::from_utf8_lossy(&out.stdout);
    let report = dom
        .rfind("<pre id=\"layout-report\">")
        .map(|at| &dom[at + "<pre id=\"layout-report\">".len()..])
        .and_then(|rest| rest.find("\nEND").map(|end| &rest[..end]))
        .ok_or_else(|| {
            format!(
                "{}: Chromium gave no layout report (exit {:?}): {}",
                page.display(),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .rev()
                    .take(5)
                    .collect::<Vec<_>>()
                    .join(" | ")
            )
        })?;
    let mut lines = report.lines();
    let width = lines.next().unwrap_or_default();
    if width != format!("LAYOUT-REPORT {WIDTH}") {
        return Err(format!("{}: rendered as {width}", page.display()));
    }
    let mut problems: Vec<String> = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let l = super::decode_entities(l);
            let f: Vec<&str> = l.split('\t').collect();
            match f.as_slice() {
                ["OVERFLOW", kind, wide, room, text] => {
                    format!("{kind} {wide} px wide in {room} px: \"{text}\"")
                }
                _ => f.join(": "),
            }
        })
        .collect();
    // Math written in the page must come out rendered: no raw `\(` left in the open text.
    let has_math = html.contains("\\(") || html.contains("\\[") || html.contains("$$");
    if has_math && !dom.contains("<mjx-container") {
        problems.push("its math was not rendered (no MathJax output)".into());
    }
    Ok(problems)
}
