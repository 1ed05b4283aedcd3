//! `prunesim run --trace`, `--report` and `prunesim report`: the files, and that the per-task
//! rows reproduce the measures of `trials.csv` exactly.

use std::path::Path;
use std::process::{Command, Output};

use runner::trace::{read_events, read_tasks};

fn prunesim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("the prunesim binary runs")
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `trials.csv` as (header, rows).
fn trials_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(|v| v.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

#[test]
fn a_traced_run_writes_rows_that_reproduce_its_measures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("traced");
    ok(&prunesim(
        &[
            "run",
            "--trials",
            "2",
            "--trace",
            "--no-bound",
            "--jobs",
            "2",
            "--out",
            "traced",
        ],
        tmp.path(),
    ));
    let (header, rows) = trials_csv(&out.join("trials.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (k, row) in rows.iter().enumerate() {
        let tasks = read_tasks(&out.join(format!("trace/tasks-{k}.csv"))).unwrap();
        let events = read_events(&out.join(format!("trace/events-{k}.csv"))).unwrap();
        // The rows are the trial's tasks, each once.
        let mut ids: Vec<usize> = tasks.iter().map(|r| r.task).collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..800).collect::<Vec<_>>());
        // The counted rows give every outcome count of trials.csv.
        for o in model::Outcome::ALL {
            let n = tasks.iter().filter(|r| r.counted && r.outcome == o).count();
            assert_eq!(
                n as f64,
                row[col(&format!("n_{}", o.name()))],
                "trial {k}: {}",
                o.name()
            );
        }
        let counted = tasks.iter().filter(|r| r.counted).count() as f64;
        assert_eq!(counted, row[col("counted")]);
        let deferrals: u32 = tasks.iter().map(|r| r.deferrals).sum();
        assert_eq!(f64::from(deferrals), row[col("deferrals")]);
        assert_eq!(events.len() as f64, row[col("mapping_events")]);
        let engaged = events.iter().filter(|e| e.engaged).count() as f64;
        assert_eq!(engaged, row[col("engaged_events")]);
        // No timeline figure unless asked for.
        for ext in ["svg", "png"] {
            assert!(!out.join(format!("trace/timeline-{k}.{ext}")).exists());
        }
    }
    assert!(!out.join("report.html").exists());
    // Asked for: a timeline per trial, titled with the trial's robustness.
    ok(&prunesim(&["report", "traced", "--timelines"], tmp.path()));
    for (k, row) in rows.iter().enumerate() {
        for ext in ["svg", "png"] {
            let p = out.join(format!("trace/timeline-{k}.{ext}"));
            assert!(
                std::fs::metadata(&p).unwrap().len() > 1000,
                "{}",
                p.display()
            );
        }
        let png = std::fs::read(out.join(format!("trace/timeline-{k}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG");
        let svg = std::fs::read_to_string(out.join(format!("trace/timeline-{k}.svg"))).unwrap();
        let title = format!("trial {k}: {:.1}% of", row[col("robustness")]);
        assert!(svg.contains(&title), "{title}");
    }
    std::fs::remove_file(out.join("report.html")).unwrap();
    // A rerun draws them too, as the run's folder has them: every file reproduced.
    let rerun = prunesim(&["rerun", "traced"], tmp.path());
    ok(&rerun);
    let said = String::from_utf8_lossy(&rerun.stderr);
    assert!(
        said.ends_with("identical: every output file reproduced bit for bit\n"),
        "{said}"
    );
    // The experiment as it ran says it was traced.
    let toml = std::fs::read_to_string(out.join("experiment.toml")).unwrap();
    assert!(toml.contains("\ntrace = true\n"), "{toml}");

    // Tracing changes no result: the summary of the same run untraced is the same.
    ok(&prunesim(
        &[
            "run",
            "--trials",
            "2",
            "--no-bound",
            "--jobs",
            "1",
            "--out",
            "plain",
        ],
        tmp.path(),
    ));
    assert_eq!(
        std::fs::read(out.join("summary.json")).unwrap(),
        std::fs::read(tmp.path().join("plain/summary.json")).unwrap()
    );
    assert!(!tmp.path().join("plain/trace").exists());

    // The report of the folder.
    let o = prunesim(&["report", "traced"], tmp.path());
    ok(&o);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.len() < 2_000_000);
    assert!(
        html.contains("\"traces\":[{\"trial\":0,"),
        "the traces are inlined"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 traced trials, 1600 task rows"));

    // A rerun of the traced run traces again.
    ok(&prunesim(
        &["rerun", "traced", "--out", "again"],
        tmp.path(),
    ));
    for f in ["summary.json", "trace/tasks-0.csv", "trace/events-1.csv"] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(tmp.path().join("again").join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn tracing_needs_an_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--trace", "--report"] {
        let o = prunesim(&["run", "--trials", "1", "--no-bound", flag], tmp.path());
        assert!(!o.status.success(), "{flag}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("give --out DIR"), "{flag}: {err}");
    }
    let o = prunesim(&["report", "nowhere"], tmp.path());
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("summary.json"), "{err}");
}

#[test]
fn run_report_traces_and_a_folder_without_traces_has_a_report_too() {
    let tmp = tempfile::tempdir().unwrap();
    ok(&prunesim(
        &[
            "run",
            "--trials",
            "1",
            "--no-bound",
            "--report",
            "--out",
            "r",
        ],
        tmp.path(),
    ));
    assert!(tmp.path().join("r/report.html").exists());
    assert!(tmp.path().join("r/trace/tasks-0.csv").exists());
    // A folder without traces still has a report: the summary and the trials.
    ok(&prunesim(
        &["run", "--trials", "1", "--no-bound", "--out", "u"],
        tmp.path(),
    ));
    ok(&prunesim(
        &["report", "u", "--output", "u.html"],
        tmp.path(),
    ));
    let html = std::fs::read_to_string(tmp.path().join("u.html")).unwrap();
    assert!(html.contains("\"traces\":[]"));
}
