//! The kernel's own macros expanded where they are used, on the lines they are used on, for
//! the simulator. Its compiler gives every instruction of a macro's expansion the place of
//! the macro's name where it is used, so the coverage of accesses (`super::coverage`) could
//! not tell apart two paths written in one use of a macro (`PICK(simulated, A[i], A[j])`):
//! one of them ran, so the place ran. Expanded here, each access has a column of its own.
//! The lines keep their numbers (an expansion that spans lines is followed by as many line
//! breaks), so that what the simulator reports is where it is in the student's file.
//!
//! Only what can be expanded exactly is: macros defined once, outside any `#if`, never
//! `#undef`d, without `#`, `##` or `...`, and used after their definition, outside
//! directives and strings. Anything else is left to the compiler's preprocessor, as it is
//! everywhere else.

use std::collections::HashMap;

use super::counts::Run;
use super::shift::{is_identifier, without_comments};

/// A macro the kernel defines: its parameters (`None`: object-like) and its body.
#[derive(Debug)]
struct Definition {
    params: Option<Vec<String>>,
    body: String,
    /// The index of its last line: uses are expanded after it.
    line: usize,
}

/// How deep macros may expand in one another before the text is left as it is.
const DEEPEST: usize = 32;

/// `text` with the macros it defines expanded where used (see the module); `text` itself
/// where nothing is, or where an expansion could not be made exactly.
pub(super) fn expanded(text: &str) -> String {
    let code = without_comments(text);
    let (defs, blocked) = definitions(&code);
    if defs.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(code.len() * 2);
    let lines: Vec<&str> = code.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        // A directive, continued lines and all, as it is.
        if lines[i].trim_start().starts_with('#') {
            loop {
                out.push_str(lines[i]);
                i += 1;
                if !lines[i - 1].trim_end().ends_with('\\') || i == lines.len() {
                    break;
                }
                out.push('\n');
            }
            if i < lines.len() {
                out.push('\n');
            }
            continue;
        }
        // The code up to the next directive, expanded as one piece (a use may span lines).
        let from = i;
        while i < lines.len() && !lines[i].trim_start().starts_with('#') {
            i += 1;
        }
        let piece = lines[from..i].join("\n");
        let visible: HashMap<&str, &Definition> = (defs.iter())
            .filter(|(_, d)| d.line < from)
            .map(|(n, d)| (n.as_str(), d))
            .collect();
        let macros = Macros {
            defs: &visible,
            blocked: &blocked,
        };
        // Lines kept, or nothing expanded: the reports' lines must be the file's.
        let done = expand(&piece, &macros, &[], 0)
            .filter(|d| d.matches('\n').count() == piece.matches('\n').count());
        let Some(done) = done else {
            return text.to_string();
        };
        out.push_str(&done);
        if i < lines.len() {
            out.push('\n');
        }
    }
    out
}

/// The text the simulator ran in `runs`, whose places and columns its reports give: `written`
/// with its macros expanded, or as written where no run could build that; `None` where some
/// runs built one and some the other.
pub(super) fn ran(written: &str, runs: &[anyhow::Result<Run>]) -> Option<String> {
    let built = |as_written: bool| {
        (runs.iter().flatten())
            .any(|r| r.probed.as_ref().is_some_and(|p| p.as_written) == as_written)
    };
    match (built(true), built(false)) {
        (true, true) => None,
        (true, false) => Some(written.to_string()),
        (false, _) => Some(expanded(written)),
    }
}

/// The macros of `code` (comments blanked) that can be expanded exactly, and the names of the
/// function-like ones that cannot.
fn definitions(code: &str) -> (HashMap<String, Definition>, Vec<String>) {
    let lines: Vec<&str> = code.split('\n').collect();
    let mut found: HashMap<String, Option<Definition>> = HashMap::new();
    let mut function_like: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let mut whole = lines[i].trim_end().to_string();
        while whole.ends_with('\\') && i + 1 < lines.len() {
            whole.pop();
            i += 1;
            whole.push(' ');
            whole.push_str(lines[i].trim_end());
        }
        let last = i;
        i += 1;
        let Some(directive) = whole.trim_start().strip_prefix('#') else {
            continue;
        };
        let directive = directive.trim_start();
        let word: String = (directive.chars())
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = directive[word.len()..].trim_start();
        let name: String = (rest.chars())
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" => depth = depth.saturating_sub(1),
            "undef" => {
                found.insert(name, None);
            }
            "define" if is_identifier(&name) => {
                if rest[name.len()..].starts_with('(') {
                    function_like.push(name.clone());
                }
                let definition = match depth {
                    0 => definition(&rest[name.len()..], last),
                    _ => None,
                };
                // Defined twice: which one holds where is the preprocessor's to say.
                let twice = found.contains_key(&name);
                found.insert(name, definition.filter(|_| !twice));
            }
            _ => {}
        }
    }
    let blocked = (found.iter())
        .filter(|(n, d)| d.is_none() && function_like.contains(n))
        .map(|(n, _)| n.clone())
        .collect();
    let defs = (found.into_iter())
        .filter_map(|(n, d)| d.map(|d| (n, d)))
        .collect();
    (defs, blocked)
}

