//! `prunesim run --heuristic A,B,C`: several heuristics on the same trials in one table, each
//! row what the heuristic's own run gives, the paired differences to the best, and a folder
//! that holds each run and the table without touching a file of the user's.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn prunesim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the prunesim binary runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn failed(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn experiment(dir: &Path) {
    std::fs::write(
        dir.join("e.toml"),
        "[workload]\nrate = 19000\nseed = 5\ntasks = 300\ntrials = 5\n\
         [system]\nskip_first = 50\nskip_last = 50\n[mapper]\nname = \"PAM\"\n",
    )
    .unwrap();
}

#[test]
fn each_row_is_the_heuristics_own_run_and_the_differences_are_paired() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    let out = prunesim(
        &[
            "run",
            "e.toml",
            "--heuristic",
            "MM,PAM,MM-P",
            "--no-bound",
            "--json",
        ],
        d,
    );
    let v: Value = serde_json::from_str(&ok(&out)).unwrap();
    let rows = v["heuristics"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    // Each row's robustness is the one its own run prints.
    let mut means = Vec::new();
    for (row, name) in rows.iter().zip(["MM", "PAM", "MM-P"]) {
        assert_eq!(row["heuristic"], name);
        let alone: Value = serde_json::from_str(&ok(&prunesim(
            &["run", "e.toml", "--heuristic", name, "--no-bound", "--json"],
            d,
        )))
        .unwrap();
        let mean = row["robustness"]["mean"].as_f64().unwrap();
        assert_eq!(mean, alone["robustness_mean"].as_f64().unwrap(), "{name}");
        means.push(mean);
    }
    let best = if means[1] >= means[2] { "PAM" } else { "MM-P" };
    assert_eq!(v["best"], best, "{means:?}");
    // The best row has no difference; the others' mean difference is the difference of the
    // means (paired over the same trials), its interval around it.
    let b = rows.iter().position(|r| r["heuristic"] == best).unwrap();
    assert!(rows[b]["difference_to_best"].is_null());
    let mm = &rows[0]["difference_to_best"];
    let diff = mm["mean"].as_f64().unwrap();
    assert!((diff - (means[0] - means[b])).abs() < 1e-9, "{diff}");
    assert!(mm["ci95_low"].as_f64().unwrap() <= diff && diff <= mm["ci95_high"].as_f64().unwrap());
    assert!(
        diff < 0.0,
        "MM unpruned loses to the pruned ones at 19k: {means:?}"
    );
}

#[test]
fn the_table_names_the_best_and_the_bracket_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    let out = ok(&prunesim(
        &["run", "e.toml", "--heuristic", "PAM,MM", "--trials", "2"],
        d,
    ));
    let lines: Vec<&str> = out.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("heuristic"))
        .expect(&out);
    assert!(
        lines[head].contains("vs best") && lines[head].contains("95% CI"),
        "{out}"
    );
    assert!(
        lines[head + 1].starts_with("PAM") && lines[head + 1].contains("best"),
        "{out}"
    );
    assert!(lines[head + 2].starts_with("MM "), "{out}");
    assert_eq!(
        out.matches("the clairvoyant optimum is in").count(),
        1,
        "{out}"
    );
    assert!(out.contains("offered load"), "{out}");
    assert!(out.lines().count() <= 30, "{out}");
}

#[test]
fn the_folder_holds_each_run_and_the_table_and_no_file_of_the_users_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    let args = [
        "run",
        "e.toml",
        "--heuristic",
        "PAM,MM",
        "--trials",
        "2",
        "--no-bound",
        "--out",
        "cmp",
    ];
    ok(&prunesim(&args, d));
    for name in ["PAM", "MM"] {
        assert!(d.join("cmp").join(name).join("manifest.json").is_file());
        // Each is a run folder: rerun reproduces it.
        ok(&prunesim(&["rerun", &format!("cmp/{name}")], d));
    }
    let table = std::fs::read_to_string(d.join("cmp/comparison.csv")).unwrap();
    assert!(
        table.starts_with("heuristic,pruner,robustness_mean"),
        "{table}"
    );
    assert_eq!(table.lines().count(), 3, "{table}");
    // The figure, and the manifest naming every file with its hash.
    let svg = std::fs::read_to_string(d.join("cmp/comparison.svg")).unwrap();
    assert!(
        svg.contains("robustness (%)") && svg.contains("PAM"),
        "the figure"
    );
    assert!(
        std::fs::read(d.join("cmp/comparison.png"))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cmp/comparison.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["kind"], "prunesim comparison");
    assert_eq!(manifest["files"].as_object().unwrap().len(), 3);
    // Again: its own files are replaced.
    ok(&prunesim(&args, d));
    // A file of its own the user edited since is left as it is, and nothing runs.
    std::fs::write(d.join("cmp/comparison.csv"), "edited\n").unwrap();
    let e = failed(&prunesim(&args, d));
    assert!(e.contains("changed since"), "{e}");
    assert_eq!(
        std::fs::read_to_string(d.join("cmp/comparison.csv")).unwrap(),
        "edited\n"
    );
    // A comparison.csv of the user's is left as it is, and nothing runs.
    let mine = d.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("comparison.csv"), "my notes\n").unwrap();
    let mut theirs = args;
    theirs[8] = "mine";
    let e = failed(&prunesim(&theirs, d));
    assert!(e.contains("a file prunesim did not write"), "{e}");
    assert_eq!(
        std::fs::read_to_string(mine.join("comparison.csv")).unwrap(),
        "my notes\n"
    );
    assert!(!mine.join("PAM").exists());
}

