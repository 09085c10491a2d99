//! The course's shape, checked: every lesson has its five files under one name and nothing
//! belongs to no lesson (the declaration check, proven on trees built to break it), and each
//! package's layers import only downwards, the teacher's and the bench's reaching the course
//! only through its library's public API.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lab::harness::child::Scratch;
use lab::harness::paths::Course;
use lab::ladder::ALL;
use lab::layout;

fn root() -> PathBuf {
    Course::from_env().root().to_path_buf()
}

#[test]
fn the_repository_matches_the_ladder() {
    let problems = layout::check(&root(), ALL);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// A copy of the parts of the repository the check reads.
fn copy_tree(to: &Path) {
    let from = root();
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("Cargo.toml"), to.join("Cargo.toml")).unwrap();
    for dir in [
        "lessons",
        "kernels",
        "solutions",
        "tests",
        "tests/suite",
        "book/src",
        "src/programs",
    ] {
        std::fs::create_dir_all(to.join(dir)).unwrap();
        for e in std::fs::read_dir(from.join(dir)).unwrap() {
            let e = e.unwrap();
            let target = to.join(dir).join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(target).unwrap();
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
}

fn temp(name: &str) -> Scratch {
    Scratch::new(&format!("layout-{name}")).unwrap()
}

#[test]
fn a_missing_file_is_caught() {
    let tmp = temp("missing");
    let t = tmp.dir.clone();
    copy_tree(&t);
    assert!(layout::check(&t, ALL).is_empty());
    std::fs::remove_file(t.join("kernels/05_local_tiling.cl")).unwrap();
    std::fs::remove_file(t.join("tests/03_cpu_parallel.rs")).unwrap();
    std::fs::remove_file(t.join("book/src/07_vectorization.md")).unwrap();
    std::fs::remove_file(t.join("lessons/06_register_tiling.rs")).unwrap();
    std::fs::remove_file(t.join("src/programs/04_naive_kernel.rs")).unwrap();
    std::fs::remove_file(t.join("tests/00-your-kernels.rs")).unwrap();
    std::fs::remove_file(t.join("tests/suite/lessons.rs")).unwrap();
    std::fs::write(t.join("tests/05_local_tiling.rs"), "mod common;\n").unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    for piece in [
        "tests/suite/lessons.rs (the graders' suite's list of every graded lesson's cases) is missing",
        "lesson 05: its grader tests/05_local_tiling.rs declares no `pub mod cases`",
        "lesson 06: its declaration lessons/06_register_tiling.rs is missing",
        "src/programs/04_naive_kernel.rs (the lesson's program) is missing: run `cargo run -- layout --write`",
        "tests/00-your-kernels.rs (every lesson's test of the student's own file) is missing",
    ] {
        assert!(problems.contains(piece), "{piece} not reported:\n{problems}");
    }
    assert!(
        problems.contains("kernels/05_local_tiling.cl is missing"),
        "{problems}"
    );
    assert!(
        problems.contains("tests/03_cpu_parallel.rs is missing"),
        "{problems}"
    );
    assert!(
        problems.contains("book/src/07_vectorization.md is missing"),
        "{problems}"
    );
}

#[test]
fn a_file_of_no_lesson_is_caught() {
    let tmp = temp("extra");
    let t = tmp.dir.clone();
    copy_tree(&t);
    std::fs::write(t.join("kernels/11_warp_tiling.cl"), "").unwrap();
    std::fs::write(t.join("solutions/05_local_tilling.cl"), "").unwrap();
    std::fs::write(t.join("tests/12_extra.rs"), "").unwrap();
    std::fs::write(t.join("lessons/13_more.rs"), "").unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    for f in [
        "kernels/11_warp_tiling.cl",
        "solutions/05_local_tilling.cl",
        "tests/12_extra.rs",
        "lessons/13_more.rs",
    ] {
        assert!(problems.contains(f), "{f} not reported:\n{problems}");
    }
}

#[test]
fn a_program_without_its_cargo_entry_is_caught() {
    let tmp = temp("cargo");
    let t = tmp.dir.clone();
    copy_tree(&t);
    let toml = std::fs::read_to_string(t.join("Cargo.toml")).unwrap();
    let cut = toml.replace(
        "[[bin]]\nname = \"06_register_tiling\"\npath = \"src/programs/06_register_tiling.rs\"\ntest = false\n",
        "",
    );
    assert_ne!(toml, cut, "the entry to cut was not found");
    std::fs::write(t.join("Cargo.toml"), cut).unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    assert!(
        problems.contains("no [[bin]] named 06_register_tiling"),
        "{problems}"
    );
    assert!(
        problems.contains("Cargo.toml does not match the ladder")
            && problems.contains("run `cargo run -- layout --write`"),
        "{problems}"
    );
    // The command it names puts it right, byte for byte.
    assert_eq!(layout::write(&t, ALL).unwrap(), ["Cargo.toml"]);
    assert!(layout::check(&t, ALL).is_empty());
    assert_eq!(std::fs::read_to_string(t.join("Cargo.toml")).unwrap(), toml);
}

/// Where a tools file's code (comments and unit tests aside) names a lesson: a key as a
/// string (`"05"`), "lesson 05" in a message, a lesson's name or module.
fn lesson_mentions(text: &str) -> Vec<String> {
    let code = code(text);
    let lower = code.to_lowercase();
    let mut found = Vec::new();
    for l in ALL {
        let name = l.name();
        for needle in [
            format!("\"{}\"", l.key),
            format!("lesson {} ", l.key),
            format!("lesson {}'", l.key),
            format!("lesson {}\"", l.key),
            format!("lesson {}:", l.key),
            format!("lesson {},", l.key),
            format!("lesson {}.", l.key),
            name.clone(),
        ] {
            if lower.contains(&needle) {
                found.push(needle);
            }
        }
    }
    found
}

#[test]
fn the_tools_name_no_lesson() {
    let mut problems = Vec::new();
    for f in rust_files(&root().join("crates/bench/src/tools")) {
        let text = std::fs::read_to_string(&f).unwrap();
        for m in lesson_mentions(&text) {
            problems.push(format!(
                "{} names a lesson ({m}): read it from the lesson's declaration instead",
                f.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    // The check sees a lesson where one is named.
    assert_eq!(lesson_mentions("if l.key == \"10\" {"), ["\"10\""]);
    assert!(!lesson_mentions("let x = \"Lesson 03b: slow\";").is_empty());
    assert!(!lesson_mentions("use crate::ladder::l05_local_tiling;").is_empty());
    assert!(lesson_mentions("// lesson 10\nlet n = 10;").is_empty());
}

/// The floors of the course, lowest first: a module imports only from its own floor and
/// those below it. `bin` is the programs (src/main.rs, src/programs/).
const FLOORS: &[&[&str]] = &[
    &["harness"],
    &["lesson"],
    &["prepared"],
    &["grade"],
    &["report", "measure", "progress", "tuner"],
    &["ladder"],
    &["cli"],
    &["run"],
    &["scoreboard"],
    &["program", "compat", "layout", "watch", "testing", "bin"],
];

/// A package of the workspace: its folder, the folders of its sources (from the
/// repository's root), the names its code calls itself by, and its floors, lowest first.
/// Every package builds on the course's library (`lab`) and on nothing else of the
/// workspace: its files name no other package.
struct Package {
    name: &'static str,
    dir: &'static str,
    sources: &'static [&'static str],
    own: &'static [&'static str],
    floors: &'static [&'static [&'static str]],
}

const COURSE: Package = Package {
    name: "gemm-lab",
    dir: "",
    sources: &["src", "lessons"],
    own: &["crate", "lab"],
    floors: FLOORS,
};

const PACKAGES: &[Package] = &[
    COURSE,
    Package {
        name: "lab-teacher",
        dir: "crates/teacher",
        sources: &["crates/teacher/src"],
        own: &["crate", "lab_teacher"],
        floors: &[&["class"], &["autograde", "bin"]],
    },
    Package {
        name: "lab-bench",
        dir: "crates/bench",
        sources: &["crates/bench/src", "crates/bench/benches"],
        own: &["crate", "lab_bench"],
        floors: &[&["peers"], &["tools", "bin"]],
    },
];

/// The names by which code reaches a package of the workspace as a crate.
const CRATE_NAMES: &[&str] = &["lab", "lab_teacher", "lab_bench"];

fn floor(module: &str) -> Option<usize> {
    floor_in(FLOORS, module)
}

fn floor_in(floors: &[&[&str]], module: &str) -> Option<usize> {
    floors.iter().position(|f| f.contains(&module))
}

/// A file's code: comments and unit-test modules (`#[cfg(test)] mod ... { ... }`) left out,
/// so that the check reads what the library itself depends on.
fn code(text: &str) -> String {
    let text: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        // The item the attribute is on, up to its matching closing brace, or to its `;`
        // where it has no body (`mod tests;`, read from a file of its own).
        let Some(open) = after.find('{') else {
            rest = "";
            break;
        };
        if let Some(semi) = after.find(';').filter(|&s| s < open) {
            rest = &after[semi + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = after.len();
        for (j, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The module a source file is, as a path from the crate's root (lessons are modules of
/// `ladder`), or `bin` for a program's root (a benchmark's included). `root` is the
/// package's folder.
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs").to_string();
    let first = parts.remove(0);
    if first == "lessons" {
        // lessons/05_local_tiling.rs is `ladder::l05_local_tiling`; a helper beside it,
        // lessons/09_texture_zero_copy/texture.rs, `ladder::l09_texture_zero_copy::texture`.
        return match parts.first() {
            None => vec!["ladder".to_string(), format!("l{stem}")],
            Some(lesson) => vec!["ladder".to_string(), format!("l{lesson}"), stem],
        };
    }
    if first == "benches"
        || (parts.is_empty() && stem == "main")
        || parts.first().is_some_and(|p| p == "programs")
    {
        return vec!["bin".to_string()];
    }
    if stem != "mod" && stem != "lib" {
        parts.push(stem);
    }
    parts
}

/// The leaves of a `use` tree (`a::{b as c, d::{self, e}}`), each as its path and the name it
/// is given (`None`: its own).
fn use_leaves(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    let tree = tree.trim();
    let tree = tree.strip_prefix("::").unwrap_or(tree);
    let Some(open) = tree.find('{') else {
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p, Some(a.trim().to_string())),
            None => (tree, None),
        };
        let path = path
            .split("::")
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect();
        return vec![(path, alias)];
    };
    let head: Vec<String> = tree[..open]
        .split("::")
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect();
    let inner = tree[open + 1..]
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let (mut depth, mut item, mut out) = (0usize, String::new(), Vec::new());
    let flush = |item: &mut String, out: &mut Vec<(Vec<String>, Option<String>)>| {
        for (mut p, a) in use_leaves(item) {
            if p.first().is_some_and(|x| x == "self") {
                p.remove(0);
            }
            let mut full = head.clone();
            full.extend(p);
            out.push((full, a));
        }
        item.clear();
    };
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                flush(&mut item, &mut out);
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    if !item.trim().is_empty() {
        flush(&mut item, &mut out);
    }
    out
}

/// The names a file's code gives to modules of the crate, or to the crate itself: `use lab as
/// l;`, `extern crate lab as l;`, `use crate::{self as c};`, `use super::super as up;`. A path
/// through such a name is as much an import as one spelt out.
fn aliases_of(text: &str, module: &[String], own: &[&str]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (keyword, i) in ["use ", "extern crate "]
        .iter()
        .flat_map(|k| text.match_indices(k).map(move |(i, _)| (*k, i)))
    {
        if text[..i].chars().next_back().is_some_and(word) {
            continue;
        }
        let rest = &text[i + keyword.len()..];
        let Some(end) = rest.find(';') else { continue };
        for (path, alias) in use_leaves(&rest[..end]) {
            let Some(alias) = alias.filter(|a| a != "_" && a.chars().all(word)) else {
                continue;
            };
            let mut base: Vec<String> = Vec::new();
            let mut parts = path.iter().peekable();
            match parts.next().map(String::as_str) {
                Some(name) if own.contains(&name) => {}
                Some("self") => base = module.to_vec(),
                Some("super") => {
                    base = module[..module.len().saturating_sub(1)].to_vec();
                }
                _ => continue,
            }
            for p in parts {
                if p == "super" {
                    base.pop();
                } else {
                    base.push(p.clone());
                }
            }
            out.push((alias, base));
        }
    }
    out
}

/// The crate paths a file's code names: `crate::a::b`, `lab::a::b`, `super::x` (from the
/// file's module), and paths through a name given to the crate or one of its modules
/// ([`aliases_of`]), with `{a, b::c}` groups opened, one level deep.
fn imports_of(text: &str, module: &[String]) -> Vec<Vec<String>> {
    imports_in(text, module, COURSE.own)
}

/// [`imports_of`] for a package whose code calls itself by the names `own`.
fn imports_in(text: &str, module: &[String], own: &[&str]) -> Vec<Vec<String>> {
    let text = code(text);
    let mut out = Vec::new();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut prefixes: Vec<(String, Vec<String>)> = own
        .iter()
        .map(|name| (format!("{name}::"), Vec::new()))
        .collect();
    prefixes.push((
        "super::".to_string(),
        module[..module.len().saturating_sub(1)].to_vec(),
    ));
    for (alias, base) in aliases_of(&text, module, own) {
        if !base.is_empty() {
            out.push(base.clone());
        }
        prefixes.push((format!("{alias}::"), base));
    }
    for (prefix, base) in &prefixes {
        for (i, _) in text.match_indices(prefix.as_str()) {
            if text[..i].chars().next_back().is_some_and(word) {
                continue;
            }
            let mut base = base.clone();
            let mut rest = &text[i + prefix.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            // The path up to its end, then an `{a, b::c}` group if one follows.
            let head: String = rest.chars().take_while(|c| word(*c) || *c == ':').collect();
            // The group's items, split at its own commas (not those of a group inside it).
            let mut items = Vec::new();
            if let Some(g) = rest[head.len()..].strip_prefix('{') {
                let (mut depth, mut item) = (0usize, String::new());
                for c in g.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => items.push(std::mem::take(&mut item)),
                        _ => {}
                    }
                    if depth > 0 || (c != ',' && c != '{') {
                        item.push(c);
                    }
                }
                items.push(item);
            }
            let head: Vec<String> = head
                .split("::")
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            let mut path = base.clone();
            for part in head {
                // `super::super as up` names the grandparent.
                if part == "super" {
                    path.pop();
                } else {
                    path.push(part);
                }
            }
            if items.is_empty() {
                out.push(path);
            } else {
                for item in &items {
                    // `a::b as c` names a::b; `a::{b, c}` (a group in the group) names a.
                    let item = item
                        .split(|c: char| c == '{' || c.is_whitespace())
                        .find(|x| !x.is_empty())
                        .unwrap_or("");
                    let mut p = path.clone();
                    p.extend(
                        item.split("::")
                            .map(|x| x.trim().to_string())
                            .filter(|x| !x.is_empty() && x != "self" && x.chars().all(word)),
                    );
                    out.push(p);
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|p| !p.is_empty() && seen.insert(p.clone()));
    out
}

/// Every module a package has, and each file's module and what it imports of the package,
/// resolved to the longest known module.
fn import_graph(package: &Package) -> Vec<(PathBuf, Vec<String>, Vec<Vec<String>>)> {
    let root = root();
    let dir = root.join(package.dir);
    let files: Vec<PathBuf> = package
        .sources
        .iter()
        .flat_map(|s| rust_files(&root.join(s)))
        .collect();
    let tests: BTreeSet<PathBuf> = files.iter().flat_map(|f| test_files(f)).collect();
    let files = files.into_iter().filter(|f| !tests.contains(f));
    let modules: Vec<(PathBuf, Vec<String>)> = files
        .into_iter()
        .map(|f| {
            let m = module_of(&dir, &f);
            (f, m)
        })
        .collect();
    let known: BTreeSet<Vec<String>> = modules.iter().map(|(_, m)| m.clone()).collect();
    let mut out = Vec::new();
    for (file, module) in &modules {
        if module.is_empty() {
            continue; // lib.rs: the list of modules
        }
        let text = std::fs::read_to_string(file).unwrap();
        let targets = imports_in(&text, module, package.own)
            .into_iter()
            .filter_map(|path| {
                (1..=path.len())
                    .rev()
                    .map(|n| path[..n].to_vec())
                    .find(|p| known.contains(p))
            })
            .collect();
        out.push((file.clone(), module.clone(), targets));
    }
    out
}

/// The files a source file reads as unit-test modules (`#[cfg(test)] mod tests;`, with or
/// without `#[path = "..."]`): test code, which may reach any floor, like an inline one.
fn test_files(file: &Path) -> Vec<PathBuf> {
    test_files_in(&std::fs::read_to_string(file).unwrap(), file)
}

fn test_files_in(text: &str, file: &Path) -> Vec<PathBuf> {
    let dir = file.parent().unwrap();
    let stem = file.file_stem().unwrap().to_string_lossy().to_string();
    // `mod x;` in a.rs is a/x.rs; in mod.rs, lib.rs or main.rs it is x.rs beside it.
    let own_dir = match stem.as_str() {
        "mod" | "lib" | "main" => dir.to_path_buf(),
        _ => dir.join(&stem),
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices("#[cfg(test)]") {
        let mut rest = text[i + "#[cfg(test)]".len()..].trim_start();
        let mut path = None;
        while let Some(attr) = rest.strip_prefix("#[") {
            let Some(end) = attr.find(']') else { break };
            let inner = &attr[..end];
            if let Some(p) = inner.strip_prefix("path").map(str::trim) {
                path = p
                    .strip_prefix('=')
                    .map(|q| q.trim().trim_matches('"').to_string());
            }
            rest = attr[end + 1..].trim_start();
        }
        let Some(decl) = rest.strip_prefix("mod ") else {
            continue;
        };
        let Some(name) = decl.split(';').next().filter(|n| !n.contains('{')) else {
            continue;
        };
        out.push(match path {
            Some(p) => dir.join(p),
            None => own_dir.join(format!("{}.rs", name.trim())),
        });
    }
    out
}

/// The cycles of a graph, each as its nodes in order (one per strongly connected set).
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let next = |n: &String| -> Vec<&String> {
        edges
            .iter()
            .filter(|(a, _)| a == n)
            .map(|(_, b)| b)
            .collect()
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    for start in nodes {
        // A path back to `start`, by breadth-first search.
        let mut seen: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        'search: while let Some(n) = queue.pop_front() {
            for m in next(n) {
                if m == start {
                    let mut path = vec![n.clone()];
                    let mut at = n;
                    while at != start {
                        at = seen[at];
                        path.push(at.clone());
                    }
                    path.reverse();
                    let mut key = path.clone();
                    key.sort();
                    if !found.iter().any(|c| {
                        let mut k = c.clone();
                        k.sort();
                        k == key
                    }) {
                        found.push(path);
                    }
                    break 'search;
                }
                if !seen.contains_key(m) {
                    seen.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
    }
    found
}

/// In every package, every file imports only from its own floor and below (the course's:
/// every file under src/ and lessons/; lessons name no front end), and no modules import
/// each other, directly or around a circle (at every level: the floors' modules, and the
/// files of one folder).
#[test]
fn the_floors_import_only_downwards_and_without_circles() {
    let mut problems = Vec::new();
    for package in PACKAGES {
        problems.extend(floor_problems(package));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn floor_problems(package: &Package) -> Vec<String> {
    let graph = import_graph(package);
    let mut problems = Vec::new();
    let mut edges = BTreeSet::new();
    for (file, module, targets) in &graph {
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        let Some(own) = floor_in(package.floors, &module[0]) else {
            problems.push(format!(
                "{name}: module {} is on no floor of {}",
                module[0], package.name
            ));
            continue;
        };
        for t in targets {
            match floor_in(package.floors, &t[0]) {
                None => problems.push(format!("{name}: imports {}, on no floor", t[0])),
                Some(f) if f > own => problems.push(format!(
                    "{name} ({}) imports {}, a floor above its own",
                    module[0],
                    t.join("::")
                )),
                _ => {}
            }
            // The edge between the two modules where their paths part: a module and its
            // own parent or child are one room.
            let common = module.iter().zip(t).take_while(|(a, b)| a == b).count();
            if common < module.len() && common < t.len() {
                edges.insert((module[..=common].join("::"), t[..=common].join("::")));
            }
        }
    }
    for c in cycles(&edges) {
        problems.push(format!(
            "a circle of imports in {}: {} → {}",
            package.name,
            c.join(" → "),
            c[0]
        ));
    }
    problems
}

/// A package reaches another only as the course's library, `lab`, through its public API (the
/// compiler keeps that public): it names no other package's crate, and includes no file of
/// another package's sources with `#[path]`.
#[test]
fn no_package_reaches_into_another() {
    let root = root();
    let mut problems = Vec::new();
    for package in PACKAGES {
        for file in package
            .sources
            .iter()
            .flat_map(|s| rust_files(&root.join(s)))
        {
            let name = file.strip_prefix(&root).unwrap().display().to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            for other in foreign_crates(&text, package) {
                problems.push(format!("{name} ({}) names the crate {other}", package.name));
            }
            for included in included_files(&text) {
                let target = paths_normalised(&file.parent().unwrap().join(&included));
                let owner = PACKAGES.iter().find(|p| {
                    p.sources
                        .iter()
                        .any(|s| target.starts_with(paths_normalised(&root.join(s))))
                });
                if let Some(owner) = owner.filter(|o| o.name != package.name) {
                    problems.push(format!(
                        "{name} ({}) includes {included}, a source of {}",
                        package.name, owner.name
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The workspace's crates a file's code names that are neither its own nor the course's
/// library (which only the course itself may not name as another).
fn foreign_crates(text: &str, package: &Package) -> Vec<&'static str> {
    let code = code(text);
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    CRATE_NAMES
        .iter()
        .copied()
        .filter(|c| !package.own.contains(c) && *c != "lab")
        .filter(|c| {
            code.match_indices(c).any(|(i, _)| {
                !code[..i].chars().next_back().is_some_and(word)
                    && !code[i + c.len()..].chars().next().is_some_and(word)
            })
        })
        .collect()
}

/// The files a source includes with `#[path = "..."]`, as written.
fn included_files(text: &str) -> Vec<String> {
    code(text)
        .split("#[path")
        .skip(1)
        .filter_map(|rest| rest.split('"').nth(1).map(str::to_string))
        .collect()
}

/// A path with its `..` and `.` resolved, without touching the file system.
fn paths_normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every .rs file under `dir`, in subfolders too.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_import_check_sees_imports_and_circles() {
    let m = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        imports_of("use crate::ladder::ALL;", &m("tools")),
        [m("ladder::ALL")]
    );
    assert_eq!(
        imports_of("use lab::{cli::Edge, grade};", &m("bin")),
        [m("cli::Edge"), m("grade")]
    );
    assert_eq!(
        imports_of("use super::simulate::{self, Look};", &m("grade::worker")),
        [m("grade::simulate"), m("grade::simulate::Look")]
    );
    assert_eq!(imports_of("use super::worker;", &m("grade")), [m("worker")]);
    assert!(imports_of("cpu_crate::run(x) // crate::ladder", &m("grade")).is_empty());
    assert!(imports_of(
        "fn a() {}\n#[cfg(test)]\nmod t { use crate::run; }",
        &m("grade")
    )
    .is_empty());
    assert_eq!(
        imports_of("use crate::tools as t;", &m("grade")),
        [m("tools")]
    );
    assert_eq!(
        imports_of("use lab::{cli as c, run::{a, b}};", &m("bin")),
        [m("cli"), m("run")]
    );
    // A name given to the crate, or to one of its modules, is followed.
    assert_eq!(
        imports_of("use lab as l;\nfn f() { l::cli::finish(x) }", &m("ladder")),
        [m("cli::finish")]
    );
    assert_eq!(
        imports_of("extern crate lab as l;\nuse l::{run::a, cli};", &m("grade")),
        [m("run::a"), m("cli")]
    );
    assert_eq!(
        imports_of(
            "use crate::{self as c, harness};\nc::tools::x();",
            &m("grade")
        ),
        [m("harness"), m("tools::x")]
    );
    assert_eq!(
        imports_of(
            "use super::super as up;\nup::run::go();",
            &m("grade::cpu::checks")
        ),
        [m("grade"), m("grade::run::go")]
    );
    assert!(imports_of("use std::io as l;\nl::stdout();", &m("grade")).is_empty());
    // Code after the tests is code.
    assert_eq!(
        imports_of(
            "#[cfg(test)]\nmod t { fn f() { if x { } } }\nuse crate::run;",
            &m("grade")
        ),
        [m("run")]
    );
    // A test module read from a file ends at its `;`: what follows is code.
    assert_eq!(
        imports_of(
            "#[cfg(test)]\n#[path = \"t.rs\"]\nmod t;\nuse crate::run;\nfn f() {}",
            &m("grade")
        ),
        [m("run")]
    );
    // Such a file is test code; a module of its own under the attribute is not.
    let f = Path::new("/p/src/grade/simulate.rs");
    assert_eq!(
        test_files_in("#[cfg(test)]\n#[path = \"s_tests.rs\"]\nmod tests;", f),
        [PathBuf::from("/p/src/grade/s_tests.rs")]
    );
    assert_eq!(
        test_files_in("#[cfg(test)]\nmod tests;", f),
        [PathBuf::from("/p/src/grade/simulate/tests.rs")]
    );
    assert!(test_files_in("#[cfg(test)]\nmod t { use crate::x; }\nmod real;", f).is_empty());
    let e = |pairs: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        cycles(&e(&[
            ("ladder", "cli"),
            ("cli", "run"),
            ("run", "ladder"),
            ("run", "grade")
        ]))
        .len(),
        1
    );
    assert!(cycles(&e(&[("cli", "grade"), ("run", "cli"), ("run", "grade")])).is_empty());
    // Another package's crate is seen where its code names it, and its sources where a
    // file includes one.
    let teacher = &PACKAGES[1];
    assert_eq!(
        foreign_crates("use lab_bench::tools;\nuse lab::cli;", teacher),
        ["lab_bench"]
    );
    assert!(foreign_crates("use lab_teacher::class; // lab_bench", teacher).is_empty());
    assert_eq!(
        foreign_crates("use lab_teacher::class;", &COURSE),
        ["lab_teacher"]
    );
    assert_eq!(
        included_files("#[path = \"../../../src/run.rs\"]\nmod run;"),
        ["../../../src/run.rs"]
    );
    assert_eq!(
        imports_in(
            "use crate::class;\nuse lab::cli;",
            &m("autograde"),
            teacher.own
        ),
        [m("class")]
    );
    assert_eq!(floor("harness"), Some(0));
    assert!(floor("run") > floor("ladder") && floor("cli") > floor("ladder"));
}
