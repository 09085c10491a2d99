use super::*;

#[test]
fn an_open_work_group_is_the_largest_that_divides_up_to_the_rule() {
    let open = |g: [usize; 2]| {
        Launch {
            global: g,
            local: None,
        }
        .work_group()
    };
    assert_eq!(open([1024, 1024]), [32, 2]);
    assert_eq!(open([29, 37]), [29, 1]);
    assert_eq!(open([1133, 6]), [11, 2]);
    assert_eq!(open([1, 1]), [1, 1]);
    // A launch's own work-group is kept.
    let own = Launch {
        global: [64, 64],
        local: Some([16, 16]),
    };
    assert_eq!(own.work_group(), [16, 16]);
    assert_eq!(own.groups(), 16);
}

#[test]
fn padding_lengthens_rows_and_cropping_gives_them_back() {
    assert_eq!(padded_shape(Shape::new(5, 7, 9), 4), Shape::new(5, 8, 12));
    assert_eq!(padded_shape(Shape::new(5, 8, 12), 4), Shape::new(5, 8, 12));
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let padded = pad_rows(&a, 3, 4);
    assert_eq!(padded, [1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0]);
    let crop = pad::Sum {
        rows: 2,
        cols: 3,
        from: 4,
        parts: 1,
        part: 8,
    };
    assert_eq!(sum_parts(&padded, crop), a);
    // The padding of C's poison repeats each row's last value: a number where C held
    // numbers, NaN where it held NaN.
    let before = Poison::from_values(poison::Kind::Random, a.to_vec());
    let p = pad_poison(&before, 3, 4);
    assert_eq!(p.len(), 8);
    assert_eq!(
        (0..8).map(|i| p.at(i)).collect::<Vec<_>>(),
        [1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 6.0, 6.0]
    );
    assert!(pad_poison(&Poison::nan(6), 3, 4).at(3).is_nan());
}

#[test]
fn splitting_k_slices_a_and_the_parts_sum_back() {
    // A 2×5 cut into two slices of 4 columns, the second ending in zeros.
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
    assert_eq!(
        slices(&a, 2, 5, 2, 4),
        [
            1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0, 9.0, // part 0
            5.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0 // part 1
        ]
    );
    // Two parts of a 1×2 C in rows of 4: summed and cropped.
    let parts = [1.0, 2.0, -9.0, -9.0, 10.0, 20.0, -9.0, -9.0];
    let sum = pad::Sum {
        rows: 1,
        cols: 2,
        from: 4,
        parts: 2,
        part: 4,
    };
    assert_eq!(sum_parts(&parts, sum), [11.0, 22.0]);
    let before = Poison::from_values(poison::Kind::Random, vec![1.0, 2.0]);
    let p = parts_poison(&before, 2, 4, 2);
    assert_eq!(
        (0..8).map(|i| p.at(i)).collect::<Vec<_>>(),
        [1.0, 2.0, 2.0, 2.0, 1.0, 2.0, 2.0, 2.0]
    );
}
