//! A kernel's text with chosen accesses to global or local memory made to reach another
//! element, so that a run that reaches one of them computes a wrong C (`super::coverage` asks
//! the device with it). The accesses are places Oclgrind names by line and column; the
//! pointer or array is found by its name near that column.

/// A place in the kernel's own text: line and column, from 1.
pub(super) type Place = (u32, u32);

/// The names of the kernel's pointers to global memory: its parameters and variables
/// declared `__global` (or `global`) with a `*`, or with a `typedef` that spells one.
fn global_names(text: &str) -> Vec<String> {
    let code = without_comments(text);
    // The preprocessor's lines apart (a macro that spells a type is expanded where used
    // before the text gets here: `super::expand`).
    let mut types: Vec<String> = Vec::new();
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

/// The names of the kernel's local memory: arrays and pointers declared `__local` (or
/// `local`), each the last identifier before the declaration's `[`, `=`, `;`, `,` or `)`.
fn local_names(text: &str) -> Vec<String> {
    let code = without_comments(text);
    let words: Vec<&str> = tokens(&code);
    let mut names = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if *w != "__local" && *w != "local" {
            continue;
        }
        let name = (words[i + 1..].iter())
            .take(10)
            .take_while(|w| !matches!(**w, "[" | "=" | ";" | "," | ")"))
            .filter(|w| is_identifier(w))
            .last();
        names.extend(name.map(|n| n.to_string()));
    }
    names.sort();
    names.dedup();
    names
}

/// `line` with the access through the local array or pointer `name` at byte `start` made to
/// read or write another element: its last index `[i]` taken as `[((i) == 0 ? 1 : (i) - 1)]`,
/// which stays inside a row of two or more (a tile's row shifted as a whole could leave the
/// tile, and a device may stop a kernel that leaves its local memory); `(name+1)` where no
/// index follows the name.
fn other_element(line: &mut String, start: usize, name: &str) {
    let bytes = line.as_bytes();
    let mut at = start + name.len();
    let mut last = None;
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if bytes.get(at) != Some(&b'[') {
            break;
        }
        let mut depth = 0;
        let Some(close) = (at..bytes.len()).find(|&j| {
            match bytes[j] {
                b'[' => depth += 1,
                b']' => depth -= 1,
                _ => {}
            }
            depth == 0
        }) else {
            break;
        };
        last = Some((at + 1, close));
        at = close + 1;
    }
    match last {
        Some((from, to)) => {
            let index = line[from..to].to_string();
            line.replace_range(from..to, &format!("(({index}) == 0 ? 1 : ({index}) - 1)"));
        }
        None => line.replace_range(start..start + name.len(), &format!("({name}+1)")),
    }
}

/// `text` with the access through `name` at byte `start` shifted: a global pointer
/// `(A+1)`, local memory another element ([`other_element`]).
fn shift_at(text: &mut String, start: usize, name: &str, locals: &[String]) {
    if locals.iter().any(|n| n == name) {
        other_element(text, start, name);
    } else {
        text.replace_range(start..start + name.len(), &format!("({name}+1)"));
    }
}

pub(super) fn is_identifier(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The text's identifiers and single punctuation characters, in order.
pub(super) fn tokens(code: &str) -> Vec<&str> {
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
pub(super) fn without_comments(text: &str) -> String {
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

/// Where on a line (byte index) the pointer or array of the access at `column` is named.
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

/// `text` (its macros expanded where used: `super::expand`) with the access of each place
/// in `never` made to reach another element ([`shift_at`]): a run that reaches one of them
/// reads or writes other elements, and its C comes out wrong. `None` where a place's pointer
/// cannot be told alone: no pointer or local array is named on its line, or the name nearest
/// to it is also the one nearest to a place in `ran` (the shift would change code that ran
/// too).
pub(super) fn shifted(text: &str, never: &[Place], ran: &[Place]) -> Option<String> {
    let code = without_comments(text);
    let locals = local_names(text);
    let names: Vec<String> = (global_names(text).into_iter())
        .chain(locals.clone())
        .collect();
    let lines: Vec<&str> = code.lines().collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for &(line, column) in never {
        let l = lines.get((line as usize).checked_sub(1)?)?;
        let (start, name) = nearest_name(l, column, &names)?;
        let shared = (ran.iter())
            .filter(|r| r.0 == line)
            .any(|r| nearest_name(l, r.1, &names).map(|n| n.0) == Some(start));
        if shared {
            return None;
        }
        edits.push((line as usize - 1, start, name));
    }
    edits.sort();
    edits.dedup();
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    // From the right of each line, so that earlier indices stay where they were.
    for (line, start, name) in edits.into_iter().rev() {
        shift_at(&mut out[line], start, &name, &locals);
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
        // Through a typedef that spells the type.
        let typed = "typedef __global const float* in_t;\n\
                     void g(in_t a, const in_t b) { in_t d = a + 1; }";
        assert_eq!(global_names(typed), ["a", "b", "d"]);
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

    #[test]
    fn local_memory_is_read_at_another_element_of_its_row() {
        let k = "__kernel void f(__global float* C) {\n    __local float Asub[16][17];\n    local float4 t[4], *p;\n    Asub[get_local_id(1)][get_local_id(0)] = 1.0f;\n    C[0] = tell() ? Asub[0][idx[1]] : Asub[1][2];\n    C[1] = vload4(0, p + 4).x;\n}\n";
        // A second declarator of a declaration is not read.
        assert_eq!(local_names(k), ["Asub", "t"]);
        // The store's column is its `=`; the load's, the array's name.
        let out = shifted(k, &[(4, 44), (5, 21)], &[(5, 39)]).unwrap();
        assert!(
            out.contains("    Asub[get_local_id(1)][((get_local_id(0)) == 0 ? 1 : (get_local_id(0)) - 1)] = 1.0f;\n"),
            "{out}"
        );
        assert!(
            out.contains("tell() ? Asub[0][((idx[1]) == 0 ? 1 : (idx[1]) - 1)] : Asub[1][2];"),
            "{out}"
        );
        // No index after the name: the pointer, one element along.
        let k = k.replace("t[4], *p;", "*p;");
        let out = shifted(&k, &[(6, 12)], &[]).unwrap();
        assert!(out.contains("vload4(0, (p+1) + 4)"), "{out}");
    }
}
