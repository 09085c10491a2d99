//! The course's one timing protocol. A speed is taken only from calls whose result is checked:
//! every timed call runs on fresh random inputs drawn from a seed the code under test cannot
//! predict, into a C poisoned before the launch, and its C is checked before its time counts.
//! Nothing a kernel remembers from an earlier call (C already holding numbers, the last inputs
//! by address or by checksum, a first call done properly) can make a later call look faster.
//! On a GPU each timed launch runs right behind an untimed launch of the same code on the call
//! before's buffers ([`crate::harness::lead`]): a GPU left idle while the host draws and checks
//! starts its next kernel late, which no program that multiplies back-to-back pays.
//!
//! The device's clock is believed only when it agrees with the wall clock around the same
//! launch; a driver whose profiling events cannot be trusted is named and timed by the wall
//! clock. A time faster than the device could possibly compute is refused, not ranked.

use std::time::Instant;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::harness::cpu_facts;
use crate::harness::device::DeviceInfo;
use crate::harness::exec::{median, RunOutput};
use crate::harness::matrix::{Problem, Rng, Shape};

/// How long the timed calls of one measurement may take together, in ms (the warm-up, fresh
/// inputs and checks included). The one budget every measurement uses.
pub const BUDGET_MS: f64 = 2000.0;

/// Timed calls of one measurement: at least enough for a median, at most enough to be quick.
pub const MIN_CALLS: usize = 3;
pub const MAX_CALLS: usize = 50;

/// Which clock a timing was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// OpenCL profiling events, checked against the wall clock.
    #[default]
    Device,
    /// The host's wall clock around each launch: the device's clock disagreed with it.
    Wall,
}

/// Measured times of one kernel at one size.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Timing {
    /// Median time of the timed launches, ms, on `clock`.
    pub device_ms: f64,
    /// Fastest and slowest timed launch, ms.
    pub best_ms: f64,
    #[serde(default)]
    pub worst_ms: f64,
    /// End to end on the host clock: upload A and B, run, read C back, ms (median).
    pub host_ms: f64,
    pub reps: usize,
    /// The clock `device_ms` was read from.
    #[serde(default)]
    pub clock: Clock,
    /// Timed calls whose C was checked (every one, for a timing made here).
    #[serde(default)]
    pub checked: usize,
}

impl Timing {
    pub fn gflops(&self, shape: Shape) -> f64 {
        shape.flops() / (self.device_ms * 1e-3) / 1e9
    }
    pub fn host_gflops(&self, shape: Shape) -> f64 {
        shape.flops() / (self.host_ms * 1e-3) / 1e9
    }
}

/// A timed call's C was wrong: the code computes the right thing only sometimes (on the first
/// call, on shapes other than the timed one, when C does not already hold numbers, ...).
#[derive(Debug)]
pub struct TimedCallWrong {
    /// Which timed call, counting from 1 (the warm-up is call 0).
    pub call: usize,
    pub why: String,
}

impl std::fmt::Display for TimedCallWrong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let which = if self.call == 0 {
            "the first timed call (a warm-up on fresh inputs)".to_string()
        } else {
            format!("timed call {} (each on fresh inputs)", self.call)
        };
        write!(
            f,
            "the code passed the graded problems, but {which} gave a wrong C: {}\nEvery timed call gets new random inputs and a C filled as every checked call's is (NaN, random numbers or an earlier result, drawn anew), and its result is checked before its time counts: code that remembers an earlier call, skips work when C already holds numbers, or computes only some sizes or some elements fails here.",
            self.why
        )
    }
}

impl std::error::Error for TimedCallWrong {}

/// A time faster than the device could compute: a lying clock, or work not done.
#[derive(Debug)]
pub struct FasterThanPossible {
    pub gflops: f64,
    pub ceiling: f64,
    pub device: String,
}

impl std::fmt::Display for FasterThanPossible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "faster than this device can compute: a timed call ran at {:.0} GFLOP/s, and {} cannot exceed {:.0} GFLOP/s (its compute units × clock × the widest arithmetic any such chip has per cycle, doubled). No speed is recorded.",
            self.gflops, self.device, self.ceiling
        )
    }
}

impl std::error::Error for FasterThanPossible {}

pub use crate::harness::matrix::secret_seed;

