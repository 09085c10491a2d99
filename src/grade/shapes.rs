//! The shapes every grading checks besides a lesson's own: the size that was asked for,
//! exactly, and shapes near it that a kernel wrong only at "round" sizes cannot avoid.
//!
//! A lesson's fixed shapes are small and ragged on purpose, and the shapes drawn for each
//! grading are small too. A kernel (or an honest tail bug) that is wrong only when the sides
//! are powers of two, multiples of 256, or when C has more than 2^20 elements would pass
//! them all, and yet be wrong at 1024 × 1024, the size a student's program and most users
//! multiply. So each grading multiplies and checks, with the device's own defines:
//! - the asked size itself (the scoreboard's, the lesson program's, `--size`);
//! - a power-of-two cube near it;
//! - a shape whose every side is a multiple of 256, near it and drawn for this grading;
//! - a C of more than 2^20 elements over a short K (cheap: the work is M·N·K);
//! - a C of more than 2^24 elements (an index held in a `float` is exact below) over a K of
//!   eight to twelve;
//! - two thin Cs over a K past every lesson's blocking and split (one K from 1,025 to 4,096,
//!   one from 4,097 to 8,192): a kernel that drops, caps or wraps its k-steps past some K
//!   multiplies few elements there;
//! - a shape past the asked one on every side at once, well past it (to 4,097 and more on a
//!   GPU, 513 on a CPU): a kernel wrong only where M, N and K are all large is wrong there,
//!   however large it makes "large" below that;
//! - a problem larger still on every side (past 4,096 on a CPU, 8,192 on a GPU), run on a
//!   window of its work-groups that no kernel can tell from the whole launch
//!   ([`crate::harness::groups::Window`], [`window`]): its cost is a few work-groups'.

use crate::harness::matrix::{Rng, Shape};

/// The size a grading checks when nobody asked for one, and the one the scoreboard times at:
/// large enough to mean something, small enough for a CPU.
pub fn default_asked(gpu: bool) -> Shape {
    if gpu {
        Shape::square(1024)
    } else {
        Shape::square(256)
    }
}

/// The shapes checked around `asked` on a GPU or a CPU (`gpu`), in the order above, each
/// once. `secret` draws the multiple-of-256 shape, the wide C and the shape past every side.
pub fn around_asked(asked: Shape, gpu: bool, secret: u64) -> Vec<Shape> {
    let mut rng = Rng::new(secret ^ 0x0A5C_ED51);
    let mut coin = || rng.next_u64() % 2 == 1;
    let cube = Shape::square(nearest_power_of_two(asked));
    let up = |d: usize| d.max(1).div_ceil(256) * 256;
    let mut grow = |d: usize| up(d) + if coin() { 256 } else { 0 };
    let mut round = Shape::new(grow(asked.m), grow(asked.n), grow(asked.k));
    if round == asked {
        // The asked size is round already: one side longer, so that this is a rectangle.
        round.n += 256;
    }
    let mut rng = Rng::new(secret ^ 0x00B1_6C0C);
    let mut pick = |lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    // 1,025 × 1,025 is just past 2^20 elements; K of a tile or two.
    let wide = Shape::new(pick(1025, 1160), pick(1025, 1160), pick(5, 40));
    let [deep, deeper, vast] = thin(secret);
    let past = past_every_side(asked, gpu, secret);
    let mut all = Vec::new();
    for s in [asked, cube, round, wide, vast, deep, deeper, past] {
        if !all.contains(&s) {
            all.push(s);
        }
    }
    all
}

/// The thin shapes of [`around_asked`], drawn from `secret`: two deep ones (a few rows and
/// columns, K from 1,025 to 4,096 and from 4,097 to 8,192) and a vast one (an odd 4,097 to
/// 4,159 rows and columns, past 2^24 elements of C, K from 8 to 12: below, the per-element allowance
/// is tighter than lesson 11's three TF32 products give). The deep ones cost a few million
/// multiply-adds, so that every knob combination can afford them ([`crate::grade::ocl`]); the
/// vast one, up to 210 million, is checked with the device's own defines.
pub fn thin(secret: u64) -> [Shape; 3] {
    let mut rng = Rng::new(secret ^ 0x7417_D33B);
    let mut pick = |lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    let deep = Shape::new(pick(2, 24), pick(2, 24), pick(1025, 4096));
    let deeper = Shape::new(pick(2, 24), pick(2, 24), pick(4097, 8192));
    // Odd sides: the last tiles of every blocking are partial, in both directions.
    let vast = Shape::new(
        pick(2048, 2079) * 2 + 1,
        pick(2048, 2079) * 2 + 1,
        pick(8, 12),
    );
    [deep, deeper, vast]
}

