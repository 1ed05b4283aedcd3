//! The offered load: `load = L` means what it says (the machines busy an `L` share of the
//! time, on a homogeneous system where every policy keeps them equally busy), and the tick
//! never changes it.

use runner::{ExperimentConfig, Prepared, RunOptions, TrialSource};

fn prepared(workload: &str) -> Prepared {
    let text =
        format!("name = \"load\"\n[workload]\n{workload}\nseed = 11\n[mapper]\nname = \"MM\"\n");
    let config = ExperimentConfig::from_toml_str(&text, "load.toml", None).unwrap();
    Prepared::new(config, None, TrialSource::Generated, None, None).unwrap()
}

/// The machines' busy time over the time the tasks arrive in, over the trials: with
/// deadlines far enough that no task is dropped, every task runs, so this is the work
/// offered per unit of the machines' time.
fn busy_share(p: &Prepared) -> f64 {
    let (mut busy, mut available) = (0.0, 0.0);
    for k in 0..p.trials {
        let tasks = p.trial_tasks(k);
        let run = p.trial(k, &RunOptions::default().keep_records()).unwrap();
        let record = run.record.unwrap();
        let span = tasks.last().unwrap().arrival - tasks[0].arrival;
        busy += record.busy.iter().sum::<i64>() as f64;
        available += (span * p.pet.n_machines() as i64) as f64;
    }
    busy / available
}

#[test]
fn a_load_keeps_a_homogeneous_system_busy_that_share_of_the_time() {
    for load in [0.3, 0.6, 0.9] {
        let p = prepared(&format!(
            "pet = \"homogeneous\"\nload = {load}\nbeta = 50.0\ntasks = 3000\ntrials = 2"
        ));
        let share = busy_share(&p);
        assert!(
            (share - load).abs() <= 0.05,
            "load {load}: the machines were busy {share:.3} of the time"
        );
    }
}

#[test]
fn the_offered_load_is_the_rate_over_the_capacity_whichever_way_it_is_given() {
    let by_load = prepared("load = 0.8\ntasks = 300\ntrials = 1");
    let w = &by_load.config.workload;
    let capacity = workload::capacity(&by_load.pet).unwrap();
    assert!((w.offered_load(&by_load.pet).unwrap() - 0.8).abs() < 1e-12);
    assert!((w.arrivals_per_unit(&by_load.pet).unwrap() - 0.8 * capacity).abs() < 1e-12);
    // The same arrivals given as a rate per time unit, and as the paper's label.
    let per_unit = 0.8 * capacity;
    let by_rate = prepared(&format!(
        "arrival_rate = {per_unit}\ntasks = 300\ntrials = 1"
    ));
    let by_label = prepared(&format!(
        "rate = {}\ntasks = 300\ntrials = 1",
        per_unit * 88_200.0
    ));
    for p in [&by_rate, &by_label] {
        let l = p.config.workload.offered_load(&p.pet).unwrap();
        assert!((l - 0.8).abs() < 1e-9, "{l}");
    }
    assert_eq!(by_load.trial_tasks(0), by_rate.trial_tasks(0));
    // A bursty pattern brings `load` on average: its label is larger by the pattern's factor.
    let bursty = prepared("load = 0.8\npattern = \"bursty\"\ntasks = 300\ntrials = 1");
    let factor = workload::BurstParams::default().mean_factor();
    let label = bursty.config.workload.rate_label(&bursty.pet).unwrap();
    assert!(
        (label * factor - 0.8 * capacity * 88_200.0).abs() < 1e-6,
        "{label}"
    );
}

#[test]
fn the_tick_changes_the_grid_not_the_arrivals() {
    // The default PET's times read as hundredths of a tick: the same arrivals, in time
    // units, over a horizon of the same length in time units.
    let coarse = prepared("rate = 19000\ntasks = 400\ntrials = 1");
    let fine = prepared("rate = 19000\ntasks = 400\ntrials = 1\ntick = 0.01");
    let (a, b) = (coarse.trial_tasks(0), fine.trial_tasks(0));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        // Ticks of 0.01 time units: 100 times as many, up to the rounding to whole ticks.
        assert!(
            (y.arrival as f64 / 100.0 - x.arrival as f64).abs() <= 1.0,
            "{} against {}",
            y.arrival,
            x.arrival
        );
    }
}

#[test]
fn a_rate_that_overflows_or_brings_no_task_to_count_is_an_error_naming_it() {
    let err = |workload: &str| {
        let text = format!(
            "name = \"load\"\n[workload]\n{workload}\nseed = 11\n[mapper]\nname = \"MM\"\n"
        );
        let config = ExperimentConfig::from_toml_str(&text, "load.toml", None).unwrap();
        Prepared::new(config, None, TrialSource::Generated, None, None)
            .unwrap_err()
            .to_string()
    };
    let e = err("load = 1e308");
    assert!(
        e.contains("workload.load") && e.contains("inf tasks"),
        "{e}"
    );
    let e = err("arrival_rate = 1e-300");
    assert!(e.contains("leaves none to count"), "{e}");
    let e = err("rate = 150");
    assert!(e.contains("about 1.500e2 tasks arrive"), "{e}");
}
