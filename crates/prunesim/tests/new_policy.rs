//! `prunesim new-policy` writes a crate, in a folder outside the checkout, whose program is the
//! whole command line with its own heuristic and pruning rule beside the built-in ones: the
//! crate is written into the system's temporary folder, built by cargo (offline, the dev
//! profile, into this test's target folder so that the dependencies already built are
//! reused), and its `list`, `run`, `sweep` and `report` take them by name.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn stdout_of(what: &str, out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn a_policy_crate_outside_the_checkout_runs_its_heuristic_and_rule_by_name_in_every_tool() {
    let tmp = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let dir = tmp.path().canonicalize().unwrap().join("my-policy");
    assert!(
        !dir.starts_with(root()),
        "{} is in the checkout",
        dir.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["new-policy", "my-policy", "--path"])
        .arg(&dir)
        .output()
        .unwrap();
    let said = stdout_of("prunesim new-policy", &out);
    assert!(said.contains("cargo run --release"), "{said}");

    // Refused a second time: the folder is no longer empty, and nothing in it changes.
    let before = std::fs::read(dir.join("src/main.rs")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["new-policy", "my-policy", "--path"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not empty") && err.contains(&dir.display().to_string()),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("src/main.rs")).unwrap(), before);

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let target = common::target_dir();
    // prunesim's crates at the optimisation this test's own build gave them (the workspace's
    // members build at opt-level 1, the new crate's `"*"` would give them 2): their
    // artifacts in the shared target folder are then reused rather than built again.
    let mut build = Command::new(&cargo);
    build.args(["build", "--offline", "--quiet"]);
    for krate in WORKSPACE_CRATES {
        build
            .arg("--config")
            .arg(format!("profile.dev.package.{krate}.opt-level=1"));
    }
    let out = build
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    stdout_of("cargo build in the new crate", &out);
    let program = target.join("debug/my-policy");
    let run = |args: &[&str]| {
        Command::new(&program)
            .args(args)
            .current_dir(&dir)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };

    // Its heuristic and pruning rule are listed beside the built-in ones.
    let listed = stdout_of("my-policy list", &run(&["list"]));
    assert!(
        listed.contains("MSP-EDF") && listed.contains("below-floor"),
        "{listed}"
    );
    assert!(listed.contains("PAM") && listed.contains("MOC"), "{listed}");

    // `run`, by name, beside PAM on the same trials; with the paper's pruner by the suffix.
    std::fs::write(
        dir.join("mine.toml"),
        format!("{EXPERIMENT}[mapper]\nname = \"MSP-EDF-P\"\n"),
    )
    .unwrap();
    let table = stdout_of(
        "my-policy run --heuristic",
        &run(&[
            "run",
            "mine.toml",
            "--heuristic",
            "MSP-EDF-P,PAM,MSP-EDF",
            "--no-bound",
        ]),
    );
    for name in ["MSP-EDF-P", "PAM", "MSP-EDF"] {
        assert!(
            table.lines().any(|l| l.trim_start().starts_with(name)),
            "no row for {name} in\n{table}"
        );
    }
    // Its pruning rule by name in an experiment file, into a run folder, and the report.
    std::fs::write(
        dir.join("floor.toml"),
        format!("{EXPERIMENT}[mapper]\nname = \"MSP-EDF\"\n[pruner]\nrule = \"below-floor\"\n"),
    )
    .unwrap();
    let said = stdout_of(
        "my-policy run floor.toml",
        &run(&["run", "floor.toml", "--no-bound", "--out", "floor"]),
    );
    assert!(said.contains("rule below-floor"), "{said}");
    stdout_of("my-policy report floor", &run(&["report", "floor"]));
    assert!(dir.join("floor/report.html").is_file());
    // A rule given with a key of the papers' pruner, or with a name that sets that pruner,
    // is refused by name.
    for (file, extra, says) in [
        (
            "key.toml",
            "drop_threshold = 0.5\n",
            "'drop_threshold' has no effect",
        ),
        ("suffix.toml", "", "sets the papers' pruner"),
    ] {
        let name = if extra.is_empty() {
            "MSP-EDF-P"
        } else {
            "MSP-EDF"
        };
        std::fs::write(
            dir.join(file),
            format!(
                "{EXPERIMENT}[mapper]\nname = \"{name}\"\n[pruner]\nrule = \"below-floor\"\n{extra}"
            ),
        )
        .unwrap();
        let out = run(&["run", file, "--no-bound"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{file}: {err}");
    }

    // A sweep with its heuristic as a series, and the sweep's report.
    std::fs::write(dir.join("sweep.toml"), SWEEP).unwrap();
    stdout_of(
        "my-policy sweep",
        &run(&["sweep", "sweep.toml", "--out", "swept"]),
    );
    let csv = std::fs::read_to_string(dir.join("swept/mine.csv")).unwrap();
    assert!(csv.contains("MSP-EDF-P") && csv.contains("PAM"), "{csv}");
    stdout_of("my-policy report swept", &run(&["report", "swept"]));
    assert!(dir.join("swept/report.html").is_file());

    // The plain prunesim program does not know them, and says where they come from.
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["run", "floor.toml", "--no-bound"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("rule 'below-floor' is not registered"),
        "{err}"
    );
}

/// A small experiment: 300 tasks, 2 trials.
const EXPERIMENT: &str = "[workload]\nrate = 19000\nseed = 5\ntasks = 300\ntrials = 2\n\
    [system]\nskip_first = 50\nskip_last = 50\n";

/// A small sweep with the policy crate's heuristic as a series.
const SWEEP: &str = r#"
id = "mine"
title = "Mine beside PAM"
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

[[series]]
label = "MSP-EDF-P"
set = { "mapper.name" = "MSP-EDF-P" }
"#;

/// The workspace's library crates a policy crate depends on, directly or not.
const WORKSPACE_CRATES: [&str; 14] = [
    "prunesim",
    "report",
    "runner",
    "pmf",
    "workload",
    "model",
    "heuristics",
    "pruner",
    "learn",
    "system",
    "bound",
    "cutting",
    "moldable",
    "figures",
];

#[test]
fn a_folder_that_is_no_checkout_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["new-policy", "mine", "--prunesim-path"])
        .arg(tmp.path())
        .arg("--path")
        .arg(tmp.path().join("mine"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a checkout of prunesim")
            && err.contains(&tmp.path().display().to_string()),
        "{err}"
    );
    assert!(!tmp.path().join("mine").exists());
}

#[test]
fn a_name_cargo_would_refuse_is_refused_by_name_and_reason_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, why) in [
        ("fn", "Rust keyword"),
        ("self", "Rust keyword"),
        ("Self", "Rust keyword"),
        ("crate", "Rust keyword"),
        ("super", "Rust keyword"),
        ("async", "Rust keyword"),
        ("gen", "Rust keyword"),
        ("try", "Rust keyword"),
        ("build", "cargo's build directory"),
        ("std", "standard library"),
        ("pmf", "prunesim's crates"),
        ("nul", "Windows"),
    ] {
        let dir = tmp.path().join(format!("{name}-crate"));
        let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
            .args(["new-policy", name, "--path"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("\"{name}\" cannot name a crate")) && err.contains(why),
            "{name}: {err}"
        );
        assert!(!dir.exists(), "{name}: {} was written", dir.display());
    }
}
