//! The work-group ids a kernel sees. Where the simulator runs a large launch it runs only its
//! first and last work-groups (Oclgrind's quick mode) and judges the rest by them: a kernel
//! that keyed its technique, or a read past a buffer, on "not the first group" would show the
//! simulator its good groups only. So every build of a lesson's kernel, on every device,
//! begins with the same few lines: `get_group_id` and `get_global_id` (and OpenCL 2.0's
//! `get_global_linear_id`, from them) through macros that swap group 0 of each dimension with
//! one other group. On a device the swap is the identity (a constant the compiler folds
//! away); under the simulator the other group is drawn for the build, so the first group the
//! simulator runs is, as the kernel sees it, one no kernel can know in advance (never the last
//! in any dimension: the last group's partial tiles stay checked). A swap of two whole
//! work-groups changes nothing for a kernel whose groups are independent, as every lesson's
//! are. The constant's name begins with two underscores, which a lesson's file may not write,
//! and the file may not define or undefine the ids' names ([`crate::grade`]'s self-contained
//! check). At the grading's largest launch the simulator also runs the block with the edges
//! ([`see_edges`]): the two groups it runs are then seen as one in the last column of groups
//! and one in the last row, each at a drawn place along the other side.
//!
//! The device, too, runs a few work-groups of a launch: a grading's largest problem, past
//! 4,096 on every side, on a [`Window`] of its groups. There the block hands the kernel the
//! ids of the groups the window's stand for and the counts of the whole launch
//! (`get_num_groups`, `get_global_size`), names a file may not define or undefine either.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::harness::device::Gpu;

/// Whether this process's builds under the simulator see the edges: the first group of
/// dimension 0 the last one (and the last the drawn one), so that the two work-groups quick
/// mode runs are, as the kernel sees them, one in the last column of groups at a drawn row and
/// one in the last row at a drawn column, where the usual block shows a drawn group and the
/// last corner. A grading asks both at its largest launch ([`crate::grade::simulate`]).
static EDGES: AtomicBool = AtomicBool::new(false);

/// Sets the block's edges for the builds this process makes from now on.
pub fn see_edges(edges: bool) {
    EDGES.store(edges, Ordering::Relaxed);
}

/// The file name the block's lines carry in the compiler's and the simulator's reports.
pub const FILE: &str = "groups.cl";

/// A window of a launch: in each of dimensions 0 and 1, two of its work-groups (a drawn one
/// and the last), or all of them where there are at most two. The device runs the window's
/// groups alone ([`Window::launch`]), and a build made inside [`with_window`] hands every
/// kernel the ids and sizes of the whole launch: a group of the window sees the id of the
/// group it stands for, and `get_num_groups` and `get_global_size` are the whole launch's.
/// So a large problem costs a few work-groups, and no kernel can tell them from the whole
/// launch. In dimension 1 a launch may hold several problems one under the other (lesson 11's
/// parts of K, [`crate::harness::exec::run_padded`]): the window then holds its two groups of
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The work-groups of the whole launch (of one problem, in dimension 1).
    pub groups: [usize; 2],
    /// The group the window's first stands for, in each dimension (below the last).
    pub drawn: [usize; 2],
}

impl Window {
    /// The window of a launch of `groups` work-groups, its first group in each dimension
    /// drawn from `draw` below the last.
    pub fn draw(groups: [usize; 2], mut draw: impl FnMut() -> u64) -> Window {
        let mut drawn = [0; 2];
        for d in 0..2 {
            if groups[d] > 2 {
                drawn[d] = (draw() % (groups[d] as u64 - 1)) as usize;
            }
        }
        Window { groups, drawn }
    }

    /// Work-groups the window runs in dimension `d` (of one problem).
    pub fn width(&self, d: usize) -> usize {
        self.groups[d].min(2)
    }

    /// The group the window's `g`-th stands for in dimension `d`.
    pub fn seen(&self, g: usize, d: usize) -> usize {
        let w = self.width(d);
        let pick = match g % w {
            0 if self.groups[d] > 2 => self.drawn[d],
            0 => 0,
            _ if self.groups[d] > 2 => self.groups[d] - 1,
            _ => 1,
        };
        (g / w) * self.groups[d] + pick
    }

    /// The window's own launch: its groups, each of the whole launch's work-group.
    pub fn launch(&self, local: [usize; 2]) -> crate::harness::exec::Launch {
        crate::harness::exec::Launch {
            global: [self.width(0) * local[0], self.width(1) * local[1]],
            local: Some(local),
        }
    }

    /// Work-groups the window runs, of how many (one problem).
    pub fn runs(&self) -> (usize, usize) {
        (
            self.width(0) * self.width(1),
            self.groups[0] * self.groups[1],
        )
    }
}

