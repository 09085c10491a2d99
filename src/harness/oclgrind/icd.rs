//! Finding Oclgrind's ICD library and preparing the environment of a child process that sees
//! Oclgrind as its only OpenCL platform.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

/// `liboclgrind-rt-icd.so` on Linux: the library an ICD loader can load as a platform.
pub fn icd_file_name() -> String {
    format!(
        "{}oclgrind-rt-icd{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    )
}

/// Oclgrind's ICD library, next to the `oclgrind` found on `PATH` or in a usual place.
pub fn find_icd() -> Option<PathBuf> {
    find_icd_with(std::env::var_os("PATH").as_deref())
}

/// [`find_icd`] with a given `PATH`.
pub fn find_icd_with(path_var: Option<&OsStr>) -> Option<PathBuf> {
    icd_candidates(path_var).into_iter().find(|p| p.is_file())
}

/// Where the ICD library may be, most specific first.
fn icd_candidates(path_var: Option<&OsStr>) -> Vec<PathBuf> {
    let file = icd_file_name();
    let multiarch = format!("{}-linux-gnu", std::env::consts::ARCH);
    let mut prefixes: Vec<PathBuf> = Vec::new();
    if let Some(path_var) = path_var {
        for dir in std::env::split_paths(path_var) {
            let exe = dir.join("oclgrind");
            if !exe.is_file() {
                continue;
            }
            // The wrapper finds its libraries relative to its own resolved location, so do
            // the same: /usr/bin/oclgrind -> /usr.
            let exe = exe.canonicalize().unwrap_or(exe);
            if let Some(prefix) = exe.parent().and_then(Path::parent) {
                prefixes.push(prefix.to_path_buf());
            }
        }
    }
    for p in ["/usr", "/usr/local", "/opt/oclgrind", "/opt/homebrew"] {
        prefixes.push(PathBuf::from(p));
    }
    let mut out = Vec::new();
    for prefix in prefixes {
        // Debian and Ubuntu install into lib/oclgrind; upstream's CMake into lib or lib64.
        for sub in [
            "lib/oclgrind".to_string(),
            "lib".to_string(),
            "lib64".to_string(),
            format!("lib/{multiarch}"),
            format!("lib/{multiarch}/oclgrind"),
        ] {
            let candidate = prefix.join(sub).join(&file);
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

/// What Oclgrind checks and reports in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// Data races in local and global memory (`OCLGRIND_DATA_RACES`).
    pub races: bool,
    /// Uses of uninitialised values (`OCLGRIND_UNINITIALIZED`). Leave it off for kernels
    /// that read images: Oclgrind 21.10 marks every `read_imagef` result as uninitialised,
    /// and can crash on such kernels with this check on.
    pub uninitialized: bool,
    /// Failed OpenCL API calls, printed on stderr (`OCLGRIND_CHECK_API`).
    pub api: bool,
    /// Instruction counts per kernel, printed on stdout (`OCLGRIND_INST_COUNTS`).
    pub inst_counts: bool,
    /// Messages printed before Oclgrind stops reporting (`OCLGRIND_MAX_ERRORS`, counted
    /// over the whole process); the kernel still runs to its end.
    pub max_errors: u32,
    /// Build without optimisation (`OCLGRIND_BUILD_OPTIONS=-cl-opt-disable`).
    pub disable_optimization: bool,
    /// Worker threads (`OCLGRIND_NUM_THREADS`); `None` leaves Oclgrind's default, one per
    /// hardware thread.
    pub threads: Option<u32>,
    /// Only the first and the last work-group (`OCLGRIND_QUICK`).
    pub quick: bool,
    /// The course's plugins ([`super::plugin`]), loaded where one of them is asked for.
    pub plugin: Option<PathBuf>,
    /// The bank counter ([`super::banks`]); its counts go to [`super::banks::OUT_FILE`] in
    /// the run's folder.
    pub banks: bool,
    /// The address reader ([`super::addresses`]); its places go to
    /// [`super::addresses::OUT_FILE`] in the run's folder.
    pub addresses: bool,
    /// The coverage of global accesses ([`super::coverage`]) in the programs that hold the
    /// kernel of this name; its places go to [`super::coverage::OUT_FILE`] in the run's
    /// folder.
    pub coverage: Option<String>,
}

impl Options {
    /// The sanitizer pass: races, uninitialised values and API errors (out-of-bounds
    /// checks are always on).
    ///
    /// The uninitialised-value checker of Oclgrind 21.10 aborts the kernel on LLVM's
    /// `freeze` instruction, which the default `-Oz` emits for integer division and
    /// remainder; without optimisation there is none. One thread makes the order of the
    /// messages reproducible. The error limit stays at Oclgrind's default of 1000: the
    /// uninitialised values a race causes are printed as they happen, the race only when
    /// its work-group ends, so a low limit can leave out the cause.
    pub fn sanitizer() -> Options {
        Options {
            races: true,
            uninitialized: true,
            api: true,
            inst_counts: false,
            max_errors: 1000,
            disable_optimization: true,
            threads: Some(1),
            quick: false,
            plugin: None,
            banks: false,
            addresses: false,
            coverage: None,
        }
    }

    /// Technique metrics: instruction counts of the kernel as Oclgrind's default `-Oz`
    /// compiles it (unoptimised code re-reads values a compiler keeps in registers), with
    /// races still checked since they cost little.
    pub fn metrics() -> Options {
        Options {
            races: true,
            uninitialized: false,
            api: true,
            inst_counts: true,
            max_errors: 1000,
            disable_optimization: false,
            threads: Some(1),
            quick: false,
            plugin: None,
            banks: false,
            addresses: false,
            coverage: None,
        }
    }
}

/// Local memory of the simulator's device, bytes: as much as the largest kind of device whose
/// defines the graders count (48 KB, an NVIDIA H100's per work-group).
pub const LOCAL_MEM_BYTES: u64 = 48 * 1024;

/// Variables to remove from a child's environment: they would add other platforms, send
/// Oclgrind's messages elsewhere or load plugins the parser does not know.
pub const REMOVE_FROM_ENVIRONMENT: &[&str] = &[
    "OCL_ICD_FILENAMES",
    "OCL_ICD_DEFAULT_PLATFORM",
    "OPENCL_LAYERS",
    "OCLGRIND_LOG",
    "OCLGRIND_PLUGINS",
    "LAB_BANKS_OUT",
    "LAB_ADDRESSES_OUT",
    "LAB_COVERAGE_OUT",
    "LAB_COVERAGE_KERNEL",
    "OCLGRIND_INTERACTIVE",
    "OCLGRIND_UNIFORM_WRITES",
];

/// The environment that makes a child process see Oclgrind (the library `icd`) as its only
/// OpenCL platform, with the checks of `options`. Writes `folder/oclgrind.icd`, creating
/// the folder if needed; the folder must outlive the child. Also remove
/// [`REMOVE_FROM_ENVIRONMENT`] from the child's environment.
pub fn environment(icd: &Path, folder: &Path, options: &Options) -> Result<Vec<(String, String)>> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("creating the folder {}", folder.display()))?;
    let entry = folder.join("oclgrind.icd");
    std::fs::write(&entry, format!("{}\n", icd.display()))
        .with_context(|| format!("writing {}", entry.display()))?;
    let flag = |on: bool| if on { "1" } else { "0" }.to_string();
    let vendors = folder.display().to_string();
    let mut env = vec![
        // ocl-icd and the Khronos loader both read OCL_ICD_VENDORS as the folder to scan
        // instead of /etc/OpenCL/vendors; older ocl-icd read OPENCL_VENDOR_PATH.
        // OCL_ICD_FILENAMES is no substitute: the ocl-icd 2.3.1 of Debian 12 ignores it, and
        // the Khronos loader loads its entries in addition to the vendors folder.
        ("OCL_ICD_VENDORS".to_string(), vendors.clone()),
        ("OPENCL_VENDOR_PATH".to_string(), vendors),
        // Oclgrind prints instruction counts with the user's locale (thousands separators),
        // and aborts when the locale named by LANG is not installed.
        ("LC_ALL".to_string(), "C".to_string()),
        // Set explicitly, so that values inherited from the parent cannot turn checks on or
        // off: Oclgrind takes "1" as on and anything else as off.
        ("OCLGRIND_DATA_RACES".to_string(), flag(options.races)),
        (
            "OCLGRIND_UNINITIALIZED".to_string(),
            flag(options.uninitialized),
        ),
        ("OCLGRIND_CHECK_API".to_string(), flag(options.api)),
        (
            "OCLGRIND_INST_COUNTS".to_string(),
            flag(options.inst_counts),
        ),
        ("OCLGRIND_QUICK".to_string(), flag(options.quick)),
        (
            "OCLGRIND_MAX_ERRORS".to_string(),
            options.max_errors.to_string(),
        ),
        (
            "OCLGRIND_BUILD_OPTIONS".to_string(),
            if options.disable_optimization {
                "-cl-opt-disable".to_string()
            } else {
                String::new()
            },
        ),
    ];
    // Oclgrind's device has 32 KB of local memory unless told otherwise; the large GPUs the
    // technique is also counted for (`crate::grade::kinds`, 48 KB) take tiles that need more,
    // which the simulator could then not run at all.
    env.push((
        "OCLGRIND_LOCAL_MEM_SIZE".to_string(),
        LOCAL_MEM_BYTES.to_string(),
    ));
    if let Some(plugin) = &options.plugin {
        let wanted = [
            (
                options.banks,
                super::banks::OUT_VARIABLE,
                super::banks::OUT_FILE,
            ),
            (
                options.addresses,
                super::addresses::OUT_VARIABLE,
                super::addresses::OUT_FILE,
            ),
            (
                options.coverage.is_some(),
                super::coverage::OUT_VARIABLE,
                super::coverage::OUT_FILE,
            ),
        ];
        if wanted.iter().any(|w| w.0) {
            env.push(("OCLGRIND_PLUGINS".to_string(), plugin.display().to_string()));
        }
        for (_, variable, file) in wanted.iter().filter(|w| w.0) {
            env.push((
                variable.to_string(),
                folder.join(file).display().to_string(),
            ));
        }
        if let Some(kernel) = &options.coverage {
            env.push((super::coverage::KERNEL_VARIABLE.to_string(), kernel.clone()));
        }
    }
    if let Some(threads) = options.threads {
        // Oclgrind aborts on 0.
        env.push((
            "OCLGRIND_NUM_THREADS".to_string(),
            threads.max(1).to_string(),
        ));
    }
    Ok(env)
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_points_the_loader_at_oclgrind_only() {
        let dir = std::env::temp_dir().join(format!("lab-oclgrind-test-{}", std::process::id()));
        let icd = Path::new("/usr/lib/oclgrind/liboclgrind-rt-icd.so");
        let env = environment(icd, &dir, &Options::sanitizer()).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCL_ICD_VENDORS"), Some(dir.to_str().unwrap()));
        assert_eq!(
            std::fs::read_to_string(dir.join("oclgrind.icd")).unwrap(),
            "/usr/lib/oclgrind/liboclgrind-rt-icd.so\n"
        );
        assert_eq!(get("OCLGRIND_DATA_RACES"), Some("1"));
        assert_eq!(get("OCLGRIND_UNINITIALIZED"), Some("1"));
        assert_eq!(get("OCLGRIND_INST_COUNTS"), Some("0"));
        assert_eq!(get("OCLGRIND_BUILD_OPTIONS"), Some("-cl-opt-disable"));
        assert_eq!(get("OCLGRIND_NUM_THREADS"), Some("1"));
        assert_eq!(get("LC_ALL"), Some("C"));
        let env = environment(icd, &dir, &Options::metrics()).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCLGRIND_INST_COUNTS"), Some("1"));
        assert_eq!(get("OCLGRIND_UNINITIALIZED"), Some("0"));
        assert_eq!(get("OCLGRIND_BUILD_OPTIONS"), Some(""));
        assert_eq!(get("OCLGRIND_PLUGINS"), None);
        let plugin = Path::new("/cache/lab-plugins-0.so");
        // The library named but no plugin asked for: not loaded.
        let none = Options {
            plugin: Some(plugin.to_path_buf()),
            ..Options::metrics()
        };
        let env = environment(icd, &dir, &none).unwrap();
        assert!(!env.iter().any(|(k, _)| k == "OCLGRIND_PLUGINS"));
        let counted = Options {
            plugin: Some(plugin.to_path_buf()),
            banks: true,
            ..Options::metrics()
        };
        let env = environment(icd, &dir, &counted).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCLGRIND_PLUGINS"), plugin.to_str());
        assert_eq!(
            get(super::super::banks::OUT_VARIABLE),
            dir.join(super::super::banks::OUT_FILE).to_str()
        );
        assert_eq!(get(super::super::addresses::OUT_VARIABLE), None);
        let read = Options {
            plugin: Some(plugin.to_path_buf()),
            addresses: true,
            ..Options::sanitizer()
        };
        let env = environment(icd, &dir, &read).unwrap();
        let get = |k: &str| env.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OCLGRIND_PLUGINS"), plugin.to_str());
        assert_eq!(
            get(super::super::addresses::OUT_VARIABLE),
            dir.join(super::super::addresses::OUT_FILE).to_str()
        );
        assert_eq!(get(super::super::banks::OUT_VARIABLE), None);
        // A value the parent inherited cannot send the counts or the places elsewhere.
        assert!(REMOVE_FROM_ENVIRONMENT.contains(&super::super::banks::OUT_VARIABLE));
        assert!(REMOVE_FROM_ENVIRONMENT.contains(&super::super::addresses::OUT_VARIABLE));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn icd_candidates_follow_the_wrapper_on_path() {
        let c = icd_candidates(None);
        assert!(c.contains(&PathBuf::from(format!(
            "/usr/lib/oclgrind/{}",
            icd_file_name()
        ))));
        // Wherever it is installed, a library found is one of the candidates.
        if let Some(found) = find_icd() {
            assert!(found.is_file());
        }
    }
}
