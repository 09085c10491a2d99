//! The coverage of memory accesses: every place in a kernel's program that reads or writes
//! global or local memory, and whether it ran, found under Oclgrind by the course's plugin
//! (`coverage.cpp`, built with the others by [`super::plugin`]); here, what it wrote, read
//! back.
//!
//! A kernel that tells the simulator from the device (by arithmetic that differs between
//! them: a fused `mad`, a rounding of `sin`, a float converted out of an integer's range)
//! runs other code on the device; that code's accesses never run under the simulator.
//!
//! The same plugin, which follows every instruction the lesson's programs run, also counts the
//! lanes of their vector float multiplications ([`lanes`]), which the simulator's own count
//! does not tell.

/// The file, in the run's folder, where the plugin writes the places.
pub const OUT_FILE: &str = "coverage.txt";

/// The variable that names that file to the plugin.
pub const OUT_VARIABLE: &str = "LAB_COVERAGE_OUT";

/// The variable that names the kernel whose programs the plugin reads (the lesson's).
pub const KERNEL_VARIABLE: &str = "LAB_COVERAGE_KERNEL";

/// A place in the program's source that reads or writes global or local memory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Access {
    /// The source file as the simulator's compiler names it (`input.cl` for the kernel's own
    /// text), empty where the instruction has no debug location.
    pub file: String,
    /// Its line and column, from 1 (0: none).
    pub line: u32,
    pub column: u32,
    /// Whether any work-item ran it.
    pub ran: bool,
}

/// Reads the plugin's lines (`access LINE COLUMN ran|never FILE`, `-` for no file; the file
/// last, since a name given by `#line` may hold spaces), `None` where the list does not end
/// with `end` (the run stopped before a kernel ended).
pub fn parse(text: &str) -> Option<Vec<Access>> {
    let mut places = Vec::new();
    for l in text.lines() {
        if l == "end" {
            return Some(places);
        }
        if l.starts_with("lanes ") {
            continue;
        }
        let mut parts = l.splitn(5, ' ');
        let (Some("access"), Some(line), Some(column), Some(ran), Some(file)) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        places.push(Access {
            file: match file {
                "-" => String::new(),
                f => f.to_string(),
            },
            line: line.parse().ok()?,
            column: column.parse().ok()?,
            ran: match ran {
                "ran" => true,
                "never" => false,
                _ => return None,
            },
        });
    }
    None
}

/// The lanes past the first of every float multiplication and division of a vector type the
/// lesson's programs ran (`lanes N`, before `end`): what the simulator's own count, which
/// counts an instruction once whatever its width, leaves out. `None` where the list has no
/// such line or does not end.
pub fn lanes(text: &str) -> Option<u64> {
    parse(text)?;
    (text.lines()).find_map(|l| l.strip_prefix("lanes ")?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_s_places_are_read_and_a_list_without_its_end_is_none() {
        let text = "access 14 9 ran input.cl\naccess 0 0 never -\naccess 3 1 never the course's image\nend\n";
        let places = parse(text).expect("a whole list");
        assert_eq!(places.len(), 3);
        assert_eq!(places[2].file, "the course's image");
        assert_eq!(
            (places[0].line, places[0].column, places[0].ran),
            (14, 9, true)
        );
        assert_eq!((places[1].file.as_str(), places[1].ran), ("", false));
        assert_eq!(parse("access 14 9 ran input.cl\n"), None);
        assert_eq!(parse("access x 9 ran input.cl\nend\n"), None);
        assert_eq!(parse("end\n"), Some(Vec::new()));
        assert_eq!(lanes(text), None);
        let with_lanes = "access 14 9 ran input.cl\nlanes 21\nend\n";
        assert_eq!(parse(with_lanes).map(|p| p.len()), Some(1));
        assert_eq!(lanes(with_lanes), Some(21));
        assert_eq!(lanes("lanes 21\n"), None);
    }
}
