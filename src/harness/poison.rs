//! What C holds before every call the course makes: checked calls, timed calls and technique
//! measurements, OpenCL and CPU alike. Every problem is drawn with its poison
//! ([`super::matrix::Problem::random`]), and every runner fills C with it before the call.
//!
//! The poison varies, drawn per call from a seed no code under test can predict, among NaN,
//! random numbers, and an earlier C (the product of other inputs: the last C a call
//! returned, repeated to this call's length; a wrong kernel's own where it is the one
//! called). So nothing in C tells one call from another:
//! code that skips work when C already holds numbers, or computes only when C is NaN or zero,
//! meets every kind of C and fails on the ones it does not handle. An element left unwritten
//! is still caught whatever the poison: it holds the poison's value exactly, and the checks
//! compare every such element with the reference ([`super::matrix::check`]).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::rng::{secret_seed, Rng};

/// Which kind of values C held before a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// NaN everywhere: NaN plus anything is NaN, so an element never written stays NaN.
    #[default]
    Nan,
    /// Random numbers of a product's size.
    Random,
    /// The product of other inputs: what an earlier call returned.
    Earlier,
}

impl Kind {
    /// How a message names what C held before the call.
    pub fn words(self) -> &'static str {
        match self {
            Kind::Nan => "NaN",
            Kind::Random => "random numbers",
            Kind::Earlier => "the product of an earlier call (other inputs)",
        }
    }
}

/// The values C holds before one call.
#[derive(Clone, Debug)]
pub struct Poison {
    pub kind: Kind,
    len: usize,
    /// `None` for NaN.
    values: Option<Arc<[f32]>>,
}

impl Poison {
    /// NaN in all `len` elements.
    pub fn nan(len: usize) -> Poison {
        Poison {
            kind: Kind::Nan,
            len,
            values: None,
        }
    }

    /// C holding `values` before the call.
    pub fn from_values(kind: Kind, values: Vec<f32>) -> Poison {
        Poison {
            kind,
            len: values.len(),
            values: (kind != Kind::Nan).then(|| values.into()),
        }
    }

    /// Elements of C.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value element `idx` holds before the call.
    pub fn at(&self, idx: usize) -> f32 {
        self.values.as_ref().map_or(f32::NAN, |v| v[idx])
    }

    /// C's values before the call, or `None` where it holds NaN.
    pub fn values(&self) -> Option<&[f32]> {
        self.values.as_deref()
    }

    /// C as it is before the call.
    pub fn to_vec(&self) -> Vec<f32> {
        match &self.values {
            Some(v) => v.to_vec(),
            None => vec![f32::NAN; self.len],
        }
    }

    /// Whether `got` at `idx` is still what the poison put there: NaN for a NaN poison (any
    /// NaN: a kernel cannot tell a written NaN from the grader's), else the same bits.
    pub fn held(&self, idx: usize, got: f32) -> bool {
        match &self.values {
            None => got.is_nan(),
            Some(v) => v.get(idx).is_some_and(|p| p.to_bits() == got.to_bits()),
        }
    }
}

/// The process's draws: a generator seeded from the system's randomness, a shuffled bag of the
/// three kinds (each grading meets every kind within any three calls, so that a verdict does
/// not hang on a lucky draw), and the last C a call returned.
struct Draws {
    rng: Rng,
    bag: Vec<Kind>,
    earlier: Option<Arc<[f32]>>,
}

static DRAWS: Mutex<Option<Draws>> = Mutex::new(None);