/// The shape a measurement asked for at `asked`, drawn anew for each grading: each dimension
/// grown by 0, 16, 32 or 48, so that the timed problem is a square or a rectangle that no code
/// can tell in advance (every timed call is checked whatever its shape; this keeps code from
/// even trying). Never `asked` itself: the simulator counts the technique at this shape, and
/// a kernel that keeps its technique for the size it is asked (a cube of a power of two)
/// would be credited with it in one grading of 64, the grade of a file changing by the day.
pub fn drawn_shape(asked: Shape) -> Shape {
    let mut rng = Rng::new(secret_seed());
    let mut grow = |d: usize| d + 16 * (rng.next_u64() % 4) as usize;
    let s = Shape::new(grow(asked.m), grow(asked.n), grow(asked.k));
    match s == asked {
        true => Shape::new(asked.m + 16, asked.n, asked.k),
        false => s,
    }
}

/// How much longer than its device time a launch may take on the wall clock and still be
/// explained by the enqueue and the wake-up alone, ms: a launch's fixed cost on the host.
pub const LAUNCH_OVERHEAD_MS: f64 = 0.5;

/// Whether a measurement's device times are believable beside the wall-clock times around the
/// same launches (enqueue to completion): every one positive and not longer than its launch
/// took, and at least one that explains its launch: a good part of it, or all of it but the
/// enqueue's own cost ([`LAUNCH_OVERHEAD_MS`]). The most favourable launch decides that last
/// point: on a busy machine the host may wake late for any one launch, not for all of them.
/// No launch is too short to be judged: rusticl reports 1 ns for every launch, however long,
/// and short launches are where such a clock would rank a kernel highest.
pub fn clock_believable(device_ms: &[f64], wall_ms: &[f64]) -> bool {
    let pairs: Vec<(f64, f64)> = device_ms
        .iter()
        .copied()
        .zip(wall_ms.iter().copied())
        .collect();
    if pairs.is_empty() {
        return false;
    }
    let each = pairs
        .iter()
        .all(|&(d, w)| d.is_finite() && d > 0.0 && w > 0.0 && d <= w * 1.10 + 0.5);
    let some_close = pairs
        .iter()
        .any(|&(d, w)| d >= 0.25 * w || w - d <= LAUNCH_OVERHEAD_MS);
    each && some_close
}

/// The fastest any device with these compute units and clock could run an FP32 product,
/// GFLOP/s. A GPU: arithmetic per compute unit and cycle of the widest chips of its kind (256
/// FP32 operations; the same bound serves other accelerators), doubled for headroom (boost
/// clocks, dual issue). A CPU device is this machine's CPU (PoCL, llvmpipe): the host's ceiling from its fact sheet
/// ([`cpu_facts::Facts::ceiling_gflops`]), the one the CPU lessons are timed against. A
/// measured time above it is not a speed.
pub fn ceiling_gflops(info: &DeviceInfo) -> f64 {
    if info.is_cpu() {
        return cpu_facts::host().ceiling_gflops();
    }
    let mhz = if info.clock_mhz == 0 {
        6000.0
    } else {
        info.clock_mhz as f64
    };
    info.compute_units.max(1) as f64 * mhz * 1e-3 * 256.0 * 2.0
}

/// What a measurement knows about the device it times, and how long it may take.
pub struct Target<'a> {
    pub device: &'a str,
    /// [`ceiling_gflops`], or none where no honest bound is known.
    pub ceiling: Option<f64>,
    /// The timed calls' time together, ms: [`BUDGET_MS`] but where a tool is asked otherwise
    /// (the tuner's per-candidate time).
    pub budget_ms: f64,
    /// The least band within which two codes timed beside each other tie on this device.
    pub tie_floor: f64,
}

impl<'a> Target<'a> {
    /// An OpenCL device, with its ceiling and the course's budget.
    pub fn device(info: &'a DeviceInfo) -> Target<'a> {
        Target {
            device: &info.name,
            ceiling: Some(ceiling_gflops(info)),
            budget_ms: BUDGET_MS,
            tie_floor: if info.is_gpu() {
                TIE_FLOOR
            } else {
                CPU_TIE_FLOOR
            },
        }
    }
}

/// One timed call's inputs, drawn fresh: the problem, the seed it was drawn from (code in
/// another process draws the same problem from it), and how long drawing it took here, ms.
pub struct Fresh<'a> {
    pub problem: &'a Problem,
    pub seed: u64,
    pub drawn_ms: f64,
}

