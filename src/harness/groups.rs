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

/// The block for a build on `gpu`, ending where the next text's `#line` takes over: the swap
/// drawn from the operating system's randomness under Oclgrind, none elsewhere.
pub fn block(gpu: &Gpu) -> String {
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
