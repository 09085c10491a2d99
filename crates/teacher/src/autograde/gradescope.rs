//! Gradescope's `results.json`: one test per lesson (its score, its points, the student's full
//! report), and a leaderboard entry per lesson whose speed can be trusted.

use serde::Serialize;
use serde_json::{json, Value};

use crate::autograde::Config;
use crate::class::{self, Student};
use lab::report;

/// The whole file, as Gradescope reads it.
#[derive(Serialize)]
pub struct Results {
    pub score: f64,
    pub output: String,
    pub visibility: String,
    pub stdout_visibility: String,
    pub tests: Vec<Test>,
    pub leaderboard: Vec<Entry>,
    pub extra_data: Value,
}

/// One lesson.
#[derive(Serialize)]
pub struct Test {
    pub name: String,
    pub number: String,
    pub score: f64,
    pub max_score: f64,
    pub status: &'static str,
    pub output: String,
    pub tags: Vec<String>,
    pub visibility: String,
    pub extra_data: Value,
}

/// One leaderboard column.
#[derive(Serialize)]
pub struct Entry {
    pub name: String,
    pub value: f64,
    pub order: &'static str,
}

/// The leaderboard column of a lesson: its speed over the reference's, both timed in the same
/// container, so that the leaderboard does not rank the machines Gradescope happened to give.
pub fn column(lesson: &str) -> String {
    format!("{} speed over reference", class::lesson_key(lesson))
}

/// `results.json` for one graded submission.
pub fn results(student: &Student, config: &Config, device: &str) -> Results {
    let mut tests = Vec::new();
    let mut leaderboard = Vec::new();
    let mut unchecked = serde_json::Map::new();
    for v in &student.verdicts {
        let score = config.score(v);
        let mut output = report::verdict(v);
        for (part, cost) in &score.costs {
            output.push_str(&format!(
                "\n{} could not be checked: {} of this lesson's {} points withheld.",
                part.word(),
                points(*cost),
                points(score.max)
            ));
        }
        let ranked = class::rank_value(v, config.rank_unchecked);
        match (ranked, class::why_not_ranked(v, config.rank_unchecked)) {
            (Some(r), _) => {
                let beside = v
                    .beside
                    .expect("a ranked verdict was timed beside the reference");
                let tie = if beside.tie() {
                    format!(
                        ": a tie, within the reference's own noise on this machine (±{:.0} %)",
                        100.0 * beside.band()
                    )
                } else {
                    String::new()
                };
                output.push_str(&format!(
                    "\nLeaderboard: {r:.2}× the reference's speed{tie} (half the timed problems between {:.2}× and {:.2}×), timed beside it on this machine on the same problems, one call of each in turn.",
                    beside.low, beside.high
                ));
                leaderboard.push(Entry {
                    name: column(&v.lesson),
                    value: (r * 1000.0).round() / 1000.0,
                    order: "desc",
                });
            }
            (None, Some(why)) if v.passed() => {
                output.push_str(&format!("\nNot on the leaderboard: {why}."))
            }
            _ => {}
        }
        let words: Vec<String> = v
            .unchecked_parts()
            .iter()
            .map(|p| p.word().to_string())
            .collect();
        if !words.is_empty() {
            unchecked.insert(v.lesson.clone(), json!(words));
        }
        let mut tags = vec![class::lesson_key(&v.lesson).to_string()];
        if !words.is_empty() {
            tags.push(v.unchecked_words());
        }
        tests.push(Test {
            name: match v.unchecked_words() {
                w if w.is_empty() => v.lesson.clone(),
                w => format!("{} ({w})", v.lesson),
            },
            number: class::lesson_key(&v.lesson).to_string(),
            score: score.score,
            max_score: score.max,
            status: if score.full() { "passed" } else { "failed" },
            output,
            tags,
            visibility: config.visibility.clone(),
            extra_data: json!({
                "result": if v.passed() { "pass" } else { "fail" },
                "kind": v.kind().map(report::kind_word).unwrap_or_default(),
                "unchecked": words,
                "gflops": v.timing.as_ref().filter(|_| v.passed()).map(|(s, t)| t.gflops(*s)),
                "reference_gflops_beside": v.beside.zip(v.timing).map(|(b, (s, _))| b.timing.gflops(s)),
            }),
        });
    }
    let score: f64 = tests.iter().map(|t| t.score).sum();
    let max: f64 = tests.iter().map(|t| t.max_score).sum();
    let passed = student.verdicts.iter().filter(|v| v.passed()).count();
    Results {
        score: (score * 100.0).round() / 100.0,
        output: format!(
            "{passed} of {} lessons pass: {} of {} points, graded on {device}. The leaderboard ranks each lesson's speed over the reference's, timed beside it on the same machine (the median of the timed calls), and only kernels that passed with their speed checked and their code sandboxed.",
            student.verdicts.len(),
            points(score),
            points(max),
        ),
        visibility: config.visibility.clone(),
        stdout_visibility: "hidden".into(),
        tests,
        leaderboard,
        extra_data: json!({ "device": device, "unchecked": unchecked }),
    }
}

fn points(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}
