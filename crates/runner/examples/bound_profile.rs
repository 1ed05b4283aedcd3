//! Computes the default (capacity LP) bound of generated trials and prints every field of
//! each [`bound::Bound`] exactly (`{:?}` of the floats round-trips their bits), with the time
//! per trial on stderr: for profiling the bound alone and for checking that a change keeps
//! its results bit-identical.
//!
//! ```text
//! cargo run --release -p runner --example bound_profile -- [TASKS...] [--config FILE]... [--trials N] [--seed S]
//! ```
//! Each `TASKS` is a JPDC-2016 fig. 10a point (default PET, bursty arrivals, `TASKS` tasks in
//! 10,000 time units, beta 1, the first and last 100 not counted); each `--config` an
//! experiment file (`[workload]`, `[system]`, `[mapper]`; its own seed unless `--seed`).
//! Without either: `2500`.

use std::path::Path;
use std::time::Instant;

use bound::{BoundOptions, bound_trial};
use runner::{ExperimentConfig, Prepared, TrialSource};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut points: Vec<(String, ExperimentConfig)> = Vec::new();
    let mut trials = 1;
    let mut seed: Option<u64> = None;
    let mut tasks: Vec<u64> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--trials" => trials = args.next().ok_or("--trials N")?.parse()?,
            "--seed" => seed = Some(args.next().ok_or("--seed S")?.parse()?),
            "--config" => {
                let path = args.next().ok_or("--config FILE")?;
                let config = ExperimentConfig::load(Path::new(&path))?;
                points.push((path, config));
            }
            n => tasks.push(n.parse()?),
        }
    }
    if points.is_empty() && tasks.is_empty() {
        tasks.push(2500);
    }
    for n in tasks {
        let text = format!(
            "[workload]\nrate = {n}\nhorizon = 10000\ntasks = {n}\npattern = \"bursty\"\n\
             beta = 1.0\nseed = 2016\n[system]\ndrop_model = \"pending\"\nqueue_size = 2\n\
             [mapper]\nname = \"MM\"\n"
        );
        let config = ExperimentConfig::from_toml_str(&text, "bound_profile", None)?;
        points.push((format!("tasks {n}"), config));
    }
    for (name, config) in points {
        let prepared = Prepared::new(config, None, TrialSource::Generated, Some(trials), seed)?;
        for k in 0..trials {
            let tasks = prepared.trial_tasks(k);
            let luck = prepared.trial_luck(k, tasks.len());
            let counted = prepared.config.system.counting().range(tasks.len());
            let t0 = Instant::now();
            let b = bound_trial(
                &prepared.pet,
                &tasks,
                &luck,
                counted,
                &BoundOptions::default(),
            )?;
            eprintln!(
                "{name} trial {k}: {:.1} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
            println!("{name} trial {k}: {b:?}");
        }
    }
    Ok(())
}
