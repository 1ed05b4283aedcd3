//! Embedding the pruner or the live scheduler pulls in only what it uses: the normal
//! dependency trees of the crates a scheduler of one's own links (`pmf`, `learn`, `model`,
//! `pruner`, `heuristics`, `system`, `live`) hold no file-format crate. `csv` and `toml` come only with
//! the `files` feature of `workload`, which the crates that read files ask for.

use std::path::Path;
use std::process::Command;

/// The crates that only file formats need.
const FILE_FORMATS: [&str; 2] = ["csv", "toml"];

#[test]
fn the_embedding_crates_pull_in_no_file_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root");
    for krate in [
        "pmf",
        "learn",
        "model",
        "pruner",
        "heuristics",
        "system",
        "live",
    ] {
        let out = Command::new(env!("CARGO"))
            .args(["tree", "-p", krate, "-e", "normal", "--prefix", "none"])
            .args(["--format", "{p}"])
            .current_dir(root)
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo tree -p {krate}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree = String::from_utf8_lossy(&out.stdout);
        let names: Vec<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(
            names.contains(&krate),
            "cargo tree -p {krate} lists {krate}:\n{tree}"
        );
        for f in FILE_FORMATS {
            assert!(
                !names.contains(&f),
                "{krate} depends on {f}; give it to workload's `files` feature only:\n{tree}"
            );
        }
    }
    // The feature brings them: the runner, which reads files, has both.
    let out = Command::new(env!("CARGO"))
        .args([
            "tree", "-p", "runner", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for f in FILE_FORMATS {
        assert!(
            names.contains(&f),
            "the runner reads files with {f}:\n{tree}"
        );
    }
}
