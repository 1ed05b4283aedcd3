//! The JPDC-2016 additions: input-data staging and early mapping events, worked out by hand.

use heuristics::{HeuristicConfig, Mapper, build};
use model::{NoPruner, Outcome, TaskSpec, earliest_free_slot, next_mapping_time};

use crate::queues::Machine;
use pmf::{DropModel, Pmf};
use proptest::prelude::*;
use runner::{EngineConfig, JpdcOptions, QueueSize, TrialRecord, simulate, simulate_jpdc};
use workload::{Pet, Staging};

use crate::common::{pet_of, point_pet, run_case, task};
use crate::engine::{build_case, random_case};

/// Staging where a task of `size` "MB" takes exactly `size` ticks on a machine: 0.008 Gbps
/// moves 1 MB (8 * 10^6 bits) per second, one second per tick.
fn unit_staging(sizes: &[f64], machines: usize) -> Staging {
    Staging::new(sizes.to_vec(), vec![0.008; machines], 1.0).unwrap()
}

fn run_jpdc(
    pet: &Pet,
    tasks: &[TaskSpec],
    queue: usize,
    model: DropModel,
    jpdc: JpdcOptions<'_>,
) -> TrialRecord {
    run_case(pet, tasks, queue, model, "MM", jpdc)
}

fn ends(r: &TrialRecord) -> Vec<i64> {
    r.tasks.iter().map(|t| t.end).collect()
}

#[test]
fn staging_units_round_up_to_ticks() {
    // 64 MB at 0.68 Gbps: 512 Mb / 680 Mb/s = 0.753 s -> 1 tick; 1024 MB: 12.05 s -> 13.
    let st = Staging::new(vec![64.0, 1024.0], vec![0.68, 10.0], 1.0).unwrap();
    assert!((st.units_for(64.0, 0) - 512.0 / 680.0).abs() < 1e-12);
    assert_eq!((st.ticks(0, 0), st.ticks(1, 0)), (1, 13));
    // 1024 MB at 10 Gbps: 0.819 s -> 1 tick; the fewest ticks over both machines.
    assert_eq!((st.ticks(1, 1), st.min_ticks(1)), (1, 1));
    // Half a second per time unit doubles the units.
    let half = Staging::new(vec![1024.0], vec![0.68], 0.5).unwrap();
    assert!((half.units_for(1024.0, 0) - 2.0 * 8192.0 / 680.0).abs() < 1e-9);
    assert!(Staging::new(vec![1.0], vec![0.0], 1.0).is_err());
    assert!(Staging::new(vec![-1.0], vec![1.0], 1.0).is_err());
}

#[test]
fn the_pct_of_a_staged_task_starts_at_its_data_ready_tick() {
    let pet = pet_of(vec![vec![Pmf::point(5)], vec![Pmf::point(3)]]);
    let tasks = [task(0, 0, 0, 100), task(1, 1, 0, 100), task(2, 1, 0, 100)];
    let mut m = Machine::new(0, None);
    m.start(0, 0, 5);
    // Task 1's data are ready at 7, after task 0 ends at 5: it runs 7..10.
    m.push_staged(1, 7);
    // Task 2's data are ready at 4, before task 1 ends: it runs 10..13.
    m.push_staged(2, 4);
    m.refresh(0, &tasks, &pet, DropModel::All);
    let pcts: Vec<&Pmf> = m
        .cache(&tasks, &pet, DropModel::All)
        .slots()
        .iter()
        .map(|s| &s.pct)
        .collect();
    assert_eq!(pcts, vec![&Pmf::point(5), &Pmf::point(10), &Pmf::point(13)]);
    // An idle machine: the head waits for its data (ready at 7) from now = 2.
    let mut idle = Machine::new(0, None);
    idle.push_staged(1, 7);
    idle.refresh(2, &tasks, &pet, DropModel::All);
    assert_eq!(
        idle.cache(&tasks, &pet, DropModel::All).slots()[0].pct,
        Pmf::point(10)
    );
    // `push` is `push_staged` with no ready tick.
    let mut plain = Machine::new(0, None);
    plain.push(1);
    plain.refresh(2, &tasks, &pet, DropModel::All);
    assert_eq!(
        plain.cache(&tasks, &pet, DropModel::All).slots()[0].pct,
        Pmf::point(5)
    );
}

