//! Building a kernel that uses an instruction NVIDIA's OpenCL compiler refuses. Hopper's
//! warp-group multiply (`wgmma`) is PTX for the target `sm_90a`; the OpenCL compiler emits PTX
//! for `sm_90` and rejects it in inline assembly. The driver does accept PTX as a program
//! binary, though, and assembles whatever target that PTX names. So such a kernel is built in
//! two steps:
//!
//! 1. from source with `-D WG_STUB=1`, under which the kernel's own macros write each such
//!    instruction as a PTX comment that starts with [`STUB`] (operands and all, so that the
//!    compiler still allocates every register the instruction uses);
//! 2. the PTX of that build is taken back from the driver, each stub uncommented, the target
//!    raised to `sm_90a` and the PTX version to 8.0 at least, and the result built as a binary.
//!
//! A source asks for this by holding the line [`MARK`]; every other source is built as it is.
//! The first step is an ordinary build: its errors are the compiler's, with its log. This module
//! holds the text's part; `program::build_source` makes the two builds.

/// The line that asks for the two-step build.
pub const MARK: &str = "#define LAB_PTX_PATCH 1";

/// What starts a stubbed instruction in the first build's PTX.
pub const STUB: &str = "//WGX ";

/// Whether `source` asks for the two-step build.
pub fn wanted(source: &str) -> bool {
    source.lines().any(|l| l.trim() == MARK)
}

/// The first build's PTX made into the one the device runs: every stub uncommented, the target
/// `sm_90a`, the PTX version at least 8.0. An error where there is nothing to uncomment or no
/// `sm_90` target: the build would silently run the stub, which computes nothing.
pub fn patch(ptx: &str) -> Result<String, String> {
    let stubs = ptx.matches(STUB).count();
    if stubs == 0 {
        return Err(format!(
            "the PTX holds no stubbed instruction (`{}`): the kernel was built without them",
            STUB.trim()
        ));
    }
    let mut out = String::with_capacity(ptx.len());
    let mut target = false;
    for line in ptx.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix(".target sm_90") {
            // `.target sm_90` or `.target sm_90, debug`: only the architecture changes.
            if rest.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                return Err(format!("the PTX targets `{}`, not sm_90", trimmed.trim()));
            }
            out.push_str(".target sm_90a");
            out.push_str(rest);
            target = true;
        } else if let Some(rest) = trimmed.strip_prefix(".version ") {
            let v = rest.trim();
            let major = v.split('.').next().and_then(|m| m.parse::<u32>().ok());
            match major {
                Some(m) if m < 8 => out.push_str(".version 8.0\n"),
                Some(_) => out.push_str(line),
                None => return Err(format!("the PTX's version `{v}` is not a number")),
            }
        } else {
            out.push_str(&line.replace(STUB, ""));
        }
    }
    if !target {
        return Err("the PTX has no `.target sm_90` line: warp-group instructions need compute capability 9.0".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "//\n.version 7.8\n.target sm_90\n.address_size 64\n\t// begin inline asm\n\t//WGX wgmma.fence.sync.aligned;\n\tmov.u32 %r1, %r2;\n";

    #[test]
    fn the_stubs_are_uncommented_and_the_target_raised() {
        let p = patch(PTX).unwrap();
        assert!(p.contains("\n\twgmma.fence.sync.aligned;\n"), "{p}");
        assert!(p.contains(".target sm_90a\n"), "{p}");
        assert!(p.contains(".version 8.0\n"), "{p}");
        assert!(p.contains("mov.u32 %r1, %r2;"), "{p}");
        assert!(!p.contains(STUB));
    }

    #[test]
    fn a_newer_version_and_a_target_with_options_are_kept() {
        let ptx = PTX
            .replace(".version 7.8", ".version 8.3")
            .replace(".target sm_90\n", ".target sm_90, debug\n");
        let p = patch(&ptx).unwrap();
        assert!(p.contains(".version 8.3\n"), "{p}");
        assert!(p.contains(".target sm_90a, debug\n"), "{p}");
    }

    #[test]
    fn ptx_without_stubs_or_for_another_device_is_refused() {
        let none = patch(&PTX.replace(STUB, "")).unwrap_err();
        assert!(none.contains("no stubbed instruction"), "{none}");
        let older = patch(&PTX.replace("sm_90", "sm_80")).unwrap_err();
        assert!(older.contains("compute capability 9.0"), "{older}");
        let other = patch(&PTX.replace("sm_90", "sm_90a")).unwrap_err();
        assert!(other.contains("not sm_90"), "{other}");
    }

    #[test]
    fn only_the_marked_source_asks_for_it() {
        assert!(wanted(&format!(
            "// a kernel\n{MARK}\n__kernel void f() {{}}"
        )));
        assert!(!wanted("#define LAB_PTX_PATCH 0\n"));
    }
}
