//! Code the simulator never saw run. The simulator checks a kernel (races, reads out of
//! bounds, the lesson's technique) and the device times it; a kernel that can tell them apart
//! can show each a different code. Names that ask which compiler builds the kernel are
//! refused (`super::self_contained`), and so is a pointer's value (`super::trust`), but the
//! simulator's arithmetic is not the device's either, and no list could hold every
//! difference: its `mad` is fused where PoCL's is not, its `sin` rounds otherwise, a float
//! converted past an integer's range gives another integer. Whatever tells them apart, the
//! code the device runs instead has accesses to global memory that never ran under the
//! simulator.
//!
//! So the simulator's plugin records which of the kernel's global accesses ran in any of its
//! looks ([`crate::harness::oclgrind::coverage`]). Where some never ran, the device is asked
//! whether it runs them at problems the simulator ran whole, with the same defines: the
//! kernel is built once more with those accesses pointed one element further
//! ([`shifted`]), so that C comes out wrong wherever one of them runs. Code that runs on the
//! device where the simulator, at the same problem, did not run it is the kernel's failure;
//! code that runs on neither (a path for sizes the lesson never takes) is not.

use std::path::Path;

use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::harness::oclgrind::coverage::Access;
use crate::harness::paths;
use crate::harness::program::Define;
use crate::harness::timing;
use crate::lesson::OclLesson;
use crate::prepared::Prepared;

use super::counts::Run;
use super::looks::{probe_of, AskedLook};
use super::ocl::{first_wrong, with_defines};
use super::request::Look;
use super::trust::source_lines;
use super::{FailKind, Failure, Options, Part, Verdict};

/// A place in the kernel's own text: line and column, from 1.
pub(super) type Place = (u32, u32);

/// A problem the simulator ran, with its defines: every work-group, or the first and the
/// last (the asked size).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ran {
    pub shape: Shape,
    pub defines: Vec<Define>,
    pub every_group: bool,
}

/// What the simulator's looks ran of the kernel's global accesses, over every look.
#[derive(Debug, Default)]
pub(super) struct Coverage {
    /// Places that ran in some look.
    pub ran: Vec<Place>,
    /// Places that ran in none.
    pub never: Vec<Place>,
}

impl Coverage {
    /// Over the simulator's runs of every look; `None` where a run was stopped, did not
    /// start, or loaded the plugin and left no whole list. A look without the plugin adds
    /// nothing.
    pub fn of_runs(runs: &[anyhow::Result<Run>]) -> Option<Coverage> {
        Coverage::of(runs.iter().map(|r| match r {
            Ok(Run { killed: true, .. }) | Err(_) => None,
            Ok(Run {
                coverage: Some(c), ..
            }) => c.as_deref(),
            Ok(_) => Some(&[][..]),
        }))
    }

    /// Over the lists of every look that loaded the plugin; `None` where one of them did
    /// not end (its run stopped before the kernel ended, so what it ran is not known).
    pub fn of<'a>(lists: impl IntoIterator<Item = Option<&'a [Access]>>) -> Option<Coverage> {
        let mut all: Vec<(Place, bool)> = Vec::new();
        for list in lists {
            for a in list? {
                if a.file == "input.cl" && a.line > 0 {
                    all.push(((a.line, a.column), a.ran));
                }
            }
        }
        let mut ran: Vec<Place> = all.iter().filter(|a| a.1).map(|a| a.0).collect();
        ran.sort_unstable();
        ran.dedup();
        let mut never: Vec<Place> = (all.iter())
            .filter(|a| !a.1 && ran.binary_search(&a.0).is_err())
            .map(|a| a.0)
            .collect();
        never.sort_unstable();
        never.dedup();
        Some(Coverage { ran, never })
    }
}

/// The problems the device is asked at, each as the simulator ran it (`looks`; `asked`, the
/// looks with the defines devices take; `own`, the device's own defines): those it ran whole,
/// three at most, the smallest first; then the asked size, where it ran the first and the
/// last work-group (code kept to the others runs on the device there).
pub(super) fn problems(
    ocl: &OclLesson,
    looks: &[Look],
    asked: &[AskedLook],
    own: Option<&Vec<Define>>,
) -> Vec<Ran> {
    let mads = |s: Shape| (s.m * s.n * s.k) as f64;
    let mut whole: Vec<Ran> = (looks.iter())
        .filter_map(|l| match *l {
            Look::Asked(i, shape, true, _) => Some((shape, asked[i].defines.clone())),
            Look::Asked(..) | Look::Own(_, false) | Look::Read(_) => None,
            Look::Own(shape, true) => own.map(|d| (shape, d.clone())),
            Look::Sanitize(_) | Look::Drawn(..) | Look::Metrics(..) => {
                probe_of(ocl, *l).map(|p| (p.shape, p.defines()))
            }
        })
        .map(|(shape, defines)| Ran {
            shape,
            defines,
            every_group: true,
        })
        .collect();
    whole.sort_by(|a, b| mads(a.shape).total_cmp(&mads(b.shape)));
    whole.dedup();
    whole.truncate(3);
    let at_the_asked_size = (looks.iter()).find_map(|l| match *l {
        Look::Asked(i, shape, false, true) if asked[i].own => Some(Ran {
            shape,
            defines: asked[i].defines.clone(),
            every_group: false,
        }),
        _ => None,
    });
    whole.extend(at_the_asked_size);
    whole
}