/// Times checked calls within the target's budget ([`BUDGET_MS`]): `once` runs the product on a problem (into a C
/// holding the problem's poison) and `check` judges its output. A warm-up call first, then at least
/// [`MIN_CALLS`] timed calls, each on fresh inputs; the median decides.
pub fn time_checked(
    shape: Shape,
    target: &Target,
    mut once: impl FnMut(&Problem) -> Result<RunOutput>,
    check: impl FnMut(&Problem, &RunOutput) -> Result<(), String>,
) -> Result<Timing> {
    time_fresh(shape, target, |f| once(f.problem), check)
}

/// [`time_checked`] for code that draws its inputs itself from the call's seed (a student's
/// CPU program, in a process of its own): the course's one run-and-time loop.
pub fn time_fresh(
    shape: Shape,
    target: &Target,
    mut once: impl FnMut(&Fresh) -> Result<RunOutput>,
    check: impl FnMut(&Problem, &RunOutput) -> Result<(), String>,
) -> Result<Timing> {
    let mut raw = run_calls(shape, target, &mut [&mut once], check)?;
    let trusted = trusted(shape, target, &raw[0]);
    finish(shape, target, raw.remove(0), trusted)
}

/// The protocol one call at a time, for a driver that decides itself how many calls to make
/// and what statistics to take (criterion, in `crates/bench/benches/ladder.rs`): every call on
/// fresh inputs drawn from a secret seed, into the C the code poisons, checked before its time
/// is given, and refused above the target's ceiling. The driver's statistics are its own; its
/// samples are the protocol's.
pub struct CheckedCalls<'a> {
    shape: Shape,
    target: &'a Target<'a>,
    seeds: Rng,
    calls: usize,
}

impl<'a> CheckedCalls<'a> {
    pub fn new(shape: Shape, target: &'a Target<'a>) -> CheckedCalls<'a> {
        CheckedCalls {
            shape,
            target,
            seeds: Rng::new(secret_seed()),
            calls: 0,
        }
    }

    /// One checked call of `once` on fresh inputs, judged by `check`: its device time, ms
    /// (the launch's wall time where the code has no device clock, else end to end).
    pub fn call(
        &mut self,
        once: impl FnOnce(&Problem) -> Result<RunOutput>,
        check: impl FnOnce(&Problem, &RunOutput) -> Result<(), String>,
    ) -> Result<f64> {
        let p = Problem::random(self.shape, self.seeds.next_u64());
        let out = once(&p)?;
        self.calls += 1;
        check(&p, &out).map_err(|why| TimedCallWrong {
            call: self.calls,
            why,
        })?;
        let ms = [out.kernel_ms, out.wall_ms, out.host_ms]
            .into_iter()
            .find(|&t| t > 0.0)
            .unwrap_or(0.0);
        within_ceiling(self.shape, self.target, &[ms])?;
        Ok(ms)
    }
}

/// Another code timed beside the code under test on the same problems, interleaved call by
/// call ([`time_beside`]): its timing, and how the two compare.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Beside {
    /// The other code's timing, from its calls between the ones of the code under test.
    pub timing: Timing,
    /// The code's speed over the other's: the median, over the timed problems, of the other's
    /// time over the code's on the same problem.
    pub ratio: f64,
    /// The lower and upper quartiles of those per-problem ratios: the spread of the ratio.
    pub low: f64,
    pub high: f64,
    /// How far from 1 the ratio may be and still be chance, as a fraction: measured from the
    /// other code against itself (its consecutive calls), scaled to a median of this many
    /// problems (three standard errors).
    pub noise: f64,
    /// The least band a tie allows on this kind of device ([`TIE_FLOOR`], [`CPU_TIE_FLOOR`]).
    #[serde(default = "tie_floor")]
    pub floor: f64,
}

fn tie_floor() -> f64 {
    TIE_FLOOR
}

/// The least band a tie allows on a GPU: two measurements of the same code differ by a few per
/// cent from one grading to the next, so a ratio closer to 1 than this tells nothing about the
/// code (the reference against itself read 0.997–1.015 in 80 gradings on an NVIDIA H200,
/// `results/ties/`).
pub const TIE_FLOOR: f64 = 0.05;

