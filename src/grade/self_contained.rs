//! A lesson's file is graded as the code written in it, and the same code everywhere it runs.
//! Refused before anything is built:
//!
//! - code brought in from elsewhere: an OpenCL `#include`, Rust's `include!` family or a module
//!   read from another file (a one-line file that includes the course's own solution would
//!   otherwise pass every lesson), a library linked in (`extern` blocks, `#[link]`: a BLAS
//!   ranked as the student's loop), another program started (`Command`), inline assembly;
//! - OpenCL source that compilers read in different ways: a trigraph (`??/` is a backslash to
//!   one, three characters to another) or a backslash with spaces after it at a line's end (a
//!   line splice to some); lines end at CR LF and CR as at LF, and a quote left open ends at
//!   its line's end, as compilers read them;
//! - an OpenCL `#line`, which would give the kernel's lines another file's name (the checks
//!   tell the kernel's own code from the course's prelude by it) or other numbers;
//! - an OpenCL kernel that asks which compiler, device or OpenCL version builds it: the grader
//!   checks a kernel under a simulator (races, reads out of bounds, the lesson's technique)
//!   and times it on the device, and such a kernel could show each a different code.

/// Why a file is refused: where, the word that gives it away, and what it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The line, from 1.
    pub line: usize,
    pub word: String,
    pub why: &'static str,
}

impl Refused {
    /// The message a student reads, for the file at `file`.
    pub fn message(&self, file: &str) -> String {
        format!(
            "{file} line {}: `{}` {}. A lesson's file is graded as the code written in it, the same code on every device and in every check. Remove it and write the code here (your own defines and functions are fine).",
            self.line, self.word, self.why
        )
    }
}

const INCLUDES: &str =
    "brings in code from another file (the grader cannot tell it from a copy of the course's solution)";
const ASKS: &str = "asks which compiler, device or OpenCL version builds the kernel: the grader checks your kernel under a simulator (races, reads out of bounds, the lesson's technique) and times it on the device, so it must not choose its code by who compiles it";
const LINKS: &str =
    "links in code from a library or assembly, which the grader would time as yours";
const STARTS: &str = "starts another program, whose work the grader would time as yours";
const IDS: &str = "replaces the work-group ids and counts the course hands every kernel: the same on every device and in every check (src/harness/groups.rs); use get_group_id, get_global_id, get_num_groups and get_global_size as they are";
const COUNTED: &str = "is what the simulator counts the unit's work by: only the unit's own functions (mma_tf32, mma_s8) may call it, or the count would be yours and not the unit's";
const PASTES: &str = "pastes tokens into a name: in a lesson whose unit is counted by the names its model calls, the names of your kernel must be written as they are";
const TRIGRAPH: &str = "is a trigraph, which one compiler reads as another character (`??/` as a backslash that joins two lines) and another as written, so the grader cannot tell which code the device builds; write the character itself, or something other than two question marks";
const SPACED_SPLICE: &str = "with spaces or tabs after it at the end of the line is read by some compilers as joining the next line to this one and by others not, so the grader cannot tell which code the device builds; remove the spaces after the backslash, or the backslash";
const RENAMES: &str = "gives the lines that follow another file's name or number: the grader's checks say where they found something by your file's lines, and tell your code from the course's by them";

/// Names that look like a compiler's own but are the OpenCL C language: address spaces,
/// qualifiers, attributes.
const OPENCL_LANGUAGE: &[&str] = &[
    "__kernel",
    "__global",
    "__local",
    "__constant",
    "__private",
    "__generic",
    "__attribute__",
    "__read_only",
    "__write_only",
    "__read_write",
    // Where the preprocessor is on a line: the same on every device.
    "__LINE__",
];

/// Whether an OpenCL name asks which compiler, device or version builds the kernel: the
/// names compilers predefine (`__NV_CL_C_VERSION`, `__OPENCL_C_VERSION__`, `__FILE__`, ...,
/// every name that begins with two underscores and is not the language's own), extension
/// macros (`cl_khr_fp64`), version macros (`CL_VERSION_3_0`), whether fused multiply-add is
/// fast (`FP_FAST_FMAF`).
fn opencl_asks(name: &str) -> bool {
    (name.starts_with("__") && !OPENCL_LANGUAGE.contains(&name))
        || name.starts_with("cl_")
        || name.starts_with("CL_VERSION")
        || name.starts_with("FP_FAST_FMA")
}

