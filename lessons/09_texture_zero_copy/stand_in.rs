//! What the sanitizer runs in place of B's image (`stand_in.cl`): B's pixels in a buffer
//! behind the image's width and height, read by the course's own `read_imagef`. Oclgrind
//! 21.10 counts every value read from a real image as never initialised, so without it the
//! sanitizer could not ask lesson 09 about uninitialised values; and a read outside the image
//! that the sampler leaves undefined (no `CLK_ADDRESS_CLAMP`) passes a real image unseen.

use super::*;

use lab::lesson::{StandIn, STANDARD_ARGS};

/// The stand-in's source, before the kernel's.
const SOURCE: &str = include_str!("stand_in.cl");

/// The name the simulator's reports give the stand-in's lines: a read it reports there is a
/// read of B outside the image.
pub const FILE: &str = "image B (the sanitizer's stand-in)";

pub static STAND_IN: StandIn = StandIn {
    source,
    // B's pixels in a buffer: every argument as in the lessons without images.
    args: STANDARD_ARGS,
    // The runner takes the lesson's one kernel (what `Kernels` dereferences to).
    exact: |gpu, kernel, p, l, d| exact(gpu, kernel, p, l, d),
    file: FILE,
    outside: "your kernel reads B outside the image with a sampler that leaves such reads undefined (CLK_ADDRESS_NONE, or REPEAT and MIRRORED_REPEAT without normalised coordinates), or with no sampler at all: a device may return anything there, and the simulator's copy of the image reads past its end.\n    hint: the pixels past the image's right and bottom edges are zeros only with CLK_ADDRESS_CLAMP in the sampler (`CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST`); or read only pixels inside it (x < ceil(N/4), y < K).",
};

/// The stand-in, then the kernel's text with `image2d_t` and `sampler_t` replaced by the
/// stand-in's types and the read-only qualifiers blanked: words of the same length, so every
/// line and column of the kernel stays its own. Whole words only (`my_image2d_t` stays).
pub fn source(text: &str) -> String {
    // The simulator names the program's own text `input.cl`: the kernel's lines are that
    // file's again after the stand-in.
    let mut out = format!("#line 1 \"{FILE}\"\n{SOURCE}\n#line 1 \"input.cl\"\n");
    let swap = |w: &str| -> Option<&'static str> {
        match w {
            "image2d_t" => Some("lab_image"),
            "sampler_t" => Some("lab_smp_t"),
            "__read_only" => Some("           "),
            "read_only" => Some("         "),
            _ => None,
        }
    };
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(swap(word).unwrap_or(word));
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// One run with A laid out as the kernel expects (rows padded to KT and to whole
/// macro-tiles, as on the device), B's buffer exactly its pixels and their header, C exactly
/// M·N floats and not initialised.
fn exact(gpu: &Gpu, kernel: &Kernel, p: &Problem, l: &Launch, d: &[Define]) -> Result<RunOutput> {
    let layout = Layout::new(p.shape, d)?;
    let mut a = vec![0.0f32; layout.a_len()];
    layout.fill_a(&p.a, &mut a);
    exec::run_exact_as(gpu, kernel, p.shape, &a, &pixels(&layout, &p.b), l)
}

/// B as the stand-in reads it: one pixel of width and height (as ints), then the image's
/// rows of `layout.pixels` pixels, the last one of a row zero-padded.
fn pixels(layout: &Layout, b: &[f32]) -> Vec<f32> {
    let pitch = layout.pixels * 4;
    let mut out = vec![0.0f32; 4 + pitch * layout.height()];
    out[0] = f32::from_bits(layout.pixels as u32);
    out[1] = f32::from_bits(layout.height() as u32);
    layout.fill_b(b, &mut out[4..], pitch, RowPitch::Honour);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_keeps_its_lines_and_columns() {
        let text = "__kernel void f(__read_only image2d_t B,\n  read_only image2d_t my_image2d_t) {\n  const sampler_t s = 0; }";
        let s = source(text);
        let kernel = s.split_once("\n#line 1 \"input.cl\"\n").unwrap().1;
        assert_eq!(
            kernel,
            "__kernel void f(            lab_image B,\n            lab_image my_image2d_t) {\n  const lab_smp_t s = 0; }"
        );
        for (a, b) in text.lines().zip(kernel.lines()) {
            assert_eq!(a.len(), b.len());
        }
    }

    #[test]
    fn the_pixels_follow_their_width_and_height() {
        let d = [
            Define::new("KT", 4),
            Define::new("WGY", 1),
            Define::new("RM", 1),
        ];
        let p = Problem::random(Shape::new(2, 5, 3), 1);
        let layout = Layout::new(p.shape, &d).unwrap();
        let b = pixels(&layout, &p.b);
        assert_eq!((b[0].to_bits(), b[1].to_bits()), (2, 3));
        assert_eq!(b.len(), 4 + 2 * 4 * 3);
        // Row 1, column 4: pixel 1 of row 1, its first float; its other three are padding.
        assert_eq!(b[4 + 8 + 4], p.b[5 + 4]);
        assert_eq!(&b[4 + 8 + 5..4 + 8 + 8], &[0.0; 3]);
    }
}
