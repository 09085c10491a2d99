//! The address reader and the leftovers watch: where a kernel reads the value of a pointer,
//! or what a buffer it writes held before it wrote it, found under Oclgrind by the course's
//! plugins (`addresses.cpp`, `leftovers.cpp`, built with the others by [`super::plugin`]);
//! here, what they wrote, read back.
//!
//! A pointer's value is where the OpenCL runtime put a buffer: the simulator puts each at a
//! whole 2^48, a device wherever its allocator does. Code that reads one can tell the
//! simulator from the device, and so show the simulator a clean run, or the lesson's
//! technique, that the device never runs.
//!
//! What C holds when a kernel starts is not an input either: a kernel that reads it can learn
//! whether it ran before, or count the work-groups that came before its own (tickets taken
//! by atomics on an element of C), which the simulator, running a few work-groups of a
//! large launch, answers otherwise than the device.

/// The file, in the run's folder, where the plugin writes the places it found.
pub const OUT_FILE: &str = "addresses.txt";

/// The variable that names that file to the plugin.
pub const OUT_VARIABLE: &str = "LAB_ADDRESSES_OUT";

/// What a kernel read that is not its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reading {
    /// A pointer's value: where the runtime put a buffer (`addresses.cpp`).
    Pointer,
    /// What a buffer the kernel writes held before the kernel wrote it: C's poison, a
    /// ticket counted on it (`leftovers.cpp`).
    Unwritten,
}

/// A place in the program's source where the kernel reads what is not its input.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// What it read there.
    pub what: Reading,
    /// The source file as the simulator's compiler names it (`input.cl` for the kernel's own
    /// text), empty where the instruction has no debug location (or where the read was a
    /// work-group's copy, which has none).
    pub file: String,
    /// Its line, from 1 (0: no debug location).
    pub line: u32,
}

/// Reads the plugins' lines (`pointer FILE LINE`, `unwritten FILE LINE`; `-` for no file),
/// each place once, in order.
pub fn parse(text: &str) -> Vec<Place> {
    let mut places: Vec<Place> = text
        .lines()
        .filter_map(|l| {
            let [what, file, line] = l.split_whitespace().collect::<Vec<_>>()[..] else {
                return None;
            };
            Some(Place {
                what: match what {
                    "pointer" => Reading::Pointer,
                    "unwritten" => Reading::Unwritten,
                    _ => return None,
                },
                file: if file == "-" {
                    String::new()
                } else {
                    file.to_string()
                },
                line: line.parse().ok()?,
            })
        })
        .collect();
    places.sort();
    places.dedup();
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_places_are_read_once_each_and_others_ignored() {
        let text = "pointer input.cl 14\nnoise\npointer - 0\npointer input.cl 14\npointer input.cl x\npointer input.cl 3\nunwritten input.cl 3\nleftover input.cl 9\n";
        let at = |what, file: &str, line| Place {
            what,
            file: file.into(),
            line,
        };
        use Reading::*;
        assert_eq!(
            parse(text),
            vec![
                at(Pointer, "", 0),
                at(Pointer, "input.cl", 3),
                at(Pointer, "input.cl", 14),
                at(Unwritten, "input.cl", 3)
            ]
        );
        assert!(parse("").is_empty());
    }
}
