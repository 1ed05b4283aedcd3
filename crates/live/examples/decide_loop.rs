//! The live benchmark's event in a loop, for instruction counts (docs/performance.md, "The
//! live scheduler"): a loaded system of `MACHINES` machines drawn from the default PET, every
//! queue full (PAM, queue size 6, the paper's pruner) and `BATCH` tasks waiting; then
//! `EVENTS` times: one executing task reported completed, one task submitted, one decision.
//!
//! `cargo run --release -p live --example decide_loop -- MACHINES BATCH EVENTS [HEURISTIC]`;
//! under `valgrind --tool=callgrind`, the difference between `EVENTS` = N and 0, divided
//! by N, is the instructions of one event.

use live::{Scheduler, SchedulerConfig};
use workload::Pet;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg =
        |i: usize, default: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (machines, batch, events) = (arg(0, 1_024), arg(1, 1_000), arg(2, 100));
    let heuristic = args.get(3).map_or("PAM", String::as_str);
    let pet = Pet::default_pet(2019).draw_machines(machines, 2019);
    let slack = 3.0 * pet.avg_all();
    let types = pet.n_types();
    let config = SchedulerConfig {
        heuristic: live::HeuristicConfig::named(heuristic),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet, config).expect("the default configuration builds");
    for k in 0..machines * 6 {
        s.submit(0.0, k % types, 50.0 * slack)
            .expect("a valid task");
    }
    s.decide(0.0).expect("time stands still");
    for k in 0..batch {
        s.submit(0.0, k % types, slack).expect("a valid task");
    }
    s.decide(0.0).expect("time stands still");
    let mut out = Vec::new();
    let mut actions = 0;
    for k in 1..=events {
        if let Some(&t) = s.queue(k % machines).first() {
            s.completed(t, 0.0).expect("an executing task");
        }
        s.submit(0.0, k % types, slack).expect("a valid task");
        out.clear();
        s.decide_into(0.0, &mut out).expect("time stands still");
        actions += out.len();
    }
    println!("{machines} machines, {batch} waiting, {events} events: {actions} actions");
}
