//! Prints the clairvoyant bound on the paper's data and on the default PET, with what each
//! tightening buys and the time per trial.
//!
//! ```text
//! cargo run --release -p runner --example bound_table -- [DATA_DIR] [TRIALS] [TIGHT] [energetic]
//! ```
//! `DATA_DIR` holds `classes_2.etc` and `arr/arr{19k,34k}_*.dat` (default
//! `hcw19`, a clone of hpcclab/HCW19_Workload with `constant.zip` unzipped; the paper rows are skipped when it is missing); `TRIALS` caps
//! the trials per row (default: all 30). The interval families take seconds per trial, so
//! they run on the first `TIGHT` trials only (default 3), and energetic windows (minutes per
//! trial) only when the fourth argument is `energetic`. Their columns give the mean change
//! from the capacity LP on those trials, in points of robustness.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bound::{Bound, BoundOptions, WindowFamily, instance_from, upper_bound};
use runner::{ExperimentConfig, Prepared, TrialSource};

/// The tighter columns, run on the first trials only: a name and the options.
fn tight_settings(energetic: bool) -> Vec<(&'static str, BoundOptions)> {
    let mut v = vec![
        (
            "intervals <= 400",
            BoundOptions::tight().with_windows(WindowFamily::Intervals { max_len: Some(400) }),
        ),
        (
            "intervals <= 1000",
            BoundOptions::tight().with_windows(WindowFamily::Intervals {
                max_len: Some(1000),
            }),
        ),
        ("all intervals", BoundOptions::tight()),
    ];
    if energetic {
        v.push((
            "+ energetic",
            BoundOptions {
                energetic: true,
                ..BoundOptions::tight()
            },
        ));
    }
    v
}

struct Row {
    name: String,
    prepared: Prepared,
}

fn paper_rows(dir: &Path, trials: Option<u64>) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let (pet, _) = workload::io::read_etc(dir.join("classes_2.etc"))?;
    let mut rows = Vec::new();
    for rate in ["19k", "34k"] {
        let mut given = Vec::new();
        for t in 1..=30 {
            // `arr/` as unzipped from hpcclab/HCW19_Workload's constant.zip, or `workloads/`.
            let p = ["arr", "workloads"]
                .iter()
                .map(|d| dir.join(d).join(format!("arr{rate}_{t}.dat")))
                .find(|p| p.exists())
                .unwrap_or_else(|| dir.join("arr").join(format!("arr{rate}_{t}.dat")));
            if !p.exists() {
                break;
            }
            given.push(workload::io::read_dat(&p)?.0);
        }
        let n = given.len() as u64;
        let prepared = Prepared::new(
            ExperimentConfig::paper_default(),
            Some(pet.clone()),
            TrialSource::Given(given),
            Some(trials.map_or(n, |t| t.min(n))),
            None,
        )?;
        rows.push(Row {
            name: format!("paper PET, {rate} .dat"),
            prepared,
        });
    }
    Ok(rows)
}

fn default_rows(trials: Option<u64>) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let mut rows = Vec::new();
    for rate in [19000.0, 34000.0] {
        let mut config = ExperimentConfig::paper_default();
        config.workload.rate = Some(rate);
        let prepared = Prepared::new(config, None, TrialSource::Generated, trials, None)?;
        rows.push(Row {
            name: format!("default PET, rate {}k", rate / 1000.0),
            prepared,
        });
    }
    Ok(rows)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn range(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().map_or("hcw19", String::as_str));
    let trials: Option<u64> = args.get(1).map(|s| s.parse()).transpose()?;
    let tight_trials: u64 = args.get(2).map_or(Ok(3), |s| s.parse())?;
    let energetic = args.get(3).is_some_and(|s| s == "energetic");
    let mut rows = Vec::new();
    if dir.join("classes_2.etc").exists() {
        rows.extend(paper_rows(&dir, trials)?);
    } else {
        eprintln!("{} not found: paper rows skipped", dir.display());
    }
    rows.extend(default_rows(trials)?);
    let tight = tight_settings(energetic);

    println!(
        "bound on robustness, % of counted tasks: mean [min, max] over trials; time per trial"
    );
    println!();
    print!(
        "| workload | trials | PAM (simulated) | trivial | capacity (greedy) | capacity LP | ms |"
    );
    for (name, _) in &tight {
        print!(" {name} | ms |");
    }
    println!();
    print!("|---|---|---|---|---|---|---|");
    for _ in &tight {
        print!("---|---|");
    }
    println!();
    for row in &rows {
        let p = &row.prepared;
        let counting = p.config.system.counting();
        let (mut trivial, mut cap, mut lp) = (Vec::new(), Vec::new(), Vec::new());
        let mut pam = Vec::new();
        let mut lp_ms = 0.0;
        // Per tighter setting: change from the capacity LP (points), time (ms), converged.
        let mut per: Vec<(Vec<f64>, f64, bool)> = vec![(Vec::new(), 0.0, true); tight.len()];
        for k in 0..p.trials {
            let tasks = p.trial_tasks(k);
            let luck = p.trial_luck(k, tasks.len());
            let inst = instance_from(&p.pet, &tasks, &luck, counting.range(tasks.len()))?;
            let t0 = Instant::now();
            let b: Bound = upper_bound(&inst, &BoundOptions::default())?;
            lp_ms += t0.elapsed().as_secs_f64() * 1e3;
            let pct = |x: usize| 100.0 * x as f64 / inst.n_counted() as f64;
            trivial.push(pct(b.trivial));
            cap.push(pct(b.capacity_only));
            lp.push(b.robustness);
            // The paper's headline heuristic on the same trial and luck: never above the bound.
            let (_, metrics) = p.run_trial(k)?;
            if metrics.on_time > b.on_time {
                return Err(format!(
                    "{} trial {k}: PAM finished {} counted tasks on time, above the bound {}",
                    row.name, metrics.on_time, b.on_time
                )
                .into());
            }
            pam.push(metrics.robustness);
            if k < tight_trials {
                for (i, (_, opts)) in tight.iter().enumerate() {
                    let t0 = Instant::now();
                    let t = upper_bound(&inst, opts)?;
                    per[i].1 += t0.elapsed().as_secs_f64() * 1e3;
                    per[i].0.push(t.robustness - b.robustness);
                    per[i].2 &= t.converged;
                }
            }
        }
        let cell = |v: &[f64]| {
            let (lo, hi) = range(v);
            format!("{:.1} [{lo:.1}, {hi:.1}]", mean(v))
        };
        print!(
            "| {} | {} | {} | {} | {} | {} | {:.0} |",
            row.name,
            p.trials,
            cell(&pam),
            cell(&trivial),
            cell(&cap),
            cell(&lp),
            lp_ms / p.trials as f64
        );
        for (v, ms, conv) in &per {
            print!(
                " {:+.2} (n={}{}) | {:.0} |",
                mean(v),
                v.len(),
                if *conv { "" } else { ", not converged" },
                ms / v.len().max(1) as f64
            );
        }
        println!();
    }
    Ok(())
}
