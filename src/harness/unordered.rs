//! A matrix unit's model as the sanitizer's drawn run takes it ([`crate::lesson::Host::unordered`]).
//!
//! Lessons 11 and 12 model the tensor cores' `mma.sync` in OpenCL C: the lanes of a warp
//! exchange their fragments through local memory, which needs a barrier, and OpenCL C on PoCL
//! and Oclgrind has only the work-group's. So every call waits for every warp, and a race
//! between warps (one copying the next k-step over tiles another still reads) is ordered away
//! under the model, while on the tensor cores a warp waits for its own lanes only. The run that
//! asks the simulator about races takes the unit with a call that waits for nobody instead;
//! its numbers are not the product, and nobody reads them.
//!
//! The prelude is built line for line with the unit's file, so that a report in the unit's
//! lines (a copy's store, say) names that file and its line, and the text the simulator shows
//! for it is that line's: Oclgrind prints the line of its input with the reported number.

/// The prelude of `head` (lines that must come first: the unit's switches, its tables) and
/// `unit` (the text of the unit's file, `file`), line for line with `unit`: a `#line` naming
/// the file and `head` take the place of the unit's first lines, which must be comments; the
/// model's call, from `call` (the unique start of its definition) to `end` (the line after
/// it), becomes `with`, padded to as many lines; the kernel that follows is Oclgrind's
/// `input.cl` again. `None` where the unit does not fit that plan.
pub fn line_for_line(
    head: &str,
    unit: &str,
    file: &str,
    call: &str,
    end: &str,
    with: &str,
) -> Option<String> {
    let need = head.lines().count() + 1;
    let lines: Vec<&str> = unit.lines().collect();
    if lines.len() < need || !lines[..need].iter().all(|l| l.starts_with("//")) {
        return None;
    }
    // Where the unit's line `need + 1` starts.
    let skip = unit.match_indices('\n').nth(need - 1).map(|(i, _)| i + 1)?;
    let start = unit.find(call)?;
    let stop = start + unit[start..].find(end)?;
    if start < skip || unit[start + 1..].contains(call) {
        return None;
    }
    let model = unit[start..stop].lines().count();
    let pad = "\n".repeat(model.checked_sub(with.lines().count())?);
    let line = |s: &str| match s.ends_with('\n') || s.is_empty() {
        true => s.to_string(),
        false => format!("{s}\n"),
    };
    Some(format!(
        "#line 2 \"{file}\"\n{}{}{}{pad}{}#line 1 \"input.cl\"",
        line(head),
        &unit[skip..start],
        line(with),
        line(&unit[stop..]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIT: &str = "// one\n// two\n// three\nint before;\nvoid call(int x) {\n    wait();\n    wait();\n}\n// end\nint after;\n";

    #[test]
    fn the_prelude_keeps_every_line_of_the_unit_where_it_was() {
        let p = line_for_line(
            "#define A 1\n#define B 2\n",
            UNIT,
            "u.cl",
            "void call(",
            "// end",
            "void call(int x) {}\n",
        )
        .unwrap();
        let lines: Vec<&str> = p.lines().collect();
        assert_eq!(
            lines,
            [
                "#line 2 \"u.cl\"",
                "#define A 1",
                "#define B 2",
                "int before;",
                "void call(int x) {}",
                "",
                "",
                "",
                "// end",
                "int after;",
                "#line 1 \"input.cl\"",
            ]
        );
        // Line k of the prelude is line k of the unit, but for the head and the call.
        let unit: Vec<&str> = UNIT.lines().collect();
        assert_eq!(lines[3], unit[3]);
        assert_eq!(lines[8..10], unit[8..10]);
    }

    #[test]
    fn a_unit_that_does_not_fit_the_plan_gives_none() {
        let fits = |head: &str, unit: &str, with: &str| {
            line_for_line(head, unit, "u.cl", "void call(", "// end", with).is_some()
        };
        assert!(fits("#define A 1\n", UNIT, "void call(int x) {}\n"));
        // Too many lines of head for the unit's comments.
        assert!(!fits("a\nb\nc\n", UNIT, "void call(int x) {}\n"));
        // No such call, or a replacement longer than the model.
        assert!(!fits("#define A 1\n", "// a\n// b\nint x;\n// end\n", "x"));
        assert!(!fits("#define A 1\n", UNIT, "1\n2\n3\n4\n5\n6\n"));
    }
}