/// The least band a tie allows where the code runs on the CPU's cores (CPU lessons, and OpenCL
/// on a CPU), which it shares with the grader and the machine's other work: there two
/// processes of the same code, or two builds of the same kernel, differ from one grading to
/// the next by more than their calls do within one (the reference against itself read
/// 0.82–1.15 in 30 gradings on a quiet 2-core AMD EPYC with PoCL, `results/ties/`).
pub const CPU_TIE_FLOOR: f64 = 0.20;

impl Beside {
    /// How far from 1 a ratio is a tie: the other code's noise against itself, at least the
    /// device's floor.
    pub fn band(&self) -> f64 {
        self.noise.max(self.floor)
    }

    /// The two codes are as fast as each other, as far as this machine can tell.
    pub fn tie(&self) -> bool {
        (self.ratio - 1.0).abs() <= self.band()
    }
}

/// The other code's timed calls did not all give a right C, or failed: the comparison is off,
/// not the code under test.
#[derive(Debug)]
pub struct BesideFailed(pub String);

impl std::fmt::Display for BesideFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the code timed beside failed: {}", self.0)
    }
}

impl std::error::Error for BesideFailed {}

/// Times `own` and `other` on the same fresh problems, call by call and in alternating order
/// (own first, then other first), each call checked and each within the course's budget: a
/// machine that grows busier or quieter during the measurement slows both alike, so their
/// ratio compares the codes and not the moments they ran. An error from `other` is a
/// [`BesideFailed`].
pub fn time_beside(
    shape: Shape,
    target: &Target,
    mut own: impl FnMut(&Fresh) -> Result<RunOutput>,
    mut other: impl FnMut(&Fresh) -> Result<RunOutput>,
    check: impl FnMut(&Problem, &RunOutput) -> Result<(), String>,
) -> Result<(Timing, Beside)> {
    let mut raw = run_calls(shape, target, &mut [&mut own, &mut other], check)?;
    // One clock for both, so that the ratio never mixes the device's with the wall's.
    let trusted = trusted(shape, target, &raw[0]) && trusted(shape, target, &raw[1]);
    let pick = |r: &Raw| {
        if trusted {
            r.dev.clone()
        } else {
            r.wall.clone()
        }
    };
    let (mine, theirs) = (pick(&raw[0]), pick(&raw[1]));
    let other = finish(shape, target, raw.remove(1), trusted)
        .map_err(|e| BesideFailed(format!("{e:#}")))?;
    let timing = finish(shape, target, raw.remove(0), trusted)?;
    Ok((timing, compare(&mine, &theirs, other, target.tie_floor)))
}

/// The comparison of per-call times `mine` and `theirs` (the same problems, in order).
fn compare(mine: &[f64], theirs: &[f64], other: Timing, floor: f64) -> Beside {
    let mut ratios: Vec<f64> = theirs
        .iter()
        .zip(mine)
        .map(|(t, m)| t / m.max(1e-12))
        .collect();
    ratios.sort_by(|a, b| a.total_cmp(b));
    let quartile = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    // The other against itself: the log-ratio of each of its calls to the next has the spread
    // of one comparison of two calls, as each of the pairs above does; its robust standard
    // deviation (1.4826 × the median absolute step) becomes the standard error of a
    // median of n pairs (× 1.2533 / √n), three of which are chance.
    // Its steps are centred on 0 (one code against itself), so their distance from 0 is taken.
    let mut steps: Vec<f64> = theirs
        .windows(2)
        .map(|w| (w[1].max(1e-12) / w[0].max(1e-12)).ln().abs())
        .collect();
    let sigma = 1.4826 * median(&mut steps);
    let n = ratios.len().max(1) as f64;
    Beside {
        timing: other,
        ratio: median(&mut ratios.clone()),
        low: quartile(0.25),
        high: quartile(0.75),
        noise: (3.0 * 1.2533 * sigma / n.sqrt()).exp() - 1.0,
        floor,
    }
}

/// One timed code: runs the product on a call's fresh problem.
type Code<'a> = &'a mut dyn FnMut(&Fresh) -> Result<RunOutput>;

/// Each timed code's per-call times, in call order.
struct Raw {
    dev: Vec<f64>,
    wall: Vec<f64>,
    host: Vec<f64>,
}

