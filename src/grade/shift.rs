//! A kernel's text with chosen global accesses pointed one element further, so that a run that
//! reaches one of them computes a wrong C (`super::coverage` asks the device with it). The
//! accesses are places Oclgrind names by line and column; the pointer is found by its name
//! near that column, or by the macro named there whose expansion names one: a copy of that
//! macro with its pointers shifted is defined beside it and used at that place alone.

/// A place in the kernel's own text: line and column, from 1.
pub(super) type Place = (u32, u32);

/// The names of the kernel's pointers to global memory: its parameters and variables
/// declared `__global` (or `global`) with a `*`, or with a type that spells one (a `typedef`,
/// an object-like macro).
fn global_names(text: &str) -> Vec<String> {
    let code = without_comments(text);
    // The preprocessor's lines apart: a macro that spells a type is a type.
    let mut types: Vec<String> = (macros(&code).into_iter())
        .filter(|m| m.params.is_none() && spells_global_pointer(&tokens(&m.body)))
        .map(|m| m.name)
        .collect();
    let statements: String = (code.lines())
        .map(|l| match l.trim_start().starts_with('#') {
            true => "",
            false => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let words: Vec<&str> = tokens(&statements);
    let qualifier = |w: &str| matches!(w, "const" | "restrict" | "__restrict" | "volatile");
    let mut names = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if *w != "__global" && *w != "global" {
            continue;
        }
        // The first identifier after the first `*` that follows, past qualifiers.
        let Some(star) = (i + 1..words.len().min(i + 8)).find(|&j| words[j] == "*") else {
            continue;
        };
        if let Some(name) = (words[star + 1..])
            .iter()
            .find(|w| *w != &"*" && !qualifier(w))
            .filter(|w| is_identifier(w))
        {
            // `typedef __global float* gptr;` names a type, not a pointer.
            let statement = (words[..i].iter().rev())
                .take_while(|w| !matches!(**w, ";" | "{" | "}"))
                .any(|w| *w == "typedef");
            match statement {
                true => types.push(name.to_string()),
                false => names.push(name.to_string()),
            }
        }
    }
    // Declarations with those types: the type, qualifiers, then the name.
    for (i, w) in words.iter().enumerate() {
        if !types.iter().any(|t| t == w) {
            continue;
        }
        let after = (words[i + 1..].iter()).find(|w| !qualifier(w));
        if let Some(name) = after.filter(|n| is_identifier(n)) {
            names.push(name.to_string());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Whether `words` spell a pointer to global memory: `__global` (or `global`) and a `*`.
fn spells_global_pointer(words: &[&str]) -> bool {
    words.iter().any(|w| *w == "__global" || *w == "global") && words.contains(&"*")
}

fn is_identifier(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The text's identifiers and single punctuation characters, in order.
fn tokens(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(&code[start..i]);
        } else {
            if !c.is_ascii_whitespace() && c.is_ascii() {
                out.push(&code[i..i + 1]);
            }
            i += 1;
        }
    }
    out
}

/// `text` with its comments blanked (lines and columns kept).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                out.push(' ');
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut last = ' ';
                for d in chars.by_ref() {
                    out.push(if d == '\n' { '\n' } else { ' ' });
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Where on a line (byte index) the global pointer of the access at `column` is named.
/// Oclgrind's column is the pointer's name for a load, the `=` for a store (the pointer is
/// left of it), a function's name for `vload4(0, A + i)` (the pointer is right of it): the
/// nearest name on that side, else the nearest on the line.
fn nearest_name(line: &str, column: u32, names: &[String]) -> Option<(usize, String)> {
    let at = (column as usize).saturating_sub(1);
    let bytes = line.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut found: Vec<(usize, String)> = Vec::new();
    for name in names {
        for (start, _) in line.match_indices(name.as_str()) {
            let end = start + name.len();
            if (start > 0 && word(bytes[start - 1])) || (end < bytes.len() && word(bytes[end])) {
                continue;
            }
            found.push((start, name.clone()));
        }
    }
    let side: Vec<&(usize, String)> = match bytes.get(at) {
        Some(&b) if word(b) => found.iter().filter(|f| f.0 >= at).collect(),
        Some(b'=' | b'+' | b'-' | b'*' | b'/' | b'|' | b'&' | b'^') => {
            found.iter().filter(|f| f.0 < at).collect()
        }
        _ => Vec::new(),
    };
    let pool: Vec<&(usize, String)> = match side.is_empty() {
        true => found.iter().collect(),
        false => side,
    };
    pool.into_iter().min_by_key(|f| f.0.abs_diff(at)).cloned()
}

/// A `#define` of the kernel's text: its name, its parameters (`None` for an object-like
/// macro), its body, and the index of its last line (a definition may go on over lines ending
/// in `\`).
#[derive(Debug, PartialEq)]
struct Macro {
    name: String,
    params: Option<Vec<String>>,
    body: String,
    last_line: usize,
}

/// The macros `code` (comments blanked) defines, in order.
fn macros(code: &str) -> Vec<Macro> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut whole = lines[i].trim_end().to_string();
        while whole.ends_with('\\') && i + 1 < lines.len() {
            whole.pop();
            i += 1;
            whole.push(' ');
            whole.push_str(lines[i].trim_end());
        }
        i += 1;
        let Some(rest) = whole.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        let rest = rest.trim_start();
        let end = (rest.char_indices())
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(j, _)| j);
        let name = &rest[..end];
        if !is_identifier(name) {
            continue;
        }
        let after = &rest[end..];
        // A function-like macro's `(` follows its name with no space between.
        let (params, body) = match after.strip_prefix('(') {
            Some(p) => {
                let Some(close) = p.find(')') else {
                    continue;
                };
                let params = (p[..close].split(','))
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                (Some(params), &p[close + 1..])
            }
            None => (None, after),
        };
        out.push(Macro {
            name: name.to_string(),
            params,
            body: body.trim().to_string(),
            last_line: i - 1,
        });
    }
    out
}

/// The names of the macros whose expansion names one of the global pointers `names`, in
/// their bodies (a parameter of the same name hides it) or through another such macro.
fn naming_macros(defined: &[Macro], names: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    loop {
        let before = found.len();
        for m in defined {
            if found.contains(&m.name) {
                continue;
            }
            let own = m.params.as_deref().unwrap_or(&[]);
            let names_one = (tokens(&m.body).into_iter())
                .filter(|w| !own.iter().any(|p| p == w))
                .any(|w| names.iter().any(|n| n == w) || found.iter().any(|f| f == w));
            if names_one {
                found.push(m.name.clone());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

/// The name of the copy of macro `name` whose pointers point one element further.
fn shifted_macro(name: &str) -> String {
    format!("{name}__lab_shifted")
}

/// `body` with each identifier that is a global pointer of `names` written `(A+1)`, and each
/// that is a macro of `naming` written as its shifted copy; the parameters `own` are left.
fn shift_body(body: &str, own: &[String], names: &[String], naming: &[String]) -> String {
    let mut out = String::with_capacity(body.len() + 16);
    let bytes = body.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !word(bytes[i]) {
            let next = (i + 1..bytes.len())
                .find(|&j| word(bytes[j]))
                .unwrap_or(bytes.len());
            out.push_str(&body[i..next]);
            i = next;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&j| !word(bytes[j]))
            .unwrap_or(bytes.len());
        let w = &body[i..end];
        match () {
            _ if own.iter().any(|p| p == w) => out.push_str(w),
            _ if names.iter().any(|n| n == w) => out.push_str(&format!("({w}+1)")),
            _ if naming.iter().any(|n| n == w) => out.push_str(&shifted_macro(w)),
            _ => out.push_str(w),
        }
        i = end;
    }
    out
}

/// `text` with the pointer of each place in `never` made to point one element further
/// (`A` written `(A+1)`, or a macro named there whose expansion names `A` replaced there by a
/// copy of it that does so): a run that reaches one of them reads or writes other elements,
/// and its C comes out wrong. `None` where a place's pointer cannot be told alone: neither a
/// global pointer nor such a macro is named on its line, the name nearest to it is also the
/// one nearest to a place in `ran` (the shift would change code that ran too), or a macro it
/// needs is defined twice.
pub(super) fn shifted(text: &str, never: &[Place], ran: &[Place]) -> Option<String> {
    let code = without_comments(text);
    let names = global_names(text);
    let defined = macros(&code);
    let naming = naming_macros(&defined, &names);
    let candidates: Vec<String> = names.iter().chain(&naming).cloned().collect();
    let lines: Vec<&str> = code.lines().collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut copies: Vec<String> = Vec::new();
    for &(line, column) in never {
        let l = lines.get((line as usize).checked_sub(1)?)?;
        let (start, name) = nearest_name(l, column, &candidates)?;
        let shared = (ran.iter())
            .filter(|r| r.0 == line)
            .any(|r| nearest_name(l, r.1, &candidates).map(|n| n.0) == Some(start));
        if shared {
            return None;
        }
        if naming.contains(&name) && !copies.contains(&name) {
            copies.push(name.clone());
        }
        edits.push((line as usize - 1, start, name));
    }
    // The copies a copy uses, in turn.
    let mut i = 0;
    while i < copies.len() {
        let m = defined.iter().find(|m| m.name == copies[i])?;
        for w in tokens(&m.body) {
            let own = m.params.as_deref().unwrap_or(&[]);
            let nested = naming.iter().any(|n| n == w) && !own.iter().any(|p| p == w);
            if nested && !copies.iter().any(|c| c == w) {
                copies.push(w.to_string());
            }
        }
        i += 1;
    }
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for name in &copies {
        let mut with_name = defined.iter().filter(|m| &m.name == name);
        let (m, None) = (with_name.next()?, with_name.next()) else {
            return None;
        };
        let own = m.params.as_deref().unwrap_or(&[]);
        let params = match &m.params {
            Some(p) => format!("({})", p.join(", ")),
            None => String::new(),
        };
        let body = shift_body(&m.body, own, &names, &naming);
        inserts.push((
            m.last_line,
            format!("#define {}{params} {body}", shifted_macro(name)),
        ));
    }
    edits.sort();
    edits.dedup();
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    // From the right of each line, so that earlier indices stay where they were.
    for (line, start, name) in edits.into_iter().rev() {
        let with = match naming.contains(&name) {
            true => shifted_macro(&name),
            false => format!("({name}+1)"),
        };
        out[line].replace_range(start..start + name.len(), &with);
    }
    // Each copy right after its macro's definition, from the bottom up.
    inserts.sort();
    for (after, line) in inserts.into_iter().rev() {
        out.insert(after + 1, line);
    }
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "__kernel void f(const int K, const __global float* restrict A,\n                __global float *C) {\n    // A is read below\n    float x = tell() ? A[1] : A[2];\n    if (tell()) {\n        C[0] = vload4(0, A + 4).x;\n    } else {\n        C[1] = A[3];\n    }\n}\n";

    #[test]
    fn the_kernel_s_global_pointers_are_named() {
        assert_eq!(global_names(KERNEL), vec!["A".to_string(), "C".to_string()]);
        assert_eq!(
            global_names("void g(global float4 * const p, __local float *l) {}"),
            vec!["p".to_string()]
        );
        // Through a typedef and a macro that spell the type; the macro's line names nothing.
        let typed = "typedef __global const float* in_t;\n#define OUT __global float*\n\
                     void g(in_t a, const in_t b, OUT c) { in_t d = a + 1; }";
        assert_eq!(global_names(typed), ["a", "b", "c", "d"]);
    }

    #[test]
    fn accesses_that_never_ran_point_one_element_further() {
        // Line 8's store (Oclgrind's column: the `=`) and load, which never ran.
        let out = shifted(KERNEL, &[(8, 14), (8, 16)], &[(6, 14), (6, 16)]).unwrap();
        assert_eq!(
            nearest_name(
                "    out[1] = as_uint(in[2]);",
                14,
                &["in".into(), "out".into()]
            )
            .unwrap()
            .1,
            "in"
        );
        assert!(out.contains("        (C+1)[1] = (A+1)[3];\n"), "{out}");
        assert!(out.contains("C[0] = vload4(0, A + 4).x;"), "{out}");
        assert!(out.contains("// A is read below"), "{out}");
        // The vload's pointer, alone on its line.
        let out = shifted(KERNEL, &[(6, 16)], &[(6, 14)]).unwrap();
        assert!(out.contains("vload4(0, (A+1) + 4)"), "{out}");
    }

    #[test]
    fn a_pointer_shared_with_code_that_ran_cannot_be_shifted() {
        // `A[1]` ran, `A[2]` did not; each is nearest its own name.
        let out = shifted(KERNEL, &[(4, 30)], &[(4, 23)]).unwrap();
        assert!(out.contains("tell() ? A[1] : (A+1)[2]"), "{out}");
        // Both nearest the same name: not told apart.
        assert_eq!(shifted(KERNEL, &[(4, 24)], &[(4, 23)]), None);
        // No global pointer on the line.
        assert_eq!(shifted(KERNEL, &[(5, 5)], &[]), None);
    }

    const MACROS: &str = "#define TS 16\n#define A_AT(r, c) A[(r) * K + (c)]\n#define ROW(r) \\\n    A_AT(r, 0)\n#define AT(P, i) P[i]\n__kernel void f(const int K, __global const float* A, __global float* C) {\n    float x = tell() ? A_AT(1, 2) : AT(A, 3);\n    float y = tell() ? ROW(4) : 0.0f;\n    C[0] = x + y;\n}\n";

    #[test]
    fn macros_are_read_with_their_parameters_and_last_lines() {
        let m = macros(&without_comments(MACROS));
        let names: Vec<&str> = m.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["TS", "A_AT", "ROW", "AT"]);
        assert_eq!(m[1].params, Some(vec!["r".to_string(), "c".to_string()]));
        assert_eq!(m[2].last_line, 3);
        assert_eq!(m[2].body, "A_AT(r, 0)");
        assert_eq!(m[0].params, None);
        let naming = naming_macros(&m, &global_names(MACROS));
        // AT names only its parameter; ROW names A through A_AT.
        assert_eq!(naming, ["A_AT", "ROW"]);
    }

    #[test]
    fn an_access_inside_a_macro_is_shifted_through_a_copy_used_there_alone() {
        // Line 7: `A_AT(1, 2)` never ran (Oclgrind's column: the macro's name), `AT(A, 3)` ran.
        let out = shifted(MACROS, &[(7, 24)], &[(7, 37)]).unwrap();
        assert!(
            out.contains("#define A_AT(r, c) A[(r) * K + (c)]\n#define A_AT__lab_shifted(r, c) (A+1)[(r) * K + (c)]\n"),
            "{out}"
        );
        assert!(
            out.contains("tell() ? A_AT__lab_shifted(1, 2) : AT(A, 3);"),
            "{out}"
        );
        // A macro's argument names the pointer: that name is shifted.
        let out = shifted(MACROS, &[(7, 37)], &[(7, 24)]).unwrap();
        assert!(out.contains("tell() ? A_AT(1, 2) : AT((A+1), 3);"), "{out}");
        // Through two macros: both copied, the copy after the last line of its definition.
        let out = shifted(MACROS, &[(8, 24)], &[]).unwrap();
        assert!(
            out.contains("    A_AT(r, 0)\n#define ROW__lab_shifted(r) A_AT__lab_shifted(r, 0)\n"),
            "{out}"
        );
        assert!(
            out.contains("#define A_AT__lab_shifted(r, c) (A+1)[(r) * K + (c)]"),
            "{out}"
        );
        assert!(
            out.contains("tell() ? ROW__lab_shifted(4) : 0.0f;"),
            "{out}"
        );
        // Defined twice: which one holds at the place is not told.
        let twice = MACROS.replace("#define TS 16", "#define A_AT(r, c) A[c]");
        assert_eq!(shifted(&twice, &[(7, 24)], &[(7, 37)]), None);
    }
}