/// A definition from what follows a macro's name, if it can be expanded exactly.
fn definition(after: &str, line: usize) -> Option<Definition> {
    let (params, body) = match after.strip_prefix('(') {
        Some(p) => {
            let close = p.find(')')?;
            let params: Vec<String> = (p[..close].split(','))
                .map(|s| s.trim().to_string())
                .collect();
            let params = match params.as_slice() {
                [one] if one.is_empty() => Vec::new(),
                _ => params,
            };
            if !params.iter().all(|p| is_identifier(p)) {
                return None; // `...`, or not a parameter list
            }
            (Some(params), &p[close + 1..])
        }
        None => (None, after),
    };
    let body = body.trim();
    if body.contains('#') || body.contains('"') || body.contains('\'') || body.is_empty() {
        return None;
    }
    Some(Definition {
        params,
        body: body.to_string(),
        line,
    })
}

/// The macros a text is expanded with: those that can be, and the names of the function-like
/// ones that cannot (`CAT_(a, b) a##b`).
struct Macros<'a> {
    defs: &'a HashMap<&'a str, &'a Definition>,
    blocked: &'a [String],
}

impl Macros<'_> {
    /// Whether `s` uses a macro that cannot be expanded: the preprocessor would paste or quote
    /// there what it has expanded itself (a lesson's `-D WIDTH=4`), which this cannot.
    fn blocks(&self, s: &str) -> bool {
        (super::shift::tokens(s).into_iter()).any(|w| self.blocked.iter().any(|b| b == w))
    }
}

/// `s` with the macros of `m` expanded, those in `off` (being expanded) left as they are, and
/// each use whose expansion would use one that cannot be expanded left as written; `None`
/// where a use cannot be read (its parentheses do not close, its arguments do not match) or
/// the expansion goes deeper than [`DEEPEST`].
fn expand(s: &str, m: &Macros, off: &[&str], depth: usize) -> Option<String> {
    if depth > DEEPEST {
        return None;
    }
    let bytes = s.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        // A string or character literal, as it is.
        if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c && bytes[j] != b'\n' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(bytes.len());
            out.push_str(&s[i..end]);
            i = end;
            continue;
        }
        if !word(c) {
            let next = (i + 1..bytes.len())
                .find(|&j| word(bytes[j]) || bytes[j] == b'"' || bytes[j] == b'\'')
                .unwrap_or(bytes.len());
            out.push_str(&s[i..next]);
            i = next;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&j| !word(bytes[j]))
            .unwrap_or(bytes.len());
        let name = &s[i..end];
        let found = match c.is_ascii_digit() || off.contains(&name) {
            true => None,
            false => m.defs.get(name),
        };
        let open = (end..bytes.len()).find(|&j| !bytes[j].is_ascii_whitespace());
        let called = open.filter(|&j| bytes[j] == b'(');
        // A use of a macro that cannot be expanded, its arguments and all, as written.
        if let (None, Some(open), true) = (found, called, m.blocks(name)) {
            let (_, close) = arguments(s, open)?;
            out.push_str(&s[i..=close]);
            i = close + 1;
            continue;
        }
        let Some(def) = found else {
            out.push_str(name);
            i = end;
            continue;
        };
        let mut inner: Vec<&str> = off.to_vec();
        inner.push(name);
        let Some(params) = &def.params else {
            let body = expand(&def.body, m, &inner, depth + 1)?;
            match m.blocks(&body) {
                true => out.push_str(name),
                false => out.push_str(&format!(" {body} ")),
            }
            i = end;
            continue;
        };
        // A function-like macro's name not followed by `(` is not a use.
        let Some(open) = called else {
            out.push_str(name);
            i = end;
            continue;
        };
        let (args, close) = arguments(s, open)?;
        let args: Vec<String> = match (params.len(), args.as_slice()) {
            (0, [one]) if one.trim().is_empty() => Vec::new(),
            _ => args,
        };
        if args.len() != params.len() {
            return None;
        }
        // Arguments expanded first, then put in the body, which is scanned again.
        let mut given = Vec::with_capacity(args.len());
        for a in &args {
            given.push(expand(&a.replace('\n', " "), m, off, depth + 1)?);
        }
        let body = expand(&substitute(&def.body, params, &given), m, &inner, depth + 1)?;
        if m.blocks(&body) {
            out.push_str(&s[i..=close]);
            i = close + 1;
            continue;
        }
        out.push_str(&format!(" {body} "));
        // The line breaks of a use that spans lines, after it.
        for _ in 0..s[i..=close].matches('\n').count() {
            out.push('\n');
        }
        i = close + 1;
    }
    Some(out)
}

