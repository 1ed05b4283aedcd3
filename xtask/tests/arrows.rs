//! The arrows that must never exist between the workspace's crates (docs/ARCHITECTURE.md,
//! "Architecture invariants"), read from every member's manifest: normal, dev and build
//! dependencies alike, since an example or a bench that needs the runner belongs where the
//! runner is a dependency already.

use std::collections::BTreeMap;
use std::process::Command;

/// `(from, to, why)`: `from` may not depend on `to` in any way.
const NEVER: [(&str, &str, &str); 8] = [
    (
        "bound",
        "runner",
        "the runner depends on the bound: its examples and benches live in runner",
    ),
    (
        "live",
        "runner",
        "the live scheduler and the simulator are two drivers side by side over `system`",
    ),
    (
        "system",
        "runner",
        "the scheduler's core is below the simulator that drives it",
    ),
    (
        "system",
        "live",
        "the scheduler's core is below the live scheduler that drives it",
    ),
    ("model", "runner", "the model is below every driver"),
    (
        "prunesim-python",
        "heuristics",
        "the bindings configure policies by name through `live` (its `system` configuration) or `runner`",
    ),
    (
        "prunesim-python",
        "pruner",
        "the bindings configure policies by name through `live` (its `system` configuration) or `runner`",
    ),
    (
        "xtask",
        "heuristics",
        "xtask reaches the policies through the runner only",
    ),
];

/// The workspace's members as `cargo metadata` gives them.
fn metadata() -> serde_json::Value {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

/// Every member's dependencies of any kind.
fn dependencies() -> BTreeMap<String, Vec<String>> {
    metadata()["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter_map(|d| d["name"].as_str().map(str::to_owned))
                .collect();
            (p["name"].as_str().expect("a name").to_owned(), deps)
        })
        .collect()
}

#[test]
fn no_arrow_that_must_never_exist() {
    let deps = dependencies();
    for (from, _, _) in NEVER {
        assert!(deps.contains_key(from), "no workspace member named {from}");
    }
    let found: Vec<String> = NEVER
        .iter()
        .filter(|(from, to, _)| deps[*from].iter().any(|d| d == to))
        .map(|(from, to, why)| format!("{from} -> {to}: {why}"))
        .collect();
    assert!(
        found.is_empty(),
        "arrows that must never exist:\n{}",
        found.join("\n")
    );
}

/// The oracle's internals (`model`'s feature `internals`: its caches, their identities, the
/// bounds of earlier ticks) are enabled by tests alone: no crate's normal or build dependency
/// on `model` asks for them, so no policy or driver can read them.
#[test]
fn the_oracles_internals_are_for_tests_alone() {
    let meta = metadata();
    let mut found = Vec::new();
    let mut dev = 0;
    for p in meta["packages"].as_array().expect("packages") {
        for d in p["dependencies"].as_array().expect("dependencies") {
            let internals = d["name"] == "model"
                && d["features"]
                    .as_array()
                    .is_some_and(|f| f.iter().any(|f| f == "internals"));
            match (internals, d["kind"].as_str()) {
                (true, Some("dev")) => dev += 1,
                (true, _) => found.push(p["name"].as_str().unwrap_or("?").to_owned()),
                _ => {}
            }
        }
    }
    assert!(
        found.is_empty(),
        "the oracle's internals asked for outside tests by: {}",
        found.join(", ")
    );
    assert!(dev > 0, "the check sees the tests that ask for them");
}

/// The check sees arrows that exist (the runner depends on the bound and on the scheduler's
/// core), so a forbidden one would not pass unseen.
#[test]
fn the_check_sees_arrows() {
    let deps = dependencies();
    assert!(deps["runner"].iter().any(|d| d == "bound"));
    assert!(deps["runner"].iter().any(|d| d == "system"));
    assert!(deps["live"].iter().any(|d| d == "system"));
    assert!(deps["prunesim-python"].iter().any(|d| d == "live"));
}
