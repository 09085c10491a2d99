//! The journal of a class run: each finished student's verdicts in `DIR/.lab-class/<name>.json`,
//! written whole or not at all (a temporary file renamed over the old one), keyed by a hash of
//! the student's files and of what the run asked. A run stopped at any moment loses only the
//! student it was grading; a folder edited since it was graded is graded again.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::class::Student;
use lab::grade::{Options, Verdict};
use lab::lesson::Lesson;

/// The journal's folder inside the class folder (a dot-folder: never taken for a student).
pub const FOLDER: &str = ".lab-class";

/// One finished student, as saved.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    name: String,
    folder: PathBuf,
    verdicts: Vec<Verdict>,
}

/// A class folder's journal.
pub struct Journal {
    dir: PathBuf,
}

impl Journal {
    /// Opens (creating) the journal of the class in `class_dir`.
    pub fn open(class_dir: &Path) -> Result<Journal> {
        let dir = class_dir.join(FOLDER);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating the class journal {}", dir.display()))?;
        Ok(Journal { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// The student saved under `name` with this key, if any. An entry that cannot be read
    /// (another version of the course, a damaged file) is graded again, never trusted.
    pub fn load(&self, name: &str, key: &str) -> Option<Student> {
        let text = std::fs::read_to_string(self.file(name)).ok()?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        (e.key == key && e.name == name).then_some(Student {
            name: e.name,
            folder: e.folder,
            verdicts: e.verdicts,
        })
    }

    /// Saves a finished student: the file is complete before it takes the place of any
    /// earlier one.
    pub fn save(&self, key: &str, s: &Student) -> Result<()> {
        let entry = Entry {
            key: key.to_string(),
            name: s.name.clone(),
            folder: s.folder.clone(),
            verdicts: s.verdicts.clone(),
        };
        let path = self.file(&s.name);
        let part = self.dir.join(format!(".{}.json.part", s.name));
        let text = serde_json::to_string_pretty(&entry).context("encoding a journal entry")?;
        {
            use std::io::Write as _;
            let mut f = std::fs::File::create(&part)
                .with_context(|| format!("writing {}", part.display()))?;
            f.write_all(text.as_bytes())
                .and_then(|_| f.sync_all())
                .with_context(|| format!("writing {}", part.display()))?;
        }
        std::fs::rename(&part, &path).with_context(|| format!("writing {}", path.display()))
    }
}

/// 64-bit FNV-1a: stable across builds and platforms, unlike the standard library's hasher.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn eat(&mut self, bytes: &[u8]) {
        // The length first, so that ("ab", "c") and ("a", "bc") differ.
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The key of a student's grading: every file in the folder (names and bytes) and what the
/// run asks (lessons, timing size, seed, device, strictness, OpenCL C version, this program's
/// version).
pub fn key(folder: &Path, opts: &Options, lessons: &[&'static Lesson]) -> Result<String> {
    let mut h = Fnv::new();
    h.eat(env!("CARGO_PKG_VERSION").as_bytes());
    let mut asked = serde_json::json!({
        "lessons": lessons.iter().map(|l| l.key).collect::<Vec<_>>(),
        "time": opts.time,
        "shapes": opts.shapes,
        "seed": opts.seed,
        "device": opts.device,
        "strict": opts.strict,
        "simulate": opts.simulate,
        "defines": opts.defines,
    });
    // Only when asked for, so that the keys of runs without it stay what they were.
    if let Some(version) = &opts.cl_std {
        asked["cl_std"] = serde_json::json!(version);
    }
    h.eat(asked.to_string().as_bytes());
    let mut files = Vec::new();
    walk(folder, folder, &mut files)?;
    files.sort();
    for (rel, path) in files {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        h.eat(rel.as_bytes());
        h.eat(&bytes);
    }
    Ok(format!("{:016x}", h.0))
}

/// Every file under `dir`, by its path relative to `root`. Build outputs (`target/`) are left
/// out: they change without the student changing anything.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if entry.file_name() != "target" {
                walk(root, &path, out)?;
            }
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push((rel.to_string_lossy().to_string(), path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::harness::paths::Course;

    #[test]
    fn the_key_changes_with_a_file_and_with_what_is_asked() {
        let dir = std::env::temp_dir().join(format!("lab-journal-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("04_naive_kernel.cl"), "a").unwrap();
        let opts = Options::new(Course::new("/nowhere"), PathBuf::from("lab"));
        let four = [lab::ladder::find("4").unwrap()];
        let k1 = key(&dir, &opts, &four).unwrap();
        assert_eq!(k1, key(&dir, &opts, &four).unwrap());
        std::fs::write(dir.join("sub/notes.txt"), "b").unwrap();
        let k2 = key(&dir, &opts, &four).unwrap();
        assert_ne!(k1, k2, "a new file");
        std::fs::write(dir.join("04_naive_kernel.cl"), "c").unwrap();
        let k3 = key(&dir, &opts, &four).unwrap();
        assert_ne!(k2, k3, "an edited file");
        let strict = Options {
            strict: true,
            ..opts.clone()
        };
        assert_ne!(k3, key(&dir, &strict, &four).unwrap(), "another setting");
        let cl12 = Options {
            cl_std: Some("1.2".into()),
            ..opts.clone()
        };
        assert_ne!(k3, key(&dir, &cl12, &four).unwrap(), "another OpenCL C");
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("target/x"), "y").unwrap();
        assert_eq!(k3, key(&dir, &opts, &four).unwrap(), "build outputs");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_saved_student_loads_only_under_its_key() {
        let dir = std::env::temp_dir().join(format!("lab-journal-save-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let j = Journal::open(&dir).unwrap();
        let l = lab::ladder::find("4").unwrap();
        let mut v = Verdict::new(l, Path::new("x.cl"));
        v.beside = Some(lab::harness::timing::Beside {
            timing: Default::default(),
            ratio: 2.0,
            low: 1.9,
            high: 2.1,
            noise: 0.01,
            floor: lab::harness::timing::TIE_FLOOR,
        });
        let s = Student {
            name: "ada".into(),
            folder: dir.join("ada"),
            verdicts: vec![v],
        };
        j.save("k1", &s).unwrap();
        let back = j.load("ada", "k1").expect("saved");
        assert_eq!(back.verdicts[0].beside.map(|b| b.ratio), Some(2.0));
        assert_eq!(back.verdicts[0].lesson, "04_naive_kernel");
        assert!(j.load("ada", "k2").is_none());
        std::fs::write(j.file("ada"), "{ half a fi").unwrap();
        assert!(
            j.load("ada", "k1").is_none(),
            "a damaged entry is graded again"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
