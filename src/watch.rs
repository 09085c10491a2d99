//! `lab watch` (also `cargo lab --watch`): grades the lesson being edited every time its file
//! is saved, shows the grader's report, its next hint on a key press and, once it passes, its
//! speed beside the reference's; then moves on to the next lesson. Every grading is recorded
//! in the student's progress file, so a later `lab watch` starts where this one left off.
//!
//! The grading is the grader's own ([`crate::grade::grade`], the report [`crate::report::verdict`]),
//! run in a thread so that keys are answered while it works.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};

use crate::cli::{self, Edge};
use crate::grade::{self, Options, Source, Verdict};
use crate::harness::matrix::Shape;
use crate::harness::{child, device, paths};
use crate::ladder;
use crate::lesson::Lesson;
use crate::progress::{self, Progress};
use crate::{report, scoreboard};

pub mod hints;
mod term;

use hints::Hint;
use term::Key;

/// `lab watch`'s flags (with the shared `--kernels` and `--device`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Args {
    /// The lesson to start at, e.g. 05 (default: the next one after the lesson you passed
    /// last, as your progress file remembers).
    pub lesson: Option<String>,
    /// Size (M = N = K) at which a passing lesson is timed beside the reference (default: the
    /// scoreboard's).
    #[arg(long)]
    pub size: Option<usize>,
}

impl Args {
    /// `cargo lab --watch [LESSON]`: the lessons `cargo lab` was given, of which watch takes
    /// at most one, to start at.
    pub fn from_grade(lessons: &[String]) -> Result<Args> {
        if lessons.len() > 1 {
            bail!(
                "--watch starts at one lesson and moves on from there: give one ({} given)",
                lessons.len()
            );
        }
        Ok(Args {
            lesson: lessons.first().cloned(),
            size: None,
        })
    }
}

/// How often the lesson's file is looked at. A change is graded once the file has read the
/// same at two looks in a row, so that an editor's two writes of one save (or a truncate and
/// a write) make one grading of the finished file.
const POLL: Duration = Duration::from_millis(300);

/// The keys, as every prompt names them.
const KEYS: &str = "h: next hint · n: next lesson · r: grade again · q: quit";

/// What the watch loop waits for.
enum Event {
    Key(Key),
    /// A grading finished: its generation (a grading dropped by `n` or `q` is stale), the
    /// student's verdict and, when it passed, the reference's, timed on the same problem.
    Graded(u64, Box<Verdict>, Option<Box<Verdict>>),
}

/// The lesson's file as last looked at: its contents' hash (`None`: missing or unreadable).
type Look = Option<u64>;

fn look(file: &Path) -> Look {
    use std::hash::{Hash as _, Hasher as _};
    let bytes = std::fs::read(file).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    Some(h.finish())
}

/// Everything a watch needs across lessons.
struct Watch<'a> {
    edge: &'a Edge,
    dir: PathBuf,
    opts: Options,
    /// The size gradings are timed at.
    shape: Shape,
    events: Sender<Event>,
    lesson: &'static Lesson,
    hints: Vec<Hint>,
    /// How many of `hints` have been shown.
    shown: usize,
    /// The file as last looked at, and whether it read the same at the look before.
    seen: Look,
    steady: bool,
    /// The file as it was when it was last graded (`None` inside: graded while missing);
    /// `None`: not graded yet.
    graded: Option<Look>,
    /// The grading in flight and its generation.
    busy: Option<JoinHandle<()>>,
    generation: u64,
}

