//! Time gaps: the bound's cost follows the tasks, not the span of time between them.

use std::time::{Duration, Instant};

use bound::{BracketOptions, Instance, bracket, check_schedule};
use ndarray::Array2;
use pmf::Tick;

/// Three busy clusters of 40 tasks on 2 machines, cluster `g` starting at `g * gap`.
fn clusters(gap: Tick) -> Instance {
    let (mut arrival, mut deadline) = (Vec::new(), Vec::new());
    for g in 0..3 {
        for i in 0..40 {
            arrival.push(g * gap + i * 2);
            deadline.push(g * gap + i * 2 + 30 + (i * 13) % 17);
        }
    }
    let n = arrival.len();
    let exec = Array2::from_shape_fn((n, 2), |(k, j)| 4 + ((k * 7 + j * 3) % 11) as Tick);
    Instance::new(arrival, deadline, exec, 0..n).expect("valid")
}

/// Clusters 2^52 ticks apart (the tick range's end, where a `.dat` arrival near 4.5e15
/// lands) bracket in milliseconds, as the same clusters close together: ruin and recreate
/// jumps over the windows that meet no task instead of walking the gap (it took hours).
/// The gap of the close instance equals 2^52 modulo the ruin windows' width (200), so the
/// windows cut the clusters alike and the schedules found are the same, shifted.
#[test]
fn clusters_2_pow_52_ticks_apart_bracket_as_fast_and_as_well_as_close_ones() {
    let far_gap: Tick = 1 << 52;
    let near_gap: Tick = 10_000 + far_gap % 200;
    let (far, near) = (clusters(far_gap), clusters(near_gap));
    let opts = BracketOptions::default();
    let t = Instant::now();
    let b = bracket(&far, &opts).expect("brackets");
    let took = t.elapsed();
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let c = bracket(&near, &opts).expect("brackets");
    assert!(
        b.lower_on_time < 120,
        "the clusters are busy: {}",
        b.lower_on_time
    );
    assert_eq!(check_schedule(&far, &b.lower.schedule), Ok(b.lower_on_time));
    assert_eq!(
        (b.lower_on_time, b.lower.steps, b.lower.constructed),
        (c.lower_on_time, c.lower.steps, c.lower.constructed)
    );
    assert_eq!(b.lp.on_time, c.lp.on_time);
    assert!(b.lower_on_time <= b.upper_on_time);
}
