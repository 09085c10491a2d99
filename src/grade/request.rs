//! What the parent asks of a grading worker (`lab worker REQUEST EVENTS`): a grading, or one
//! run under the simulator, and the one function that starts a worker ([`spawn`]). Its own
//! room, so that the worker and the simulator's parent side both use it without importing
//! each other.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::harness::child::{self, Ended, EventReader, Scratch, Tick};
use crate::harness::matrix::Shape;

use super::{Options, Source};

/// What the parent asks of a worker.
#[derive(Serialize, Deserialize)]
pub struct Request {
    pub lesson: String,
    pub source: Source,
    pub opts: Options,
    /// A run under the simulator instead of a grading.
    #[serde(default)]
    pub look: Option<Look>,
    /// The parent's factor of a modelled unit's products ([`crate::harness::unit_scale`]):
    /// every worker of one program scales alike, so that a source built again in another
    /// worker is the same text, and the device's compiler cache serves it.
    #[serde(default)]
    pub unit_scale: Option<f32>,
}

/// Which run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Look {
    /// The sanitizer's probe number `i`.
    Sanitize(usize),
    /// The sanitizer's probe number `i`, then the kernel again at a shape drawn for this
    /// grading ([`super::shapes::near_probe`]), built with the behaviour's probe number `j`'s
    /// defines (drawn for this grading too; `None`: the lesson has no behaviour, and the
    /// sanitizer's probe keeps its own), in one simulator run. The number is the run's own
    /// mark between the two runs' reports, which no kernel's text can know.
    Drawn(usize, Option<usize>, Shape, u64),
    /// The behaviour's probe number `j` (drawn for this grading), with instruction counts, at
    /// a shape drawn for this grading ([`super::shapes::whole_tiles_near`]) in place of its
    /// declared one.
    Metrics(usize, Shape),
    /// The technique's counts at the size this grading was asked for, with the device's own defines
    /// (the request's `opts.defines` carry them all) and the launch the device runs, of which the
    /// simulator runs two work-groups, the last and one drawn (Oclgrind's quick mode and
    /// `harness::groups`): the call a user's run makes, which no kernel can tell from a timed one.
    /// Or, numbered after it, at a few work-groups of the tiles this device or another kind of
    /// device takes, with its defines ([`super::kinds`]), every one run: the third field says
    /// which. Counts, in the build the device makes but for one
    /// ([`super::counts::unoptimised_count`]), and with the device's own defines (the last field)
    /// the sanitizer's questions but uninitialised values: races, barriers, accesses outside every
    /// buffer. Where these looks run, they ask what [`Look::Own`] asks elsewhere; another kind's
    /// defines are asked about barriers and accesses.
    Asked(usize, Shape, bool, bool),
    /// The sanitizer (races, reads and writes outside every buffer, barriers) with the device's own
    /// defines (the request's `opts.defines` carry them all), where the technique's counts do not
    /// ask it ([`Look::Asked`]: the device run failed, the lesson has no technique, or the
    /// sanitizer runs a stand-in for part of the kernel, built unoptimised then): at the small
    /// problem of its tiles drawn for this grading ([`super::looks`]), every work-group run, so
    /// that the defines every run on this device uses are asked whatever was drawn among the
    /// declared sets. The last field: every work-group runs (`true`), or, at the size this grading
    /// was asked for, the last and one drawn (Oclgrind's quick mode and `harness::groups`), so that
    /// a kernel keyed on the problem's size or its number of work-groups is asked at the size every
    /// user's run has. Uninitialised values with these defines are asked by the device's run of the
    /// kernel built unoptimised.
    Own(Shape, bool),
    /// The sanitizer but races (accesses outside every buffer, barriers, uninitialised values:
    /// the unoptimised build), with the device's
    /// own defines at the grading's vast thin shape ([`super::shapes::thin`]: thousands of
    /// work-groups, past 2^24 elements of C, over a K of 8 to 12), of which the simulator runs
    /// two (quick mode): with the last field, one in the last column of groups and one in the
    /// last row ([`crate::harness::groups::see_edges`]), else one drawn and the last. A kernel
    /// keyed on how many work-groups its launch has, or on the edges of a large launch, is
    /// asked where it behaves so, at little cost: K is short. The edges are asked again where
    /// the last tiles are cut the two extreme ways ([`super::looks::vast_looks`]).
    Vast(Shape, bool),
    /// The sanitizer's probe number `i`, built as the device builds it (optimised), run for the
    /// address reader alone, where no look of the technique builds the kernel that way: the
    /// sanitizer's unoptimised build keeps a pointer punned through a private union a store
    /// and a load, which an optimised build makes the pointer's value.
    Read(usize),
}

/// Starts the course's program as a worker on `request` (`lab worker REQUEST EVENTS`), the one
/// place a worker is spawned, with `env` set and the variables in `remove` unset, and
/// supervises it: `on_event` sees each event as it arrives, and the worker is killed, with
/// everything it started, when it has sent none for `opts.step_timeout`. Its request and
/// event files live in a private scratch folder whose path the code under test is never
/// told. Returns how it ended.
pub(super) fn spawn<E: DeserializeOwned>(
    request: &Request,
    env: &[(String, String)],
    remove: &[&str],
    keep: usize,
    mut on_event: impl FnMut(E),
) -> Result<Ended> {
    let scratch = Scratch::new("worker")?;
    let path = scratch.dir.join("request.json");
    let events = scratch.dir.join("events");
    std::fs::write(
        &path,
        serde_json::to_vec(request).context("encoding the request")?,
    )
    .context("writing the request")?;
    std::fs::write(&events, b"").context("creating the event file")?;
    // The worker keeps this program's working directory, so that the paths in its messages
    // read as they would here; the student's own CPU code runs in a scratch folder of its
    // own (harness::cpu_crate), and a kernel has no file system to touch.
    let mut cmd = Command::new(&request.opts.worker);
    cmd.arg("worker").arg(&path).arg(&events);
    for v in remove {
        cmd.env_remove(v);
    }
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    let mut reader = EventReader::new(&events);
    let mut last = Instant::now();
    let silence = request.opts.step_timeout;
    let ended = child::supervise(cmd, keep, || {
        for ev in reader.poll::<E>() {
            last = Instant::now();
            on_event(ev);
        }
        // Silence ends the worker even after its answer: a real one is followed by its exit.
        if last.elapsed() > silence {
            Tick::Kill
        } else {
            Tick::Continue
        }
    })
    .with_context(|| {
        format!(
            "starting the grading worker {}",
            request.opts.worker.display()
        )
    })?;
    // Events written just before the worker exited.
    for ev in reader.poll::<E>() {
        on_event(ev);
    }
    Ok(ended)
}