/// Runs `lab watch` until the student quits (`q`, Ctrl-C) or every lesson passes.
pub fn run(
    args: &Args,
    kernels: Option<&Path>,
    device_flag: Option<&str>,
    edge: &Edge,
) -> Result<()> {
    let dir = edge.kernels(kernels)?;
    let start = match &args.lesson {
        Some(k) => Some(ladder::find(k).filter(|l| l.graded()).with_context(|| {
            format!(
                "there is no lesson {k} to watch: the lessons with a file to write are {}",
                graded().map(|l| l.key).collect::<Vec<_>>().join(", ")
            )
        })?),
        None => None,
    };
    let opts = edge.options(cli::this_program()?, device_flag);
    // The device only sets the default size: without OpenCL the CPU lessons still grade, and
    // an OpenCL lesson's verdict says what is missing.
    let info = device::pick(opts.device.as_deref());
    let shape = match (args.size, &info) {
        (Some(s), _) => {
            let shape = Shape::square(s);
            cli::check_shape(shape)?;
            shape
        }
        (None, Ok((_, info))) => scoreboard::timing_shape(Some(info)),
        (None, Err(_)) => scoreboard::timing_shape(None),
    };
    let opts = Options {
        time: Some(shape),
        ..opts
    };
    let (progress, warning) = progress::read(&edge.progress_file());
    if let Some(w) = warning {
        println!("{w}");
    }
    println!("lab watch — kernels from {}", paths::display(&dir));
    match &info {
        Ok((_, i)) => println!(
            "device: {}; a passing lesson is timed near {shape}",
            i.describe()
        ),
        Err(e) => println!("no OpenCL device ({e:#}): the OpenCL lessons cannot be graded"),
    }
    let before = passed_before(&progress, &dir);
    if !before.is_empty() {
        println!("passed before: {}", before.join("; "));
    }
    let Some(first) = start.or_else(|| next_to_do(&progress, &dir)) else {
        println!(
            "Every lesson passes in {}. `lab watch LESSON` watches one again.",
            paths::display(&dir)
        );
        return Ok(());
    };
    let (tx, rx) = mpsc::channel();
    term::catch_quit_signals();
    // Restores the terminal when this function returns, however it returns.
    let raw = term::Raw::enter();
    {
        let keys = tx.clone();
        let (send, recv) = mpsc::channel();
        term::read_keys(raw.is_some(), send);
        // Keys join the grading results on one channel, so one loop waits for both.
        std::thread::spawn(move || {
            for k in recv {
                if keys.send(Event::Key(k)).is_err() {
                    return;
                }
            }
        });
    }
    let mut w = Watch {
        edge,
        dir,
        opts,
        shape,
        events: tx,
        lesson: first,
        hints: Vec::new(),
        shown: 0,
        seen: None,
        steady: false,
        graded: None,
        busy: None,
        generation: 0,
    };
    w.begin(first);
    let result = w.serve(&rx);
    w.drop_grading();
    drop(raw);
    result
}

/// Every lesson with a file to write, in ladder order.
fn graded() -> impl Iterator<Item = &'static Lesson> {
    ladder::ALL.iter().copied().filter(|l| l.graded())
}

/// `04 (passed on 2026-11-28, best 1.2 GFLOP/s)` for each lesson passed in `dir`.
fn passed_before(progress: &Progress, dir: &Path) -> Vec<String> {
    graded()
        .filter_map(|l| {
            let e = progress.entry(dir, &l.name())?;
            let words = e.words();
            (!words.is_empty()).then(|| format!("{} ({words})", l.key))
        })
        .collect()
}

/// Where a watch starts: the first lesson not passed after the one passed most recently,
/// going round to the start of the ladder; the first lesson not passed when none has passed.
/// `None` when every lesson passes.
fn next_to_do(progress: &Progress, dir: &Path) -> Option<&'static Lesson> {
    let lessons: Vec<&'static Lesson> = graded().collect();
    let last = lessons
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((i, progress.entry(dir, &l.name())?)))
        .filter(|(_, e)| e.passed)
        .max_by(|a, b| a.1.when.cmp(&b.1.when))
        .map_or(0, |(i, _)| i + 1);
    (0..lessons.len())
        .map(|j| lessons[(last + j) % lessons.len()])
        .find(|l| !progress.passed(dir, &l.name()))
}

