//! Bounded resources: every input that once aborted, hung or grew without bound, fed through
//! the command line under an address-space limit. Each must end within seconds with a
//! non-zero exit and a message (or, for `--jobs`, run with a warning): an allocation abort
//! (exit 134, `memory allocation ... failed`) or a kill fails the test.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The address space the binary may use in these tests (2 GiB of virtual memory).
const ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;

/// Runs `prunesim ARGS` in `dir` under `ulimit -v` and a time limit.
fn limited(args: &[&str], dir: &Path) -> (Output, Duration) {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "ulimit -v {ADDRESS_SPACE_KIB}; exec timeout -k 5 20 '{}' {}",
        env!("CARGO_BIN_EXE_prunesim"),
        quoted.join(" ")
    );
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("sh runs");
    (out, start.elapsed())
}

/// Checks a refused input: exit 1 (not an abort, a kill or a timeout), the message on stderr,
/// within ten seconds.
fn refused(args: &[&str], dir: &Path, says: &[&str]) {
    let (out, took) = limited(args, dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    for s in says {
        assert!(stderr.contains(s), "{args:?}: no {s:?} in {stderr}");
    }
    assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
}

fn experiment(dir: &Path, name: &str, workload: &str) -> String {
    std::fs::write(
        dir.join(name),
        format!("[workload]\nseed = 1\n{workload}\n[mapper]\nname = \"MM\"\n"),
    )
    .unwrap();
    name.to_owned()
}

#[test]
fn a_system_too_large_for_the_budget_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for machines in ["10000000", "1000000", "100000"] {
        let f = experiment(d, "m.toml", &format!("rate = 34000\nmachines = {machines}"));
        refused(
            &["run", &f, "--max-memory", "1GiB", "--trials", "2"],
            d,
            &["more than the memory budget of 1.0 GiB", "fewer machines"],
        );
    }
    // A billion tasks at a rate of 10^15, with the default budget.
    let f = experiment(d, "t.toml", "rate = 1e15\ntasks = 1000000000");
    refused(
        &["run", &f, "--trials", "1"],
        d,
        &["1000000000 tasks", "memory budget"],
    );
}

#[test]
fn many_machines_samples_and_chained_drifts_are_refused_by_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 10^5 machines: two copies of a 7 GiB PET; a 12 GiB budget (half of 24 GiB) refuses it
    // and says how to raise the budget.
    let f = experiment(d, "m.toml", "rate = 34000\nmachines = 100000");
    refused(
        &[
            "run",
            &f,
            "--max-memory",
            "12GiB",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
        &[
            "more than the memory budget of 12.0 GiB",
            "--max-memory SIZE",
        ],
    );
    let f = experiment(
        d,
        "s.toml",
        "rate = 34000\n[belief]\nsource = \"fixed\"\nprior = \"samples\"\nsamples = 1000000000",
    );
    refused(
        &[
            "run",
            &f,
            "--max-memory",
            "8GiB",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
        // Refused at validation, before the budget is estimated.
        &["belief.samples", "expected 1 to 1000000 draws per cell"],
    );
    let drift: String = (1..=20)
        .map(|i| format!("[[drift]]\nat = {i}.0\nscale = 2.0\n"))
        .collect();
    let f = experiment(d, "d.toml", &format!("rate = 34000\n{drift}"));
    refused(
        &[
            "run",
            &f,
            "--max-memory",
            "8GiB",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
        &["the drifted PETs", "memory budget"],
    );
}

#[test]
fn a_sweep_is_checked_point_by_point_before_any_point_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("big.toml"),
        "id = \"big\"\ntitle = \"t\"\nchart = \"lines\"\ny_label = \"y\"\ntrials = 2\nseed = 1\n\
         [base]\nworkload = { rate = 34000, seed = 0, tasks = 400 }\nmapper = { name = \"MM\" }\n\
         [x]\nlabel = \"machines\"\nvalues = [8, 10000000]\nset = [\"workload.machines\"]\n\
         [[series]]\nlabel = \"MM\"\n",
    )
    .unwrap();
    refused(
        &["sweep", "big.toml", "--out", "out", "--max-memory", "8GiB"],
        d,
        &[
            "big: point x=10000000 series=MM needs about",
            "more than the memory budget of 8.0 GiB",
            "--max-memory SIZE",
        ],
    );
    // No point ran: no point file was written.
    assert!(!d.join("out/big.points").exists());
    // Points that fit one by one but not together: every point holds its PET.
    std::fs::write(
        d.join("many.toml"),
        "id = \"many\"\ntitle = \"t\"\nchart = \"lines\"\ny_label = \"y\"\ntrials = 1\nseed = 1\n\
         [base]\nworkload = { rate = 34000, seed = 0, tasks = 400, machines = 4096 }\n\
         mapper = { name = \"MM\" }\n\
         [x]\nlabel = \"seed\"\nvalues = [1, 2, 3, 4, 5, 6, 7, 8]\nset = [\"workload.seed\"]\n\
         [[series]]\nlabel = \"MM\"\n",
    )
    .unwrap();
    refused(
        &["sweep", "many.toml", "--out", "out", "--max-memory", "1GiB"],
        d,
        &["the 8 points of this run need about", "--max-memory SIZE"],
    );
}

#[test]
fn inputs_that_are_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    refused(
        &["run", "--pet", "/dev/zero"],
        d,
        &["/dev/zero", "not a regular file"],
    );
    refused(&["run", "/dev/zero"], d, &["not a regular file"]);
    refused(
        &["run", "--workload", "/dev/zero"],
        d,
        &["not a regular file"],
    );
    let fifo = d.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        refused(
            &["run", "--pet", "fifo"],
            d,
            &["not a regular file (a FIFO)"],
        );
        refused(
            &["run", "--workload", "fifo"],
            d,
            &["not a regular file (a FIFO)"],
        );
    }
}

#[test]
fn too_many_jobs_are_capped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (out, took) = limited(
        &["run", "--jobs", "100000", "--trials", "2", "--no-bound"],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("--jobs 100000 exceeds the"), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn times_beyond_the_tick_range_are_refused_at_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("far.dat"),
        "taskCount=2;\n1e308 0 1e308;\n2 0 300;\n",
    )
    .unwrap();
    refused(
        &["run", "--workload", "far.dat"],
        d,
        &["far.dat:2", "arrival", "2^52"],
    );
}