#[test]
fn a_task_waits_for_its_data_and_the_link_stages_in_queue_order() {
    // One machine, queue 2, every task runs 10 ticks. Sizes 5, 3, 20 ticks of staging.
    // t0 mapped at 0: ready 5, runs 5..15. t1 mapped at 0: the link is busy until 5, so its
    // data are ready at 8; it runs 15..25. t2 waits in the batch (queue full) until 15, its
    // data are ready at 15 + 20 = 35, the machine idles 25..35 and runs it 35..45.
    let pet = point_pet(&[&[10]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 0, 100), task(2, 0, 0, 100)];
    let st = unit_staging(&[5.0, 3.0, 20.0], 1);
    let jpdc = JpdcOptions {
        staging: Some(&st),
        ..JpdcOptions::default()
    };
    let r = run_jpdc(&pet, &tasks, 2, DropModel::All, jpdc);
    assert_eq!(ends(&r), vec![15, 25, 45]);
    assert!(r.tasks.iter().all(|t| t.outcome == Outcome::OnTime));
    assert_eq!(r.busy, vec![30]);
}

#[test]
fn a_task_whose_data_arrive_after_its_deadline_is_dropped_at_the_deadline() {
    // t0 needs 50 ticks of staging but is due at 30: the idle machine drops it at 30, then
    // t1 (data ready at 50 + 2 = 52) runs 52..62.
    let pet = point_pet(&[&[10]]);
    let tasks = [task(0, 0, 0, 30), task(1, 0, 0, 100)];
    let st = unit_staging(&[50.0, 2.0], 1);
    let jpdc = JpdcOptions {
        staging: Some(&st),
        ..JpdcOptions::default()
    };
    let r = run_jpdc(&pet, &tasks, 2, DropModel::All, jpdc);
    assert_eq!(r.tasks[0].outcome, Outcome::ExpiredPending);
    assert_eq!(ends(&r), vec![30, 62]);
}

#[test]
fn earliest_free_slot_follows_eq_4_in_each_scenario() {
    // Executing task: PET 4 or 6 (mean 5), started at 0, deadline 3 under test; pending
    // task deadline 4.
    let pet = pet_of(vec![vec![Pmf::new(4, vec![0.5, 0.0, 0.5]).unwrap()]]);
    let tasks = [task(0, 0, 0, 3), task(1, 0, 0, 4)];
    let mut m = Machine::new(0, Some(2));
    m.start(0, 0, 4);
    m.push(1);
    let e = |model| {
        let mut m = m.clone();
        m.refresh(0, &tasks, &pet, model);
        earliest_free_slot(&m, m.oracle(), &tasks, &pet, model)
    };
    // All: the executing task's deadline 3 is the first free slot.
    assert_eq!(e(DropModel::All), Some(3.0));
    // Pending: the executing task may not be dropped; the pending one is dropped at 4.
    assert_eq!(e(DropModel::Pending), Some(4.0));
    // None: only E[C] = 5 counts.
    assert_eq!(e(DropModel::None), Some(5.0));
    // An empty machine has no e_j.
    let mut empty = Machine::new(0, Some(2));
    empty.refresh(0, &tasks, &pet, DropModel::All);
    assert_eq!(
        earliest_free_slot(&empty, empty.oracle(), &tasks, &pet, DropModel::All),
        None
    );
}

#[test]
fn next_mapping_time_follows_eq_5() {
    // e = 10 with t_l = 3, none, e = 12 with t_l = 1; t_h = 2: min(10 - 5, 12 - 3) = 5.
    let e = [Some(10.0), None, Some(12.0)];
    assert_eq!(next_mapping_time(&e, &[3.0, 0.0, 1.0], 2.0), Some(5.0));
    // A slow link makes the later slot the earlier event: min(10 - 2, 12 - 9) = 3.
    assert_eq!(next_mapping_time(&e, &[0.0, 0.0, 7.0], 2.0), Some(3.0));
    assert_eq!(next_mapping_time(&[None, None], &[1.0, 1.0], 0.0), None);
}

