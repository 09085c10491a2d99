//! The kernel's shape on a device.

use super::*;

/// Work-group shapes (WGX × WGY), in order of preference: wide along N, so that the
/// work-items of one warp or wave read neighbouring pixels of a row of B.
pub const GROUPS: [(usize, usize); 7] =
    [(32, 8), (16, 16), (16, 8), (8, 8), (8, 4), (4, 4), (1, 1)];

/// Columns of A per local tile.
pub const KT: usize = 16;

/// Whether a macro-tile of WGX×WGY work-items, RM rows each, fits the device.
pub fn fits(info: &DeviceInfo, wgx: usize, wgy: usize, rm: usize) -> bool {
    let sizes = &info.max_work_item_sizes;
    wgx * wgy <= info.max_work_group
        && sizes.first().is_none_or(|&s| wgx <= s)
        && sizes.get(1).is_none_or(|&s| wgy <= s)
        && (wgy * rm * KT * 4) as u64 <= info.local_mem_bytes
}

fn shape_defines(wgx: usize, wgy: usize, rm: usize) -> Vec<Define> {
    vec![
        Define::new("WGX", wgx),
        Define::new("WGY", wgy),
        Define::new("RM", rm),
        Define::new("RN", 1),
        Define::new("KT", KT),
        Define::new("A_LOCAL", 1),
    ]
}

/// The lesson's defines for a device: the first work-group shape of [`GROUPS`] that fits,
/// 16 rows per work-item on GPUs with room for 256-item groups (half the texture reads per
/// multiply-add of 8 rows), else the Adreno blog's 8. A CPU runs each work-group as a loop
/// on one core, so it starts from the small 8×4 group with 16 rows: at the scoreboard's
/// 256³ that is 32 work-groups, work for every core, where 32×8 items of 8 rows make 8
/// (on PoCL's CPU device, 1.5–1.8× faster at 256³ and 512³ in `--search`).
pub fn default_defines(info: &DeviceInfo) -> Vec<Define> {
    let (rm, groups) = match (info.is_gpu(), info.max_work_group >= 256) {
        (false, _) => (16, &GROUPS[4..]),
        (true, true) => (16, &GROUPS[..]),
        (true, false) => (8, &GROUPS[..]),
    };
    let (wgx, wgy) = groups
        .iter()
        .copied()
        .find(|&(x, y)| fits(info, x, y, rm))
        .unwrap_or((1, 1));
    shape_defines(wgx, wgy, rm)
}

/// The small search of `--search`: every work-group shape of [`GROUPS`] with 8 or 16 rows
/// per work-item that fits the device.
pub fn candidates(info: &DeviceInfo) -> Vec<Vec<Define>> {
    let mut out = Vec::new();
    for rm in [8, 16] {
        for &(x, y) in &GROUPS[..5] {
            if fits(info, x, y, rm) {
                out.push(shape_defines(x, y, rm));
            }
        }
    }
    out
}
