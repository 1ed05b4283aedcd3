//! Prints the bracket `[optimum_lower, optimum_upper]` around the clairvoyant optimum on the paper's data and on the
//! default PET, beside the heuristics of the paper's figure 7 on the same trials, with what
//! each tightening of the upper side buys and the time per trial (one thread).
//!
//! ```text
//! cargo run --release -p runner --example bracket_table -- [DATA_DIR] [TRIALS] [thorough]
//! ```
//! `DATA_DIR` holds `classes_2.etc` and `arr/arr{19k,34k}_*.dat` (default
//! `hcw19`, a clone of hpcclab/HCW19_Workload with `constant.zip` unzipped; the paper rows are skipped when it is missing); `TRIALS` caps
//! the trials per row (default 30). Every trial runs under the paper-7 settings (seed 1007,
//! drop 50%, defer 90%, lambda 0.9, Schmitt trigger; MOC, MM, MSD and MMU without pruning)
//! and the default [`BracketOptions`] (and 30 Lagrangian evaluations for the upper side); with
//! `thorough`, also [`BracketOptions::thorough`].
//! The example fails if a heuristic ever finishes more counted tasks on time than
//! `optimum_upper`, or if `optimum_lower > optimum_upper`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bound::{Bracket, BracketOptions, LagrangianOptions, bracket, instance_from};
use runner::{ExperimentConfig, Prepared, TrialSource};

/// The paper-7 series: (label, the `[mapper]` and `[pruner]` tables).
const SERIES: [(&str, &str); 6] = [
    ("PAM", "[mapper]\nname = \"PAM\"\n[pruner]\n"),
    (
        "PAMF",
        "[mapper]\nname = \"PAMF\"\n[pruner]\nfairness = 0.05\n",
    ),
    ("MOC", "[mapper]\nname = \"MOC\"\n[pruner]\nUNPRUNED"),
    ("MM", "[mapper]\nname = \"MM\"\n[pruner]\nUNPRUNED"),
    ("MSD", "[mapper]\nname = \"MSD\"\n[pruner]\nUNPRUNED"),
    ("MMU", "[mapper]\nname = \"MMU\"\n[pruner]\nUNPRUNED"),
];

/// The paper-7 trial seed.
const SEED: u64 = 1007;

fn config(rate: f64, series: &str) -> Result<ExperimentConfig, Box<dyn std::error::Error>> {
    let pruner = "drop_threshold = 0.5\ndefer_threshold = 0.9\ntoggle = 1\nlambda = 0.9\n\
                  schmitt = true\nschmitt_off = 0.8\n";
    let tables = series.replace(
        "UNPRUNED",
        "toggle = \"never\"\ndefer_threshold = \"off\"\ndrop_threshold = 0.5\n\
         lambda = 0.9\nschmitt = true\nschmitt_off = 0.8\n",
    );
    let tables = if tables.contains("toggle") {
        tables
    } else {
        format!("{tables}{pruner}")
    };
    // As experiments/paper-7.toml, whose sweep sets workload.seed = 1007: the default PET and
    // the trials of seed 1007 (the seed is given to `Prepared::new`).
    let text = format!("[workload]\nrate = {rate}\nseed = 0\n{tables}");
    Ok(ExperimentConfig::from_toml_str(
        &text,
        "bracket_table",
        None,
    )?)
}

struct Row {
    name: String,
    /// One prepared experiment per series, on the same trials.
    series: Vec<Prepared>,
}

fn rows(dir: &Path, trials: u64) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let mut rows = Vec::new();
    if dir.join("classes_2.etc").exists() {
        let (pet, _) = workload::io::read_etc(dir.join("classes_2.etc"))?;
        for (rate, label) in [(19000.0, "19k"), (34000.0, "34k")] {
            let mut given = Vec::new();
            for t in 1..=30 {
                // `arr/` as unzipped from hpcclab/HCW19_Workload's constant.zip, or `workloads/`.
                let p = ["arr", "workloads"]
                    .iter()
                    .map(|d| dir.join(d).join(format!("arr{label}_{t}.dat")))
                    .find(|p| p.exists())
                    .unwrap_or_else(|| dir.join("arr").join(format!("arr{label}_{t}.dat")));
                if !p.exists() {
                    break;
                }
                given.push(workload::io::read_dat(&p)?.0);
            }
            let n = trials.min(given.len() as u64);
            let series = SERIES
                .iter()
                .map(|(_, s)| {
                    Ok(Prepared::new(
                        config(rate, s)?,
                        Some(pet.clone()),
                        TrialSource::Given(given.clone()),
                        Some(n),
                        Some(SEED),
                    )?)
                })
                .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
            rows.push(Row {
                name: format!("paper PET, {label} .dat"),
                series,
            });
        }
    } else {
        eprintln!("{} not found: paper rows skipped", dir.display());
    }
    for (rate, label) in [(19000.0, "19k"), (34000.0, "34k")] {
        let series = SERIES
            .iter()
            .map(|(_, s)| {
                Ok(Prepared::new(
                    config(rate, s)?,
                    None,
                    TrialSource::Generated,
                    Some(trials),
                    Some(SEED),
                )?)
            })
            .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
        rows.push(Row {
            name: format!("default PET, rate {label}"),
            series,
        });
    }
    Ok(rows)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn cell(v: &[f64]) -> String {
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    format!("{:.1} [{lo:.1}, {hi:.1}]", mean(v))
}