#[test]
fn an_early_mapping_event_stages_the_next_task_before_the_slot_frees() {
    // One machine, queue 2; type 0 runs 10 ticks, type 1 runs 2; 4 ticks of staging each.
    // t0 (type 0) at 0: ready 4, runs 4..14. t1 (type 1) at 1: ready 8, runs 14..16.
    // t2 (type 0) at 2 waits in the batch: the queue is full.
    let pet = point_pet(&[&[10], &[2]]);
    let tasks = [task(0, 0, 0, 100), task(1, 1, 1, 100), task(2, 0, 2, 100)];
    let st = unit_staging(&[4.0, 4.0, 4.0], 1);
    // Without early mapping: t2 is mapped when t0 ends at 14, ready at 18; the machine
    // idles 16..18 and runs t2 18..28.
    let off = JpdcOptions {
        staging: Some(&st),
        ..JpdcOptions::default()
    };
    assert_eq!(
        ends(&run_jpdc(&pet, &tasks, 2, DropModel::All, off)),
        vec![14, 16, 28]
    );
    // With early mapping (t_h = 0): when t0 starts at 4, e = E[C(t0)] = 14 and t_l = 4, so
    // the next mapping event is at 10; t2 is mapped into a reserved slot at 10, its data are
    // ready at 14, and it runs right after t1: 16..26.
    let on = JpdcOptions {
        early_mapping: true,
        ..off
    };
    let r = run_jpdc(&pet, &tasks, 2, DropModel::All, on);
    assert_eq!(ends(&r), vec![14, 16, 26]);
    assert_eq!(r.tasks[2].machine, Some(0));
    // t_h = 3 moves the event to 7; the outcome is the same (data ready at 11 < 16).
    let slow = JpdcOptions {
        heuristic_time: 3.0,
        ..on
    };
    assert_eq!(
        ends(&run_jpdc(&pet, &tasks, 2, DropModel::All, slow)),
        vec![14, 16, 26]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn staging_of_empty_inputs_changes_nothing((p, t, luck) in random_case(),
                                               h in prop::sample::select(vec!["MM", "MSD", "MMU", "MOC", "PAM", "MCT", "KPB", "MR"]),
                                               model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All])) {
        let (pet, specs) = build_case(&p, &t);
        let cfg = EngineConfig { queue_size: QueueSize::Limit(3), drop_model: model, pct_epsilon: 0.0 };
        let mut m1: Mapper = build(&HeuristicConfig::named(h), model).unwrap();
        let a = simulate(&pet, &specs, &luck, cfg, &mut m1, &mut NoPruner);
        let st = Staging::new(vec![0.0; specs.len()], vec![0.68; 3], 1.0).unwrap();
        let mut m2: Mapper = build(&HeuristicConfig::named(h), model).unwrap();
        let jpdc = JpdcOptions { staging: Some(&st), ..JpdcOptions::default() };
        let b = simulate_jpdc(&pet, &specs, &luck, cfg, jpdc, &mut m2, &mut NoPruner);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn staging_and_early_mapping_keep_one_outcome_per_task((p, t, luck) in random_case(),
                                                          sizes in prop::collection::vec(0.0f64..30.0, 60),
                                                          h in prop::sample::select(vec!["MM", "MSD", "MOC", "MR", "MCT"]),
                                                          model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All]),
                                                          th in 0.0f64..5.0) {
        let (pet, specs) = build_case(&p, &t);
        let cfg = EngineConfig { queue_size: QueueSize::Limit(2), drop_model: model, pct_epsilon: 0.0 };
        let st = Staging::new(sizes[..specs.len()].to_vec(), vec![0.008, 0.016, 0.004], 1.0).unwrap();
        let jpdc = JpdcOptions { staging: Some(&st), early_mapping: true, heuristic_time: th };
        let mut m: Mapper = build(&HeuristicConfig::named(h), model).unwrap();
        // Panics (debug checks at every event) if a task is in two places or a queue is over
        // its limit plus its reserved slot.
        let r = simulate_jpdc(&pet, &specs, &luck, cfg, jpdc, &mut m, &mut NoPruner);
        for (k, (rec, spec)) in r.tasks.iter().zip(&specs).enumerate() {
            if rec.outcome == Outcome::OnTime {
                prop_assert!(rec.end < spec.deadline);
                // It cannot finish before its data reached the machine it ran on.
                let mach = rec.machine.unwrap();
                prop_assert!(rec.end >= spec.arrival + st.ticks(k, mach));
            }
        }
    }
}