#[test]
fn a_bad_name_in_the_list_stops_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    let e = failed(&prunesim(
        &[
            "run",
            "e.toml",
            "--heuristic",
            "PAM,NOPE",
            "--out",
            "cmp",
            "--no-bound",
        ],
        d,
    ));
    assert!(
        e.contains("--heuristic NOPE") && e.contains("unknown heuristic"),
        "{e}"
    );
    assert!(!d.join("cmp").exists());
    for list in ["PAM,,MM", "PAM,MM,PAM"] {
        let e = failed(&prunesim(&["run", "e.toml", "--heuristic", list], d));
        assert!(e.contains("--heuristic"), "{e}");
    }
}

#[test]
fn with_report_a_page_links_each_runs_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    ok(&prunesim(
        &[
            "run",
            "e.toml",
            "--heuristic",
            "PAM,MM",
            "--trials",
            "2",
            "--no-bound",
            "--out",
            "cmp",
            "--report",
        ],
        d,
    ));
    let page = std::fs::read_to_string(d.join("cmp/comparison.html")).unwrap();
    for name in ["PAM", "MM"] {
        assert!(
            page.contains(&format!("<a href=\"{name}/report.html\">{name}</a>")),
            "{page}"
        );
        assert!(
            d.join("cmp").join(name).join("report.html").is_file(),
            "{name}'s report"
        );
    }
    assert!(
        page.contains("<svg") && page.contains("vs best"),
        "the figure and the table"
    );
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cmp/comparison.json")).unwrap())
            .unwrap();
    assert!(manifest["files"]["comparison.html"].is_string());
}

#[test]
fn a_comparison_folder_reruns_as_a_whole_and_names_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d);
    let args = [
        "run",
        "e.toml",
        "--heuristic",
        "PAM,MM",
        "--no-bound",
        "--report",
        "--out",
        "cmp",
    ];
    ok(&prunesim(&args, d));
    let listing = |d: &Path| {
        let mut v: Vec<_> = walk(&d.join("cmp"));
        v.sort();
        v
    };
    let before = listing(d);
    let out = prunesim(&["rerun", "cmp"], d);
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        said.contains("PAM: ") && said.contains("MM: "),
        "a verdict per run: {said}"
    );
    assert!(
        said.contains("reproduced bit for bit: 2 runs and the comparison (comparison.csv"),
        "{said}"
    );
    assert_eq!(listing(d), before, "nothing in the folder is written");

    // An edited table, or a run whose results changed, is named.
    let csv = d.join("cmp/comparison.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    std::fs::write(&csv, text.replacen("PAM", "PAX", 1)).unwrap();
    let e = failed(&prunesim(&["rerun", "cmp"], d));
    assert!(e.contains("not reproduced: comparison.csv"), "{e}");
    std::fs::write(&csv, text).unwrap();
    let trials = d.join("cmp/MM/trials.csv");
    let t = std::fs::read_to_string(&trials).unwrap();
    let mut lines: Vec<String> = t.lines().map(str::to_owned).collect();
    lines[1] = lines[1].replacen(',', ",9", 1);
    std::fs::write(&trials, lines.join("\n") + "\n").unwrap();
    let e = failed(&prunesim(&["rerun", "cmp"], d));
    assert!(e.contains("not reproduced: MM"), "{e}");
    // Options of a single run folder are refused for a comparison.
    let e = failed(&prunesim(&["rerun", "cmp", "--json"], d));
    assert!(e.contains("apply to one run folder"), "{e}");
}

/// Every file under `dir`, with its bytes.
fn walk(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}
