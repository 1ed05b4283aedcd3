//! `reproduce-figure <id> --slurm`: a Slurm job-array script whose task S computes shard S of
//! the sweep (`--shard S --shards N`); `--collect` then renders the figure from the point files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::reproduce::Args;

/// The marker line from which `--collect` reads the number of shards.
const SHARDS_MARKER: &str = "# prunesim-shards: ";

/// Where `--slurm` writes the script: `OUT/<id>.sbatch`.
pub fn script_path(args: &Args) -> PathBuf {
    args.out.join(format!("{}.sbatch", args.id))
}

/// The number of shards for `--collect`: `--shards`, or the one recorded in the script.
pub fn shards_of(args: &Args) -> Result<Option<usize>> {
    if let Some(n) = args.shards {
        return Ok(Some(n));
    }
    let path = script_path(args);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    for line in text.lines() {
        if let Some(n) = line.strip_prefix(SHARDS_MARKER) {
            let n = n
                .trim()
                .parse()
                .with_context(|| format!("{}: bad line '{line}'", path.display()))?;
            return Ok(Some(n));
        }
    }
    Ok(None)
}

/// Quotes a word for a POSIX shell when it needs it (`shlex`); a word with a NUL byte, which
/// no shell word can hold, is an error.
fn quote(word: &str) -> Result<String> {
    shlex::try_quote(word)
        .map(std::borrow::Cow::into_owned)
        .map_err(|e| anyhow::anyhow!("cannot quote {word:?} for the shell: {e}"))
}