/// The poison of the next call, for a C of `len` elements whose products sum `k` terms. An
/// earlier C comes shifted by a drawn offset, so that it is never the result of the same call
/// on the same inputs.
pub fn draw(len: usize, k: usize) -> Poison {
    let mut guard = DRAWS.lock().unwrap_or_else(|e| e.into_inner());
    let d = guard.get_or_insert_with(|| Draws {
        rng: Rng::new(secret_seed()),
        bag: Vec::new(),
        earlier: None,
    });
    if d.bag.is_empty() {
        let mut bag = vec![Kind::Nan, Kind::Random, Kind::Earlier];
        for i in (1..bag.len()).rev() {
            bag.swap(i, (d.rng.next_u64() % (i as u64 + 1)) as usize);
        }
        d.bag = bag;
    }
    let mut kind = d.bag.pop().unwrap_or_default();
    let earlier = d.earlier.clone().filter(|e| e.len() > 1);
    if kind == Kind::Earlier && earlier.is_none() {
        kind = Kind::Random;
    }
    let values: Option<Arc<[f32]>> = match kind {
        Kind::Nan => None,
        // Sums of k products of numbers in [-1, 1) spread about √(k/9): numbers of that size.
        Kind::Random => {
            let spread = ((k.max(1) as f32) / 9.0).sqrt();
            Some((0..len).map(|_| d.rng.next_f32() * 1.7 * spread).collect())
        }
        // Shifted by a drawn offset: a call on the same inputs as the one remembered (a test's
        // fixed seed, a repeated check) must not find its own result already in C.
        Kind::Earlier => earlier.map(|e| {
            let shift = 1 + (d.rng.next_u64() % (e.len() as u64 - 1)) as usize;
            e.iter().copied().cycle().skip(shift).take(len).collect()
        }),
    };
    Poison { kind, len, values }
}

/// Keeps a C a call returned, as the earlier C of later draws. A C with anything but finite
/// numbers is not kept: the earlier C looks like a product. Nor is one that repeats a value,
/// zero or its first, in more than a sixteenth of its elements, as a product of random
/// numbers never does: a wrong kernel's constant C would become a poison that the same
/// kernel writes again, and its wrong result would read as "never written" on some draws
/// only. Nor is a C of one element: it cannot be shifted, so a later call on the same inputs
/// (another define set graded on the same problem) would find its own right result in C and
/// read as "never written".
pub fn remember(c: &[f32]) {
    if c.len() < 2 || !c.iter().all(|x| x.is_finite()) {
        return;
    }
    let often = |v: f32| c.iter().filter(|&&x| x == v).count() > c.len() / 16 + 1;
    if often(0.0) || often(c[0]) {
        return;
    }
    let mut guard = DRAWS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(d) = guard.as_mut() {
        d.earlier = Some(c.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_c_is_never_an_earlier_product() {
        draw(4, 1);
        for c in [vec![0.0f32; 64], vec![2.0f32; 64]] {
            remember(&[0.25, 1.5, -3.0, 7.0]);
            remember(&c);
            for _ in 0..12 {
                let p = draw(64, 16);
                if p.kind == Kind::Earlier {
                    assert!(p.to_vec().iter().any(|&x| x != c[0]), "{c:?} kept");
                }
            }
        }
    }

    #[test]
    fn a_c_of_one_element_is_never_an_earlier_product() {
        // The same 1×1×1 problem graded with two define sets: the first call's right result,
        // kept and drawn for the second, would be the second's right result too.
        draw(1, 1);
        for _ in 0..12 {
            remember(&[0.8125]);
            let p = draw(1, 1);
            assert!(!(p.kind == Kind::Earlier && p.at(0) == 0.8125), "{p:?}");
        }
    }

    #[test]
    fn the_kinds_all_come_and_fill_c_as_they_say() {
        remember(&[1.5, 2.5]);
        let mut kinds = Vec::new();
        for _ in 0..30 {
            kinds.push(draw(5, 16));
        }
        // Another test may draw between these, so three in a row are not always one bag; over
        // thirty draws each kind comes often.
        for kind in [Kind::Nan, Kind::Random] {
            assert!(kinds.iter().filter(|p| p.kind == kind).count() >= 5);
        }
        for p in &kinds {
            assert_eq!(p.len(), 5);
            match p.kind {
                Kind::Nan => assert!(p.to_vec().iter().all(|x| x.is_nan())),
                Kind::Random => assert!(p.to_vec().iter().all(|x| x.is_finite())),
                Kind::Earlier => assert!(p.to_vec().iter().all(|x| x.is_finite())),
            }
            assert!(p.held(0, p.at(0)));
        }
    }

    #[test]
    fn only_the_poisons_own_value_counts_as_held() {
        let p = Poison {
            kind: Kind::Random,
            len: 2,
            values: Some(vec![0.25, -0.5].into()),
        };
        assert!(p.held(1, -0.5));
        assert!(!p.held(1, -0.500_001));
        assert!(!p.held(0, f32::NAN));
        assert!(Poison::nan(2).held(0, f32::NAN));
        assert!(!Poison::nan(2).held(0, 0.0));
    }
}
