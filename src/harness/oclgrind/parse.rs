//! Reading Oclgrind's output into findings and instruction counts.

use std::collections::BTreeMap;

use super::findings::*;

/// One message of Oclgrind's output: a header line, maybe more unindented lines right after
/// it, then indented lines.
struct Message<'a> {
    header: Vec<&'a str>,
    body: Vec<&'a str>,
}

/// How Oclgrind's own messages begin: such a line starts a message even when the program's
/// output runs straight into it.
const HEADERS: &[&str] = &[
    "Instructions executed for kernel",
    "Read-write data race at ",
    "Write-write data race at ",
    "Invalid read of size ",
    "Invalid write of size ",
    "Invalid memory load",
    "Invalid memory store",
    "Index (",
    "Unaligned address on ",
    "Uninitialized ",
    "Controlflow depends on uninitialized",
    "Instruction depends on an uninitialized",
    "Work-group divergence detected",
    "Oclgrind - OpenCL runtime error detected",
    "OCLGRIND FATAL ERROR",
    "Oclgrind: ",
];

/// Splits output into messages. Oclgrind prints each message after an empty line with its
/// body indented by tabs; lines that belong to no message (the program's own output) are
/// dropped later because no header matches them.
fn messages(text: &str) -> Vec<Message<'_>> {
    let mut out: Vec<Message> = Vec::new();
    let mut previous_blank = true;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() && !line.starts_with('\t') {
            previous_blank = true;
            continue;
        }
        let indented = line.starts_with('\t') || line.starts_with(' ');
        let known = !indented && HEADERS.iter().any(|h| line.starts_with(h));
        match out.last_mut() {
            Some(m) if indented => m.body.push(line),
            // An unindented line right after a header (a fatal error's explanation).
            Some(m) if !known && !previous_blank && m.body.is_empty() => m.header.push(line),
            _ if indented => {}
            _ => out.push(Message {
                header: vec![line],
                body: Vec::new(),
            }),
        }
        previous_blank = false;
    }
    out
}

/// Reads the locations and entities of a message body, in order.
struct Body {
    kernel: Option<String>,
    /// (entity line, instruction, location) in order of appearance.
    places: Vec<(Option<Entity>, Option<Location>)>,
    lines: Vec<String>,
}

fn body(lines: &[&str]) -> Body {
    let lines: Vec<String> = lines.iter().map(|l| l.trim().to_string()).collect();
    let mut kernel = None;
    let mut places: Vec<(Option<Entity>, Option<Location>)> = Vec::new();
    let mut entity: Option<Entity> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        if let Some(k) = l.strip_prefix("Kernel:") {
            kernel = Some(k.trim().to_string());
        } else if l.starts_with("Entity:")
            || l.starts_with("First entity:")
            || l.starts_with("Second entity:")
            || l.starts_with("Work-item:")
        {
            entity = Entity::parse(l);
        } else if let Some(loc) = parse_at(l) {
            let instruction = (i > 0).then(|| lines[i - 1].clone());
            let source = lines
                .get(i + 1)
                .filter(|s| s.as_str() != "(source not available)")
                .cloned();
            places.push((
                entity.take(),
                Some(Location {
                    instruction,
                    source,
                    ..loc
                }),
            ));
            i += 1;
        } else if l == "Debugging information not available." {
            places.push((entity.take(), None));
        }
        i += 1;
    }
    if places.is_empty() {
        if let Some(e) = entity {
            places.push((Some(e), None));
        }
    }
    Body {
        kernel,
        places,
        lines,
    }
}

