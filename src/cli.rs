//! The flags every lesson binary shares.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

use crate::matrix::Shape;
use crate::program::Define;

/// Flags shared by every lesson binary.
#[derive(Args, Debug, Clone, Default)]
pub struct Common {
    /// Run the reference answer in solutions/ instead of your kernel.
    #[arg(long)]
    pub solution: bool,
    /// Folder of kernels to run instead of kernels/ (also: LAB_KERNELS).
    #[arg(long, value_name = "DIR")]
    pub kernels: Option<PathBuf>,
    /// Square problem: M = N = K = SIZE.
    #[arg(long, short = 's')]
    pub size: Option<usize>,
    /// Rows of A and C (overrides --size).
    #[arg(short = 'm')]
    pub m: Option<usize>,
    /// Columns of B and C (overrides --size).
    #[arg(short = 'n')]
    pub n: Option<usize>,
    /// Columns of A, rows of B (overrides --size).
    #[arg(short = 'k')]
    pub k: Option<usize>,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    pub list_devices: bool,
    /// Override a tuning define of the kernel, e.g. -D TS=32 (repeatable).
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE", value_parser = parse_define)]
    pub defines: Vec<Define>,
    /// Skip running the previous rung for the speed-up line.
    #[arg(long)]
    pub no_compare: bool,
    /// Append the measurement to this CSV file (see results/).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

/// Parses `NAME=VALUE`.
pub fn parse_define(s: &str) -> Result<Define, String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE (for example TS=16)"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`{name}` is not a valid define name"));
    }
    Ok(Define::new(name, value.trim()))
}

/// The largest dimension the course accepts: a 32768² f32 matrix is already 4 GiB.
pub const MAX_DIM: usize = 32_768;

impl Common {
    /// The problem size: --size, then -m/-n/-k, else `default` (square).
    pub fn shape(&self, default: usize) -> Result<Shape> {
        let base = self.size.unwrap_or(default);
        let shape = Shape::new(
            self.m.unwrap_or(base),
            self.n.unwrap_or(base),
            self.k.unwrap_or(base),
        );
        for (name, v) in [("M", shape.m), ("N", shape.n), ("K", shape.k)] {
            if v == 0 {
                bail!("{name} must be at least 1");
            }
            if v > MAX_DIM {
                bail!("{name} = {v} is larger than this course handles ({MAX_DIM})");
            }
        }
        Ok(shape)
    }

    /// Applies --kernels to the environment, so every part of the harness sees the folder.
    pub fn apply_kernels_dir(&self) {
        if let Some(dir) = &self.kernels {
            std::env::set_var("LAB_KERNELS", crate::paths::absolute(dir));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_parse_and_reject() {
        assert_eq!(parse_define("TS=32").unwrap(), Define::new("TS", 32));
        assert!(parse_define("TS").unwrap_err().contains("NAME=VALUE"));
        assert!(parse_define("T S=3").is_err());
    }

    #[test]
    fn shapes_from_flags() {
        let c = Common {
            size: Some(64),
            n: Some(32),
            ..Default::default()
        };
        assert_eq!(c.shape(8).unwrap(), Shape::new(64, 32, 64));
        let bad = Common {
            m: Some(0),
            ..Default::default()
        };
        assert!(bad.shape(8).unwrap_err().to_string().contains("at least 1"));
        let huge = Common {
            size: Some(1 << 20),
            ..Default::default()
        };
        assert!(huge.shape(8).is_err());
    }
}