/// The names of the kernel's pointers to global memory: its parameters and variables
/// declared `__global` (or `global`) with a `*`.
fn global_names(text: &str) -> Vec<String> {
    let code = without_comments(text);
    let words: Vec<&str> = tokens(&code);
    let mut names = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if *w != "__global" && *w != "global" {
            continue;
        }
        // The first identifier after the first `*` that follows, past qualifiers.
        let Some(star) = (i + 1..words.len().min(i + 8)).find(|&j| words[j] == "*") else {
            continue;
        };
        let qualifier = |w: &str| matches!(w, "const" | "restrict" | "__restrict" | "volatile");
        if let Some(name) = (words[star + 1..])
            .iter()
            .find(|w| *w != &"*" && !qualifier(w))
            .filter(|w| is_identifier(w))
        {
            names.push(name.to_string());
        }
    }
    names.sort();
    names.dedup();
    names
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

/// `text` with the pointer of each place in `never` made to point one element further
/// (`A` written `(A+1)`): a run that reaches one of them reads or writes other elements, and
/// its C comes out wrong. `None` where a place's pointer cannot be told alone: no global
/// pointer is named on its line, or the name nearest to it is also the one nearest to a
/// place in `ran` (the shift would change code that ran too).
pub(super) fn shifted(text: &str, never: &[Place], ran: &[Place]) -> Option<String> {
    let code = without_comments(text);
    let names = global_names(text);
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
        out[line].replace_range(start..start + name.len(), &format!("({name}+1)"));
    }
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    Some(s)
}

/// Asks the device whether it runs the kernel's accesses that never ran under the simulator
/// (`coverage.never`), at `problems` the simulator ran (each with its defines); the verdict
/// fails where it does, says so where this could not be asked.
pub(super) fn check(
    ocl: &OclLesson,
    file: &Path,
    text: &str,
    opts: &Options,
    coverage: &Coverage,
    problems: &[Ran],
    v: &mut Verdict,
) {
    if coverage.never.is_empty() {
        return;
    }
    let mut lines: Vec<u32> = coverage.never.iter().map(|p| p.0).collect();
    lines.dedup();
    let (what, runs) = match lines.len() {
        1 => ("the global access on", "runs"),
        _ => ("the global accesses on", "run"),
    };
    let more = match lines.len() {
        n if n > 3 => format!(" and {} more lines", n - 3),
        _ => String::new(),
    };
    let shown = format!("{what} {}{more}", source_lines(text, &lines).join("; "));
    let unchecked = |v: &mut Verdict, why: String| {
        v.not_checked(
            Part::Races,
            format!(
                "not checked under the simulator: {shown} never ran there, and whether the device runs it could not be asked ({why})"
            ),
        )
    };
    let Some(mutated) = shifted(text, &coverage.never, &coverage.ran) else {
        unchecked(
            v,
            "its pointer could not be told apart from code that ran".into(),
        );
        return;
    };
    if problems.is_empty() {
        unchecked(v, "no problem the simulator ran".into());
        return;
    }
    let asked = || -> anyhow::Result<Option<(&Ran, Failure)>> {
        let gpu = Gpu::open(opts.device.as_deref())?;
        let seed = timing::secret_seed().rotate_left(23);
        let mut built: Vec<(&Vec<Define>, Prepared)> = Vec::new();
        for p in problems {
            if !built.iter().any(|b| b.0 == &p.defines) {
                let prepared = Prepared::build(
                    &gpu,
                    ocl,
                    file,
                    &mutated,
                    &p.defines,
                    &opts.build_options(ocl),
                )?;
                built.push((&p.defines, prepared));
            }
            let prepared = &built.iter().find(|b| b.0 == &p.defines).expect("built").1;
            let wrong = first_wrong(
                &gpu,
                ocl,
                prepared,
                &p.defines,
                &[p.shape],
                seed,
                &mut |_| {},
            )?;
            if let Some((_, f)) = wrong {
                return Ok(Some((p, f)));
            }
        }
        Ok(None)
    };
    match asked() {
        Err(e) => unchecked(v, format!("{e:#}")),
        // Runs on neither: a path for problems the lesson does not take.
        Ok(None) => v.notes.push(format!(
            "{shown} did not run under the simulator in this grading, nor on the device at the problems the simulator ran: none of them takes that path, so it was not checked there"
        )),
        Ok(Some((p, _))) => {
            let with = with_defines(&p.defines);
            let there = match p.every_group {
                true => "at that same problem",
                false => "at that same problem (the size this grading was asked for, where the simulator runs the first and the last work-group: code kept to the others is not checked there)",
            };
            v.failure = Some(Failure::new(
                FailKind::NotSelfContained,
                format!(
                    "{}: {shown} {runs} on the device at {}{with} and never ran under the simulator {there}. The grader checks your kernel under the simulator (races, reads out of bounds, the lesson's technique) and times it on the device, so both must run the same code: a kernel that branches on something they compute differently (the rounding of `mad`, `sin` or `exp`, a float converted past an integer's range, a value never initialised) shows each a different code. Compute what the product needs from the problem's sizes, the work-item's ids and the inputs only.",
                    paths::display(file),
                    p.shape
                ),
            ));
        }
    }
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
    fn coverage_is_over_every_look_and_unknown_where_one_did_not_end() {
        let at = |line, column, ran| Access {
            file: "input.cl".into(),
            line,
            column,
            ran,
        };
        let one = [at(4, 9, true), at(8, 16, false), at(9, 3, false)];
        let two = [at(9, 3, true), at(0, 0, false)];
        let c = Coverage::of([Some(&one[..]), Some(&two[..])]).unwrap();
        assert_eq!(c.never, vec![(8, 16)]);
        assert_eq!(c.ran, vec![(4, 9), (9, 3)]);
        assert!(Coverage::of([Some(&one[..]), None]).is_none());
    }
}
