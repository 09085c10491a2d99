//! Independent work spread over the host's cores: builds of a kernel with several define
//! sets, simulator runs of several probes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `run` on each of `items`, on as many threads as the host has cores (at most `max`); the
/// results in the items' order.
pub fn side_by_side<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(max).min(items.len()) {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(n) else { break };
                let r = run(item);
                done.lock().unwrap_or_else(|e| e.into_inner()).push((n, r));
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(n, _)| *n);
    done.into_iter().map(|(_, r)| r).collect()
}

/// [`side_by_side`], starting the costliest items first (by `cost`, an estimate), so that the
/// last one to start is a short one and the cores finish together; the results still in the
/// items' order.
pub fn side_by_side_costliest_first<T: Sync, R: Send>(
    items: &[T],
    max: usize,
    cost: impl Fn(&T) -> f64,
    run: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    // Stable: items of equal cost keep their order.
    order.sort_by(|&a, &b| cost(&items[b]).total_cmp(&cost(&items[a])));
    let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let ran = side_by_side(&order, max, |&i| run(&items[i]));
    for (i, r) in order.into_iter().zip(ran) {
        out[i] = Some(r);
    }
    out.into_iter()
        .map(|r| r.expect("one result per item"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_item_once_in_order() {
        let items: Vec<usize> = (0..37).collect();
        let out = super::side_by_side(&items, 4, |&n| n * n);
        assert_eq!(out, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::side_by_side(&[] as &[usize], 4, |&n| n).is_empty());
    }

    #[test]
    fn costliest_first_starts_the_costly_and_answers_in_order() {
        let items: Vec<usize> = (0..9).collect();
        let started = std::sync::Mutex::new(Vec::new());
        let out = super::side_by_side_costliest_first(
            &items,
            1,
            |&n| (n % 4) as f64,
            |&n| {
                started.lock().unwrap().push(n);
                n * 10
            },
        );
        assert_eq!(out, items.iter().map(|n| n * 10).collect::<Vec<_>>());
        assert_eq!(started.into_inner().unwrap(), [3, 7, 2, 6, 1, 5, 0, 4, 8]);
    }
}