/// `s` with its last tiles cut the two extreme ways, K kept: M and N each one past the
/// multiple of 256 at or below them, and each one short of the multiple of 256 above them. For
/// every blocking up to 256 wide (any power of two) the last tile then holds one row and
/// column of the matrix, all the rest past the edge, or all but one. A drawn side leaves a
/// drawn part in between, which may be less than a vector (4,157 against 64-wide tiles of
/// float4: the last float4 starts at 4,156, inside): a kernel that reads or writes past the
/// edge only when its last tiles are nearly empty, or nearly full, is found in some gradings
/// and not others. The simulator's edges at the grading's largest launch run at both cuts
/// ([`crate::grade::looks::vast_looks`]), so that it is found in every one. Both stay past
/// 2^24 elements of C where `s` is.
pub fn cut_both_ways(s: Shape) -> [Shape; 2] {
    let deepest = |side: usize| (side.saturating_sub(1) / 256) * 256 + 1;
    let slightest = |side: usize| (side / 256 + 1) * 256 - 1;
    [
        Shape::new(deepest(s.m), deepest(s.n), s.k),
        Shape::new(slightest(s.m), slightest(s.n), s.k),
    ]
}

/// A shape larger than `asked` on every side at once, each side drawn from `secret` in the
/// 256 (GPU) or 64 (CPU) sizes just past the larger of the side itself and the *reach*: four
/// times the side up to 4,096 on a GPU, twice it up to 512 on a CPU. So the scoreboard's
/// 1024³ on a GPU is checked at every side from 4,097 to 4,352 as well (the ladder's sizes
/// reach 8,192), its 256³ on a CPU at 513 to 576: a kernel that goes wrong only when every
/// side passes some bound below the reach goes wrong here, in every grading. The reach keeps
/// the cost at most 64 times the asked size's (8 times on a CPU), and about the asked size's
/// where that is past the reach already; the sides are drawn among 64 or 256 sizes, so the
/// last tiles of a blocking are cut nearly always.
pub fn past_every_side(asked: Shape, gpu: bool, secret: u64) -> Shape {
    let (times, reach, spread) = if gpu { (4, 4096, 256) } else { (2, 512, 64) };
    let mut rng = Rng::new(secret ^ 0x9A57_E7E5);
    let mut side = |d: usize| {
        let from = d.max((times * d).min(reach));
        from + 1 + (rng.next_u64() % spread as u64) as usize
    };
    Shape::new(side(asked.m), side(asked.n), side(asked.k))
}

/// The problem checked on a window of its work-groups ([`crate::grade`]'s window check):
/// every side from just past 4,096 on a CPU (8,192 on a GPU) to 256 more, drawn for this
/// grading, so that a bound anywhere up to there is past on every side at once, and the last
/// tiles of a blocking are cut nearly always. Its matrices are 67 to 76 MB each on a CPU, 268
/// to 286 MB on a GPU: the device multiplies only the window's work-groups, and the grader
/// checks only what they wrote.
pub fn window(gpu: bool, secret: u64) -> Shape {
    let from = window_past(gpu);
    let mut rng = Rng::new(secret ^ 0x3D0_3B0E);
    let mut side = || from + 1 + (rng.next_u64() % 256) as usize;
    Shape::new(side(), side(), side())
}

/// The side every side of [`window`] is past: 4,096 on a CPU, 8,192 on a GPU.
pub fn window_past(gpu: bool) -> usize {
    if gpu {
        8192
    } else {
        4096
    }
}

/// The power of two nearest to the geometric mean of a shape's sides (at least 16).
fn nearest_power_of_two(s: Shape) -> usize {
    let mean = ((s.m.max(1) * s.n.max(1)) as f64 * s.k.max(1) as f64).cbrt();
    let exp = mean.log2().round().clamp(4.0, 30.0) as u32;
    1usize << exp
}

/// A side drawn for a small shape: between `lo` and `hi`, or, one time in four, the power of
/// two in that range (so that drawn shapes also land on powers of two).
pub fn drawn_side(rng: &mut Rng, lo: usize, hi: usize) -> usize {
    let r = rng.next_u64();
    let pow = hi
        .checked_next_power_of_two()
        .map_or(hi, |p| if p > hi { p / 2 } else { p });
    if r.is_multiple_of(4) && pow >= lo {
        pow
    } else {
        lo + ((r >> 2) % (hi - lo + 1) as u64) as usize
    }
}