/// The arguments of the use whose `(` is at `open`, split at the commas of its own level,
/// and the index of its `)`.
fn arguments(s: &str, open: usize) -> Option<(Vec<String>, usize)> {
    let bytes = s.as_bytes();
    let mut depth = 0;
    let mut args = Vec::new();
    let mut start = open + 1;
    let mut j = open;
    while j < bytes.len() {
        match bytes[j] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    args.push(s[start..j].to_string());
                    return Some((args, j));
                }
            }
            b',' if depth == 1 => {
                args.push(s[start..j].to_string());
                start = j + 1;
            }
            b'"' | b'\'' => return None,
            _ => {}
        }
        j += 1;
    }
    None
}

/// `body` with each of `params` replaced by its argument, spaced so that no token joins
/// its neighbours (`- -1`, not `--1`).
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let bytes = body.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = String::with_capacity(body.len() * 2);
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            out.push(bytes[i] as char);
            i += 1;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&j| !word(bytes[j]))
            .unwrap_or(bytes.len());
        let w = &body[i..end];
        match params.iter().position(|p| p == w) {
            Some(k) if !bytes[i].is_ascii_digit() => {
                out.push(' ');
                out.push_str(args[k].trim());
                out.push(' ');
            }
            _ => out.push_str(w),
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "#ifndef TS\n#define TS 16\n#endif\n#define AT(P, r, c, w) P[(r) * (w) + (c)]\n#define PICK(s, x, y) ((s) ? (x) : (y))\n#define NEG(x) -x\n#define LOADS \\\n    acc += AT(A, 0, k, K)\n__kernel void f(__global const float* A, const int K) {\n    float acc = PICK(tell(), AT(A, 1, 2, K),\n                     A[3]) + 1.0f; // PICK(a, b, c) in a comment\n    LOADS;\n    float m = 1 - NEG(-1) * TS;\n    printf(\"PICK(1, 2, 3)\");\n}\n";

    #[test]
    fn uses_are_expanded_on_their_own_lines() {
        let out = expanded(KERNEL);
        assert_eq!(out.lines().count(), KERNEL.lines().count(), "{out}");
        let line = |n: usize| {
            out.lines()
                .nth(n - 1)
                .unwrap()
                .split_whitespace()
                .collect::<String>()
        };
        // Two paths in one use, each its own access with its own column.
        assert_eq!(line(10), "floatacc=((tell())?(A[(1)*(K)+(2)]):(A[3]))");
        assert_eq!(line(11), "+1.0f;");
        assert_eq!(line(12), "acc+=A[(0)*(K)+(k)];");
        // Tokens kept apart; the knob left to the compiler (defined inside an #if).
        let spaced = |n: usize| {
            out.lines()
                .nth(n - 1)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(spaced(13), "float m = 1 - - -1 * TS;");
        // Strings and directives as they are.
        assert!(out.contains("printf(\"PICK(1, 2, 3)\");"), "{out}");
        assert!(
            out.contains("#define PICK(s, x, y) ((s) ? (x) : (y))"),
            "{out}"
        );
    }

    #[test]
    fn what_cannot_be_expanded_exactly_is_left() {
        // Defined twice, #undef'd, pasted, stringified: left to the compiler.
        for defines in [
            "#define G(x) A[x]\n#define G(x) A[x + 1]\n",
            "#define G(x) A[x]\n#undef G\n#define G(x) A[x]\n",
            "#define G(x) A[x ## 1]\n",
            "#define G(x) A[#x]\n",
            "#define G(...) A[__VA_ARGS__]\n",
        ] {
            let text = format!("{defines}void f() {{ y = G(1); }}\n");
            assert!(expanded(&text).contains("y = G(1);"), "{defines}");
        }
        // A use before the definition is not one; arguments that do not match leave all.
        let text = "void f() { y = G(1); }\n#define G(x) A[x]\nvoid g() { y = G(1); }\n";
        let out = expanded(text);
        assert!(
            out.contains("void f() { y = G(1); }") && out.contains("A[ 1 ]"),
            "{out}"
        );
        let text = "#define G(x, y) A[x]\nvoid f() { y = G(1); }\n";
        assert_eq!(expanded(text), text);
        // Pasting what the preprocessor expands itself (`-D WIDTH=4`): the uses that lead
        // there are left as written, all but the last level, which is exact.
        let text = "#define CAT_(a, b) a##b\n#define CAT(a, b) CAT_(a, b)\n#define VLOADX CAT(vload, WIDTH)\nvoid f() { v = VLOADX(0, p); w = CAT_(VLOADX, 1); }\n";
        let out = expanded(text);
        assert!(out.contains("v =  CAT(vload, WIDTH) (0, p);"), "{out}");
        assert!(out.contains("w = CAT_(VLOADX, 1);"), "{out}");
        // A macro that uses itself stops at its own name.
        let text = "#define R(x) R(x + 1)\nvoid f() { y = R(1); }\n";
        assert!(expanded(text).contains("R( 1  + 1)"), "{}", expanded(text));
    }
}
