//! `prunesim sweep` (the installed binary's command) and `cargo xtask reproduce-figure` (the
//! catalogue) run the same sweeps to the same bytes; a related work's table runs through the
//! same engine, sharded and collected like the simulator's figures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `prunesim` binary of the same build as this xtask (`cargo test --workspace` builds
/// both into the same folder).
fn prunesim() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_xtask"))
        .with_file_name(format!("prunesim{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.is_file(),
        "{} is missing: run `cargo test --workspace` (or `cargo build -p prunesim` first)",
        exe.display()
    );
    exe
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn xtask(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .arg("reproduce-figure")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn sweep(args: &[&str], out: &Path) -> Output {
    Command::new(prunesim())
        .current_dir(root())
        .arg("sweep")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn prunesim_sweep_and_reproduce_figure_write_the_same_figure() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    ok(sweep(
        &["experiments/paper-7.toml", "--trials", "2", "--jobs", "2"],
        &a,
    ));
    ok(xtask(&["paper-7", "--trials", "2", "--jobs", "1"], &b));
    for f in ["paper-7.csv", "paper-7.trials.csv", "paper-7.svg"] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x == y, "{f} differs between prunesim sweep and xtask");
    }
    assert!(a.join("paper-7.png").is_file() && a.join("timings.csv").is_file());
}

#[test]
fn a_cutting_table_shards_and_collects_to_a_local_run() {
    let dir = tempfile::tempdir().unwrap();
    let (sharded, local) = (dir.path().join("sharded"), dir.path().join("local"));
    let file = "experiments/related/gao-table5.toml";
    for shard in ["0", "1"] {
        let o = ok(sweep(
            &[
                file, "--trials", "3", "--jobs", "1", "--shard", shard, "--shards", "2",
            ],
            &sharded,
        ));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!("gao-table5 shard {shard} of 2: 7 point(s) of 14")),
            "{stdout}"
        );
    }
    assert!(!sharded.join("gao-table5.csv").exists());
    ok(sweep(&[file, "--trials", "3", "--collect"], &sharded));
    // Locally, by id, through the catalogue.
    ok(xtask(
        &["gao-table5", "--trials", "3", "--jobs", "2"],
        &local,
    ));
    for ext in ["csv", "manifest.json", "svg"] {
        let f = format!("gao-table5.{ext}");
        let (x, y) = (
            std::fs::read(sharded.join(&f)).unwrap(),
            std::fs::read(local.join(&f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs between the collected shards and a local run"
        );
    }
    let csv = std::fs::read_to_string(local.join("gao-table5.csv")).unwrap();
    assert!(csv.starts_with("distribution,strategy,ratio,"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 14 * 6);
    assert!(local.join("gao-table5.png").is_file());
}

#[test]
fn bad_sweep_files_and_ids_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "kind = \"moldable\"\nid = \"m\"\ntitle = \"M\"\nfigure = 7\ntrials = 2\nseed = 2\n",
    )
    .unwrap();
    let o = sweep(&[bad.to_str().unwrap()], &dir.path().join("out"));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("figures 4 and 5"),
        "{err}"
    );
    let o = xtask(&["no-such-figure"], &dir.path().join("out"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no figure 'no-such-figure'"));
    // The same sweep twice would write the same files.
    let twice = ["experiments/paper-7.toml", "experiments/paper-7.toml"];
    let o = sweep(&twice, &dir.path().join("out"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("are both sweep 'paper-7'"));
}

#[test]
fn a_traced_series_writes_one_trace_per_trial_and_the_manifest_names_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("traced.toml");
    std::fs::write(
        &file,
        r#"id = "traced"
title = "a traced series beside an untraced one"
seed = 3

[base]
workload = { rate = 19000, seed = 3, tasks = 300 }
mapper = { name = "PAM" }

[x]
label = "rate"
values = [19000]
labels = ["19k"]
set = ["workload.rate"]

[[series]]
label = "PAM traced"
set = { trace = true }

[[series]]
label = "MM"
set = { "mapper.name" = "MM" }
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    ok(sweep(
        &[file.to_str().unwrap(), "--trials", "2", "--jobs", "2"],
        &out,
    ));
    let traced = out.join("traced.trace/000-19k-PAM_traced");
    for k in 0..2 {
        let tasks = std::fs::read_to_string(traced.join(format!("tasks-{k}.csv"))).unwrap();
        assert_eq!(
            tasks.lines().count(),
            1 + 300,
            "a header and one row per task"
        );
        assert!(traced.join(format!("events-{k}.csv")).is_file());
    }
    let folders: Vec<_> = std::fs::read_dir(out.join("traced.trace"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        folders.len(),
        1,
        "only the traced series writes traces: {folders:?}"
    );
    let manifest = std::fs::read_to_string(out.join("traced.manifest.json")).unwrap();
    assert!(
        manifest.contains("\"trace\": \"traced.trace/000-19k-PAM_traced\""),
        "{manifest}"
    );
}
