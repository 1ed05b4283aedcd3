//! A property of the command line as a whole: whatever sequence of `run`, `sweep`, `report`
//! and `rerun` a user sends into one folder (the folder that also holds the inputs), with
//! files of their own placed there between the commands under the names the outputs take,
//! and runs interrupted at random moments, no file the program did not write is ever changed
//! or removed. Each file placed (and each input) is hashed when it is placed and checked after
//! every command.
//!
//! `PROPTEST_CASES` sets the number of sequences (default 32, about 10 s).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use proptest::prelude::*;

/// Names a user's file may take: the outputs of a run and of a sweep, trace files, files
/// named like numbered temporaries, and names no output takes.
const PLACED: &[&str] = &[
    "trials.csv",
    "summary.json",
    "manifest.json",
    "experiment.toml",
    "report.html",
    "trace/tasks-0.csv",
    "trace/events-1.csv",
    "trace/timeline-0.svg",
    "trace/mine.csv",
    "notes.txt",
    "backup.tmp2024",
    "data.tmp1",
    "t5.csv",
    "t5.svg",
    "t5.manifest.json",
    "timings.csv",
    "t5.points/0000-0123456789abcdef0123456789abcdef.tmp12",
];

/// What a user does next.
#[derive(Debug, Clone)]
enum Step {
    /// Places a file of their own at `PLACED[name]` (when nothing is there).
    Place { name: usize, content: u32 },
    /// `prunesim run` of experiment `a.toml` or `b.toml` (the same name, another
    /// configuration) into the folder.
    Run {
        b: bool,
        seed: bool,
        trace: bool,
        report: bool,
        force: bool,
    },
    /// `prunesim sweep s.toml --out .`.
    Sweep,
    /// `prunesim report .`.
    Report,
    /// `prunesim rerun .`, into the folder or not.
    Rerun { into: bool },
    /// A long traced run into the folder (`--force`), killed after `after_ms`.
    Interrupted { after_ms: u64, kill: bool },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..PLACED.len(), any::<u32>()).prop_map(|(name, content)| Step::Place { name, content }),
        4 => (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())
            .prop_map(|(b, seed, trace, report, force)| Step::Run { b, seed, trace, report, force }),
        1 => Just(Step::Sweep),
        1 => Just(Step::Report),
        1 => any::<bool>().prop_map(|into| Step::Rerun { into }),
        1 => (0u64..400, any::<bool>()).prop_map(|(after_ms, kill)| Step::Interrupted { after_ms, kill }),
    ]
}

fn prunesim(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_prunesim"));
    c.current_dir(dir)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Runs a command to its end: it may be refused (exit 1), never killed by a signal or hung.
fn finish(mut c: Command) {
    let mut child = c.spawn().unwrap();
    for _ in 0..6000 {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.code().is_some(), "{c:?} ended by a signal: {status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    panic!("{c:?} did not end within 60 s");
}

fn experiment(name: &str, rate: u32, tasks: u32) -> String {
    format!(
        "# a user's experiment\nname = \"{name}\"\n[workload]\nrate = {rate}\nhorizon = 100000000\nseed = 1\ntasks = {tasks}\ntrials = 2\n\n[system]\nskip_first = 0\nskip_last = 0\n\n[mapper]\nname = \"PAM\"\n"
    )
}

/// Applies `step` in `dir`; `placed` gets the files placed with their bytes.
fn apply(dir: &Path, step: &Step, placed: &mut BTreeMap<PathBuf, Vec<u8>>) {
    match *step {
        Step::Place { name, content } => {
            let rel = PathBuf::from(PLACED[name]);
            let path = dir.join(&rel);
            if std::fs::symlink_metadata(&path).is_ok() {
                return;
            }
            if let Some(parent) = path.parent() {
                if std::fs::create_dir_all(parent).is_err() {
                    return;
                }
            }
            let bytes = format!("a file of the user's: {content}\n").into_bytes();
            std::fs::write(&path, &bytes).unwrap();
            // Older than any temporary of a killed run.
            let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
            placed.insert(rel, bytes);
        }
        Step::Run {
            b,
            seed,
            trace,
            report,
            force,
        } => {
            let mut c = prunesim(dir);
            c.args(["run", if b { "b.toml" } else { "a.toml" }, "--no-bound"])
                .args(["--jobs", "1", "--out", "."]);
            if seed {
                c.args(["--seed", "42"]);
            }
            for (on, flag) in [(trace, "--trace"), (report, "--report"), (force, "--force")] {
                if on {
                    c.arg(flag);
                }
            }
            finish(c);
        }
        Step::Sweep => {
            let mut c = prunesim(dir);
            c.args(["sweep", "s.toml", "--out", ".", "--jobs", "1"]);
            finish(c);
        }
        Step::Report => {
            let mut c = prunesim(dir);
            c.args(["report", "."]);
            finish(c);
        }
        Step::Rerun { into } => {
            let mut c = prunesim(dir);
            c.args(["rerun", "."]);
            if into {
                c.args(["--out", "."]);
            }
            finish(c);
        }
        Step::Interrupted { after_ms, kill } => {
            let mut c = prunesim(dir);
            c.args(["run", "long.toml", "--trace", "--no-bound", "--jobs", "1"])
                .args(["--out", ".", "--force"]);
            let mut child = c.spawn().unwrap();
            std::thread::sleep(Duration::from_millis(after_ms));
            let signal = if kill { "-KILL" } else { "-INT" };
            let _ = Command::new("kill")
                .args([signal, &child.id().to_string()])
                .status();
            child.wait().unwrap();
        }
    }
}

/// The files of `placed` that changed or went, with what happened.
fn touched(dir: &Path, placed: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<String> {
    placed
        .iter()
        .filter_map(|(rel, bytes)| match std::fs::read(dir.join(rel)) {
            Ok(now) if now == *bytes => None,
            Ok(_) => Some(format!("{} changed", rel.display())),
            Err(e) => Some(format!("{} is gone ({e})", rel.display())),
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(32),
        max_shrink_iters: 16,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_sequence_of_commands_touches_a_file_it_did_not_write(
        steps in proptest::collection::vec(step(), 3..9)
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let mut placed = BTreeMap::new();
        for (name, text) in [
            ("a.toml", experiment("same", 19000, 20)),
            ("b.toml", experiment("same", 34000, 20)),
            ("long.toml", experiment("long", 34000, 1_000_000)),
            (
                "s.toml",
                "kind = \"cutting\"\nid = \"t5\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 1\nseed = 1\n".to_owned(),
            ),
        ] {
            std::fs::write(d.join(name), &text).unwrap();
            placed.insert(PathBuf::from(name), text.into_bytes());
        }
        for (i, s) in steps.iter().enumerate() {
            apply(d, s, &mut placed);
            let touched = touched(d, &placed);
            prop_assert!(touched.is_empty(), "after step {i} {s:?} of {steps:?}: {touched:?}");
        }
    }
}
