//! The example runs and prints its heuristic beside PAM and MM.

use std::process::Command;

#[test]
fn the_example_prints_its_heuristic_beside_pam_and_mm() {
    let out = Command::new(env!("CARGO_BIN_EXE_own-policy"))
        .arg("2")
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["PAM", "MM", "MSP-EDF", "MSP-EDF, below 0.2"] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name:<20}")))
            .unwrap_or_else(|| panic!("no line for {name} in\n{stdout}"));
        let value: f64 = line[20..].trim().parse().unwrap();
        assert!((0.0..=100.0).contains(&value), "{line}");
    }
}