/// A shape for the simulator's sanitizer beside a lesson's declared probe, drawn for this
/// grading, never the declared shape itself and one the lesson's launch accepts (`valid`).
/// Each side is drawn from the values between half the declared side and an eighth more
/// that `valid` accepts with the other sides as declared (lessons of whole tiles take only
/// some); where that leaves only the declared side, one and a half and twice it join. Every
/// side, and every product of two sides, differs from those of every shape the lesson
/// declares (`declared` and `others`) where such a shape exists ([`pick_apart`]). So the run
/// costs less than the declared probe, most of the time, and a kernel that behaves only at
/// the probe's shape, known from the lesson's declaration, cannot know this one. `None` when
/// every side can only be the declared one.
pub fn near_probe(
    declared: Shape,
    others: &[Shape],
    secret: u64,
    valid: impl Fn(Shape) -> bool,
) -> Option<Shape> {
    let sides = [declared.m, declared.n, declared.k];
    let with = |i: usize, x: usize| {
        let mut s = sides;
        s[i] = x;
        Shape::new(s[0], s[1], s[2])
    };
    let options = [0, 1, 2].map(|i| {
        let x = sides[i].max(1);
        let ok = |v: &usize| valid(with(i, *v));
        let mut near: Vec<usize> = ((x - x / 2).max(1)..=x + (x / 8).max(1))
            .filter(ok)
            .collect();
        if near.iter().all(|&v| v == x) {
            near.extend([x + x.div_ceil(2), 2 * x].iter().copied().filter(ok));
        }
        near
    });
    let near = every_shape(&options)
        .filter(|&s| s != declared && valid(s))
        .collect();
    pick_apart(declared, others, near, secret ^ 0x5A41_7E5D)
}

/// Every shape whose sides are among `options` (M's, N's, K's).
fn every_shape(options: &[Vec<usize>; 3]) -> impl Iterator<Item = Shape> + '_ {
    options[0].iter().flat_map(move |&m| {
        options[1]
            .iter()
            .flat_map(move |&n| options[2].iter().map(move |&k| Shape::new(m, n, k)))
    })
}

/// One of `near`, drawn from `secret`: one whose every side, and every product of two sides,
/// differs from those of `declared` and of the lesson's `others` declared shapes, where there
/// is such a shape (else from `declared`'s alone, else any): a kernel keyed on one side of a
/// declared shape, its number of work-groups or its elements of C is seen too.
fn pick_apart(declared: Shape, others: &[Shape], near: Vec<Shape>, secret: u64) -> Option<Shape> {
    let pairs = |s: Shape| [s.m * s.n, s.m * s.k, s.n * s.k];
    let apart = |s: Shape, d: Shape| {
        let (p, q) = (pairs(s), pairs(d));
        s.m != d.m && s.n != d.n && s.k != d.k && (0..3).all(|i| p[i] != q[i])
    };
    let from_all: Vec<Shape> = near
        .iter()
        .copied()
        .filter(|&s| apart(s, declared) && others.iter().all(|&o| apart(s, o)))
        .collect();
    let from_own: Vec<Shape> = near
        .iter()
        .copied()
        .filter(|&s| apart(s, declared))
        .collect();
    let from = [from_all, from_own, near]
        .into_iter()
        .find(|v| !v.is_empty())?;
    let mut rng = Rng::new(secret);
    Some(from[(rng.next_u64() % from.len() as u64) as usize])
}

/// A shape for the simulator's technique counts, drawn for this grading in place of the
/// declared shape of the behaviour probe drawn for it. Each side is a multiple of the largest
/// power of two that divides the declared side (half the side where the side is itself a power of two), from
/// half the side to twice it, so that whole tiles stay whole and a count per multiply-add
/// means what it means at the declared shape; the work is at most four times the declared
/// shape's; the shape is one the lesson's launch accepts (`valid`). Every side, and every
/// product of two sides, differs from those of every shape the lesson declares where such a
/// shape exists ([`pick_apart`]; else only the shape itself differs): a kernel that shows its technique only at the declared
/// shape, or at its number of rows, of work-groups or of elements of C, shows the technique
/// it has here. `None` when no shape but the declared one qualifies.
pub fn whole_tiles_near(
    declared: Shape,
    others: &[Shape],
    secret: u64,
    valid: impl Fn(Shape) -> bool,
) -> Option<Shape> {
    let options = [declared.m, declared.n, declared.k].map(|x| {
        let x = x.max(1);
        let mut grain = 1usize << x.trailing_zeros();
        if grain == x && x > 1 {
            grain /= 2;
        }
        (1..=2 * x / grain)
            .map(|i| i * grain)
            .filter(|&v| 2 * v >= x)
            .collect::<Vec<_>>()
    });
    let volume = |s: Shape| s.m * s.n * s.k;
    let near = every_shape(&options)
        .filter(|&s| s != declared && volume(s) <= 4 * volume(declared) && valid(s))
        .collect();
    pick_apart(declared, others, near, secret ^ 0x7EC4_1C0E)
}

