//! The example's program is the command line with its heuristic and pruning rule beside the
//! built-in ones: `list` shows them, `run` takes them by name, each row on the same trials.

use std::process::Command;

fn own_policy(args: &[&str], dir: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_own-policy"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_example_runs_its_heuristic_and_rule_by_name_beside_pam() {
    let dir = tempfile::tempdir().unwrap();
    let listed = own_policy(&["list"], dir.path());
    assert!(
        listed.contains("MSP-EDF") && listed.contains("below-floor"),
        "{listed}"
    );
    std::fs::write(
        dir.path().join("e.toml"),
        "[workload]\nrate = 34000\nseed = 3\ntasks = 300\ntrials = 2\n\
         [system]\nskip_first = 50\nskip_last = 50\n\
         [mapper]\nname = \"MSP-EDF\"\n[pruner]\nrule = \"below-floor\"\n",
    )
    .unwrap();
    let table = own_policy(&["run", "e.toml", "--no-bound"], dir.path());
    assert!(table.contains("rule below-floor"), "{table}");
    let json = own_policy(
        &[
            "run",
            "--heuristic",
            "MSP-EDF-P,PAM",
            "--trials",
            "2",
            "--no-bound",
            "--json",
        ],
        dir.path(),
    );
    for name in ["MSP-EDF-P", "PAM"] {
        assert!(json.contains(&format!("\"{name}\"")), "{name}: {json}");
    }
}
