//! A kernel is one code on every device. The grader looks at a kernel under a simulator
//! (races, reads out of bounds, the lesson's technique) and times it on the device, so a kernel
//! that asks which compiler, device or OpenCL version builds it could show the simulator one
//! kernel and the device another: a tidy tiled kernel for the checks, anything at all for the
//! speed. Such a question is refused before anything runs.

/// Names that look like a compiler's own but are the OpenCL C language: address spaces,
/// qualifiers, attributes.
const LANGUAGE: &[&str] = &[
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

/// Whether `name` asks which compiler, device or OpenCL version builds the kernel: the
/// names compilers predefine (`__NV_CL_C_VERSION`, `__OPENCL_C_VERSION__`, `__FILE__`, ...,
/// every name that begins with two underscores and is not the language's own), extension
/// macros (`cl_khr_fp64`, `cl_nv_pragma_unroll`), version macros (`CL_VERSION_3_0`),
/// whether fused multiply-add is fast (`FP_FAST_FMAF`), and inline assembly.
fn asks(name: &str) -> bool {
    (name.starts_with("__") && !LANGUAGE.contains(&name))
        || name.starts_with("cl_")
        || name.starts_with("CL_VERSION")
        || name.starts_with("FP_FAST_FMA")
        || name == "asm"
}

/// The source with its comments, strings and character literals blanked (newlines kept, so
/// that line numbers still hold), and `#pragma` lines dropped (`#pragma OPENCL EXTENSION
/// cl_khr_fp16 : enable` switches a feature on; it does not ask anything).
fn code_only(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && next == Some(b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
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
    out.lines()
        .map(|l| {
            if l.trim_start().starts_with('#')
                && l.trim_start()[1..].trim_start().starts_with("pragma")
            {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first place where `source` asks which compiler, device or OpenCL version builds it:
/// its line (from 1) and the name that asks.
pub fn first_question(source: &str) -> Option<(usize, String)> {
    for (n, line) in code_only(source).lines().enumerate() {
        let mut word = String::new();
        for ch in line.chars().chain(std::iter::once(' ')) {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                word.push(ch);
                continue;
            }
            if !word.is_empty() && !word.as_bytes()[0].is_ascii_digit() && asks(&word) {
                return Some((n + 1, word));
            }
            word.clear();
        }
    }
    None
}

/// The message for a kernel that asks, at `line` of `file`, with `name`.
pub fn refusal(file: &str, line: usize, name: &str) -> String {
    format!(
        "{file} line {line}: `{name}` asks which compiler, device or OpenCL version builds the kernel. The grader checks your kernel under a simulator (races, reads out of bounds, the lesson's technique) and times it on the device, so it must be the same code on both: a kernel may not choose its code by who compiles it. Remove the question and keep one version (your own defines, such as the lesson's tile sizes, are fine)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_device_and_version_questions_are_found() {
        for (src, line, name) in [
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
        ] {
            assert_eq!(first_question(src), Some((line, name.to_string())), "{src}");
        }
    }

    #[test]
    fn the_language_comments_strings_and_own_defines_are_not_questions() {
        let src = "// __NV_CL_C_VERSION in a comment\n/* cl_khr_fp64\n__FILE__ */\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#ifndef TS\n#define TS 16\n#endif\n__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))\nvoid matmul(__global const float* A, __local float* t, __constant float* c) {\n  printf(\"__FILE__ cl_x\\n\"); char q = '_';\n  const int l = __LINE__;\n}\n";
        assert_eq!(first_question(src), None);
    }

    #[test]
    fn lines_count_past_comments_that_span_lines() {
        assert_eq!(
            first_question("/* one\ntwo */ x;\ny = __OPENCL_VERSION__;"),
            Some((3, "__OPENCL_VERSION__".to_string()))
        );
    }
}