/// The launch for timing at `asked`, or at the first larger size made of whole tiles.
pub fn timing_launch(
    ocl: &crate::lesson::OclLesson,
    asked: Shape,
    defines: &[crate::harness::program::Define],
) -> anyhow::Result<(Shape, crate::harness::exec::Launch)> {
    let mut why = String::new();
    for step in [1, 64, 128, 256, 512] {
        let s = Shape::new(
            crate::lesson::round_up(asked.m, step),
            crate::lesson::round_up(asked.n, step),
            crate::lesson::round_up(asked.k, step),
        );
        match (ocl.launch)(s, defines) {
            Ok(l) => return Ok((s, l)),
            Err(e) if why.is_empty() => why = e,
            Err(_) => {}
        }
    }
    Err(anyhow::anyhow!(why))
}

/// `s` with M and N each raised to the nearest size at or above where the launch of `defines`
/// ends a work-group's tiles (a side one longer needs more groups), within 512; a side
/// where no such size is found, or where the launch does not take the shape, is kept. The
/// shape a grading times is made so ([`crate::grade::ocl`]): the simulator counts two of its
/// work-groups and scales them to the launch, which is exact only where no group is cut.
pub fn whole_groups_at_or_above(
    ocl: &crate::lesson::OclLesson,
    defines: &[crate::harness::program::Define],
    s: Shape,
) -> Shape {
    let global = |m: usize, n: usize| {
        (ocl.launch)(Shape::new(m, n, s.k), defines)
            .ok()
            .map(|l| l.global)
    };
    let ends = |m: usize, n: usize, grown: (usize, usize)| match (
        global(m, n),
        global(grown.0, grown.1),
    ) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    };
    let m = (s.m..s.m + 512)
        .find(|&m| ends(m, s.n, (m + 1, s.n)))
        .unwrap_or(s.m);
    let n = (s.n..s.n + 512)
        .find(|&n| ends(m, n, (m, n + 1)))
        .unwrap_or(s.n);
    Shape::new(m, n, s.k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every blocking's last tile holds one row and column, or all but one, at the two cuts,
    /// for tiles of 16 to 256; K is kept, C stays past 2^24 elements.
    #[test]
    fn the_two_cuts_leave_one_row_and_column_or_all_but_one() {
        for secret in 0..50u64 {
            let vast = thin(secret)[2];
            let [deepest, slightest] = cut_both_ways(vast);
            for (cut, rest) in [(deepest, 1), (slightest, 255)] {
                assert_eq!(cut.k, vast.k);
                assert!(cut.m * cut.n > 1 << 24, "{cut}: past 2^24 elements of C");
                for tile in [16, 32, 64, 128, 256] {
                    let left = (cut.m % tile, cut.n % tile);
                    assert_eq!(left, (rest % tile, rest % tile), "{cut}, tiles of {tile}");
                }
            }
        }
        let [a, b] = cut_both_ways(Shape::new(4097, 256, 9));
        assert_eq!((a, b), (Shape::new(4097, 1, 9), Shape::new(4351, 511, 9)));
    }

    /// Lesson 08 takes any size, in whole tiles of C with a guarded edge: a drawn 272×304×300
    /// is raised to the nearest sides where its CPU tiles end, K untouched; a shape already
    /// there stays. (A lesson of whole tiles only keeps its sides: its launch takes no other.)
    #[test]
    fn timed_shapes_are_raised_to_whole_work_groups() {
        let course = crate::harness::paths::Course::from_env();
        let ocl = crate::ladder::get("08").ocl().unwrap();
        let cpu = super::super::kinds::kinds()
            .into_iter()
            .find(|k| !k.info.is_gpu())
            .expect("a CPU kind");
        let ctx = crate::lesson::Ctx {
            info: &cpu.info,
            course: &course,
        };
        let defines = crate::prepared::defines(ocl, &ctx, None, &[]).unwrap();
        let tile = |s: Shape| (ocl.launch)(s, &defines).unwrap().global;
        let raised = whole_groups_at_or_above(ocl, &defines, Shape::new(272, 304, 300));
        assert_eq!(raised.k, 300);
        assert_ne!(
            (raised.m, raised.n),
            (272, 304),
            "272×304 is not whole tiles of 08 on a CPU"
        );
        assert!(raised.m >= 272 && raised.n >= 304, "{raised:?}");
        // Whole: one more row or column needs more work-items.
        assert_ne!(tile(raised), tile(Shape::new(raised.m + 1, raised.n, 300)));
        assert_ne!(tile(raised), tile(Shape::new(raised.m, raised.n + 1, 300)));
        // And the nearest such: one less is the same launch as the shape itself.
        assert_eq!(tile(Shape::new(272, 304, 300)), tile(raised));
        assert_eq!(whole_groups_at_or_above(ocl, &defines, raised), raised);
        let six = crate::ladder::get("06").ocl().unwrap();
        let odd = Shape::new(272, 304, 300);
        assert_eq!(whole_groups_at_or_above(six, &defines, odd), odd);
    }

    #[test]
    fn a_probe_drawn_near_the_declared_one_is_valid_and_never_it() {
        let declared = Shape::new(16, 24, 40);
        let mut seen = std::collections::BTreeSet::new();
        for secret in 0..64 {
            // Whole tiles of 8, as lesson 05's probe needs.
            let whole = |s: Shape| s.multiple_of(8, 8, 8);
            let s = near_probe(declared, &[], secret, whole).expect("a whole-tile draw");
            assert!(whole(s) && s != declared, "{s:?}");
            for (x, d) in [(s.m, 16), (s.n, 24), (s.k, 40)] {
                assert!((d / 2..=2 * d).contains(&x), "{s:?}");
            }
            seen.insert((s.m, s.n, s.k));
        }
        // Of the whole-tile shapes near 16×24×40, those apart on every side: M = 8, N = 16.
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [(8, 16, 24), (8, 16, 32)]
        );
        // Any shape: ragged draws too.
        let ragged: Vec<Shape> = (0..64)
            .filter_map(|x| near_probe(Shape::new(35, 19, 19), &[], x, |_| true))
            .collect();
        assert_eq!(ragged.len(), 64);
        assert!(ragged.iter().any(|s| s.k % 4 != 0) && ragged.iter().any(|s| s.k < 19));
        for s in &ragged {
            assert!(
                (18..=39).contains(&s.m) && (10..=21).contains(&s.k),
                "{s:?}"
            );
        }
        assert_eq!(near_probe(declared, &[], 1, |_| false), None);
        // Apart from the declared shape on every side where the sides allow it.
        for secret in 0..64 {
            let s = near_probe(Shape::new(35, 19, 19), &[], secret, |_| true).unwrap();
            assert!(
                s.m != 35 && s.n != 19 && s.k != 19 && s.n * s.k != 361,
                "{s:?}"
            );
        }
    }

    #[test]
    fn the_asked_size_comes_first_then_round_shapes_near_it() {
        for secret in 0..32 {
            let asked = Shape::new(1000, 700, 300);
            let all = around_asked(asked, false, secret);
            assert_eq!(all[0], asked);
            assert!(all.contains(&Shape::square(512)), "{all:?}");
            let round = all
                .iter()
                .find(|s| [s.m, s.n, s.k].iter().all(|d| d.is_multiple_of(256)) && s.m != s.k)
                .expect("a shape of multiples of 256");
            assert!(
                round.m >= 1024 && round.n >= 768 && round.k >= 512,
                "{round:?}"
            );
            assert!(
                all.iter().any(|s| s.m * s.n > 1 << 20 && s.k <= 40),
                "{all:?}"
            );
            assert!(
                all.iter().any(|s| s.m * s.n > 1 << 24 && s.k <= 12),
                "{all:?}"
            );
            for ks in [1025..=4096, 4097..=8192] {
                assert!(
                    all.iter().any(|s| ks.contains(&s.k) && s.m * s.n <= 576),
                    "{all:?}"
                );
            }
        }
        // An asked size that is already round is checked once, and beside a round rectangle.
        for secret in 0..16 {
            let all = around_asked(Shape::square(256), false, secret);
            assert_eq!(all.iter().filter(|s| **s == Shape::square(256)).count(), 1);
            assert!(all[1] != all[0] && all[1].n.is_multiple_of(256), "{all:?}");
        }
        // The multiple-of-256 shape is drawn: not always the same.
        let rounds: std::collections::BTreeSet<_> = (0..32)
            .map(|s| around_asked(Shape::square(256), false, s)[1].m)
            .collect();
        assert!(rounds.len() > 1);
    }

    /// Every side past the reach at once, in every grading: a kernel wrong only where all
    /// three sides pass 4,096 (GPU) or 512 (CPU) is checked there; past a larger asked size,
    /// just past it; and drawn, never the same shape twice in a row.
    #[test]
    fn one_shape_is_past_every_side_at_once() {
        let mut seen = std::collections::BTreeSet::new();
        for secret in 0..64 {
            let all = around_asked(Shape::square(1024), true, secret);
            let past = past_every_side(Shape::square(1024), true, secret);
            assert!(all.contains(&past), "{all:?}");
            for d in [past.m, past.n, past.k] {
                assert!((4097..=4352).contains(&d), "{past:?}");
            }
            seen.insert((past.m, past.n, past.k));
            let cpu = past_every_side(Shape::square(256), false, secret);
            assert!([cpu.m, cpu.n, cpu.k]
                .iter()
                .all(|d| (513..=576).contains(d)));
            assert!(around_asked(Shape::square(256), false, secret).contains(&cpu));
            // A larger asked size: just past it, at about its cost.
            let big = past_every_side(Shape::new(8192, 6000, 700), true, secret);
            assert!(big.m > 8192 && big.m <= 8448 && big.n > 6000 && big.n <= 6256);
            assert!(big.k > 2800 && big.k <= 3056, "{big:?}");
        }
        assert!(seen.len() > 60);
    }

    #[test]
    fn the_vast_shape_has_odd_sides_past_2_to_the_24() {
        for secret in 0..64 {
            let vast = thin(secret)[2];
            assert!(vast.m % 2 == 1 && vast.n % 2 == 1, "{vast:?}");
            assert!(vast.m * vast.n > 1 << 24 && (8..=12).contains(&vast.k));
        }
    }

    #[test]
    fn drawn_sides_stay_in_range_and_land_on_powers_of_two() {
        let mut rng = Rng::new(9);
        let sides: Vec<usize> = (0..400).map(|_| drawn_side(&mut rng, 17, 144)).collect();
        assert!(sides.iter().all(|&s| (17..=144).contains(&s)));
        assert!(sides.contains(&128));
        assert!(sides.iter().filter(|&&s| s != 128).count() > 200);
    }

    #[test]
    fn the_technique_is_counted_at_whole_tiles_never_at_the_declared_shape() {
        let declared = Shape::new(64, 32, 24);
        let mut seen = std::collections::BTreeSet::new();
        for secret in 0..200 {
            let s = whole_tiles_near(declared, &[], secret, |_| true).expect("a shape");
            // Every side and every product of two sides differs.
            assert!(s.m != 64 && s.n != 32 && s.k != 24, "{s:?}");
            assert!(
                s.m * s.n != 2048 && s.m * s.k != 1536 && s.n * s.k != 768,
                "{s:?}"
            );
            // Whole tiles of the declared side's powers of two (64 being one: 32).
            assert!(s.m % 32 == 0 && s.n % 16 == 0 && s.k % 8 == 0, "{s:?}");
            assert!(
                (32..=128).contains(&s.m) && (16..=64).contains(&s.n),
                "{s:?}"
            );
            assert!((12..=48).contains(&s.k), "{s:?}");
            assert!(s.m * s.n * s.k <= 4 * 64 * 32 * 24, "{s:?}");
            seen.insert((s.m, s.n, s.k));
        }
        // Smaller and larger than declared.
        assert!(seen.len() > 10, "{seen:?}");
        assert!(seen.iter().any(|s| s.2 < 24) && seen.iter().any(|s| s.2 > 24));
        // Only what the launch accepts (here: M a multiple of 64 and K of 16).
        let s = whole_tiles_near(declared, &[], 3, |s| s.m % 64 == 0 && s.k % 16 == 0).unwrap();
        assert!(s.m % 64 == 0 && s.k % 16 == 0 && s != declared, "{s:?}");
        assert_eq!(whole_tiles_near(declared, &[], 1, |_| false), None);
    }
}
