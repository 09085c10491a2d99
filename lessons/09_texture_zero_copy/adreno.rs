//! Seed 000's kernel, for comparison.

use super::*;

/// The Adreno blog's kernel (seed 000), reimplemented with this course's argument list: one
/// work-item computes 8 rows × 4 columns of C; B is read one pixel per row with the
/// sampler-less `read_imagef`, A with `vload4` straight from global memory, and the
/// work-group is 16×8. Like the original it needs N a multiple of 4, M of 8 and K of 4, and it
/// takes A's row pitch to be K floats.
pub const ADRENO_BLOG_KERNEL: &str = include_str!("adreno_blog.cl");

/// The defines that make [`Layout`] match the blog kernel: A unpadded (K a multiple of 4).
pub fn adreno_blog_defines() -> Vec<Define> {
    vec![
        Define::new("RM", 8),
        Define::new("RN", 1),
        Define::new("WGX", 16),
        Define::new("WGY", 8),
        Define::new("KT", 4),
    ]
}

/// The blog kernel's launch: 16×8 work-groups over (N/4)×(M/8) work-items, rounded up.
pub fn adreno_blog_launch(s: Shape) -> Result<Launch, String> {
    require_multiple(
        s,
        8,
        4,
        4,
        "the Adreno blog kernel handles whole 4×8 micro-tiles and steps K by 4",
    )?;
    Ok(Launch {
        global: [round_up(s.n / 4, 16), round_up(s.m / 8, 8)],
        local: Some([16, 8]),
    })
}