/// The loop every measurement shares: a checked warm-up call of each code, then checked timed
/// calls, each problem fresh and given to every code in turn (the order rotating), as many as
/// the budget allows each code.
fn run_calls(
    shape: Shape,
    target: &Target,
    codes: &mut [Code],
    mut check: impl FnMut(&Problem, &RunOutput) -> Result<(), String>,
) -> Result<Vec<Raw>> {
    let mut seeds = Rng::new(secret_seed());
    let mut round = |n: usize, seeds: &mut Rng, codes: &mut [Code]| -> Result<Vec<RunOutput>> {
        let seed = seeds.next_u64();
        let drawing = Instant::now();
        let p = Problem::random(shape, seed);
        let drawn_ms = drawing.elapsed().as_secs_f64() * 1e3;
        let k = codes.len();
        let mut outs: Vec<Option<RunOutput>> = (0..k).map(|_| None).collect();
        for turn in 0..k {
            let i = (turn + n) % k;
            let fresh = Fresh {
                problem: &p,
                seed,
                drawn_ms,
            };
            let out = codes[i](&fresh);
            let out = match (i, out) {
                (_, Ok(o)) => o,
                (0, Err(e)) => return Err(e),
                (_, Err(e)) => return Err(BesideFailed(format!("{e:#}")).into()),
            };
            match (i, check(&p, &out)) {
                (_, Ok(())) => {}
                (0, Err(why)) => return Err(TimedCallWrong { call: n, why }.into()),
                (_, Err(why)) => return Err(BesideFailed(why).into()),
            }
            outs[i] = Some(out);
        }
        Ok(outs.into_iter().flatten().collect())
    };
    let started = Instant::now();
    round(0, &mut seeds, codes)?;
    let cycle_ms = started.elapsed().as_secs_f64() * 1e3;
    let budget = target.budget_ms * codes.len() as f64;
    let calls = ((budget / cycle_ms.max(1e-3)) as usize).clamp(MIN_CALLS, MAX_CALLS);
    let mut raw: Vec<Raw> = (0..codes.len())
        .map(|_| Raw {
            dev: Vec::new(),
            wall: Vec::new(),
            host: Vec::new(),
        })
        .collect();
    for n in 1..=calls {
        for (r, out) in raw.iter_mut().zip(round(n, &mut seeds, codes)?) {
            r.dev.push(out.kernel_ms);
            // A host path that cannot time its launch alone is timed end to end.
            r.wall.push(if out.wall_ms > 0.0 {
                out.wall_ms
            } else {
                out.host_ms
            });
            r.host.push(out.host_ms);
        }
    }
    Ok(raw)
}

/// Refuses times of which the fastest beats the target's ceiling: not a speed.
fn within_ceiling(shape: Shape, target: &Target, times: &[f64]) -> Result<()> {
    match target.ceiling {
        Some(ceiling) if fastest(shape, times) > ceiling => Err(FasterThanPossible {
            gflops: fastest(shape, times),
            ceiling,
            device: target.device.to_string(),
        }
        .into()),
        _ => Ok(()),
    }
}

/// The fastest of `times` as GFLOP/s.
fn fastest(shape: Shape, times: &[f64]) -> f64 {
    let best = times.iter().cloned().fold(f64::INFINITY, f64::min);
    shape.flops() / (best.max(1e-9) * 1e-3) / 1e9
}

/// Whether a code's device clock is believed for these calls.
fn trusted(shape: Shape, target: &Target, r: &Raw) -> bool {
    // A device clock that claims more than the device can compute, where the wall clock
    // around the same launches does not, is the clock's error, not the kernel's.
    let possible = |times: &[f64]| within_ceiling(shape, target, times).is_ok();
    clock_believable(&r.dev, &r.wall) && (possible(&r.dev) || !possible(&r.wall))
}

/// A code's timing from its calls, on the device's clock if `trusted`.
fn finish(shape: Shape, target: &Target, r: Raw, trusted: bool) -> Result<Timing> {
    let Raw {
        dev,
        wall,
        mut host,
    } = r;
    let calls = dev.len();
    let (clock, mut times) = if trusted {
        (Clock::Device, dev)
    } else {
        (Clock::Wall, wall)
    };
    let best_ms = times.iter().cloned().fold(f64::INFINITY, f64::min);
    let worst_ms = times.iter().cloned().fold(0.0, f64::max);
    within_ceiling(shape, target, &times)?;
    Ok(Timing {
        device_ms: median(&mut times),
        best_ms,
        worst_ms,
        host_ms: median(&mut host),
        reps: calls,
        clock,
        checked: calls,
    })
}

