//! `prunesim new-policy` writes a crate that builds and runs beside PAM and MM from a folder
//! outside the checkout: the crate is written into the system's temporary folder, built by
//! cargo (offline, the dev profile, into this test's target folder so that the dependencies
//! already built are reused) and run at one trial.

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
fn a_new_policy_crate_builds_and_runs_beside_pam_and_mm_outside_the_checkout() {
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
    let out = Command::new(target.join("debug/my-policy"))
        .arg("1")
        .output()
        .unwrap();
    let stdout = stdout_of("the new crate's program", &out);
    for name in ["PAM", "MM", "MSP-EDF", "MSP-EDF, below 0.2"] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name:<20}")))
            .unwrap_or_else(|| panic!("no line for {name} in\n{stdout}"));
        let value: f64 = line[20..].trim().parse().unwrap();
        assert!((0.0..=100.0).contains(&value), "{line}");
    }
}

/// The workspace's library crates a policy crate depends on, directly or not.
const WORKSPACE_CRATES: [&str; 12] = [
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
