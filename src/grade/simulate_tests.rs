//! The simulator's looks: every lesson's define sets can be drawn from.
use super::*;

/// Every lesson with a technique to count offers the simulator at least two define sets,
/// each legal, at a shape of its own that the launch takes, and shapes to draw near it for
/// both looks, whatever the seed: no grading falls back to a declared shape or defines.
#[test]
fn every_technique_has_define_sets_to_draw_from() {
    for lesson in crate::ladder::ALL {
        let Some(ocl) = lesson.ocl() else { continue };
        let Some(b) = &ocl.behaviour else { continue };
        let name = lesson.name();
        assert!(b.probes.len() >= 2, "{name}: one define set only");
        let declared: Vec<Shape> = (ocl.sanitize.probes.iter())
            .chain(b.probes)
            .map(|p| p.shape)
            .collect();
        for (j, p) in b.probes.iter().enumerate() {
            let d = p.defines();
            (ocl.check_defines)(&d).unwrap_or_else(|e| panic!("{name}: {e}"));
            (ocl.launch)(p.shape, &d).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                b.probes[..j].iter().all(|q| q.defines != p.defines),
                "{name}: a define set twice"
            );
            // Two k-steps at least in the shortest K the sanitizer's shape may be drawn
            // with (half the declared one), so that a race between one step's reads and
            // the next step's copies into a buffer they share can show there.
            let step = (b.k_step)(&d).unwrap_or_else(|e| panic!("{name}: {e}"));
            let least = p.shape.k - p.shape.k / 2;
            assert!(
                least.div_ceil(step.max(1)) >= 2,
                "{name}: K may be drawn as {least}, one k-step of {step}, near {}",
                describe(p)
            );
            for secret in 0..32 {
                let valid = accepts(ocl, p);
                let s = super::super::shapes::whole_tiles_near(p.shape, &declared, secret, &valid)
                    .unwrap_or_else(|| panic!("{name}: no shape near {}", describe(p)));
                assert!(valid(s) && !declared.contains(&s), "{name}: {s}");
                assert!(
                    super::super::shapes::near_probe(p.shape, &declared, secret, &valid).is_some(),
                    "{name}: no sanitizer shape near {}",
                    describe(p)
                );
            }
        }
    }
}
