//! Every figure file parses and validates; a smoke run of one figure writes its files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_experiment_file_parses_and_validates() {
    let dir = root().join("experiments");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let spec = runner::FigureSpec::load(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                path.file_stem().unwrap().to_string_lossy(),
                spec.id,
                "file name and id differ"
            );
            let points = spec.points(Some(2)).unwrap();
            assert!(!points.is_empty(), "{} has no point", spec.id);
            n += 1;
        }
    }
    assert!(n >= 22, "only {n} figure files");
}

#[test]
fn a_smoke_run_writes_the_csv_the_trials_and_the_plots() {
    let out = std::env::temp_dir().join(format!("prunesim-smoke-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args([
            "reproduce-figure",
            "thesis-4.4",
            "--trials",
            "2",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let csv = std::fs::read_to_string(out.join("thesis-4.4.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), "x,series,mean,ci95_low,ci95_high,n");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(
        rows.len(),
        5,
        "one row per series, plus the clairvoyant bound"
    );
    assert!(rows[4].starts_with("19k,clairvoyant bound,"));
    let trials = std::fs::read_to_string(out.join("thesis-4.4.trials.csv")).unwrap();
    assert!(trials.starts_with("x,series,trial,metric,value"));
    assert_eq!(trials.lines().count(), 1 + 5 * 2);
    let svg = std::fs::read_to_string(out.join("thesis-4.4.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("PUM"));
    let png = std::fs::read(out.join("thesis-4.4.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let manifest = std::fs::read_to_string(out.join("thesis-4.4.manifest.json")).unwrap();
    assert!(manifest.contains("git_revision") && manifest.contains("\"seed\": 404"));
    std::fs::remove_dir_all(&out).ok();
}
