//! The course's Oclgrind plugins (`plugins.cpp`): the bank counter ([`super::banks`]) and
//! the address reader ([`super::addresses`]), built into one library with the machine's C++
//! compiler the first time one is needed, against the Oclgrind it will be loaded into, and
//! kept under the course's `target/`. Each plugin is made in a run only where its output
//! file is named ([`super::Options`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _, Result};

/// The plugins' sources, carried in the program so that a built binary can build them: the
/// declarations they share, then each file compiled.
const SOURCES: &[(&str, &str)] = &[
    ("plugin.h", include_str!("plugin.h")),
    ("banks.cpp", include_str!("banks.cpp")),
    ("addresses.cpp", include_str!("addresses.cpp")),
    ("leftovers.cpp", include_str!("leftovers.cpp")),
    ("coverage.cpp", include_str!("coverage.cpp")),
    ("plugins.cpp", include_str!("plugins.cpp")),
];

/// The plugins built for this machine's Oclgrind, under `cache` (once; later calls find the
/// library there). Its name carries a hash of what it is built from, so a new source or
/// another Oclgrind builds a new one.
pub fn build(cache: &Path, icd: &Path) -> Result<PathBuf> {
    if !cfg!(target_os = "linux") {
        bail!("the course builds its simulator plugins on Linux only");
    }
    let compiler = ["c++", "g++", "clang++"]
        .iter()
        .find_map(|c| crate::harness::paths::on_path(c))
        .context(
            "no C++ compiler on PATH to build the simulator's plugins (sudo apt-get install g++)",
        )?;
    let core = core_library(icd).with_context(|| {
        format!(
            "Oclgrind's core library (liboclgrind) was not found beside {}",
            icd.display()
        )
    })?;
    let key = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (SOURCES, &core, &compiler).hash(&mut h);
        h.finish()
    };
    let out = cache.join(format!("lab-plugins-{key:016x}.so"));
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    // Built in a folder and under a name of their own, then renamed, so that graders
    // building at once never load a half-written library.
    let unique = format!("{}-{}", std::process::id(), rand_suffix());
    let folder = cache.join(format!("sources-{unique}"));
    let partial = cache.join(format!("lab-plugins-{unique}.so.part"));
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    for (name, text) in SOURCES {
        let path = folder.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let built = Command::new(&compiler)
        .args(["-std=c++14", "-O2", "-shared", "-fPIC", "-fno-rtti", "-o"])
        .arg(&partial)
        .args(
            SOURCES
                .iter()
                .filter(|(n, _)| n.ends_with(".cpp"))
                .map(|(n, _)| folder.join(n)),
        )
        .arg(&core)
        .output()
        .with_context(|| format!("running {}", compiler.display()));
    let _ = std::fs::remove_dir_all(&folder);
    let built = built?;
    if !built.status.success() {
        let _ = std::fs::remove_file(&partial);
        bail!(
            "{} could not build the simulator's plugins: {}",
            compiler.display(),
            String::from_utf8_lossy(&built.stderr).trim()
        );
    }
    std::fs::rename(&partial, &out).with_context(|| format!("moving it to {}", out.display()))?;
    Ok(out)
}

/// A few random hex digits, for a file name no other process picks.
fn rand_suffix() -> String {
    format!("{:08x}", crate::harness::matrix::secret_seed() as u32)
}

/// Oclgrind's core library, which the ICD library loads and the plugin calls into: in the
/// folders of the ICD library and its parents, or a usual library folder.
fn core_library(icd: &Path) -> Option<PathBuf> {
    let multiarch = format!("{}-linux-gnu", std::env::consts::ARCH);
    let mut dirs: Vec<PathBuf> = icd
        .ancestors()
        .skip(1)
        .take(3)
        .map(Path::to_path_buf)
        .collect();
    for prefix in icd.ancestors().skip(1).take(3) {
        dirs.push(prefix.join("lib").join(&multiarch));
        dirs.push(prefix.join("lib"));
        dirs.push(prefix.join("lib64"));
    }
    for d in ["/usr/lib", "/usr/local/lib", "/usr/lib64"] {
        dirs.push(PathBuf::from(d).join(&multiarch));
        dirs.push(PathBuf::from(d));
    }
    dirs.into_iter().find_map(|d| {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&d)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("liboclgrind")
                    && !name.starts_with("liboclgrind-rt")
                    && name.contains(".so")
                    && p.is_file()
            })
            .collect();
        // The versioned file first (liboclgrind-21.10.so), the development link after.
        names.sort_by_key(|p| p.file_name().map(|n| n.len()).unwrap_or(0));
        names.pop()
    })
}
