//! A grader's cases, as data: each a realistic mistake (or a correct kernel in another
//! style) and what the grader must say about it. Every lesson declares its own in its grader
//! test, `tests/NN_name.rs` (`pub mod cases`), which checks them; the graders' suite
//! (`tests/suite.rs`) grades every lesson's and records the result.

use super::FailKind;

/// What kind of mistake a case stands for, or that it is a correct alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Work-items read local memory others write, with no barrier between.
    Race,
    /// A barrier in the wrong place, or inside a branch only some work-items take.
    Barrier,
    /// Two directions swapped (TSM/TSN, WPTM/WPTN, rows/columns), hidden by square tiles.
    Asymmetric,
    /// Sizes at the edge: off-by-one guards, ragged sizes, vector paths, 16-bit indices.
    Edge,
    /// Reads past the end of A, B or an array, whatever the result.
    OutOfBoundsRead,
    /// Writes outside C.
    OutOfBoundsWrite,
    /// A value used before it is written.
    Uninitialised,
    /// A right answer that only looks like the lesson's technique.
    Decoy,
    /// Printing or writing that imitates the grader (its verdicts, its driver's answers).
    Forged,
    /// Work skipped where the grader is not expected to look: on the timed call, at the timed
    /// shape, when C already holds numbers, outside the sampled elements.
    Cheat,
    /// Code that does not build, or not with the lesson's signature.
    Build,
    /// Code that never finishes or crashes.
    Runaway,
    /// Plain wrong arithmetic or indexing.
    WrongResult,
    /// A correct version in another style than the solution's: it must pass.
    Alternative,
}

impl Class {
    /// The class as the suite's records and the book name it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Race => "race",
            Class::Barrier => "barrier",
            Class::Asymmetric => "asymmetric",
            Class::Edge => "edge",
            Class::OutOfBoundsRead => "out-of-bounds read",
            Class::OutOfBoundsWrite => "out-of-bounds write",
            Class::Uninitialised => "uninitialised",
            Class::Decoy => "decoy",
            Class::Forged => "forged output",
            Class::Cheat => "cheat",
            Class::Build => "build",
            Class::Runaway => "hang or crash",
            Class::WrongResult => "result",
            Class::Alternative => "alternative",
        }
    }
}

/// The code a case grades.
#[derive(Clone, Copy, Debug)]
pub enum Code {
    /// A file of the tests: `tests/wrong/<lesson>/<name>` for a case the grader must reject
    /// (or a known gap), `tests/right/<lesson>/<name>` for one it must accept. The name has
    /// no extension.
    File(&'static str),
    /// The lesson's solution with these `(from, to)` edits, made at test time.
    Mutant(&'static [(&'static str, &'static str)]),
    /// Another lesson's solution, handed in as this lesson's: the key of that lesson.
    Solution(&'static str),
}

// ANCHOR: expect
/// What the grader must say.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// Fail with this kind, and a message containing every one of the words.
    Reject(FailKind, &'static [&'static str]),
    /// Fail with one of these kinds, and a message containing every one of the words: for
    /// code whose result depends on what the device leaves in memory it never initialised, or
    /// whose first finding under the simulator depends on the defines or shapes drawn for the
    /// grading (a wrong index that also reads out of bounds only where N > K).
    RejectAny(&'static [FailKind], &'static [&'static str]),
    /// Pass.
    Accept,
    /// Wrong, but the graders pass it today: a known gap, with the reason. The case is
    /// checked to still pass, so that closing the gap shows (and the case becomes a
    /// `Reject`).
    Gap(&'static str),
}
// ANCHOR_END: expect

// ANCHOR: case
/// One case of the suite: a lesson, a piece of code, and what the grader must say about it.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub lesson: &'static str,
    /// Unique within the lesson; also the file or mutant's name.
    pub name: &'static str,
    pub class: Class,
    pub code: Code,
    pub expect: Expect,
    /// Words that must appear in what the code printed (shown to the student as "your code
    /// printed").
    pub printed: &'static [&'static str],
    /// A shorter watchdog, in seconds, for code meant to hang.
    pub watchdog: Option<u64>,
    /// Also time the code, at this square size, as the scoreboard does: for code whose
    /// cheat shows only on timed calls.
    pub timed: Option<usize>,
    /// The shape (M, N, K) the scoreboard drew to time at, near the asked size `timed`;
    /// `None`: timed at the asked size itself.
    pub timed_at: Option<[usize; 3]>,
    /// Timed as the scoreboard times, at `timed`: the shape drawn by the grading itself, no
    /// code knows which, and the reference timed beside ([`Case::scored`]).
    pub scored: bool,
    /// Graded strictly (`--strict`): a part not checked fails the grading.
    pub strict: bool,
}
// ANCHOR_END: case

impl Case {
    /// A case the grader must reject with `kind` and every one of `words`.
    pub const fn rejects(
        lesson: &'static str,
        name: &'static str,
        class: Class,
        code: Code,
        kind: FailKind,
        words: &'static [&'static str],
    ) -> Case {
        Case {
            lesson,
            name,
            class,
            code,
            expect: Expect::Reject(kind, words),
            printed: &[],
            watchdog: None,
            timed: None,
            timed_at: None,
            scored: false,
            strict: false,
        }
    }

    /// A case the grader must reject with one of `kinds` and every one of `words`.
    pub const fn rejects_any(
        lesson: &'static str,
        name: &'static str,
        class: Class,
        code: Code,
        kinds: &'static [FailKind],
        words: &'static [&'static str],
    ) -> Case {
        Case {
            lesson,
            name,
            class,
            code,
            expect: Expect::RejectAny(kinds, words),
            printed: &[],
            watchdog: None,
            timed: None,
            timed_at: None,
            scored: false,
            strict: false,
        }
    }

