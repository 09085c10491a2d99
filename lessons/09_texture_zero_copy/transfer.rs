//! How the host moves the matrices.

use super::*;

/// Zero copy (map/unmap of host-visible memory) or explicit copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    ZeroCopy,
    Copy,
}

impl Transfer {
    pub fn name(self) -> &'static str {
        match self {
            Transfer::ZeroCopy => "zero-copy",
            Transfer::Copy => "copy",
        }
    }
}

impl std::str::FromStr for Transfer {
    type Err = String;
    fn from_str(s: &str) -> Result<Transfer, String> {
        match s {
            "zero-copy" => Ok(Transfer::ZeroCopy),
            "copy" => Ok(Transfer::Copy),
            _ => Err(format!("`{s}` is not a path: use zero-copy or copy")),
        }
    }
}

/// How B's rows are laid into the image's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowPitch {
    /// Each row starts at a multiple of the row pitch the driver returns (or is given).
    Honour,
    /// B copied as one block of K·N floats, as if the image were a plain array: right only
    /// when the driver's row pitch happens to be exactly N floats.
    Ignore,
}

/// When the kernel is launched relative to the unmaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Unmap every input, then launch.
    UnmapFirst,
    /// Launch while B is still mapped for the host (refused by the [`Recorder`]).
    LaunchWhileMapped,
}

/// One way of setting up the host side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setup {
    pub transfer: Transfer,
    pub pitch: RowPitch,
    pub order: Order,
}

impl Setup {
    pub const ZERO_COPY: Setup = Setup {
        transfer: Transfer::ZeroCopy,
        pitch: RowPitch::Honour,
        order: Order::UnmapFirst,
    };
    pub const COPY: Setup = Setup {
        transfer: Transfer::Copy,
        pitch: RowPitch::Honour,
        order: Order::UnmapFirst,
    };
}

/// Where the matrices live, as the kernel expects them (from the lesson's defines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    /// Floats per row of A: K rounded up to KT, zeros after column K.
    pub lda: usize,
    /// Rows of A: M rounded up to whole macro-tiles (WGY·RM), zero rows after row M.
    pub rows_a: usize,
    /// Width of B's image in pixels: ceil(N/4); the last pixel of a row is zero-padded.
    pub pixels: usize,
}

impl Layout {
    pub fn new(shape: Shape, defines: &[Define]) -> Result<Layout> {
        let get = |name| define(defines, name).map_err(anyhow::Error::msg);
        let kt = get("KT")?;
        let tm = get("WGY")? * get("RM")?;
        Ok(Layout {
            shape,
            lda: round_up(shape.k.max(1), kt),
            rows_a: round_up(shape.m.max(1), tm),
            pixels: shape.n.div_ceil(4).max(1),
        })
    }

    /// Floats in A's buffer.
    pub fn a_len(&self) -> usize {
        self.lda * self.rows_a
    }

    /// Image height: K rows (at least one).
    pub fn height(&self) -> usize {
        self.shape.k.max(1)
    }

    /// A copied into its padded layout.
    pub fn fill_a(&self, a: &[f32], dst: &mut [f32]) {
        let Shape { m, k, .. } = self.shape;
        dst.fill(0.0);
        for r in 0..m {
            dst[r * self.lda..r * self.lda + k].copy_from_slice(&a[r * k..(r + 1) * k]);
        }
    }

    /// Index into the unpadded A of an index into the padded one (for messages).
    pub(super) fn a_index(&self, padded: usize) -> usize {
        let Shape { m, k, .. } = self.shape;
        let (r, c) = (padded / self.lda, padded % self.lda);
        r.min(m.saturating_sub(1)) * k + c.min(k.saturating_sub(1))
    }

    /// Writes B's rows into image memory whose rows are `pitch_floats` apart.
    pub fn fill_b(&self, b: &[f32], dst: &mut [f32], pitch_floats: usize, pitch: RowPitch) {
        let Shape { n, k, .. } = self.shape;
        dst.fill(0.0);
        match pitch {
            RowPitch::Honour => {
                for r in 0..k {
                    dst[r * pitch_floats..r * pitch_floats + n]
                        .copy_from_slice(&b[r * n..(r + 1) * n]);
                }
            }
            RowPitch::Ignore => {
                let len = (n * k).min(dst.len());
                dst[..len].copy_from_slice(&b[..len]);
            }
        }
    }

    /// The first element of B (unpadded index) whose image memory, rows `pitch_floats`
    /// apart, differs from what the host filled in with `pitch`.
    pub(super) fn b_change(
        &self,
        b: &[f32],
        img: &[f32],
        pitch_floats: usize,
        pitch: RowPitch,
    ) -> Option<usize> {
        let Shape { n, k, .. } = self.shape;
        let mut want = vec![0.0f32; img.len()];
        self.fill_b(b, &mut want, pitch_floats, pitch);
        (0..k).find_map(|r| {
            (0..self.pixels * 4)
                .map(|c| r * pitch_floats + c)
                .find(|&i| img[i].to_bits() != want[i].to_bits())
                .map(|i| r * n + (i - r * pitch_floats).min(n - 1))
        })
    }
}