/// The release binary the tasks run: this one if it is a release build, else
/// `$CARGO_TARGET_DIR/release/xtask` (default: the workspace's `target/`).
fn default_binary() -> PathBuf {
    if !cfg!(debug_assertions) {
        if let Ok(exe) = std::env::current_exe() {
            return exe;
        }
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("release").join("xtask")
}

/// The job-array script of `args` (without writing it).
pub fn script(args: &Args, cwd: &Path, binary: &Path) -> Result<String> {
    let n = args.shards.unwrap_or(1);
    if n == 0 {
        bail!("--shards must be at least 1");
    }
    let cpus = args.jobs.max(1);
    let out = cwd.join(&args.out);
    let logs = out.join("slurm-logs");
    let mut s = String::new();
    writeln!(s, "#!/bin/bash")?;
    writeln!(s, "#SBATCH --job-name=prunesim-{}", args.id)?;
    writeln!(s, "#SBATCH --array=0-{}", n - 1)?;
    if let Some(p) = &args.partition {
        writeln!(s, "#SBATCH --partition={p}")?;
    }
    if let Some(t) = &args.time {
        writeln!(s, "#SBATCH --time={t}")?;
    }
    writeln!(s, "#SBATCH --ntasks=1")?;
    writeln!(s, "#SBATCH --cpus-per-task={cpus}")?;
    writeln!(s, "#SBATCH --chdir={}", cwd.display())?;
    writeln!(
        s,
        "#SBATCH --output={}",
        logs.join(format!("{}-%A_%a.out", args.id)).display()
    )?;
    writeln!(s, "{SHARDS_MARKER}{n}")?;
    writeln!(
        s,
        "# Task S computes the points of '{}' whose index is S mod {n} and saves them in",
        args.id
    )?;
    writeln!(
        s,
        "# {}; then `reproduce-figure {} --collect` renders the figure.",
        out.join(format!("{}.points", args.id)).display(),
        args.id
    )?;
    writeln!(
        s,
        "# Point files are keyed by the git revision: keep the checkout as it is until collected."
    )?;
    writeln!(s, "set -euo pipefail")?;
    writeln!(s, "cd {}", quote(&cwd.display().to_string())?)?;
    let mut cmd = vec![
        binary.display().to_string(),
        "reproduce-figure".into(),
        args.id.clone(),
        "--shard".into(),
        "\"$SLURM_ARRAY_TASK_ID\"".into(),
        "--shards".into(),
        n.to_string(),
        "--out".into(),
        out.display().to_string(),
        "--jobs".into(),
        cpus.to_string(),
        "--experiments".into(),
        args.experiments.display().to_string(),
    ];
    if let Some(t) = args.trials {
        cmd.extend(["--trials".into(), t.to_string()]);
    }
    // The PET and workload paths go verbatim: they are part of each point file's key.
    if let Some(p) = &args.pet {
        cmd.extend(["--pet".into(), p.display().to_string()]);
    }
    if let Some(w) = &args.workloads {
        cmd.extend(["--workloads".into(), w.display().to_string()]);
    }
    if args.fresh {
        cmd.push("--fresh".into());
    }
    let cmd: Vec<String> = cmd
        .iter()
        .map(|w| {
            if w.starts_with('"') {
                Ok(w.clone())
            } else {
                quote(w)
            }
        })
        .collect::<Result<_>>()?;
    writeln!(s, "exec {}", cmd.join(" "))?;
    Ok(s)
}

/// Writes the job-array script, and submits it with `--submit`.
pub fn write(args: &Args) -> Result<()> {
    let cwd = std::env::current_dir()?;
    let binary = match &args.binary {
        Some(b) => cwd.join(b),
        None => default_binary(),
    };
    let text = script(args, &cwd, &binary)?;
    let path = script_path(args);
    std::fs::create_dir_all(args.out.join("slurm-logs"))
        .with_context(|| format!("creating {}", args.out.join("slurm-logs").display()))?;
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    if !binary.exists() {
        let msg = format!(
            "{} does not exist: build it first with `cargo build --release -p xtask`",
            binary.display()
        );
        if args.submit {
            bail!(msg);
        }
        eprintln!("warning: {msg}");
    }
    let mut collect = format!(
        "cargo xtask reproduce-figure {} --collect --out {}",
        args.id,
        quote(&args.out.display().to_string())?
    );
    for (flag, v) in [
        ("--trials", args.trials.map(|t| t.to_string())),
        ("--pet", args.pet.as_ref().map(|p| p.display().to_string())),
        (
            "--workloads",
            args.workloads.as_ref().map(|p| p.display().to_string()),
        ),
    ] {
        if let Some(v) = v {
            let _ = write!(collect, " {flag} {}", quote(&v)?);
        }
    }
    if args.submit {
        let o = Command::new("sbatch")
            .arg("--parsable")
            .arg(&path)
            .output()
            .context("running sbatch (is Slurm installed?)")?;
        if !o.status.success() {
            bail!(
                "sbatch {} failed: {}",
                path.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
        }
        let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
        println!("submitted job array {id}");
    } else {
        println!("submit it with: sbatch {}", path.display());
    }
    println!("when it is done: {collect}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn the_script_runs_one_shard_per_array_task() {
        let cli = Cli::parse_from([
            "x",
            "thesis-4.4",
            "--slurm",
            "--shards",
            "3",
            "--partition",
            "short",
            "--time",
            "00:30:00",
            "--jobs",
            "4",
            "--trials",
            "2",
            "--out",
            "res",
            "--pet",
            "my pet.etc",
        ]);
        let s = script(
            &cli.args,
            Path::new("/repo"),
            Path::new("/repo/target/release/xtask"),
        )
        .unwrap();
        for line in [
            "#SBATCH --array=0-2",
            "#SBATCH --partition=short",
            "#SBATCH --time=00:30:00",
            "#SBATCH --cpus-per-task=4",
            "#SBATCH --output=/repo/res/slurm-logs/thesis-4.4-%A_%a.out",
            "# prunesim-shards: 3",
            "cd /repo",
            "exec /repo/target/release/xtask reproduce-figure thesis-4.4 --shard \"$SLURM_ARRAY_TASK_ID\" \
             --shards 3 --out /repo/res --jobs 4 --experiments experiments --trials 2 --pet 'my pet.etc'",
        ] {
            assert!(s.lines().any(|l| l == line), "no line {line:?} in\n{s}");
        }
        for word in ["it's", "my pet.etc", "a\"b", "$HOME", "plain", "x y 'z'"] {
            let quoted = quote(word).unwrap();
            assert_eq!(
                shlex::split(&quoted),
                Some(vec![word.to_owned()]),
                "{quoted}"
            );
        }
        assert_eq!(quote("plain").unwrap(), "plain");
        assert!(quote("nul\0").is_err());
    }
}