impl Watch<'_> {
    /// Watches `lesson` from now: its header, its hints, and a grading of its file as it is.
    fn begin(&mut self, lesson: &'static Lesson) {
        self.lesson = lesson;
        self.shown = 0;
        self.hints = match hints::of_lesson(&self.opts.course.book(), &lesson.name()) {
            Ok(h) => h,
            Err(e) => {
                println!("(no hints: {e:#})");
                Vec::new()
            }
        };
        let file = self.file();
        self.seen = look(&file);
        self.steady = true;
        self.graded = None;
        println!();
        println!(
            "━━ lesson {} · {} — edit {}; it is graded on every save",
            lesson.key,
            lesson.title,
            paths::display(&file)
        );
        println!("   {KEYS}");
        self.grade_now();
    }

    fn file(&self) -> PathBuf {
        self.dir.join(self.lesson.file_name())
    }

    /// The loop: keys, gradings that finish, and looks at the file, until the student quits.
    fn serve(&mut self, rx: &Receiver<Event>) -> Result<()> {
        let mut next_look = Instant::now() + POLL;
        loop {
            if term::quit_asked() {
                println!("\nquitting");
                return Ok(());
            }
            let wait = next_look.saturating_duration_since(Instant::now());
            match rx.recv_timeout(wait.min(Duration::from_millis(100))) {
                Ok(Event::Key(Key::Char(c))) => {
                    if !self.key(c) {
                        return Ok(());
                    }
                }
                Ok(Event::Key(Key::End)) => {
                    // stdin ended (a pipe, /dev/null): saves still grade; Ctrl-C quits.
                }
                Ok(Event::Graded(generation, v, reference)) => {
                    if generation == self.generation {
                        if let Some(h) = self.busy.take() {
                            let _ = h.join();
                        }
                        self.show(&v, reference.as_deref());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => bail!("the watch's event channel closed"),
            }
            if Instant::now() >= next_look {
                next_look = Instant::now() + POLL;
                self.look_at_file();
            }
        }
    }

    /// Answers a key; false when it is `q`.
    fn key(&mut self, c: char) -> bool {
        match c.to_ascii_lowercase() {
            'q' | '\u{4}' => {
                println!("\nquitting");
                return false;
            }
            'h' => self.hint(),
            'n' => match graded().skip_while(|l| l.key != self.lesson.key).nth(1) {
                Some(next) => {
                    self.drop_grading();
                    self.begin(next);
                }
                None => println!("lesson {} is the last one. {KEYS}", self.lesson.key),
            },
            'r' => {
                self.drop_grading();
                println!("grading lesson {} again ...", self.lesson.key);
                self.grade_now();
            }
            '\n' | '\r' | ' ' => {}
            _ => println!("{KEYS}"),
        }
        true
    }

    /// Shows the next hint layer.
    fn hint(&mut self) {
        let total = self.hints.len();
        match self.hints.get(self.shown) {
            Some(h) => {
                self.shown += 1;
                println!(
                    "\n── {} of {total}, lesson {} ──\n{}\n",
                    h.title, self.lesson.key, h.text
                );
            }
            None if total == 0 => println!("lesson {} has no hints. {KEYS}", self.lesson.key),
            None => println!(
                "That was the last hint of lesson {}. Its chapter, book/src/{}.md, explains it in full and shows the reference answer.",
                self.lesson.key,
                self.lesson.name()
            ),
        }
    }

    /// Looks at the lesson's file; grades it when it has changed since it was graded and has
    /// read the same twice in a row.
    fn look_at_file(&mut self) {
        let now = look(&self.file());
        self.steady = now == self.seen;
        self.seen = now;
        if self.busy.is_none() && self.steady && self.graded != Some(now) {
            println!("\n{} changed: grading ...", paths::display(&self.file()));
            self.grade_now();
        }
    }

    /// Starts grading the lesson's file as it is now, in a thread.
    fn grade_now(&mut self) {
        self.generation += 1;
        self.graded = Some(self.seen);
        let generation = self.generation;
        let lesson = self.lesson;
        let dir = self.dir.clone();
        // The reference is timed beside the student's code, on the same problems.
        let opts = self.opts.beside();
        let events = self.events.clone();
        self.busy = Some(std::thread::spawn(move || {
            let v = grade::grade(lesson, &Source::Folder(dir), &opts);
            let reference = (v.passed() && v.timing.is_some())
                .then(|| Box::new(scoreboard::reference_for(lesson, &v, &opts)));
            let _ = events.send(Event::Graded(generation, Box::new(v), reference));
        }));
    }

    /// Ends the grading in flight, if any, and forgets it: its worker is killed.
    fn drop_grading(&mut self) {
        if let Some(h) = self.busy.take() {
            self.generation += 1;
            child::stop_children(true);
            let _ = h.join();
            child::stop_children(false);
        }
    }

    /// Shows a grading: the grader's report, then what it means here; a pass moves on.
    fn show(&mut self, v: &Verdict, reference: Option<&Verdict>) {
        self.edge.record_progress(&self.dir, v);
        println!("{}", report::verdict(v).trim_end());
        let key = self.lesson.key;
        let Some(kind) = v.kind() else {
            let yours = scoreboard::speed(v, self.shape);
            let beside = match reference {
                Some(r) if r.passed() => match &v.beside {
                    Some(b) => format!(
                        ", the reference {} timed beside it (yours {})",
                        scoreboard::speed(r, self.shape),
                        scoreboard::ratio_words(b)
                    ),
                    None => format!(", the reference {}", scoreboard::speed(r, self.shape)),
                },
                _ => String::new(),
            };
            let timed = match &v.timing {
                Some((shape, _)) => format!(" (timed at {shape})"),
                None => String::new(),
            };
            println!("✓ lesson {key} passes: yours {yours}{beside}{timed}");
            match graded().skip_while(|l| l.key != key).nth(1) {
                Some(next) => self.begin(next),
                None => println!("That was the last lesson: every rung climbed. q quits."),
            }
            return;
        };
        let more = match self.hints.len().saturating_sub(self.shown) {
            0 => String::new(),
            n => format!(" ({n} hint{} left)", if n == 1 { "" } else { "s" }),
        };
        println!(
            "✗ lesson {key}: {}. Save {} to grade it again.\n   {KEYS}{more}",
            report::kind_word(kind),
            paths::display(&self.file())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_starts_after_the_lesson_passed_last() {
        let dir = PathBuf::from("/tmp/lab-watch-kernels");
        let mut p = Progress {
            version: progress::VERSION,
            lessons: Vec::new(),
        };
        let first = graded().next().unwrap();
        assert_eq!(next_to_do(&p, &dir).unwrap().key, first.key);
        let lessons: Vec<&Lesson> = graded().collect();
        let pass = |p: &mut Progress, l: &Lesson, when: &str| {
            let mut v = Verdict::new(l, &dir.join(l.file_name()));
            v.device = None;
            p.add(&dir, &v, when);
        };
        // The third passed, then the second: the watch goes on after the second, skipping
        // the third, which passes.
        pass(&mut p, lessons[2], "2026-01-01T00:00:00Z");
        assert_eq!(next_to_do(&p, &dir).unwrap().key, lessons[3].key);
        pass(&mut p, lessons[1], "2026-01-02T00:00:00Z");
        assert_eq!(next_to_do(&p, &dir).unwrap().key, lessons[3].key);
        // The last passed: round to the first not passed.
        pass(&mut p, lessons[lessons.len() - 1], "2026-01-03T00:00:00Z");
        assert_eq!(next_to_do(&p, &dir).unwrap().key, lessons[0].key);
        // Another folder has its own progress.
        assert_eq!(
            next_to_do(&p, Path::new("/elsewhere")).unwrap().key,
            first.key
        );
        for l in &lessons {
            pass(&mut p, l, "2026-01-04T00:00:00Z");
        }
        assert!(next_to_do(&p, &dir).is_none());
        assert!(passed_before(&p, &dir)[0]
            .starts_with(&format!("{} (passed on 2026-01-0", lessons[0].key)));
    }

    #[test]
    fn watch_takes_one_lesson_from_cargo_lab() {
        assert_eq!(Args::from_grade(&[]).unwrap().lesson, None);
        assert_eq!(
            Args::from_grade(&["5".into()]).unwrap().lesson.as_deref(),
            Some("5")
        );
        let e = Args::from_grade(&["4".into(), "5".into()]).unwrap_err();
        assert!(e.to_string().contains("one lesson"), "{e}");
    }
}
