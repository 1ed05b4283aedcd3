//! `prunesim report` on a sweep's output folder: one page whose figure's points link to each
//! point's trials, with the timelines of traced points; a traced point's folder leads to its
//! sweep's page; any other folder is refused with what it expected.

use std::path::Path;
use std::process::{Command, Output};

fn prunesim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const SWEEP: &str = r#"
id = "tiny"
title = "A tiny sweep"
metric = "robustness"
trials = 2
seed = 7

[base]
workload = { rate = 34000, seed = 0, tasks = 300 }
mapper = { name = "PAM" }
system = { skip_first = 50, skip_last = 50 }

[x]
label = "Arrival rate"
values = [19000, 34000]
labels = ["19k", "34k"]
set = ["workload.rate"]

[[series]]
label = "PAM"
set = { "trace" = true }

[[series]]
label = "MM"
set = { "mapper.name" = "MM" }
"#;

#[test]
fn a_sweep_folder_reports_its_points_trials_and_timelines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("tiny.toml"), SWEEP).unwrap();
    ok(&prunesim(&["sweep", "tiny.toml", "--out", "out"], d));
    let said = ok(&prunesim(&["report", "out"], d));
    assert!(said.contains("4 points, 4 timelines"), "{said}");
    let html = std::fs::read_to_string(d.join("out/report.html")).unwrap();
    // Every point of the figure links to its section, which holds its trials.
    for n in 0..4 {
        assert!(
            html.contains(&format!("href=\"#tiny-point-{n}\"")),
            "point {n}"
        );
        assert!(
            html.contains(&format!("id=\"tiny-point-{n}\"")),
            "section {n}"
        );
    }
    assert_eq!(html.matches("<th>trial</th>").count(), 4);
    // It opens on a table of means, the measure's unit given; the figure's axes are labelled
    // and its series told apart by marker and dash as well as by colour; no empty field.
    let table = &html[html
        .find("<table class=\"means\">")
        .expect("a table of means")..];
    assert!(
        table.starts_with("<table class=\"means\"><caption>robustness (%): the mean"),
        "{}",
        &table[..200]
    );
    assert!(
        table.contains("<th>19k</th><th>34k</th>"),
        "{}",
        &table[..300]
    );
    assert!(html.find("class=\"means\"").unwrap() < html.find("<svg").unwrap());
    assert!(html.contains(">Arrival rate</text>"));
    assert!(
        html.contains(
            "rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">robustness (%)</text>"
        )
    );
    assert!(
        html.contains("stroke-dasharray=\"6 3\""),
        "MM's line is dashed"
    );
    assert!(html.contains("fill=\"#d55e00\"/></a>"), "MM's markers");
    assert!(
        html.contains("<rect x=") && html.contains("<circle cx="),
        "a square and a circle"
    );
    assert!(!html.contains("<p>Source: </p>"));
    // The traced series' two points each draw their two trials' timelines; MM's none.
    assert_eq!(html.matches("class=\"timeline\"").count(), 4);
    assert!(html.contains("PAM, x = 34k, trial 1"));
    // A traced point's folder leads to the same page, at the point.
    let traces: Vec<_> = std::fs::read_dir(d.join("out/tiny.trace"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let point = traces
        .iter()
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("002-"))
        .expect("point 2 is traced");
    let said = ok(&prunesim(&["report", point.to_str().unwrap()], d));
    assert!(said.contains("report.html#tiny-point-2"), "{said}");
    // A folder that is neither a run's nor a sweep's is refused, saying what it needs.
    std::fs::create_dir(d.join("empty")).unwrap();
    let out = prunesim(&["report", "empty"], d);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("summary.json"), "{err}");
}