/// Prints the table. One function because it is the example's steps in order: the
/// workloads, each one's trials bracketed and run, a row printed per workload.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().map_or("hcw19", String::as_str));
    let trials: u64 = args.get(1).map_or(Ok(30), |s| s.parse())?;
    let thorough = args.get(2).is_some_and(|s| s == "thorough");
    let rows = rows(&dir, trials)?;

    println!("robustness, % of counted tasks: mean [min, max] over trials");
    println!();
    println!(
        "| workload | trials | PAM | best heuristic | optimum_lower | optimum_upper | width | optimum_lower - best heuristic | ms/trial (max) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut tightening = Vec::new();
    for row in &rows {
        let p0 = &row.series[0];
        let counting = p0.config.system.counting();
        let (mut lo, mut up, mut width, mut pam, mut best, mut ahead) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut ms, mut ms_max) = (0.0, 0.0f64);
        let mut behind = Vec::new();
        // Upper sides: LP, Lagrangian at the LP duals (1 evaluation), default, thorough.
        let mut uppers: Vec<Vec<f64>> = vec![Vec::new(); 4];
        let mut thorough_lower = Vec::new();
        let mut thorough_ms = 0.0;
        for k in 0..p0.trials {
            let tasks = p0.trial_tasks(k);
            let luck = p0.trial_luck(k, tasks.len());
            let inst = instance_from(&p0.pet, &tasks, &luck, counting.range(tasks.len()))?;
            let t0 = Instant::now();
            let b: Bracket = bracket(&inst, &BracketOptions::default())?;
            let t = t0.elapsed().as_secs_f64() * 1e3;
            ms += t;
            ms_max = ms_max.max(t);
            lo.push(b.lower_robustness);
            up.push(b.upper_robustness);
            width.push(b.width());
            let mut heuristic_best = (0, "");
            for (p, (label, _)) in row.series.iter().zip(SERIES) {
                let (_, metrics) = p.run_trial(k)?;
                if metrics.on_time > b.upper_on_time {
                    return Err(format!(
                        "{} trial {k}: {label} finished {} counted tasks on time, above U = {}",
                        row.name, metrics.on_time, b.upper_on_time
                    )
                    .into());
                }
                if label == "PAM" {
                    pam.push(metrics.robustness);
                }
                if metrics.on_time > heuristic_best.0 {
                    heuristic_best = (metrics.on_time, label);
                }
            }
            let pct = |x: usize| 100.0 * x as f64 / b.counted as f64;
            best.push(pct(heuristic_best.0));
            ahead.push(pct(b.lower_on_time) - pct(heuristic_best.0));
            if b.lower_on_time < heuristic_best.0 {
                behind.push(format!("trial {k} ({})", heuristic_best.1));
            }
            // What each tightening of the upper side buys on this trial.
            uppers[0].push(pct(b.lp.on_time));
            uppers[1].push(b.upper_robustness);
            let more = bracket(
                &inst,
                &BracketOptions::default()
                    .with_lagrangian(LagrangianOptions::default().with_evaluations(30)),
            )?;
            uppers[2].push(more.upper_robustness);
            if thorough {
                let t0 = Instant::now();
                let t = bracket(&inst, &BracketOptions::thorough())?;
                thorough_ms += t0.elapsed().as_secs_f64() * 1e3;
                uppers[3].push(t.upper_robustness);
                thorough_lower.push(t.lower_robustness);
            }
        }
        let n = p0.trials as f64;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:+.1} | {:.0} ({:.0}) |",
            row.name,
            p0.trials,
            cell(&pam),
            cell(&best),
            cell(&lo),
            cell(&up),
            cell(&width),
            mean(&ahead),
            ms / n,
            ms_max
        );
        if !behind.is_empty() {
            println!("  L below the best heuristic on {}", behind.join(", "));
        }
        tightening.push((row.name.clone(), uppers, thorough_lower, thorough_ms / n));
    }
    println!();
    println!("upper side, mean over trials:");
    println!();
    print!("| workload | capacity LP | + Lagrangian (default, 1 evaluation) | 30 evaluations |");
    if thorough {
        print!(" thorough U | thorough L | thorough width | thorough ms |");
    }
    println!();
    print!("|---|---|---|---|");
    if thorough {
        print!("---|---|---|---|");
    }
    println!();
    for (name, u, tl, tms) in &tightening {
        print!(
            "| {name} | {:.2} | {:.2} | {:.2} |",
            mean(&u[0]),
            mean(&u[1]),
            mean(&u[2])
        );
        if thorough {
            print!(
                " {:.2} | {:.2} | {:.2} | {:.0} |",
                mean(&u[3]),
                mean(tl),
                mean(&u[3]) - mean(tl),
                tms
            );
        }
        println!();
    }
    Ok(())
}