/// The note a report carries when a timing was read from the wall clock.
pub fn clock_note(t: &Timing, device: &str, driver: &str) -> Option<String> {
    (t.clock == Clock::Wall).then(|| {
        format!(
            "timed by the wall clock: the profiling events of {device} (driver {driver}) disagreed with the wall clock around the same launches, or claimed more than the device can compute (a driver whose timer cannot be trusted), so each launch was timed from enqueue to completion on the host"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::exec::RunOutput;

    #[test]
    fn drawn_shapes_stay_near_the_asked_one_and_vary() {
        let asked = Shape::square(256);
        let drawn: Vec<Shape> = (0..64).map(|_| drawn_shape(asked)).collect();
        for s in &drawn {
            for (d, a) in [(s.m, 256), (s.n, 256), (s.k, 256)] {
                assert!(d >= a && d <= a + 48 && d % 16 == 0, "{s}");
            }
        }
        assert!(drawn.iter().any(|s| *s != drawn[0]), "{drawn:?}");
        assert!(!drawn.contains(&asked), "{drawn:?}");
    }

    #[test]
    fn a_clock_that_reads_zero_or_more_than_the_wall_is_not_believed() {
        assert!(clock_believable(&[9.8, 9.9], &[10.0, 10.1]));
        assert!(
            clock_believable(&[0.02], &[0.3]),
            "short launches pay the enqueue"
        );
        assert!(
            clock_believable(&[30.0, 30.0, 30.0], &[200.0, 31.0, 150.0]),
            "a busy host wakes late for some launches, not all"
        );
        assert!(
            !clock_believable(&[0.0, 0.0], &[266.0, 270.0]),
            "rusticl reads 0"
        );
        assert!(!clock_believable(&[0.001, 0.001], &[266.0, 266.0]));
        assert!(
            !clock_believable(&[1e-6, 1e-6, 1e-6], &[7.8, 3.4, 11.6]),
            "rusticl's 1 ns for launches of a few ms"
        );
        assert!(
            !clock_believable(&[50.0], &[10.0]),
            "longer than the launch took"
        );
        assert!(!clock_believable(&[f64::NAN], &[10.0]));
        assert!(!clock_believable(&[], &[]));
    }

    fn output(p: &Problem, kernel_ms: f64, wall_ms: f64) -> RunOutput {
        RunOutput {
            wall_ms,
            host_ms: wall_ms + 1.0,
            found: None,
            technique: None,
            ..RunOutput::plain(vec![0.0; p.shape.m * p.shape.n], kernel_ms)
        }
    }

    const TARGET: Target = Target {
        device: "test device",
        ceiling: Some(1e12),
        budget_ms: BUDGET_MS,
        tie_floor: TIE_FLOOR,
    };

    #[test]
    fn every_call_gets_fresh_inputs_and_is_checked() {
        let shape = Shape::new(4, 3, 2);
        let mut seen = Vec::new();
        let mut checked = 0;
        let t = time_checked(
            shape,
            &TARGET,
            |p| {
                seen.push(p.a.clone());
                Ok(output(p, 1.0, 1.1))
            },
            |_, _| {
                checked += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(checked, seen.len());
        assert_eq!(t.checked + 1, seen.len(), "the warm-up is checked too");
        let mut distinct = seen.clone();
        distinct.sort_by(|a, b| a.partial_cmp(b).unwrap());
        distinct.dedup();
        assert_eq!(distinct.len(), seen.len(), "no two calls share inputs");
        assert_eq!(t.clock, Clock::Device);
        assert_eq!(t.device_ms, 1.0);
    }

    #[test]
    fn codes_timed_beside_share_every_problem_in_alternating_order() {
        let shape = Shape::new(4, 3, 2);
        let order = std::cell::RefCell::new(Vec::new());
        let (mine, theirs) = (
            std::cell::RefCell::new(Vec::new()),
            std::cell::RefCell::new(Vec::new()),
        );
        let (t, b) = time_beside(
            shape,
            &TARGET,
            |f| {
                order.borrow_mut().push('s');
                mine.borrow_mut().push(f.seed);
                Ok(output(f.problem, 2.0, 2.1))
            },
            |f| {
                order.borrow_mut().push('r');
                theirs.borrow_mut().push(f.seed);
                Ok(output(f.problem, 1.0, 1.1))
            },
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(mine.borrow().as_slice(), theirs.borrow().as_slice());
        let order: String = order.borrow().iter().collect();
        assert!(order.starts_with("srrssr"), "{order}");
        assert_eq!(t.device_ms, 2.0);
        assert_eq!(b.timing.device_ms, 1.0);
        assert_eq!((b.ratio, b.low, b.high), (0.5, 0.5, 0.5));
        assert_eq!(b.noise, 0.0, "a reference that never varies");
    }

    #[test]
    fn the_noise_of_the_code_beside_comes_from_its_own_calls() {
        // The other code alternates 1 and 1.2 ms: its calls differ by about 18 % in log.
        let mut n = 0;
        let (_, b) = time_beside(
            Shape::square(4),
            &TARGET,
            |f| Ok(output(f.problem, 1.1, 1.2)),
            |f| {
                n += 1;
                Ok(output(f.problem, if n % 2 == 0 { 1.0 } else { 1.2 }, 1.3))
            },
            |_, _| Ok(()),
        )
        .unwrap();
        assert!(b.noise > 0.05 && b.noise < 0.5, "{b:?}");
        assert!(b.low < b.ratio && b.ratio <= b.high, "{b:?}");
    }

    #[test]
    fn a_failing_code_beside_is_told_apart_from_the_code_under_test() {
        let e = time_beside(
            Shape::square(4),
            &TARGET,
            |f| Ok(output(f.problem, 1.0, 1.0)),
            |f| Ok(output(f.problem, 1.0, 1.0)),
            |_, out| match out.kernel_ms {
                _ if out.c.is_empty() => Err("empty".into()),
                _ => Ok(()),
            },
        );
        assert!(e.is_ok());
        let e = time_beside(
            Shape::square(4),
            &TARGET,
            |f| Ok(output(f.problem, 1.0, 1.0)),
            |_| anyhow::bail!("no reference"),
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert!(e.downcast_ref::<BesideFailed>().is_some(), "{e}");
        let e = time_beside(
            Shape::square(4),
            &TARGET,
            |_| anyhow::bail!("the student's crash"),
            |f| Ok(output(f.problem, 1.0, 1.0)),
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert!(e.downcast_ref::<BesideFailed>().is_none(), "{e}");
    }

    #[test]
    fn a_wrong_timed_call_fails_the_timing() {
        let mut n = 0;
        let e = time_checked(
            Shape::square(4),
            &TARGET,
            |p| Ok(output(p, 1.0, 1.0)),
            |_, _| {
                n += 1;
                if n > 2 {
                    Err("element (0, 0) is NaN".into())
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        let wrong = e.downcast_ref::<TimedCallWrong>().expect("a wrong call");
        assert_eq!(wrong.call, 2);
        assert!(e.to_string().contains("fresh inputs"), "{e}");
    }

    #[test]
    fn a_lying_clock_is_replaced_by_the_wall_clock() {
        let t = time_checked(
            Shape::square(4),
            &TARGET,
            |p| Ok(output(p, 0.0, 266.0)),
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(t.clock, Clock::Wall);
        assert_eq!(t.device_ms, 266.0);
    }

    #[test]
    fn a_device_clock_faster_than_the_device_while_the_wall_is_not_is_replaced() {
        // 2·64³ flops: 1 µs of device time is 524 GFLOP/s, 1 ms of wall time 0.5.
        let target = Target {
            device: "a small device",
            ceiling: Some(10.0),
            budget_ms: BUDGET_MS,
            tie_floor: TIE_FLOOR,
        };
        let t = time_checked(
            Shape::square(64),
            &target,
            |p| Ok(output(p, 0.001, 0.3)),
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(t.clock, Clock::Wall);
        assert_eq!(t.device_ms, 0.3);
    }

    #[test]
    fn a_time_faster_than_the_device_can_compute_is_refused() {
        let target = Target {
            device: "a small device",
            ceiling: Some(1.0),
            budget_ms: BUDGET_MS,
            tie_floor: TIE_FLOOR,
        };
        // 2·64³ flops in 1 µs of device time and wall time alike: 524 GFLOP/s.
        let e = time_checked(
            Shape::square(64),
            &target,
            |p| Ok(output(p, 0.001, 0.001)),
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert!(e.downcast_ref::<FasterThanPossible>().is_some(), "{e}");
        assert!(e
            .to_string()
            .contains("faster than this device can compute"));
    }
}
