//! The address reader: where a kernel reads the value of a pointer, found under Oclgrind by
//! the course's plugin (`addresses.cpp`, built with the others by [`super::plugin`]); here,
//! what it wrote, read back.
//!
//! A pointer's value is where the OpenCL runtime put a buffer: the simulator puts each at a
//! whole 2^48, a device wherever its allocator does. Code that reads one can tell the
//! simulator from the device, and so show the simulator a clean run, or the lesson's
//! technique, that the device never runs.

/// The file, in the run's folder, where the plugin writes the places it found.
pub const OUT_FILE: &str = "addresses.txt";

/// The variable that names that file to the plugin.
pub const OUT_VARIABLE: &str = "LAB_ADDRESSES_OUT";

/// A place in the program's source where a pointer's value is read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    /// The source file as the simulator's compiler names it (`input.cl` for the kernel's own
    /// text), empty where the instruction has no debug location.
    pub file: String,
    /// Its line, from 1 (0: no debug location).
    pub line: u32,
}

/// Reads the plugin's lines (`pointer FILE LINE`, `-` for no file), each place once, in
/// order.
pub fn parse(text: &str) -> Vec<Place> {
    let mut places: Vec<Place> = text
        .lines()
        .filter_map(|l| match l.split_whitespace().collect::<Vec<_>>()[..] {
            ["pointer", file, line] => Some(Place {
                file: if file == "-" {
                    String::new()
                } else {
                    file.to_string()
                },
                line: line.parse().ok()?,
            }),
            _ => None,
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
    fn the_plugin_s_places_are_read_once_each_and_others_ignored() {
        let text = "pointer input.cl 14\nnoise\npointer - 0\npointer input.cl 14\npointer input.cl x\npointer input.cl 3\n";
        let at = |file: &str, line| Place {
            file: file.into(),
            line,
        };
        assert_eq!(
            parse(text),
            vec![at("", 0), at("input.cl", 3), at("input.cl", 14)]
        );
        assert!(parse("").is_empty());
    }
}
