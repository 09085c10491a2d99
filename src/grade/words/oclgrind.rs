//! An Oclgrind finding in the student's terms: what happened and where, the source line
//! quoted with a caret, and a hint.

use std::fmt::Write as _;

use crate::harness::oclgrind::*;

/// The identifier an access at `column` (1-based) of a source line is about: for a load,
/// the array or pointer at that column; for a store, Oclgrind points at the `=`, so the
/// target left of it; for `vloadN`/`vstoreN`, the pointer argument.
pub fn operand(line: &str, column: u32) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let ident_at = |mut i: usize| -> Option<(String, usize)> {
        if i >= chars.len() || !(chars[i].is_ascii_alphabetic() || chars[i] == '_') {
            return None;
        }
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        Some((chars[start..i].iter().collect(), i))
    };
    let i = (column as usize).checked_sub(1)?;
    if i >= chars.len() {
        return None;
    }
    if let Some((name, end)) = ident_at(i) {
        if (name.starts_with("vload") || name.starts_with("vstore")) && chars.get(end) == Some(&'(')
        {
            // The pointer is the last argument: vload4(0, A + i), vstore4(v, 0, C + i).
            let mut depth = 0;
            let mut last_arg = end + 1;
            for (j, &c) in chars.iter().enumerate().skip(end + 1) {
                match c {
                    '(' | '[' => depth += 1,
                    ')' | ']' if depth > 0 => depth -= 1,
                    ')' => break,
                    ',' if depth == 0 => last_arg = j + 1,
                    _ => {}
                }
            }
            let mut j = last_arg;
            while j < chars.len() && !(chars[j].is_ascii_alphabetic() || chars[j] == '_') {
                j += 1;
            }
            return ident_at(j).map(|(n, _)| n).or(Some(name));
        }
        return Some(name);
    }
    match chars[i] {
        // `*(const __global float4*)p`: skip the dereference and the cast.
        '*' | '(' => {
            let mut j = i;
            if chars[j] == '*' {
                j += 1;
            }
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            if j < chars.len() && chars[j] == '(' {
                let mut depth = 0;
                while j < chars.len() {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                j += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            while j < chars.len() && !(chars[j].is_ascii_alphabetic() || chars[j] == '_') {
                j += 1;
            }
            ident_at(j).map(|(n, _)| n)
        }
        // A store: `Asub[tr][tc] = ...`, `acc[i] += ...`; walk left over the subscripts.
        _ => {
            let mut j = i;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                match chars[j] {
                    ' ' | '\t' | '+' | '-' | '*' | '/' | '|' | '&' | '^' => continue,
                    ']' => {
                        let mut depth = 1;
                        while depth > 0 {
                            if j == 0 {
                                return None;
                            }
                            j -= 1;
                            match chars[j] {
                                ']' => depth += 1,
                                '[' => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    c if is_ident(c) => {
                        let end = j + 1;
                        while j > 0 && is_ident(chars[j - 1]) {
                            j -= 1;
                        }
                        return Some(chars[j..end].iter().collect());
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// Renders a finding for the student: what happened and where, the source line(s) quoted
/// from the kernel file (`path` as it should be shown, `source` its text) with a caret at
/// the column, and a hint. Oclgrind calls every program built from a string `input.cl`;
/// that name is replaced by `path`.
pub fn render(finding: &Finding, path: &str, source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let text_of = |l: &Location| -> Option<String> {
        if l.file == "input.cl" || l.file.is_empty() {
            lines
                .get((l.line as usize).checked_sub(1)?)
                .map(|s| s.to_string())
        } else {
            l.source.clone()
        }
    };
    // The operand at the column: in the kernel's own lines only, whose text is the file's
    // (the simulator's echo of another file's line may have lost its indentation).
    let name_of = |l: &Option<Location>| -> Option<String> {
        let l = l
            .as_ref()
            .filter(|l| l.file == "input.cl" || l.file.is_empty())?;
        operand(&text_of(l)?, l.column)
    };
    let file_of = |l: &Location| -> String {
        if l.file == "input.cl" || l.file.is_empty() {
            path.to_string()
        } else {
            l.file.clone()
        }
    };
    let line_no = |l: &Option<Location>| l.as_ref().map(|l| l.line);
    let verb = |l: &Option<Location>| {
        if l.as_ref().is_some_and(Location::is_store) {
            "writes"
        } else {
            "reads"
        }
    };
    let named = |n: Option<String>| n.map(|n| format!(" {n}")).unwrap_or_default();

    let what = match &finding.kind {
        Kind::Race { kind, space } => {
            let target = named(name_of(&finding.at).or_else(|| name_of(&finding.other)));
            let between = match (line_no(&finding.at), line_no(&finding.other)) {
                (Some(a), Some(o)) if a == o && *kind == RaceKind::WriteWrite => {
                    format!("two work-items write the same element at line {a}")
                }
                (Some(a), Some(o)) if a == o => format!(
                    "line {a} {} it in one work-item while another work-item {} it",
                    verb(&finding.at),
                    verb(&finding.other)
                ),
                (Some(a), Some(o)) => format!(
                    "line {a} {} it while line {o} {} it in another work-item",
                    verb(&finding.at),
                    verb(&finding.other)
                ),
                _ => "two work-items access it".to_string(),
            };
            // Only work-items of one group can be ordered, and only by a barrier.
            let unordered = if *space == Space::Local {
                ", with no barrier between them"
            } else {
                ""
            };
            let kind = match kind {
                RaceKind::ReadWrite => "read-write",
                RaceKind::WriteWrite => "write-write",
            };
            format!(
                "data race ({kind}) on {}{target}: {between}{unordered}",
                space.qualifier()
            )
        }
        Kind::InvalidAccess {
            access,
            space,
            size,
            ..
        } => {
            let verb = match access {
                Access::Read => "read",
                Access::Write => "write",
            };
            let target = name_of(&finding.at);
            let place = match (finding.buffer_offset(), space) {
                (Some((_, off)), Space::Global | Space::Constant) if off < 0 => format!(
                    "before the start of{}, at index {} counting floats from its start",
                    named(target.clone()),
                    off / 4
                ),
                (Some((_, off)), Space::Global | Space::Constant) => format!(
                    "past the end of{}, at index {} counting floats from its start",
                    named(target.clone()),
                    off / 4
                ),
                _ => format!(
                    "outside the {} array{}",
                    space.qualifier(),
                    named(target.clone())
                ),
            };
            format!("{verb} of {size} bytes {place}")
        }
        Kind::IndexOutOfRange {
            index,
            size,
            access,
            space,
        } => {
            let target = named(name_of(&finding.at));
            let verb = match access {
                Some(Access::Write) => "write to",
                _ => "read from",
            };
            let space = space.map(|s| format!("{} ", s.qualifier())).unwrap_or_default();
            format!(
                "{verb} the {space}array{target} at index {index}, but that dimension has {size} elements (0 to {})",
                size.saturating_sub(1)
            )
        }
        Kind::Unaligned { access } => {
            let target = named(name_of(&finding.at));
            let verb = match access {
                Access::Read => "load from",
                Access::Write => "store to",
            };
            format!("vector {verb}{target} at an address that is not a multiple of the vector's size")
        }
        Kind::Uninitialized(u) => match u {
            Uninit::ValueWritten(space) => format!(
                "a value that was never initialised is stored into {}{}",
                space.qualifier(),
                named(name_of(&finding.at))
            ),
            Uninit::Address(access, space) => format!(
                "an address computed from an uninitialised value is used to {} {} memory",
                match access {
                    Access::Read => "read",
                    Access::Write => "write",
                },
                space.qualifier()
            ),
            Uninit::ControlFlow => {
                "a branch or loop condition depends on an uninitialised value".to_string()
            }
            Uninit::Index => "an array index depends on an uninitialised value".to_string(),
        },
        Kind::Divergence { what, reached } => {
            let group = finding
                .entity
                .as_ref()
                .and_then(|e| e.group)
                .map(|g| format!(" of work-group ({},{})", g[0], g[1]))
                .unwrap_or_default();
            match (reached, line_no(&finding.other)) {
                (Some((n, of)), _) => {
                    format!("only {n} of the {of} work-items{group} reached this {what}")
                }
                (None, Some(o)) => format!(
                    "work-items{group} waited at different {what}s: this one and the one at line {o}"
                ),
                _ => format!("the work-items{group} did not all reach the same {what}"),
            }
        }
        Kind::Api {
            function,
            error,
            info,
        } => {
            let info = info.as_ref().map(|i| format!(" ({i})")).unwrap_or_default();
            format!("the OpenCL call {function} failed with {error}{info}")
        }
        Kind::SimulatorFailure { message } => format!(
            "the simulator could not run this kernel to its end ({message}); this is a limit of Oclgrind, not necessarily a bug in the kernel"
        ),
        Kind::Other { message } => message.clone(),
    };

    let mut out = String::new();
    let head = match &finding.at {
        Some(l) => format!("{}:{}:{}", file_of(l), l.line, l.column),
        None => path.to_string(),
    };
    let _ = write!(out, "{head}: {what}");
    if let Some(e) = &finding.entity {
        if !matches!(finding.kind, Kind::Divergence { .. }) {
            let who = match &finding.other_entity {
                Some(o) if o.group.is_some() && o.group == e.group && o.local.is_some() => {
                    let xy = |v: [u64; 3]| format!("({},{})", v[0], v[1]);
                    format!(
                        "work-items {} and {} of work-group {}",
                        e.local.map(xy).unwrap_or_default(),
                        o.local.map(xy).unwrap_or_default(),
                        e.group.map(xy).unwrap_or_default()
                    )
                }
                Some(o) => format!("{} and {}", e.describe(), o.describe()),
                None => e.describe(),
            };
            let _ = write!(out, " (first seen in {who}");
            out.push(')');
        }
    }
    if finding.count > 1 {
        let _ = write!(out, "; reported {} times", finding.count);
    }
    out.push('\n');

    // Quote the lines in source order, each once, with a caret under each column.
    let mut places: Vec<&Location> = [&finding.at, &finding.other]
        .into_iter()
        .flatten()
        .collect();
    places.sort_by_key(|l| (l.line, l.column));
    let width = places
        .iter()
        .map(|l| l.line.to_string().len())
        .max()
        .unwrap_or(1);
    let mut i = 0;
    while i < places.len() {
        let l = places[i];
        let mut columns = vec![l.column];
        while i + 1 < places.len() && places[i + 1].line == l.line {
            i += 1;
            columns.push(places[i].column);
        }
        i += 1;
        let Some(text) = text_of(l) else {
            continue;
        };
        let _ = writeln!(out, "  {:>width$} | {}", l.line, text.trim_end());
        let mut marks: Vec<char> = Vec::new();
        for c in columns {
            let c = c as usize;
            if c == 0 {
                continue;
            }
            if marks.len() < c {
                marks.resize(c, ' ');
            }
            marks[c - 1] = '^';
        }
        if !marks.is_empty() {
            // Tabs in the line keep the caret aligned only if copied.
            let prefix: String = text
                .chars()
                .take(marks.len())
                .zip(&marks)
                .map(|(t, &m)| {
                    if m == '^' {
                        '^'
                    } else if t == '\t' {
                        '\t'
                    } else {
                        ' '
                    }
                })
                .collect();
            let _ = writeln!(out, "  {:>width$} | {}", "", prefix.trim_end());
        }
    }
    let _ = writeln!(out, "  hint: {}", hint(finding));
    out
}

/// Why such a finding happens and what usually fixes it.
pub fn hint(finding: &Finding) -> &'static str {
    match &finding.kind {
        Kind::Race {
            space: Space::Local,
            ..
        } => "work-items of a group run in no fixed order, so one may read a tile element before another has written it, or overwrite it while others still read it. Put barrier(CLK_LOCAL_MEM_FENCE) after the loads that fill a tile (before anyone reads it) and another after the reads (before the next tile overwrites it). PoCL and many GPUs happen to hide this; other devices give wrong numbers.",
        Kind::Race {
            kind: RaceKind::WriteWrite,
            ..
        } => "two work-items wrote the same element: the index formula maps two (row, column) pairs to one address, or two work-groups cover the same part of C. Check that every element of C is written by exactly one work-item.",
        Kind::Race { .. } => "one work-item read an element that another wrote, with nothing ordering the two: work-items of different groups never synchronise, and those of one group only at a barrier. Read only what you wrote yourself, or what the group wrote before a barrier.",
        Kind::InvalidAccess {
            space: Space::Global | Space::Constant,
            access: Access::Read,
            ..
        } => "an index went outside the matrix. Check the loop bounds (k < K, not k <= K), the row stride (K for A, N for B and C), and, where tiles hang over the edges of the matrices, that loads outside A or B read 0.0f instead of memory.",
        Kind::InvalidAccess {
            space: Space::Global | Space::Constant,
            access: Access::Write,
            ..
        } => "an index into C went outside it. Check the row stride (C is M×N: element (row, col) is C[row * N + col]) and, where tiles hang over the edges, skip the stores with row >= M or col >= N. On a GPU such a write silently corrupts other data.",
        Kind::InvalidAccess { .. } | Kind::IndexOutOfRange { .. } => "an index went past the end of an array declared in the kernel. Check which define sizes each dimension (TSM, TSN, TSK, WPTM, WPTN, padding) and that the index stays below it for every work-item.",
        Kind::Unaligned { .. } => "a floatN access must start at an address that is a multiple of its size: casting A + i to float4* when i is not a multiple of 4 (a row length K or N that is not a multiple of 4) breaks that. Use the vector path only where every row starts on a vector boundary, or vloadN/vstoreN, which need only float alignment.",
        Kind::Uninitialized(_) => "a value was used before anything was stored in it: an accumulator declared without `= 0.0f`, an element of a __local tile that no work-item loaded (or read before the barrier that follows the loads), a private array only partly filled, or C read before the kernel wrote it (C is only an output: whatever it held before the launch is not the kernel's to read, add into or test).",
        Kind::Divergence { .. } => "every work-item of a group must reach every barrier, the same number of times. A barrier inside `if (row < M)` or after an early `return` is reached by only some of them: on a GPU that hangs or corrupts the tile. Keep all work-items in the loop, let those outside the matrix load zeros, and skip only their store.",
        Kind::Api { .. } => "an OpenCL call failed while the simulator ran the program. If it is the build, the compiler's log above says why; Oclgrind's compiler is stricter than some drivers.",
        Kind::SimulatorFailure { .. } => "re-run without the uninitialised-value check (OCLGRIND_UNINITIALIZED=0), or with -cl-opt-disable, to check the rest; the numbers from this run are not meaningful.",
        Kind::Other { .. } => "see Oclgrind's message for details.",
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::oclgrind::parse;

    macro_rules! fixture {
        ($name:literal) => {
            (
                include_str!(concat!("../../../tests/fixtures/oclgrind/", $name, ".txt")),
                include_str!(concat!("../../../tests/fixtures/oclgrind/", $name, ".cl")),
            )
        };
    }

    fn lines(f: &Finding) -> (Option<u32>, Option<u32>) {
        (
            f.at.as_ref().map(|l| l.line),
            f.other.as_ref().map(|l| l.line),
        )
    }

    #[test]
    fn missing_barrier_is_a_local_race_between_the_store_and_the_reads() {
        let (out, src) = fixture!("race_missing_barrier");
        let r = parse(out);
        assert!(r.suppressed, "50 messages, then Oclgrind stops");
        assert!(r.counts.is_none());
        assert!(!r.findings.is_empty());
        for f in &r.findings {
            assert_eq!(
                f.kind,
                Kind::Race {
                    kind: RaceKind::ReadWrite,
                    space: Space::Local
                }
            );
            assert_eq!(f.kernel.as_deref(), Some("matmul"));
        }
        // The stores of the tiles (lines 36, 37) race with the reads in the loop (line 42).
        let pairs: Vec<_> = r.findings.iter().map(lines).collect();
        assert_eq!(pairs, vec![(Some(36), Some(42)), (Some(37), Some(42))]);
        assert_eq!(r.findings.iter().map(|f| f.count).sum::<usize>(), 50);
        let first = &r.findings[0];
        assert_eq!(first.at.as_ref().unwrap().column, 22);
        assert_eq!(first.other.as_ref().unwrap().column, 20);
        assert_eq!(
            first.other.as_ref().unwrap().source.as_deref(),
            Some("acc += Asub[tr][k] * Bsub[k][tc];")
        );

        let text = render(first, "kernels/05_local_tiling.cl", src);
        assert!(
            text.starts_with("kernels/05_local_tiling.cl:36:22: data race (read-write) on __local Asub: line 36 writes it while line 42 reads it in another work-item, with no barrier between them (first seen in work-items (0,0) and (1,0) of work-group (0,0)); reported 43 times\n"),
            "{text}"
        );
        assert!(text.contains("  36 |         Asub[tr][tc] = A[row * K + t * TS + tc];\n"));
        assert!(text.contains("  42 |             acc += Asub[tr][k] * Bsub[k][tc];\n"));
        assert!(text.contains("     |                    ^\n"), "{text}");
        assert!(text.contains("hint: work-items of a group run in no fixed order"));
        let second = render(&r.findings[1], "kernels/05_local_tiling.cl", src);
        assert!(second.contains("__local Bsub"), "{second}");
    }

    #[test]
    fn misplaced_barrier_races_on_the_tile_written_after_it() {
        let (out, src) = fixture!("race_misplaced_barrier");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Race {
                kind: RaceKind::ReadWrite,
                space: Space::Local
            }
        );
        assert_eq!(lines(f), (Some(38), Some(41)));
        let text = render(f, "k.cl", src);
        assert!(text.contains("on __local Bsub"), "{text}");
        assert!(text.contains("  38 |         Bsub[tr][tc] = B[(t * TS + tr) * N + col];"));
    }

    #[test]
    fn races_come_before_the_uninitialised_values_they_cause() {
        let (out, src) = fixture!("race_and_uninitialised");
        let r = parse(out);
        assert!(!r.suppressed);
        // Oclgrind printed the uninitialised stores first: they happen while the work-items
        // run, races are reported when the work-group ends. The race is the cause.
        assert!(out
            .trim_start()
            .starts_with("Uninitialized value written to global"));
        let kinds: Vec<u8> = r.findings.iter().map(|f| f.kind.rank()).collect();
        assert_eq!(kinds, vec![0, 0, 6]);
        assert_eq!(lines(&r.findings[0]), (Some(36), Some(41)));
        assert_eq!(lines(&r.findings[1]), (Some(37), Some(41)));
        let last = r.findings.last().unwrap();
        assert_eq!(
            last.kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
        assert_eq!(lines(last), (Some(48), None));
        assert!(render(&r.findings[1], "k.cl", src).contains("__local Bsub"));
    }

    #[test]
    fn two_work_items_writing_one_element_of_c() {
        let (out, src) = fixture!("race_global_write_write");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Race {
                kind: RaceKind::WriteWrite,
                space: Space::Global
            }
        );
        assert_eq!(f.count, 6);
        assert_eq!(lines(f), (Some(21), Some(21)));
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with("kernels/04_naive_kernel.cl:21:26: data race (write-write) on __global C: two work-items write the same element at line 21 (first seen in work-item (0,0) of work-group (1,0) and work-item (0,0) of work-group (0,0)); reported 6 times\n"),
            "{text}"
        );
        assert_eq!(text.matches("  21 |").count(), 1, "the line is quoted once");
        assert!(text.contains("hint: two work-items wrote the same element"));
    }

    #[test]
    fn an_unguarded_edge_store_comes_before_the_races_it_causes() {
        let (out, src) = fixture!("store_without_column_guard");
        let r = parse(out);
        // Oclgrind printed 11 invalid writes and 45 races on C, interleaved.
        assert_eq!(out.matches("Write-write data race at global").count(), 45);
        let f = &r.findings[0];
        assert!(matches!(
            f.kind,
            Kind::InvalidAccess {
                access: Access::Write,
                space: Space::Global,
                ..
            }
        ));
        assert_eq!(f.count, 11);
        let text = render(f, "kernels/08_padding.cl", src);
        assert!(
            text.contains(":180:30: write of 4 bytes past the end of C"),
            "{text}"
        );
        assert!(text.contains("C[row * N + col + w] = out.s[w];"));
        assert!(r.findings[1..].iter().all(|f| matches!(
            f.kind,
            Kind::Race {
                kind: RaceKind::WriteWrite,
                space: Space::Global
            }
        )));
    }

    #[test]
    fn reading_past_the_end_names_the_matrix_and_the_index() {
        let (out, src) = fixture!("read_past_end");
        let r = parse(out);
        let reads: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::InvalidAccess { .. }))
            .collect();
        assert_eq!(reads.len(), 2, "{:#?}", r.findings);
        // B (column 33) overruns first, then A (column 16) on the last row.
        let b = reads[0];
        assert!(matches!(
            b.kind,
            Kind::InvalidAccess {
                access: Access::Read,
                space: Space::Global,
                size: 4,
                ..
            }
        ));
        assert_eq!(
            (b.at.as_ref().unwrap().line, b.at.as_ref().unwrap().column),
            (19, 33)
        );
        // B is 5×3: index 15 is one past its end.
        assert_eq!(b.buffer_offset().map(|(_, o)| o), Some(60));
        let text = render(b, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with("kernels/04_naive_kernel.cl:19:33: read of 4 bytes past the end of B, at index 15 counting floats from its start (first seen in work-item (0,0) of work-group (0,0)); reported"),
            "{text}"
        );
        assert!(text.contains("hint: an index went outside the matrix"));
        let a = render(reads[1], "k.cl", src);
        assert!(a.contains("past the end of A, at index 20"), "{a}");
        // The garbage read is then stored: reported, after the cause.
        assert!(matches!(
            r.findings.last().unwrap().kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        ));
    }

    #[test]
    fn writing_past_the_end_of_c() {
        let (out, src) = fixture!("write_past_end");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert!(matches!(
            f.kind,
            Kind::InvalidAccess {
                access: Access::Write,
                space: Space::Global,
                size: 4,
                ..
            }
        ));
        assert_eq!(f.count, 6);
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.starts_with(
                "kernels/04_naive_kernel.cl:21:22: write of 4 bytes past the end of C, at index 20"
            ),
            "{text}"
        );
        assert!(text.contains("  21 |     C[row * K + col] = acc;\n"));
        assert!(text.contains("hint: an index into C went outside it"));
    }

    #[test]
    fn writing_before_the_start_of_c() {
        let (out, src) = fixture!("write_before_start");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(f.buffer_offset(), Some((1, -4)));
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("before the start of C, at index -1"),
            "{text}"
        );
    }

    #[test]
    fn uninitialised_accumulator_shows_at_the_store() {
        let (out, src) = fixture!("uninitialised");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
        assert_eq!(f.count, 9, "one per element of the 3×3 C");
        let text = render(f, "kernels/04_naive_kernel.cl", src);
        assert!(
            text.contains("never initialised is stored into __global C"),
            "{text}"
        );
        assert!(text.contains("declared without `= 0.0f`"));
    }

    #[test]
    fn early_return_leaves_barriers_half_reached() {
        let (out, src) = fixture!("divergence_early_return");
        let r = parse(out);
        let div: Vec<&Finding> = r
            .findings
            .iter()
            .filter(|f| matches!(f.kind, Kind::Divergence { .. }))
            .collect();
        assert_eq!(div.len(), 2);
        assert_eq!(
            div[0].kind,
            Kind::Divergence {
                what: "barrier".into(),
                reached: Some((32, 64))
            }
        );
        assert_eq!(lines(div[0]), (Some(43), None));
        assert_eq!(lines(div[1]), (Some(49), None));
        assert_eq!(
            div[0].entity.as_ref().and_then(|e| e.group),
            Some([0, 1, 0])
        );
        let text = render(div[0], "kernels/05_local_tiling.cl", src);
        assert!(
            text.starts_with("kernels/05_local_tiling.cl:43:9: only 32 of the 64 work-items of work-group (0,1) reached this barrier\n"),
            "{text}"
        );
        assert!(text.contains("  43 |         barrier(CLK_LOCAL_MEM_FENCE);"));
        assert!(text.contains("hint: every work-item of a group must reach every barrier"));
        assert_eq!(
            r.findings[0].kind, div[0].kind,
            "divergence before its effects"
        );
    }

    #[test]
    fn barrier_in_a_branch_pairs_the_two_barriers() {
        let (out, src) = fixture!("divergence_branch");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Divergence {
                what: "barrier".into(),
                reached: None
            }
        );
        assert_eq!(lines(f), (Some(39), Some(46)));
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("waited at different barriers: this one and the one at line 46"),
            "{text}"
        );
        assert!(text.contains("  46 |             barrier(CLK_LOCAL_MEM_FENCE);"));
    }

    #[test]
    fn out_of_range_indices_of_local_and_private_arrays() {
        let (out, src) = fixture!("local_out_of_bounds");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::IndexOutOfRange {
                index: 8,
                size: 8,
                access: Some(Access::Write),
                space: Some(Space::Local)
            }
        );
        let text = render(f, "k.cl", src);
        assert!(text.contains("write to the __local array Asub at index 8, but that dimension has 8 elements (0 to 7)"), "{text}");
        // The same stores, also reported as writes outside Asub's memory, are not repeated.
        assert!(out.contains("Invalid write of size 4 at local memory"));
        assert!(!r
            .findings
            .iter()
            .any(|f| matches!(f.kind, Kind::InvalidAccess { .. })));

        let (out, src) = fixture!("private_out_of_bounds");
        let r = parse(out);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::IndexOutOfRange {
                index: 4,
                size: 4,
                access: Some(Access::Read),
                space: Some(Space::Private)
            }
        );
        let text = render(f, "k.cl", src);
        assert!(
            text.contains("read from the private array acc at index 4"),
            "{text}"
        );
        assert_eq!(
            r.findings.len(),
            2,
            "the index, then the garbage it stored into C"
        );

        let invalid = Finding {
            kind: Kind::InvalidAccess {
                access: Access::Read,
                space: Space::Private,
                size: 4,
                address: 0xc_0000_0020,
            },
            ..f.clone()
        };
        assert!(
            render(&invalid, "k.cl", src).contains("read of 4 bytes outside the private array acc")
        );
    }

    #[test]
    fn unaligned_vector_load_names_the_pointer() {
        let (out, src) = fixture!("unaligned_vector_load");
        let r = parse(out);
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::Unaligned {
                access: Access::Read
            }
        );
        assert_eq!(f.count, 50);
        let text = render(f, "kernels/10_tuned.cl", src);
        assert!(
            text.starts_with("kernels/10_tuned.cl:67:21: vector load from p at an address"),
            "{text}"
        );
    }

    #[test]
    fn simulator_failure_is_not_the_kernels_fault() {
        let (out, src) = fixture!("fatal_freeze");
        let r = parse(out);
        assert!(r.simulator_failed());
        assert_eq!(r.kernel_faults().count(), 0);
        let f = &r.findings[0];
        assert_eq!(
            f.kind,
            Kind::SimulatorFailure {
                message: "Unsupported instruction: freeze".into()
            }
        );
        assert!(f.at.is_none());
        assert_eq!(f.count, 1, "one per worker thread, which then stops");
        let text = render(f, "kernels/06_register_tiling.cl", src);
        assert!(
            text.starts_with(
                "kernels/06_register_tiling.cl: the simulator could not run this kernel"
            ),
            "{text}"
        );
    }

    #[test]
    fn api_errors_and_foreign_lines() {
        let (out, src) = fixture!("api_build_failure");
        let r = parse(out);
        // "1 error generated." is the compiler's, not a finding.
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].kind,
            Kind::Api {
                function: "clBuildProgram".into(),
                error: "CL_BUILD_PROGRAM_FAILURE".into(),
                info: None
            }
        );
        assert!(render(&r.findings[0], "k.cl", src).contains("clBuildProgram failed"));
        assert!(parse("").is_clean());
        assert!(parse("Lesson 05 · Local-memory tiling\n  check passed\n").is_clean());
    }

    #[test]
    fn the_operand_of_an_access() {
        assert_eq!(
            operand("    C[row * N + col] = acc;", 22).as_deref(),
            Some("C")
        );
        assert_eq!(operand("acc += A[i] * B[j];", 15).as_deref(), Some("B"));
        assert_eq!(
            operand("vstore4(acc[i][j], 0, out);", 1).as_deref(),
            Some("out")
        );
        assert_eq!(
            operand("a = vload4(0, A + r * K);", 5).as_deref(),
            Some("A")
        );
        assert_eq!(
            operand("ra[l] = *(const __global float4*)p;", 9).as_deref(),
            Some("p")
        );
        assert_eq!(operand("acc[wm][wn] += x;", 13).as_deref(), Some("acc"));
    }
}
