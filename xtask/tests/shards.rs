//! Sharded sweeps without Slurm: shards run as plain processes, `--collect` merges them into
//! the same files as a local run, and names the shards whose points are missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn xtask(out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args([
            "reproduce-figure",
            "thesis-4.3",
            "--trials",
            "2",
            "--jobs",
            "1",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn point_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn shards_then_collect_equal_a_local_run_and_missing_shards_are_named() {
    let base = std::env::temp_dir().join(format!("prunesim-shards-{}", std::process::id()));
    let (sharded, local) = (base.join("sharded"), base.join("local"));

    // Shard 1 of 3 alone: only its points (indices 1 and 4 of thesis-4.3's 7), nothing else.
    let o = xtask(&sharded, &["--shard", "1", "--shards", "3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = point_files(&sharded.join("thesis-4.3.points"));
    let idx: Vec<&str> = files.iter().map(|f| &f[..4]).collect();
    assert_eq!(idx, ["0001", "0004"]);
    assert!(!sharded.join("thesis-4.3.csv").exists());
    assert!(!sharded.join("timings.csv").exists());

    // Collecting now renders nothing and names shards 0 and 2 with the resubmit command.
    let o = xtask(&sharded, &["--collect", "--shards", "3"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("0000 0002 0003 0005 0006"), "{err}");
    assert!(err.contains("missing shards (2 of 3): 0,2"), "{err}");
    assert!(err.contains("sbatch --array=0,2 "), "{err}");
    assert!(!sharded.join("thesis-4.3.csv").exists());

    // The other shards, as two concurrent processes, then collect.
    let children: Vec<_> = ["0", "2"]
        .iter()
        .map(|s| {
            Command::new(env!("CARGO_BIN_EXE_xtask"))
                .current_dir(root())
                .args(["reproduce-figure", "thesis-4.3", "--trials", "2"])
                .args(["--jobs", "1", "--shards", "3", "--shard", s, "--out"])
                .arg(&sharded)
                .output()
                .unwrap()
        })
        .collect();
    for c in &children {
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    }
    assert_eq!(point_files(&sharded.join("thesis-4.3.points")).len(), 7);
    let o = xtask(&sharded, &["--collect"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = xtask(&local, &[]);
    assert!(o.status.success());
    for ext in ["csv", "trials.csv", "manifest.json", "svg"] {
        let f = format!("thesis-4.3.{ext}");
        let a = std::fs::read(sharded.join(&f)).unwrap();
        let b = std::fs::read(local.join(&f)).unwrap();
        assert!(
            a == b,
            "{f} differs between the collected shards and a local run"
        );
    }
    assert_eq!(
        point_files(&sharded.join("thesis-4.3.points")),
        point_files(&local.join("thesis-4.3.points")),
        "the same point files (same hashes)"
    );
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn the_slurm_script_is_written_with_one_task_per_shard() {
    let out = std::env::temp_dir().join(format!("prunesim-sbatch-{}", std::process::id()));
    let o = xtask(
        &out,
        &[
            "--slurm",
            "--shards",
            "4",
            "--partition",
            "short",
            "--time",
            "00:10:00",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = std::fs::read_to_string(out.join("thesis-4.3.sbatch")).unwrap();
    assert!(script.starts_with("#!/bin/bash\n"));
    // The tasks run `prunesim sweep` on the catalogue's file.
    assert!(
        script.contains("/prunesim sweep experiments/thesis-4.3.toml --shard "),
        "{script}"
    );
    for want in [
        "#SBATCH --array=0-3\n",
        "#SBATCH --partition=short\n",
        "#SBATCH --time=00:10:00\n",
        "#SBATCH --cpus-per-task=1\n",
        "# prunesim-shards: 4\n",
        "--shard \"$SLURM_ARRAY_TASK_ID\" --shards 4 ",
        "--trials 2",
    ] {
        assert!(script.contains(want), "no {want:?} in\n{script}");
    }
    assert!(out.join("slurm-logs").is_dir());
    // Nothing computed.
    assert!(!out.join("thesis-4.3.points").exists());
    std::fs::remove_dir_all(&out).ok();
}
