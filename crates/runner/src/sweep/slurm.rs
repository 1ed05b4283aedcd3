//! Sweeps on a Slurm cluster: a job-array script whose task `S` runs `prunesim sweep FILE...
//! --shard S --shards N` ([`super::Mode::Shard`]), and the number of shards read back from it
//! for the collect (`docs/cluster.md`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::engine::Options;
use crate::error::RunError;

/// The marker line from which a collect reads the number of shards.
pub const SHARDS_MARKER: &str = "# prunesim-shards: ";

/// The job array's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slurm {
    /// Shards, one array task each.
    pub shards: usize,
    /// `#SBATCH --partition` (default: the cluster's).
    pub partition: Option<String>,
    /// `#SBATCH --time`, per task (default: the partition's).
    pub time: Option<String>,
}

/// Where the script of the sweeps named `name` goes: `OUT/<name>.sbatch`.
pub fn script_path(out: &Path, name: &str) -> PathBuf {
    out.join(format!("{name}.sbatch"))
}

/// The number of shards for a collect: `given`, else the one recorded in the script at
/// [`script_path`] (`None` when neither exists).
pub fn shards_of(out: &Path, name: &str, given: Option<usize>) -> Result<Option<usize>, RunError> {
    if let Some(n) = given {
        return Ok(Some(n));
    }
    let path = script_path(out, name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    for line in text.lines() {
        if let Some(n) = line.strip_prefix(SHARDS_MARKER) {
            let n = n.trim().parse().map_err(|_| RunError::Config {
                file: path.display().to_string(),
                line: None,
                message: format!("bad line '{line}'"),
            })?;
            return Ok(Some(n));
        }
    }
    Ok(None)
}

/// Quotes a word for a POSIX shell when it needs it (`shlex`); a word with a NUL byte, which
/// no shell word can hold, is an error.
pub fn quote(word: &str) -> Result<String, RunError> {
    shlex::try_quote(word)
        .map(std::borrow::Cow::into_owned)
        .map_err(|e| RunError::Input(format!("cannot quote {word:?} for the shell: {e}")))
}

/// The job-array script of the sweeps in `files`, named `name`, run from `cwd` by `binary`
/// (a `prunesim`): task `S` computes shard `S` of every sweep and saves its point files;
/// `collect` is the command that renders them once the array is done. `options` gives the
/// output folder, the threads per task (`--jobs`, at least 1) and what every task passes on
/// as given (`--trials`, `--pet`, `--workloads`, `--tick`, `--fresh`: the paths verbatim,
/// since they are part of each point's key).
pub fn script(
    name: &str,
    files: &[PathBuf],
    options: &Options,
    slurm: &Slurm,
    cwd: &Path,
    binary: &Path,
    collect: &str,
) -> Result<String, RunError> {
    let n = slurm.shards;
    if n == 0 {
        return Err(RunError::Input("--shards must be at least 1".into()));
    }
    let cpus = options.jobs.max(1);
    let out = cwd.join(&options.out);
    let logs = out.join("slurm-logs");
    let mut s = String::new();
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(s, "#SBATCH --job-name=prunesim-{name}");
    let _ = writeln!(s, "#SBATCH --array=0-{}", n - 1);
    if let Some(p) = &slurm.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    if let Some(t) = &slurm.time {
        let _ = writeln!(s, "#SBATCH --time={t}");
    }
    let _ = writeln!(s, "#SBATCH --ntasks=1");
    let _ = writeln!(s, "#SBATCH --cpus-per-task={cpus}");
    let _ = writeln!(s, "#SBATCH --chdir={}", cwd.display());
    let _ = writeln!(
        s,
        "#SBATCH --output={}",
        logs.join(format!("{name}-%A_%a.out")).display()
    );
    let _ = writeln!(s, "{SHARDS_MARKER}{n}");
    let _ = writeln!(
        s,
        "# Task S computes the points of each sweep whose index is S mod {n} and saves them in"
    );
    let _ = writeln!(
        s,
        "# {}/<id>.points; then `{collect}` renders them.",
        out.display()
    );
    let _ = writeln!(
        s,
        "# Point files are keyed by the program's version and git revision: keep the binary as it is until collected."
    );
    let _ = writeln!(s, "set -euo pipefail");
    let _ = writeln!(s, "cd {}", quote(&cwd.display().to_string())?);
    let mut words = vec![quote(&binary.display().to_string())?, "sweep".into()];
    for f in files {
        words.push(quote(&f.display().to_string())?);
    }
    words.push("--shard".into());
    words.push("\"$SLURM_ARRAY_TASK_ID\"".into());
    let mut rest = vec![
        "--shards".to_owned(),
        n.to_string(),
        "--out".into(),
        out.display().to_string(),
        "--jobs".into(),
        cpus.to_string(),
    ];
    rest.extend(pass_on(options));
    if options.fresh {
        rest.push("--fresh".into());
    }
    for w in rest {
        words.push(quote(&w)?);
    }
    let _ = writeln!(s, "exec {}", words.join(" "));
    Ok(s)
}

/// The options every task and the collect pass on as given: `--trials`, `--pet`,
/// `--workloads` (the paths verbatim: they are part of each point's key) and `--tick`.
pub fn pass_on(options: &Options) -> Vec<String> {
    let mut v = Vec::new();
    if let Some(t) = options.trials {
        v.extend(["--trials".into(), t.to_string()]);
    }
    if let Some(p) = &options.pet {
        v.extend(["--pet".into(), p.display().to_string()]);
    }
    if let Some(w) = &options.workloads {
        v.extend(["--workloads".into(), w.display().to_string()]);
    }
    if let Some(t) = options.tick {
        v.extend(["--tick".into(), t.to_string()]);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_one_shard_per_array_task() {
        let options = Options {
            out: "res".into(),
            jobs: 4,
            trials: Some(2),
            pet: Some("my pet.etc".into()),
            ..Options::default()
        };
        let slurm = Slurm {
            shards: 3,
            partition: Some("short".into()),
            time: Some("00:30:00".into()),
        };
        let s = script(
            "thesis-4.4",
            &["experiments/thesis-4.4.toml".into()],
            &options,
            &slurm,
            Path::new("/repo"),
            Path::new("/usr/local/bin/prunesim"),
            "prunesim sweep experiments/thesis-4.4.toml --collect",
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
            "exec /usr/local/bin/prunesim sweep experiments/thesis-4.4.toml --shard \"$SLURM_ARRAY_TASK_ID\" \
             --shards 3 --out /repo/res --jobs 4 --trials 2 --pet 'my pet.etc'",
        ] {
            assert!(s.lines().any(|l| l == line), "no line {line:?} in\n{s}");
        }
        assert!(
            script(
                "x",
                &[],
                &options,
                &Slurm::default(),
                Path::new("/"),
                Path::new("p"),
                ""
            )
            .is_err()
        );
    }

    #[test]
    fn the_tick_is_passed_on() {
        let options = Options {
            tick: Some(0.001),
            ..Options::default()
        };
        assert_eq!(pass_on(&options), ["--tick", "0.001"]);
    }

    #[test]
    fn the_shards_come_from_the_option_or_the_script() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(shards_of(dir.path(), "all", None).unwrap(), None);
        assert_eq!(shards_of(dir.path(), "all", Some(4)).unwrap(), Some(4));
        std::fs::write(
            script_path(dir.path(), "all"),
            "#!/bin/bash\n# prunesim-shards: 7\n",
        )
        .unwrap();
        assert_eq!(shards_of(dir.path(), "all", None).unwrap(), Some(7));
        std::fs::write(script_path(dir.path(), "all"), "# prunesim-shards: x\n").unwrap();
        assert!(shards_of(dir.path(), "all", None).is_err());
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
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