thread_local! {
    /// The window this thread's builds see ([`with_window`]).
    static WINDOW: std::cell::Cell<Option<Window>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` (a build) with the block handing its kernels the ids of `window`'s whole launch.
pub fn with_window<T>(window: Window, f: impl FnOnce() -> T) -> T {
    WINDOW.with(|w| w.set(Some(window)));
    let out = f();
    WINDOW.with(|w| w.set(None));
    out
}

/// The window this thread's builds see now, if any.
pub fn window() -> Option<Window> {
    WINDOW.with(|w| w.get())
}

/// The block for a build on `gpu`, ending where the next text's `#line` takes over: the swap
/// drawn from the operating system's randomness under Oclgrind, none elsewhere; inside
/// [`with_window`], the window's ids.
pub fn block(gpu: &Gpu) -> String {
    if let Some(w) = window() {
        return window_text(&w);
    }
    let simulated = gpu.info.platform.to_lowercase().contains("oclgrind");
    let swap = match simulated {
        true => (crate::harness::rng::secret_seed() % 1_000_003) as u32 + 1,
        false => 0,
    };
    text(swap, simulated && EDGES.load(Ordering::Relaxed))
}

/// The block with swap constant `swap` (0: none). Macros only, no functions: a call the
/// kernel makes is then the builtin's, as before (Oclgrind 21.10 with its instruction counts
/// on crashed in quick mode when every id went through a function of the program). Inside a
/// macro's own expansion its name means the builtin (the preprocessor never expands a macro
/// within itself), so `get_global_id(d)` there is the device's id, from which the group it
/// lies in is found (launches are whole work-groups, and a group that is not the first or
/// the swapped one keeps its id whatever its size).
///
/// With `edges`, dimension 0 takes a cycle of three in place of the swap: group 0 is seen as
/// the last, the last as the drawn one, the drawn one as 0.
fn text(swap: u32, edges: bool) -> String {
    let edges = u32::from(edges);
    format!(
        "#line 1 \"{FILE}\"
#define __LAB_SWAP {swap}u
#define __LAB_EDGES {edges}u
#define __LAB_S(d) (__LAB_SWAP != 0 && get_num_groups(d) > 2 ? 1 + (__LAB_SWAP + 7919u * (uint)(d)) % (get_num_groups(d) - 2) : (size_t)0)
#define __LAB_MAP(g, s) ((s) == 0 || ((g) != 0 && (g) != (s)) ? (g) : ((g) == 0 ? (s) : (size_t)0))
#define __LAB_CYCLE(g, s, l) ((g) == 0 ? (l) : (g) == (l) ? (s) : (g) == (s) ? (size_t)0 : (g))
#define __LAB_G(g, d) (__LAB_EDGES != 0 && (d) == 0 && __LAB_S(d) != 0 ? __LAB_CYCLE(g, __LAB_S(d), get_num_groups(d) - 1) : __LAB_MAP(g, __LAB_S(d)))
#define __LAB_AT(x, l, o, d) (__LAB_S(d) == 0 ? (x) : __LAB_G(((x) - (o)) / (l), d) * (l) + ((x) - (o)) % (l) + (o))
#define get_group_id(d) __LAB_G(get_group_id(d), d)
#define get_global_id(d) __LAB_AT(get_global_id(d), get_local_size(d), get_global_offset(d), d)
#define get_global_linear_id() ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) * get_global_size(0) + (get_global_id(1) - get_global_offset(1)) * get_global_size(0) + get_global_id(0) - get_global_offset(0))
"
    )
}

/// The block of a window: each id the group the window's stands for ([`Window::seen`]), the
/// counts and sizes the whole launch's. Launches have no offset. Macros only, as [`text`].
fn window_text(w: &Window) -> String {
    let [w0, w1] = [w.width(0), w.width(1)];
    let [n0, n1] = w.groups;
    let pick = |d: usize, i: usize| w.seen(i, d) as u64;
    let (s0, l0, s1, l1) = (pick(0, 0), pick(0, w0 - 1), pick(1, 0), pick(1, w1 - 1));
    format!(
        "#line 1 \"{FILE}\"
#define __LAB_WW(d) ((d) == 0 ? {w0}u : (d) == 1 ? {w1}u : 1u)
#define __LAB_WN(d) ((d) == 0 ? {n0}u : (d) == 1 ? {n1}u : 1u)
#define __LAB_WF(d) ((d) == 0 ? {s0}u : (d) == 1 ? {s1}u : 0u)
#define __LAB_WL(d) ((d) == 0 ? {l0}u : (d) == 1 ? {l1}u : 0u)
#define __LAB_WG(g, d) ((size_t)((g) / __LAB_WW(d)) * __LAB_WN(d) + ((g) % __LAB_WW(d) == 0 ? __LAB_WF(d) : __LAB_WL(d)))
#define get_group_id(d) __LAB_WG(get_group_id(d), d)
#define get_global_id(d) (__LAB_WG(get_global_id(d) / get_local_size(d), d) * get_local_size(d) + get_global_id(d) % get_local_size(d))
#define get_num_groups(d) ((size_t)(get_num_groups(d) / __LAB_WW(d)) * __LAB_WN(d))
#define get_global_size(d) (get_num_groups(d) * get_local_size(d))
#define get_global_linear_id() ((get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0))
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_is_the_same_text_but_for_its_constant() {
        let (none, drawn) = (text(0, false), text(12345, true));
        assert!(none.contains("#define __LAB_SWAP 0u"));
        assert!(drawn.contains("#define __LAB_SWAP 12345u"));
        assert!(drawn.contains("#define __LAB_EDGES 1u"));
        assert_eq!(none.lines().count(), drawn.lines().count());
        assert!(none.starts_with("#line 1 \"groups.cl\"\n"));
        // Macros only: no function of the block's own is ever called.
        assert!(
            none.lines().skip(1).all(|l| l.starts_with("#define ")),
            "{none}"
        );
    }

    /// The block's swap, in Rust: group 0 and the drawn one exchanged, the last never moved.
    fn seen(g: usize, n: usize, swap: usize) -> usize {
        let s = if swap != 0 && n > 2 {
            1 + swap % (n - 2)
        } else {
            0
        };
        if s == 0 || (g != 0 && g != s) {
            g
        } else if g == 0 {
            s
        } else {
            0
        }
    }

    /// The edges' cycle of dimension 0, in Rust.
    fn seen_at_edges(g: usize, n: usize, swap: usize) -> usize {
        let s = seen(0, n, swap);
        match (s, g) {
            (0, _) => g,
            (_, 0) => n - 1,
            _ if g == n - 1 => s,
            _ if g == s => 0,
            _ => g,
        }
    }

    #[test]
    fn the_edges_cycle_is_a_permutation_showing_the_last_group_first() {
        for n in 3..40 {
            for swap in [1, 7, 999_983] {
                let mut ids: Vec<usize> = (0..n).map(|g| seen_at_edges(g, n, swap)).collect();
                assert_eq!(ids[0], n - 1, "n = {n}");
                assert!(ids[n - 1] != 0 && ids[n - 1] != n - 1, "n = {n}");
                ids.sort();
                assert_eq!(ids, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_window_stands_for_a_drawn_group_and_the_last_of_each_problem() {
        let mut x = 7u64;
        for n0 in 1..30 {
            for n1 in [1, 2, 3, 17] {
                let w = Window::draw([n0, n1], || {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    x >> 11
                });
                for (d, n) in [(0, n0), (1, n1)] {
                    let seen: Vec<usize> = (0..w.width(d)).map(|g| w.seen(g, d)).collect();
                    assert_eq!(*seen.last().unwrap(), n - 1, "the last group, n = {n}");
                    assert!(seen.windows(2).all(|p| p[0] < p[1]), "{seen:?}");
                    // Problems one under the other: each one's own two groups.
                    for z in 0..3 {
                        for (g, s) in seen.iter().enumerate() {
                            assert_eq!(w.seen(z * w.width(d) + g, d), z * n + s);
                        }
                    }
                }
                let l = w.launch([4, 2]);
                assert_eq!(l.global, [4 * n0.min(2), 2 * n1.min(2)]);
            }
        }
        let text = window_text(&Window {
            groups: [9, 5],
            drawn: [3, 0],
        });
        assert!(
            text.contains("(d) == 0 ? 3u : (d) == 1 ? 0u : 0u"),
            "{text}"
        );
        assert!(
            text.contains("(d) == 0 ? 8u : (d) == 1 ? 4u : 0u"),
            "{text}"
        );
        assert!(text.lines().skip(1).all(|l| l.starts_with("#define ")));
    }

    #[test]
    fn the_swap_is_a_permutation_that_keeps_the_last_group() {
        for n in 1..40 {
            for swap in [0, 1, 7, 999_983] {
                let mut ids: Vec<usize> = (0..n).map(|g| seen(g, n, swap)).collect();
                assert_eq!(ids[n - 1], n - 1, "n = {n}, swap = {swap}");
                if swap != 0 && n > 2 {
                    assert_ne!(ids[0], 0, "n = {n}");
                }
                ids.sort();
                assert_eq!(ids, (0..n).collect::<Vec<_>>());
            }
        }
    }
}
