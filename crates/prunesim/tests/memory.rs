//! The memory estimate against the measured peak: every run shape `prunesim run` offers
//! (many machines at a fixed and at a scaled rate, long trials, `--jobs` with trials in
//! flight, tracing and the report, a learned belief, the clairvoyant bracket on few and on
//! many machines, a `samples` prior, chained drifts) at sizes small enough for CI, each run
//! as a child process that logs its estimate before the run and its peak resident memory
//! (`VmHWM`) at exit (`RUST_LOG=info`). The estimate must not fall below the peak.
//!
//! Cost: about 20 s (12 s of CPU) on the test profile, the largest run peaking near 120 MiB;
//! `docs/reliability.md`, "The memory model", has the same shapes at full size.

use std::path::Path;
use std::process::Command;

const PRUNESIM: &str = env!("CARGO_BIN_EXE_prunesim");

/// The first `key=<number>` of the log.
fn logged(log: &str, key: &str) -> Option<u64> {
    let at = log.find(&format!("{key}="))? + key.len() + 1;
    let digits: String = log[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Runs `prunesim run` on `experiment` with `args` in `dir`; returns (estimate, peak) bytes.
fn measure(dir: &Path, name: &str, experiment: &str, args: &[&str]) -> (u64, u64) {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, experiment).unwrap();
    let out = Command::new(PRUNESIM)
        .arg("run")
        .arg(&file)
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {log}");
    let estimate = logged(&log, "estimate_bytes").unwrap_or_else(|| panic!("{name}: {log}"));
    let peak = logged(&log, "peak_bytes").unwrap_or_else(|| panic!("{name}: {log}"));
    (estimate, peak)
}

fn experiment(workload: &str, extra: &str) -> String {
    format!("[workload]\nseed = 1\n{workload}\n[mapper]\nname = \"PAM\"\n{extra}\n")
}

#[test]
fn the_estimate_bounds_the_peak_of_every_run_shape() {
    let dir = tempfile::tempdir().unwrap();
    let drift: String = (1..=6)
        .map(|i| format!("[[drift]]\nat = {}.0\nscale = 2.0\n", i * 50))
        .collect();
    let shapes: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "default, 2 trials on 2 threads, with the bracket",
            experiment("rate = 34000", ""),
            vec!["--trials", "2", "--jobs", "2"],
        ),
        (
            "256 machines at a fixed rate",
            experiment("rate = 34000\nmachines = 256", ""),
            vec!["--trials", "1", "--no-bound"],
        ),
        (
            "512 machines at a scaled rate, 2 trials in flight",
            experiment("rate = 2176000\nmachines = 512", ""),
            vec!["--trials", "2", "--jobs", "2", "--no-bound"],
        ),
        (
            "a long trial: 10,000 tasks",
            experiment("rate = 425000\ntasks = 10000", ""),
            vec!["--trials", "1", "--no-bound"],
        ),
        (
            "traced, with the report",
            experiment("rate = 212500\ntasks = 5000", ""),
            vec!["--trials", "2", "--no-bound", "--report", "--out", "traced"],
        ),
        (
            "a learned belief on 128 machines",
            experiment(
                "rate = 34000\nmachines = 128",
                "[belief]\nsource = \"learned\"",
            ),
            vec!["--trials", "1", "--no-bound"],
        ),
        (
            "the bracket on 96 machines",
            experiment("rate = 12750\ntasks = 300\nmachines = 96", ""),
            vec!["--trials", "1"],
        ),
        (
            "a samples prior of 5,000 draws",
            experiment(
                "rate = 34000",
                "[belief]\nsource = \"fixed\"\nprior = \"samples\"\nsamples = 5000",
            ),
            vec!["--trials", "1", "--no-bound"],
        ),
        (
            "six chained drifts of scale 2",
            experiment("rate = 34000", &drift),
            vec!["--trials", "1", "--no-bound"],
        ),
    ];
    assert_estimates_bound_peaks(dir.path(), "shape", &shapes);
}

/// The shapes whose cost grows faster than their tasks: a deep queue that drops nothing (the
/// `k`-th completion-time PMF of a queue spans `k` PMFs), long PMFs of a samples PET, and a
/// trial whose task count `count_variance_ratio` spreads far beyond its rate. Without the
/// queues' completion-time PMFs and the bound on the task count in the estimate, each
/// estimate falls below its peak (docs/reliability.md, "The memory model").
#[test]
fn the_estimate_bounds_the_peak_of_deep_queues_long_pmfs_and_wide_counts() {
    let dir = tempfile::tempdir().unwrap();
    // One task type on 2 machines, 3 samples per cell from 100 to 2,000 ticks, 1-tick bins:
    // PMFs of about 1,950 bins.
    let mut csv = String::from("task_type,machine,execution_time\n");
    for m in 0..2 {
        for t in [100, 1050, 2000] {
            csv.push_str(&format!("0,{m},{}\n", t - 37 * m));
        }
    }
    std::fs::write(dir.path().join("long.csv"), csv).unwrap();
    let none = "[system]\ndrop_model = \"none\"\n";
    let shapes: Vec<(&str, String)> = vec![
        (
            "queues of 100 that drop nothing, MM, 800 tasks",
            format!(
                "[workload]\nseed = 1\nrate = 200000\ntasks = 800\n{none}queue_size = 100\n\
                 [mapper]\nname = \"MM\"\n[pruner]\n"
            ),
        ),
        (
            "PMFs of 1,950 ticks, queues of 40 that drop nothing",
            format!(
                "[workload]\nseed = 1\npet = {{ samples = \"long.csv\", bin_width = 1 }}\n\
                 rate = 40000\nhorizon = 1000000\ntasks = 80\n{none}queue_size = 40\n\
                 skip_first = 0\nskip_last = 0\n[mapper]\nname = \"MM\"\n[pruner]\n"
            ),
        ),
        (
            "count_variance_ratio = 1e8 at rate 1000: 150,000 tasks",
            "[workload]\nseed = 1\nrate = 1000\ntasks = 150000\ncount_variance_ratio = 1e8\n\
             [mapper]\nname = \"FCFS\"\n"
                .to_owned(),
        ),
    ];
    let shapes: Vec<(&str, String, Vec<&str>)> = shapes
        .into_iter()
        .map(|(name, text)| (name, text, vec!["--trials", "1", "--no-bound"]))
        .collect();
    assert_estimates_bound_peaks(dir.path(), "grow", &shapes);
}

/// Runs each shape (a name, its experiment, the command's options) in `dir` and fails,
/// with the table of estimates and peaks, when an estimate is below its measured peak.
fn assert_estimates_bound_peaks(dir: &Path, prefix: &str, shapes: &[(&str, String, Vec<&str>)]) {
    let mut failures = Vec::new();
    let mut table = String::from("shape | estimate MiB | peak MiB\n");
    for (i, (name, text, args)) in shapes.iter().enumerate() {
        let (estimate, peak) = measure(dir, &format!("{prefix}{i}"), text, args);
        let line = format!(
            "{name} | {:.1} | {:.1}\n",
            estimate as f64 / 1048576.0,
            peak as f64 / 1048576.0
        );
        table.push_str(&line);
        if estimate < peak {
            failures.push(line);
        }
    }
    println!("{table}");
    assert!(
        failures.is_empty(),
        "the estimate is below the measured peak:\n{}\n{table}",
        failures.concat()
    );
}
