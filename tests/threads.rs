//! The measurement behind the CPU lessons' thread check, on this machine: one thread doing
//! all the work reads as one thread, also when it hides in a thread that ends inside the
//! call or in a child process; two threads sharing it read as shared. Alone in its process,
//! since the measurement sees every thread of the process.

use lab::harness::cpu_watch::{measure_threads, thread_times_available};

fn spin() -> u64 {
    let mut x = 0u64;
    for i in 0..40_000_000u64 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

#[test]
fn the_busiest_thread_is_measured() {
    if !thread_times_available() {
        println!("this machine does not tell each thread's CPU time: nothing to measure");
        return;
    }
    let (_, alone) = measure_threads(spin);
    assert!(alone.busiest_share() > 0.9, "{alone:?}");
    let (_, hidden) = measure_threads(|| std::thread::spawn(spin).join().unwrap());
    assert!(hidden.busiest_share() > 0.9, "{hidden:?}");
    let (_, shared) = measure_threads(|| {
        std::thread::scope(|s| {
            let h = s.spawn(spin);
            spin();
            h.join().unwrap();
        })
    });
    assert!(shared.busiest_share() < 0.75, "{shared:?}");
    // Work handed to a child process is seen too, on the child's thread.
    let (_, child) = measure_threads(|| {
        std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap()
    });
    assert!(child.total() > 50_000_000, "{child:?}");
    assert!(child.busiest_share() > 0.9, "{child:?}");
}