/// `At line 42 (column 20) of input.cl:`
fn parse_at(l: &str) -> Option<Location> {
    let rest = l.strip_prefix("At line ")?;
    let (line, rest) = rest.split_once(" (column ")?;
    let (column, rest) = rest.split_once(")")?;
    let file = rest.strip_prefix(" of ")?.strip_suffix(':')?;
    Some(Location {
        file: file.to_string(),
        line: line.trim().parse().ok()?,
        column: column.trim().parse().ok()?,
        source: None,
        instruction: None,
    })
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

/// Parses Oclgrind's output: stderr for the findings, stdout for instruction counts (pass
/// both, concatenated, when both are wanted). Lines that are not Oclgrind's are ignored.
pub fn parse(output: &str) -> Report {
    let mut report = Report::default();
    let mut found: Vec<Finding> = Vec::new();
    for m in messages(output) {
        let header = m.header[0].trim();
        if header.starts_with("Instructions executed for kernel") {
            let counts = report.counts.get_or_insert_with(Counts::default);
            if let Some(name) = header.split('\'').nth(1) {
                if !counts.kernels.iter().any(|k| k == name) {
                    counts.kernels.push(name.to_string());
                }
            }
            for line in &m.body {
                add_count(counts, line);
            }
            continue;
        }
        if header.starts_with("Oclgrind: ") && header.contains("suppressing further errors") {
            report.suppressed = true;
            continue;
        }
        let b = body(&m.body);
        if let Some(f) = finding(&m.header, b) {
            match found.iter_mut().find(|x| x.key() == f.key()) {
                Some(x) => x.count += 1,
                None => found.push(f),
            }
        }
    }
    // Oclgrind reports an index past the end of a kernel's array twice when the address
    // also falls outside the array's memory: one finding is enough.
    let indexed: Vec<(u32, u32)> = found
        .iter()
        .filter(|f| matches!(f.kind, Kind::IndexOutOfRange { .. }))
        .filter_map(|f| f.at.as_ref().map(|l| (l.line, l.column)))
        .collect();
    found.retain(|f| {
        let local = matches!(
            f.kind,
            Kind::InvalidAccess {
                space: Space::Local | Space::Private,
                ..
            }
        );
        !(local
            && f.at
                .as_ref()
                .is_some_and(|l| indexed.contains(&(l.line, l.column))))
    });
    // Stable: within a kind, first appearance first.
    found.sort_by_key(|f| f.kind.rank());
    report.findings = found;
    report
}

/// `           31488 - br` or `24576 - load local (98304 bytes)`; counts printed in another
/// locale carry separators, which are dropped.
fn add_count(counts: &mut Counts, line: &str) {
    let Some((n, name)) = line.trim().split_once(" - ") else {
        return;
    };
    let digits = |s: &str| -> Option<u64> {
        let d: String = s.chars().filter(char::is_ascii_digit).collect();
        d.parse().ok()
    };
    let Some(n) = digits(n) else {
        return;
    };
    let (name, bytes) = match name.rsplit_once(" (") {
        Some((op, b))
            if b.ends_with("bytes)") && (op.starts_with("load ") || op.starts_with("store ")) =>
        {
            (op.to_string(), digits(b))
        }
        _ => (name.to_string(), None),
    };
    // No simulated run executes 2^48 instructions; a larger count, or a sum that would wrap,
    // was printed by the kernel (wrapped, it would take counts away from the real ones).
    let add = |m: &mut BTreeMap<String, u64>, n: u64| {
        let total = m.entry(name.clone()).or_insert(0);
        match total.checked_add(n).filter(|&t| t < 1 << 48) {
            Some(t) => *total = t,
            None => return true,
        }
        false
    };
    let mut printed = add(&mut counts.ops, n);
    if let Some(b) = bytes {
        printed |= add(&mut counts.bytes, b);
    }
    // A kernel that printed wrote to the stream the counts are read from.
    counts.printed |= printed || (name.starts_with("call printf(") && n > 0);
}

/// The finding a message describes, if it is one of Oclgrind's.
fn finding(header: &[&str], b: Body) -> Option<Finding> {
    let h = header[0].trim();
    let words: Vec<&str> = h.split_whitespace().collect();
    let first = b.places.first().cloned().unwrap_or((None, None));
    let second = b.places.get(1).cloned().unwrap_or((None, None));
    let mut f = Finding {
        kind: Kind::Other {
            message: h.to_string(),
        },
        kernel: b.kernel.clone(),
        at: first.1,
        other: None,
        entity: first.0,
        other_entity: None,
        count: 1,
    };
    if h.contains(" data race at ") {
        // "Read-write data race at local memory address 0x1000000000000"
        let kind = if h.starts_with("Write-write") {
            RaceKind::WriteWrite
        } else {
            RaceKind::ReadWrite
        };
        let space = Space::parse(words.get(4).copied().unwrap_or(""));
        f.kind = Kind::Race { kind, space };
        f.other = second.1;
        f.other_entity = second.0;
        // The write first, so the same pair of lines reads the same whichever work-item
        // Oclgrind named first; two writes in source order.
        let swap = match (&f.at, &f.other) {
            (Some(a), Some(o)) => match kind {
                RaceKind::ReadWrite => !a.is_store() && o.is_store(),
                RaceKind::WriteWrite => (o.line, o.column) < (a.line, a.column),
            },
            _ => false,
        };
        if swap {
            std::mem::swap(&mut f.at, &mut f.other);
            std::mem::swap(&mut f.entity, &mut f.other_entity);
        }
    } else if h.starts_with("Invalid read of size ") || h.starts_with("Invalid write of size ") {
        // "Invalid read of size 4 at global memory address 0x30000000003c0"
        f.kind = Kind::InvalidAccess {
            access: if words[1] == "write" {
                Access::Write
            } else {
                Access::Read
            },
            size: words.get(4).and_then(|s| s.parse().ok()).unwrap_or(0),
            space: Space::parse(words.get(6).copied().unwrap_or("")),
            address: words.get(9).and_then(|s| hex(s)).unwrap_or(0),
        };
    } else if let Some(rest) = h.strip_prefix("Index (") {
        // "Index (8) exceeds static array size (8)"
        let index = rest.split(')').next().and_then(|s| s.parse().ok())?;
        let size = h
            .rsplit('(')
            .next()
            .and_then(|s| s.trim_end_matches(')').parse().ok())?;
        let access = f.at.as_ref().and_then(Location::access);
        f.kind = Kind::IndexOutOfRange {
            index,
            size,
            access: access.map(|a| a.0),
            space: access.map(|a| a.1),
        };
    } else if h.starts_with("Invalid memory load - source pointer is not aligned")
        || h.starts_with("Invalid memory store - source pointer is not aligned")
        || h.starts_with("Unaligned address on ")
    {
        let store = h.starts_with("Invalid memory store") || h.contains("vstore");
        f.kind = Kind::Unaligned {
            access: if store { Access::Write } else { Access::Read },
        };
    } else if let Some(rest) = h.strip_prefix("Uninitialized value written to ") {
        f.kind = Kind::Uninitialized(Uninit::ValueWritten(Space::parse(
            rest.split_whitespace().next().unwrap_or(""),
        )));
    } else if let Some(rest) = h.strip_prefix("Uninitialized address used to ") {
        // "... read from global memory address 0x..." / "... write to local memory ..."
        let access = if rest.starts_with("write") {
            Access::Write
        } else {
            Access::Read
        };
        let space = rest.split_whitespace().nth(2).unwrap_or("");
        f.kind = Kind::Uninitialized(Uninit::Address(access, Space::parse(space)));
    } else if h.starts_with("Controlflow depends on uninitialized value") {
        f.kind = Kind::Uninitialized(Uninit::ControlFlow);
    } else if h.starts_with("Instruction depends on an uninitialized index value") {
        f.kind = Kind::Uninitialized(Uninit::Index);
    } else if let Some(rest) = h.strip_prefix("Work-group divergence detected (") {
        let what = rest.trim_end_matches(')').to_string();
        // "Only 32 out of 64 work-items executed barrier"
        let reached = b.lines.iter().find_map(|l| {
            let rest = l.strip_prefix("Only ")?;
            let w: Vec<&str> = rest.split_whitespace().collect();
            Some((w.first()?.parse().ok()?, w.get(3)?.parse().ok()?))
        });
        f.kind = Kind::Divergence { what, reached };
        f.other = second.1;
        if f.entity.is_none() {
            f.entity = b
                .lines
                .iter()
                .find_map(|l| l.strip_prefix("Work-group:"))
                .and_then(|g| Entity::parse(&format!("Group{}", g.trim())));
        }
    } else if h == "Oclgrind - OpenCL runtime error detected" {
        let field = |name: &str| {
            b.lines
                .iter()
                .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
        };
        let info = b
            .lines
            .iter()
            .find(|l| !l.starts_with("Function:") && !l.starts_with("Error:") && !l.is_empty())
            .cloned();
        f.kind = Kind::Api {
            function: field("Function:").unwrap_or_default(),
            error: field("Error:").unwrap_or_default(),
            info,
        };
    } else if h.starts_with("OCLGRIND FATAL ERROR") {
        f.kind = Kind::SimulatorFailure {
            message: header[1..].join(" ").trim().to_string(),
        };
    } else if b.kernel.is_none() {
        // Not a message about a kernel: the program's own output.
        return None;
    }
    Some(f)
}
#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            (
                include_str!(concat!("../../../tests/fixtures/oclgrind/", $name, ".txt")),
                include_str!(concat!("../../../tests/fixtures/oclgrind/", $name, ".cl")),
            )
        };
    }

    #[test]
    fn a_low_error_limit_can_hide_the_race_behind_its_effects() {
        let (out, _) = fixture!("suppressed_before_race");
        let r = parse(out);
        assert!(r.suppressed);
        assert_eq!(r.findings.len(), 1);
        assert_eq!(
            r.findings[0].kind,
            Kind::Uninitialized(Uninit::ValueWritten(Space::Global))
        );
    }

    #[test]
    fn counts_of_the_tiled_kernel_and_its_decoy() {
        // 16×24×40 with TS = 8: 15360 multiply-adds.
        let mnk = 16.0 * 24.0 * 40.0;
        let (out, _) = fixture!("counts_05_solution");
        let r = parse(out);
        assert!(r.is_clean());
        let c = r.counts.unwrap();
        assert_eq!(c.kernels, vec!["matmul".to_string()]);
        assert_eq!(c.count("br"), 39168);
        assert_eq!(c.multiply_adds(), 15360);
        assert_eq!(c.global_loads().count as f64 / mnk, 0.25, "2 / TS");
        assert_eq!(c.global_loads().bytes_per_access(), 4.0);
        assert_eq!(c.local_loads().count as f64 / mnk, 2.0);
        assert_eq!(c.barriers(), 384 * 5 * 2, "work-items × tiles × 2");
        assert_eq!(c.global_stores().count, 384);

        let (out, _) = fixture!("counts_05_decoy");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.global_loads().count as f64 / mnk, 2.0);
        assert_eq!(c.local_loads().count, 0);
        assert_eq!(
            c.barriers(),
            384 * 5 * 2,
            "the decoy's barriers look the same"
        );
    }

    #[test]
    fn vector_loads_whether_pointers_or_vload() {
        let mnk = 16.0 * 32.0 * 24.0;
        let (out, _) = fixture!("counts_07_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.global_loads().bytes_per_access(), 16.0);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);
        let per_mad = c.global_loads().count as f64 / mnk;

        let (out, _) = fixture!("counts_07_vload4");
        let c = parse(out).counts.unwrap();
        assert_eq!(
            c.loads(Space::Global).count,
            0,
            "vload4 is a call, not a load"
        );
        assert_eq!(c.vector_calls(false, Space::Global).count, 576);
        assert_eq!(c.global_loads().bytes_per_access(), 16.0);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);
        assert_eq!(c.global_loads().count as f64 / mnk, per_mad);
        assert_eq!(c.multiply_adds() as f64, mnk);
    }

    #[test]
    fn image_reads_and_mad_calls() {
        let (out, _) = fixture!("counts_09_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.image_reads(), 1024);
        // 16×64×16 with RM = 4: one pixel read per 4·RM multiply-adds.
        assert_eq!(c.image_reads() as f64 / (16.0 * 64.0 * 16.0), 1.0 / 16.0);
        assert_eq!(c.vector_calls(true, Space::Global).count, 256);
        assert_eq!(c.global_stores().bytes_per_access(), 16.0);

        let (out, _) = fixture!("counts_10_solution");
        let c = parse(out).counts.unwrap();
        assert_eq!(c.multiply_adds(), 64 * 32 * 24, "float4 mad() counts 4");
        assert_eq!(c.local_loads().bytes_per_access(), 16.0);
        assert_eq!(c.barriers(), 192);
    }

    /// A kernel that prints writes to the stream the counts are read from: a block of its own
    /// whose numbers wrap would take counts away from the real ones. Its counts are marked,
    /// whatever it printed; a kernel that never printed keeps them.
    #[test]
    fn counts_a_kernel_could_have_printed_are_marked() {
        let real = "Instructions executed for kernel 'matmul':\n            2048 - load global (8192 bytes)\n            1024 - call llvm.fmuladd.f32()\n";
        assert!(!parse(real).counts.unwrap().printed);
        let forged = format!("Instructions executed for kernel 'matmul':\n 18446744073709549568 - load global (18446744073709543424 bytes)\n\n{real}");
        let c = parse(&forged).counts.unwrap();
        assert!(c.printed, "a count that wraps is marked");
        let huge = format!("Instructions executed for kernel 'matmul':\n 281474976710656 - call llvm.fmuladd.f32()\n\n{real}");
        assert!(
            parse(&huge).counts.unwrap().printed,
            "more than a run executes"
        );
        let printing = format!("{real}               1 - call printf()\n");
        assert!(
            parse(&printing).counts.unwrap().printed,
            "printf was called"
        );
        assert!(parse(&printing).counts.unwrap().scaled(2.0).printed);
    }

    #[test]
    fn counts_in_another_locale_and_mixed_with_other_output() {
        let out = "PROBE ok\nInstructions executed for kernel 'matmul':\n       1,234,567 - load global (4.938.268 bytes)\n              12 - call _Z7barrierj()\n\nsomething else\n";
        let c = parse(out).counts.unwrap();
        assert_eq!(
            c.loads(Space::Global),
            Traffic {
                count: 1_234_567,
                bytes: 4_938_268
            }
        );
        assert_eq!(c.barriers(), 12);
    }
}