    /// A correct alternative the grader must accept.
    pub const fn accepts(lesson: &'static str, name: &'static str, code: Code) -> Case {
        Case {
            lesson,
            name,
            class: Class::Alternative,
            code,
            expect: Expect::Accept,
            printed: &[],
            watchdog: None,
            timed: None,
            timed_at: None,
            scored: false,
            strict: false,
        }
    }

    /// A wrong kernel the graders pass today, and why.
    pub const fn gap(
        lesson: &'static str,
        name: &'static str,
        class: Class,
        code: Code,
        why: &'static str,
    ) -> Case {
        Case {
            lesson,
            name,
            class,
            code,
            expect: Expect::Gap(why),
            printed: &[],
            watchdog: None,
            timed: None,
            timed_at: None,
            scored: false,
            strict: false,
        }
    }

    /// The same case, also requiring `words` in what the code printed.
    pub const fn printing(mut self, words: &'static [&'static str]) -> Case {
        self.printed = words;
        self
    }

    /// The same case, graded with a watchdog of `secs` seconds per step.
    pub const fn watchdog(mut self, secs: u64) -> Case {
        self.watchdog = Some(secs);
        self
    }

    /// The same case, also timed at `size`³ as the scoreboard times a passing kernel.
    pub const fn timed(mut self, size: usize) -> Case {
        self.timed = Some(size);
        self
    }

    /// The same case graded as the scoreboard grades at the asked size `size`³: the grading
    /// draws the shape it times near it, and the reference is timed beside. For code that
    /// keeps its technique for the asked size, which no named shape would show (the grading
    /// must draw it, as it does for every student).
    pub const fn scored(mut self, size: usize) -> Case {
        self.timed = Some(size);
        self.scored = true;
        self
    }

    /// The same case graded as the scoreboard grades at the asked size `size`³ when it drew
    /// `shape` (M, N, K) to time at: for code that keeps its technique for the asked size.
    pub const fn timed_at(mut self, size: usize, shape: [usize; 3]) -> Case {
        self.timed = Some(size);
        self.timed_at = Some(shape);
        self
    }

    /// The same case graded strictly, as a teacher's `--strict` grading: for code that passes
    /// only where a check could not run.
    pub const fn strict(mut self) -> Case {
        self.strict = true;
        self
    }

    /// Whether the code is wrong (to be rejected, or a known gap).
    pub fn is_wrong(&self) -> bool {
        !matches!(self.expect, Expect::Accept)
    }
}
