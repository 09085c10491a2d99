//! The bank counter: how many passes a GPU's local memory would take to serve a kernel's
//! local accesses, warp by warp, counted under Oclgrind by the course's plugin (`banks.cpp`,
//! built with the others by [`super::plugin`]); here, what it wrote, read back.
//!
//! Oclgrind counts instructions, not addresses, so a tile declared padded and indexed as if
//! it were not looks padded to its counts: the rows still start in the same banks. The
//! plugin sees every local access's address, puts each warp's accesses of one instruction
//! back together, and counts the passes 32 banks of 4-byte words need for them.

use serde::{Deserialize, Serialize};

/// The file, in the run's folder, where the plugin writes its counts.
pub const OUT_FILE: &str = "banks.txt";

/// The variable that names that file to the plugin.
pub const OUT_VARIABLE: &str = "LAB_BANKS_OUT";

/// What the plugin counted over every kernel run of one process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Banks {
    /// Local loads and stores, one per work-item's access.
    pub accesses: u64,
    /// Passes the warps' accesses take with their conflicts.
    pub passes: u64,
    /// Passes the same accesses take without any conflict.
    pub ideal: u64,
    /// The same by line of the kernel's source and kind of access, in the order first met.
    pub lines: Vec<Line>,
}

/// The passes of the local accesses of one line of a kernel, loads or stores.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub kernel: String,
    /// The line in the source the simulator built (0: no debug location).
    pub line: u32,
    pub store: bool,
    pub passes: u64,
    pub ideal: u64,
}

impl Line {
    /// Passes per conflict-free pass.
    pub fn ratio(&self) -> f64 {
        ratio(self.passes, self.ideal)
    }
}

fn ratio(passes: u64, ideal: u64) -> f64 {
    match ideal {
        0 => 1.0,
        i => passes as f64 / i as f64,
    }
}

impl Banks {
    /// Passes per pass a conflict-free layout would need: 1 is conflict-free, 4 a four-way
    /// conflict on average.
    pub fn ratio(&self) -> f64 {
        ratio(self.passes, self.ideal)
    }

    /// The line whose accesses meet most in the same banks.
    pub fn worst(&self) -> Option<&Line> {
        self.lines
            .iter()
            .max_by(|a, b| a.ratio().total_cmp(&b.ratio()))
    }
}

/// Reads the plugin's lines (`kernel NAME accesses N passes P ideal I`, then `line L load
/// passes P ideal I` for that kernel), summed over the kernels run; `None` when there are
/// none (the plugin did not load, or nothing ran).
pub fn parse(text: &str) -> Option<Banks> {
    let mut sum: Option<Banks> = None;
    let mut kernel = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |s: &str| s.parse::<u64>().ok();
        match words[..] {
            ["kernel", name, "accesses", a, "passes", p, "ideal", i] => {
                let (Some(a), Some(p), Some(i)) = (number(a), number(p), number(i)) else {
                    continue;
                };
                kernel = name.to_string();
                let s = sum.get_or_insert_with(Banks::default);
                s.accesses += a;
                s.passes += p;
                s.ideal += i;
            }
            ["line", l, kind @ ("load" | "store"), "passes", p, "ideal", i] => {
                let (Some(l), Some(p), Some(i), Some(s)) =
                    (number(l), number(p), number(i), sum.as_mut())
                else {
                    continue;
                };
                let store = kind == "store";
                let l = l as u32;
                match (s.lines.iter_mut())
                    .find(|x| x.kernel == kernel && x.line == l && x.store == store)
                {
                    Some(x) => {
                        x.passes += p;
                        x.ideal += i;
                    }
                    None => s.lines.push(Line {
                        kernel: kernel.clone(),
                        line: l,
                        store,
                        passes: p,
                        ideal: i,
                    }),
                }
            }
            _ => {}
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_s_lines_are_summed_and_others_ignored() {
        let text = "kernel matmul accesses 10 passes 12 ideal 4\nline 7 store passes 8 ideal 2\nline 9 load passes 4 ideal 2\nnoise\nkernel pad accesses 2 passes 2 ideal 2\nline 7 store passes 2 ideal 2\nkernel matmul accesses 1 passes 1 ideal 1\nline 7 store passes 1 ideal 1\nkernel x accesses z passes 1 ideal 1\n";
        let b = parse(text).unwrap();
        assert_eq!((b.accesses, b.passes, b.ideal), (13, 15, 7));
        assert!((b.ratio() - 15.0 / 7.0).abs() < 1e-12);
        assert_eq!(b.lines.len(), 3);
        let worst = b.worst().unwrap();
        assert_eq!(
            (worst.kernel.as_str(), worst.line, worst.store),
            ("matmul", 7, true)
        );
        assert_eq!((worst.passes, worst.ideal), (9, 3));
        assert_eq!(parse("nothing here\n"), None);
    }
}
