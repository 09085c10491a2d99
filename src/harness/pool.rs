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

#[cfg(test)]
mod tests {
    #[test]
    fn every_item_once_in_order() {
        let items: Vec<usize> = (0..37).collect();
        let out = super::side_by_side(&items, 4, |&n| n * n);
        assert_eq!(out, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::side_by_side(&[] as &[usize], 4, |&n| n).is_empty());
    }
}