/// What a word of a student's OpenCL kernel does, if it is refused.
fn opencl_word(name: &str) -> Option<&'static str> {
    if name == "asm" || name == "__asm__" || name == "__asm" {
        Some(LINKS)
    } else if opencl_asks(name) {
        Some(ASKS)
    } else {
        None
    }
}

/// What a word of a student's Rust file does, if it is refused.
fn rust_word(name: &str) -> Option<&'static str> {
    match name {
        "include" | "include_str" | "include_bytes" => Some(INCLUDES),
        "extern" | "link" | "link_name" | "no_mangle" | "export_name" | "link_section" | "asm"
        | "global_asm" | "naked_asm" => Some(LINKS),
        "Command" => Some(STARTS),
        _ => None,
    }
}

/// The source with comments, strings and character literals blanked (newlines kept, so that
/// line numbers still hold). `nested`: block comments nest (Rust), else they do not (C).
fn code_only(source: &str, nested: bool) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let newlines = |from: usize, to: usize, out: &mut String| {
        for _ in b[from..to.min(b.len())].iter().filter(|&&c| c == b'\n') {
            out.push('\n');
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && next == Some(b'*') {
            let start = i;
            let mut depth = 0usize;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') && (nested || depth == 0) {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            newlines(start, i, &mut out);
            out.push(' ');
        } else if nested && c == b'r' && raw_quote(b, i) && raw_start(b, i) {
            // A raw string r"…" or r#"…"# (br, cr): no escapes, ends at the quote and as many
            // #. Not a raw identifier (r#name), which is code: taken for a string, it would
            // blank what follows up to the next "# and hide it from the check.
            let start = i;
            i += 1;
            let mut hashes = 0;
            while b.get(i) == Some(&b'#') {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < b.len() {
                if b[i] == b'"'
                    && b[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            newlines(start, i, &mut out);
            out.push(' ');
        } else if c == b'"' || (c == b'\'' && char_literal(b, i, nested)) {
            // A C literal ends at its line's end where its quote is missing, as the compiler
            // reads it (and skips it in `#if 0`): taken to run on to the next quote, it would
            // blank the lines between from the check while they are code.
            let start = i;
            i += 1;
            while i < b.len() && b[i] != c && (nested || b[i] != b'\n') {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if b.get(i) == Some(&c) {
                i += 1;
            }
            newlines(start, i, &mut out);
            out.push(' ');
        } else {
            // Whole characters, so that text beyond ASCII stays text.
            let ch = source[i..]
                .chars()
                .next()
                .expect("a character at a boundary");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Whether the `r` at `i` is followed by any number of `#` and then a quote: a raw string's
/// opening, where `r#name` is a raw identifier.
fn raw_quote(b: &[u8], i: usize) -> bool {
    b[i + 1..].iter().find(|&&x| x != b'#') == Some(&b'"')
}

/// Whether the `r` at `i` starts a raw string rather than ending a name (`for` then `"`):
/// alone, or after the `b` of a byte string or the `c` of a C string.
fn raw_start(b: &[u8], i: usize) -> bool {
    let before = if i > 0 { b[i - 1] } else { b' ' };
    let before = if matches!(before, b'b' | b'c') && i > 1 {
        b[i - 2]
    } else {
        before
    };
    !(before.is_ascii_alphanumeric() || before == b'_')
}

/// Whether the quote at `i` opens a character literal: always in C; in Rust, unless it is a
/// lifetime or a label (`'a` with no closing quote right after one character or escape).
fn char_literal(b: &[u8], i: usize, rust: bool) -> bool {
    if !rust {
        return true;
    }
    match b.get(i + 1) {
        Some(b'\\') => true,
        Some(_) => {
            // One character (possibly several bytes) and then the closing quote.
            let rest = &b[i + 1..];
            let len = match rest[0] {
                x if x < 0x80 => 1,
                x if x >= 0xf0 => 4,
                x if x >= 0xe0 => 3,
                _ => 2,
            };
            rest.get(len) == Some(&b'\'')
        }
        None => false,
    }
}

/// Every name on each line of `code`, with its line number (from 1).
fn words(code: &str) -> impl Iterator<Item = (usize, String)> + '_ {
    code.lines().enumerate().flat_map(|(n, line)| {
        let mut found = Vec::new();
        let mut word = String::new();
        for ch in line.chars().chain(std::iter::once(' ')) {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                word.push(ch);
            } else {
                if !word.is_empty() && !word.as_bytes()[0].is_ascii_digit() {
                    found.push((n + 1, std::mem::take(&mut word)));
                }
                word.clear();
            }
        }
        found
    })
}

/// Why an OpenCL kernel's source is refused, if it is. `counted`: the names the simulator
/// counts the lesson's unit by ([`crate::lesson::Unit::counted_by`]), which the kernel may
/// neither write nor form by pasting tokens (`##`).
pub fn opencl(source: &str, counted: &[&str]) -> Option<Refused> {
    // Lines end at CR LF or CR as at LF, as every compiler reads them.
    let source = source.replace("\r\n", "\n").replace('\r', "\n");
    if let Some(refused) = read_otherwise(&source) {
        return Some(refused);
    }
    // The preprocessor's own view: lines spliced at a backslash before a newline, `%:`
    // spelled `#` (a digraph). Splicing keeps the line count with a newline after the
    // spliced line.
    let mut text = String::with_capacity(source.len());
    let mut owed = 0;
    for line in source.split('\n') {
        if let Some(cut) = line.strip_suffix('\\') {
            text.push_str(cut);
            owed += 1;
        } else {
            text.push_str(line);
            text.push('\n');
            for _ in 0..owed {
                text.push('\n');
            }
            owed = 0;
        }
    }
    let text = text.replace("%:", "#");
    let code = code_only(&text, false);
    for (n, line) in code.lines().enumerate() {
        let Some(directive) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let name: String = directive
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if matches!(
            name.as_str(),
            "include" | "include_next" | "import" | "embed"
        ) {
            return Some(Refused {
                line: n + 1,
                word: format!("#{name}"),
                why: INCLUDES,
            });
        }
        // The ids every build hands the kernel (harness::groups): neither undefined nor
        // defined again, which would give the kernel the simulator's own ids back.
        if matches!(name.as_str(), "undef" | "define") {
            let after = directive.trim_start()[name.len()..].trim_start();
            let target: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if matches!(
                target.as_str(),
                "get_group_id"
                    | "get_global_id"
                    | "get_global_linear_id"
                    | "get_num_groups"
                    | "get_global_size"
            ) {
                return Some(Refused {
                    line: n + 1,
                    word: format!("#{name} {target}"),
                    why: IDS,
                });
            }
        }
        // `#line 1 "other.cl"`, and the preprocessor's own spelling of it, `# 1 "other.cl"`.
        if name == "line" || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(Refused {
                line: n + 1,
                word: format!("#{name}"),
                why: RENAMES,
            });
        }
    }
    // `#pragma OPENCL EXTENSION cl_khr_fp16 : enable` switches a feature on; it asks nothing.
    let code: String = code
        .lines()
        .map(|l| {
            let d = l.trim_start().strip_prefix('#').map(str::trim_start);
            if d.is_some_and(|d| d.starts_with("pragma")) {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    if !counted.is_empty() {
        if let Some(n) = code.lines().position(|l| l.contains("##")) {
            return Some(Refused {
                line: n + 1,
                word: "##".into(),
                why: PASTES,
            });
        }
    }
    let found = words(&code).find_map(|(line, word)| {
        let why = match counted.contains(&word.as_str()) {
            true => Some(COUNTED),
            false => opencl_word(&word),
        };
        why.map(|why| Refused { line, word, why })
    });
    found
}

/// The first place where compilers may read the source otherwise than the check does: a
/// trigraph (`??/` is a backslash, which joins two lines or escapes a quote, to a compiler
/// that reads trigraphs, and two question marks and a slash to one that does not), or a
/// backslash with only spaces or tabs after it at the end of a line (a line splice to some
/// compilers, not to others). Either could hide a name from the check that the device's
/// compiler builds, so neither is read: refused, with its line.
fn read_otherwise(source: &str) -> Option<Refused> {
    source.lines().enumerate().find_map(|(n, line)| {
        let b = line.as_bytes();
        let trigraph =
            (b.windows(3)).find(|w| w[0] == b'?' && w[1] == b'?' && b"=/'()!<>-".contains(&w[2]));
        if let Some(w) = trigraph {
            let word = String::from_utf8_lossy(w).into_owned();
            return Some(Refused {
                line: n + 1,
                word,
                why: TRIGRAPH,
            });
        }
        let body = line.trim_end_matches([' ', '\t']);
        (body.len() < line.len() && body.ends_with('\\')).then(|| Refused {
            line: n + 1,
            word: "\\".into(),
            why: SPACED_SPLICE,
        })
    })
}

/// Why a student's Rust file is refused, if it is.
pub fn rust(source: &str) -> Option<Refused> {
    let code = code_only(source, true);
    if let Some(found) = words(&code)
        .find_map(|(line, word)| rust_word(&word).map(|why| Refused { line, word, why }))
    {
        return Some(found);
    }
    // `mod name;` reads the module from another file (anywhere, with `#[path]`).
    let tokens: Vec<(usize, String)> = code
        .lines()
        .enumerate()
        .flat_map(|(n, l)| {
            l.split(|c: char| c.is_whitespace())
                .flat_map(split_semicolons)
                .filter(|t| !t.is_empty())
                .map(move |t| (n + 1, t))
                .collect::<Vec<_>>()
        })
        .collect();
    tokens.windows(3).find_map(|w| {
        (w[0].1 == "mod" && w[2].1 == ";").then(|| Refused {
            line: w[0].0,
            word: format!("mod {};", w[1].1),
            why: INCLUDES,
        })
    })
}

/// A whitespace-separated piece split so that each `;` stands alone.
fn split_semicolons(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in t.chars() {
        if ch == ';' {
            out.push(std::mem::take(&mut cur));
            out.push(";".to_string());
        } else {
            cur.push(ch);
        }
    }
    out.push(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(r: Option<Refused>) -> Option<(usize, String)> {
        r.map(|r| (r.line, r.word))
    }

    #[test]
    fn opencl_questions_includes_and_assembly_are_found() {
        for (src, line, word) in [
            (
                "__kernel void k() {\n#ifdef __NV_CL_C_VERSION\n  fast();\n#endif\n}",
                2,
                "__NV_CL_C_VERSION",
            ),
            (
                "void k() {\n  if (__OPENCL_C_VERSION__ >= 300) { x = 1; }\n}",
                2,
                "__OPENCL_C_VERSION__",
            ),
            (
                "#if defined(cl_nv_pragma_unroll)\n#endif",
                1,
                "cl_nv_pragma_unroll",
            ),
            ("const char c = __FILE__[1];", 1, "__FILE__"),
            ("#ifdef FP_FAST_FMAF\n#endif", 1, "FP_FAST_FMAF"),
            (
                "int t; asm volatile(\"mov.u32 %0, %%clock;\" : \"=r\"(t));",
                1,
                "asm",
            ),
            ("x = 1;\n\n__asm__(\"\");", 3, "__asm__"),
            (
                "#include \"/srv/course/solutions/05_local_tiling.cl\"",
                1,
                "#include",
            ),
            ("// one\n  #  include <x.cl>", 2, "#include"),
            ("??=include \"a.cl\"", 1, "??="),
            ("x = 1;\nfloat f = _??/\n_LAB_UNIT_SCALE;", 2, "??/"),
            ("x = 1;\r\ny = 2; \\ \r\nz;", 2, "\\"),
            (
                "#if 0\n'\n#endif\nfloat f = __LAB_UNIT_SCALE;\n#if 0\n'\n#endif",
                4,
                "__LAB_UNIT_SCALE",
            ),
            (
                "float f = 1;\r#ifdef __LAB_UNIT_SCALE\r#endif",
                2,
                "__LAB_UNIT_SCALE",
            ),
            ("%:include \"a.cl\"", 1, "#include"),
            ("x;\n#inc\\\nlude \"a.cl\"\ny;", 2, "#include"),
            ("y;\n#def\\\nine X 1\ny = __FILE__;", 4, "__FILE__"),
            ("x;\n#line 1 \"prelude.cl\"\ny;", 2, "#line"),
            ("x;\n\n  # 7 \"input.cl\"", 3, "#7"),
            ("#undef get_group_id\n", 1, "#undef get_group_id"),
            (
                "x;\n# define  get_global_id(d) get_global_id(d)\n",
                2,
                "#define get_global_id",
            ),
        ] {
            assert_eq!(
                found(opencl(src, &[])),
                Some((line, word.to_string())),
                "{src}"
            );
        }
    }

    /// The names a unit's model is counted by, written or pasted together, in a lesson with
    /// such a unit; the same kernels pass in a lesson without one, and a comment or a
    /// string naming them passes in both.
    #[test]
    fn a_unit_s_counted_names_are_refused_where_it_is_counted_by_them() {
        let counted = crate::lesson::Unit::MatrixTf32.counted_by();
        for (src, line, word) in [
            (
                "float x = 1.0f;
float y = convert_float_rtz((double)x);",
                2,
                "convert_float_rtz",
            ),
            (
                "x;
y;
acc.x = mma_element(ar, bc, acc.x);",
                3,
                "mma_element",
            ),
            (
                "#define CAT(a, b) a##b
float y = CAT(convert_float, _rtz)(d);",
                1,
                "##",
            ),
            (
                "float y = convert_float\
_rtz(d);",
                1,
                "convert_float_rtz",
            ),
        ] {
            assert_eq!(
                found(opencl(src, counted)),
                Some((line, word.to_string())),
                "{src}"
            );
            assert_ne!(
                found(opencl(src, &[])).map(|f| f.1),
                Some(word.to_string()),
                "{src}"
            );
        }
        let int8 = crate::lesson::Unit::MatrixInt8.counted_by();
        assert_eq!(
            found(opencl("d.x = mad24(a, b, d.x);", int8)),
            Some((1, "mad24".to_string()))
        );
        let quiet = "// convert_float_rtz and ## in a comment
const char* s = \"mad24 ##\";
d = mma_tf32(a, b, d, scratch);";
        assert_eq!(opencl(quiet, counted), None);
        assert_eq!(opencl(quiet, int8), None);
    }

    #[test]
    fn the_opencl_language_comments_strings_and_own_defines_pass() {
        let src = "// __NV_CL_C_VERSION in a comment, #include too\n/* cl_khr_fp64\n__FILE__ */\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#ifndef TS\n#define TS 16\n#endif\n__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))\nvoid matmul(__global const float* A, __local float* t, __constant float* c) {\n  printf(\"__FILE__ cl_x #include\\n\"); char q = '_';\n  const int l = __LINE__;\n}\n#define ROW get_global_id(1)\n#ifdef get_group_id\n#endif\n";
        assert_eq!(opencl(src, &[]), None);
    }

    #[test]
    fn rust_includes_links_programs_and_assembly_are_found() {
        for (src, line, word) in [
            (
                "include!(\"/srv/course/solutions/01_cpu_naive.rs\");",
                1,
                "include",
            ),
            ("const S: &str = include_str!(\"x\");", 1, "include_str"),
            (
                "macro_rules! m { ($i:ident) => { $i!(\"x\"); } }\nm!(include);",
                2,
                "include",
            ),
            (
                "#[path = \"/srv/course/solutions/01_cpu_naive.rs\"]\nmod answer;",
                2,
                "mod answer;",
            ),
            ("mod answer ;", 1, "mod answer;"),
            (
                "#[link(name = \"openblas\")]\nunsafe extern \"C\" { fn cblas_sgemm(); }",
                1,
                "link",
            ),
            ("extern \"C\" { fn dlopen(); }", 1, "extern"),
            (
                "let out = std::process::Command::new(\"python3\");",
                1,
                "Command",
            ),
            ("unsafe { std::arch::asm!(\"xchg rbx, rbx\") }", 1, "asm"),
            // A raw identifier is a name, not a raw string's opening: what follows it up to
            // a later quote and hash is code, seen.
            (
                "const r#hidden: u8 = 0;\ninclude!(\"/srv/solutions/03b_cpu_packed.rs\");\n// \"#",
                2,
                "include",
            ),
            ("fn f() { r#include!(\"x\"); }", 1, "include"),
            // A raw C string ends at its quote and hash, escapes or not.
            ("let s = cr#\"a\\\"#; include!(\"x\"); // \"", 1, "include"),
        ] {
            assert_eq!(found(rust(src)), Some((line, word.to_string())), "{src}");
        }
    }

    #[test]
    fn ordinary_rust_passes() {
        let src = "//! include! in a doc comment\n/* extern /* nested Command */ asm */\nuse rayon::prelude::*;\nmod inner { pub fn f<'a>(x: &'a [f32]) -> &'a [f32] { x } }\npub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {\n    let s = \"include!(x) Command\"; let r = r#\"mod x; extern\"#; let q = '\\''; let z = 'z';\n    'outer: for i in 0..m { let _ = (s, r, q, z, i); break 'outer; }\n    std::process::id();\n}\n";
        assert_eq!(rust(src), None);
    }

    #[test]
    fn the_message_says_where_and_why() {
        let r = rust("\n\ninclude!(\"x\");").unwrap();
        let m = r.message("kernels/01_cpu_naive.rs");
        assert!(
            m.starts_with("kernels/01_cpu_naive.rs line 3: `include`"),
            "{m}"
        );
        assert!(m.contains("another file"), "{m}");
    }
}
