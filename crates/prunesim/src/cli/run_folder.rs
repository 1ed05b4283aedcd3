//! A run folder (`run --out DIR`, `rerun --out DIR`): the folder holds one run, decided by its
//! whole configuration ([`RunManifest::config_sha256`]), and only the files a run wrote (its
//! manifest names them) are ever replaced or removed.
//!
//! Before anything is written, [`claim`]:
//! 1. locks the folder (a second process writing it at once is refused) and removes what a
//!    killed run left (its staging folder, its temporaries: this program's own names);
//! 2. refuses an output that would take the place of an input of the run (the experiment,
//!    the PET, a workload file, the belief's prior), compared after symlinks;
//! 3. reads the folder's `manifest.json`: one that is not a run manifest is refused; a run of
//!    another configuration is refused unless `force`, which (when the run ends) removes only
//!    the files that run's manifest names;
//! 4. refuses any file an output would take that no manifest names (a user's `trials.csv`),
//!    `force` or not, and any output path that is not a regular file or a symlink to one;
//! 5. makes a staging folder inside the folder (`.prunesim-<random>.run`), where the run
//!    writes every file.
//!
//! A run that does not finish leaves the folder as it was: only its staging folder, removed by
//! the next claim. [`Claim::finish`] puts the files in place: it first writes the manifest
//! with `complete = false` naming the files of the run before and of this one, moves the
//! staged files into the folder, removes what the run before wrote and this one did not (the
//! traces of more trials, an old report), and writes the manifest with `complete = true`
//! naming exactly the files this run wrote. A folder whose manifest says `complete = false`
//! (a run killed while its files were moved) is refused by `prunesim report` and `rerun`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use runner::RunManifest;
use runner::manifest::RUN_FILES;

use super::output::escape_controls;

/// The manifest's name in a run folder.
pub(crate) const MANIFEST: &str = "manifest.json";

/// An input of a run, for the check that no output takes its place.
#[derive(Debug, Clone)]
pub(crate) struct Input {
    /// What it is ("the experiment", "the PET", ...).
    pub what: String,
    /// Its path.
    pub path: PathBuf,
}

impl Input {
    /// An input `what` at `path`.
    pub(crate) fn new(what: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Input {
            what: what.into(),
            path: path.into(),
        }
    }
}

/// The inputs of the run `manifest` describes: its PET file, its workload files and its
/// belief's prior file; `experiment` is the experiment file it was read from, if any.
pub(crate) fn inputs(manifest: &RunManifest, experiment: Option<&Path>) -> Vec<Input> {
    let mut v = Vec::new();
    if let Some(p) = experiment {
        v.push(Input::new("the experiment", p));
    }
    if let Some(f) = &manifest.pet_file {
        v.push(Input::new("the PET", &f.path));
    }
    for f in manifest.workload_files.iter().flatten() {
        v.push(Input::new("a workload file", &f.path));
    }
    if let Some(p) = manifest
        .experiment
        .belief
        .as_ref()
        .and_then(|b| b.path.as_ref())
    {
        v.push(Input::new("the belief's prior", p));
    }
    v
}

/// The files a run of `trials` trials writes into its folder, relative to it: its
/// [`RUN_FILES`] (the report with `report`), and with `traced` each trial's task and event
/// traces under `trace/` (and its timeline figures with `timelines`).
pub(crate) fn planned_files(
    trials: u64,
    traced: bool,
    timelines: bool,
    report: bool,
) -> Vec<String> {
    let mut v: Vec<String> = RUN_FILES
        .iter()
        .filter(|f| report || **f != report::html::REPORT_FILE)
        .map(|f| (*f).to_owned())
        .collect();
    if traced {
        for k in 0..trials {
            v.push(format!("trace/tasks-{k}.csv"));
            v.push(format!("trace/events-{k}.csv"));
            if timelines {
                v.push(format!("trace/timeline-{k}.svg"));
                if figures::PNG {
                    v.push(format!("trace/timeline-{k}.png"));
                }
            }
        }
    }
    v
}

/// A folder claimed for a run: locked until dropped.
#[derive(Debug)]
pub(crate) struct Claim {
    dir: PathBuf,
    _lock: Option<std::fs::File>,
    /// Where the run writes its files until [`Claim::finish`] (removed when dropped).
    staging: tempfile::TempDir,
    /// Whether the run before is of another configuration, which `force` replaces.
    replacing: bool,
    /// The files of the run before that are still there (this run's configuration, or an
    /// interrupted run of it).
    previous: Vec<String>,
    /// The files this run writes.
    planned: Vec<String>,
}

/// Refuses an output of `planned` in `dir` that is one of `inputs`.
fn check_inputs(dir: &Path, inputs: &[Input], planned: &[String], has_run: bool) -> Result<()> {
    let paths: Vec<&Path> = inputs.iter().map(|i| i.path.as_path()).collect();
    let outputs: Vec<PathBuf> = planned.iter().map(|n| dir.join(n)).collect();
    let Some((out, i)) = runner::files::find_clash(&paths, &outputs) else {
        return Ok(());
    };
    let input = &inputs[i];
    let hint = if has_run && input.what == "the experiment" {
        format!(
            "; to run the folder's experiment again, `prunesim rerun {}`",
            dir.display()
        )
    } else {
        "; give another --out".to_owned()
    };
    bail!(
        "--out {}: the output {} would replace {} {} (the same file); nothing was written{hint}",
        dir.display(),
        out.display(),
        input.what,
        input.path.display()
    );
}

/// The run the folder holds: its manifest, or `None` without one. A `manifest.json` that is
/// not a run manifest is refused.
fn previous_run(dir: &Path) -> Result<Option<RunManifest>> {
    let path = dir.join(MANIFEST);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let m = RunManifest::load(&path).map_err(|e| {
        anyhow::anyhow!(
            "--out {}: {} is not the manifest of a prunesim run ({}); prunesim writes only into a folder whose files are its own: give another --out",
            dir.display(),
            path.display(),
            escape_controls(&e.to_string())
        )
    })?;
    Ok(Some(m))
}

/// The files of `run` (`dir`'s run) that are in `dir`: the names it lists, or for a manifest
/// of an earlier version the run files and trace files it wrote.
fn files_of(dir: &Path, run: &RunManifest) -> Result<Vec<String>> {
    let mut candidates: Vec<String> = match &run.files {
        Some(f) => f.clone(),
        None => {
            let mut v: Vec<String> = RUN_FILES.iter().map(|f| (*f).to_owned()).collect();
            let trace = report::trace_dir(dir);
            match std::fs::read_dir(&trace) {
                Ok(entries) => {
                    for e in entries {
                        let e = e.with_context(|| format!("listing {}", trace.display()))?;
                        if let Some(n) = e.file_name().to_str() {
                            v.push(format!("trace/{n}"));
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("listing {}", trace.display())),
            }
            v
        }
    };
    candidates.retain(|name| run.wrote(name) && is_plain_name(name) && is_file(&dir.join(name)));
    candidates.sort();
    candidates.dedup();
    Ok(candidates)
}

/// A name a manifest may list: a relative path of plain components (a damaged or edited
/// manifest cannot make a run remove anything outside its folder).
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && Path::new(name)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Whether a regular file (not a symlink, not anything else) is at `path`.
fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// Removes `dir`'s files `names` (regular files only; never the manifest, which is written
/// over) and `trace/` when that is left empty.
fn remove(dir: &Path, names: &[String]) -> Result<()> {
    for name in names.iter().filter(|n| *n != MANIFEST) {
        let path = dir.join(name);
        if !is_file(&path) {
            continue;
        }
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("removing {}", path.display()));
            }
            _ => {}
        }
    }
    // Kept when anything else is in it.
    let _ = std::fs::remove_dir(report::trace_dir(dir));
    Ok(())
}

/// What a run of `run` is, in a message: its experiment, seed and trials.
fn describe(run: &RunManifest) -> String {
    format!(
        "experiment {:?}, seed {}, {} trial{}",
        escape_controls(&run.experiment.name),
        run.seed,
        run.trials,
        if run.trials == 1 { "" } else { "s" }
    )
}

/// Claims `dir` for the run `manifest` describes, which writes `planned` ([`planned_files`])
/// and reads `inputs`; see the module docs. Nothing is written or removed when it is refused.
pub(crate) fn claim(
    dir: &Path,
    manifest: &RunManifest,
    inputs: &[Input],
    planned: Vec<String>,
    force: bool,
) -> Result<Claim> {
    if dir.exists() && !dir.is_dir() {
        bail!("--out {}: not a folder", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let lock = runner::files::lock_folder(dir)?;
    // Under the lock, every temporary and staging folder of ours here is a killed run's.
    let trace = report::trace_dir(dir);
    for stale in runner::files::clean_temporaries_locked(dir)
        .into_iter()
        .chain(runner::files::clean_temporaries_locked(&trace))
        .chain(clean_staging(dir))
    {
        tracing::info!(file = %stale.display(), "removed what a killed run left");
    }
    let has_run = std::fs::symlink_metadata(dir.join(MANIFEST)).is_ok();
    check_inputs(dir, inputs, &planned, has_run)?;
    let before = previous_run(dir)?;
    let mut previous = Vec::new();
    let mut replacing = false;
    if let Some(run) = before {
        let files = files_of(dir, &run)?;
        if run.config_sha256() == manifest.config_sha256() {
            previous = files;
        } else if !force {
            let state = if run.complete {
                ""
            } else {
                " that did not finish"
            };
            let mut differ = run.config_differences(manifest);
            if differ.len() > 6 {
                let more = differ.len() - 5;
                differ.truncate(5);
                differ.push(format!("{more} more"));
            }
            bail!(
                "--out {}: the folder holds a run{state} of another configuration ({}; this run: {}; they differ in {}), and a run folder holds one configuration's run: give another folder, or --force to replace that run (only the {} files its manifest names are removed)",
                dir.display(),
                describe(&run),
                describe(manifest),
                escape_controls(&differ.join(", ")),
                files.len()
            );
        } else {
            check_outputs(dir, &planned, |name| run.wrote(name))?;
            previous = files;
            replacing = true;
        }
    }
    if !replacing {
        check_outputs(dir, &planned, |name| previous.iter().any(|p| p == name))?;
    }
    let staging = tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .suffix(STAGING_SUFFIX)
        .tempdir_in(dir)
        .with_context(|| format!("creating a staging folder in {}", dir.display()))?;
    Ok(Claim {
        dir: dir.to_path_buf(),
        _lock: lock,
        staging,
        replacing,
        previous,
        planned,
    })
}

/// The staging folders' names: `.prunesim-<random>.run`.
const STAGING_PREFIX: &str = ".prunesim-";
const STAGING_SUFFIX: &str = ".run";

/// Removes the staging folders killed runs left in `dir` (called under its lock).
fn clean_staging(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let ours = e.file_name().to_str().is_some_and(|n| {
            n.len() > STAGING_PREFIX.len() + STAGING_SUFFIX.len()
                && n.starts_with(STAGING_PREFIX)
                && n.ends_with(STAGING_SUFFIX)
        });
        // A folder of that name, not a symlink to one.
        let folder = e.file_type().is_ok_and(|t| t.is_dir());
        if ours && folder && std::fs::remove_dir_all(e.path()).is_ok() {
            removed.push(e.path());
        }
    }
    removed
}

/// Refuses an output of `planned` that is there and not `ours` (a file no manifest names) or
/// that cannot be written (a folder, a device, a symlink to one).
fn check_outputs(dir: &Path, planned: &[String], ours: impl Fn(&str) -> bool) -> Result<()> {
    for name in planned {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        runner::files::output_target(&path)?;
        if !ours(name) {
            bail!(
                "--out {}: {} is not a file of a prunesim run (no manifest in the folder names it), and prunesim never writes over a file it did not write: move it, or give another --out",
                dir.display(),
                path.display()
            );
        }
    }
    Ok(())
}

fn write_manifest(dir: &Path, manifest: &RunManifest) -> Result<()> {
    let text = serde_json::to_string_pretty(manifest)?;
    runner::files::write_atomic(&dir.join(MANIFEST), text.as_bytes())?;
    Ok(())
}

impl Claim {
    /// Where the run writes its files (the folder's layout: `trials.csv`, `trace/`, ...).
    pub(crate) fn staging(&self) -> &Path {
        self.staging.path()
    }

    /// Ends the run: puts the staged files in place, removes what the run before wrote and
    /// this one did not, and writes `manifest` as finished, naming the files this run wrote.
    pub(crate) fn finish(self, manifest: &RunManifest) -> Result<()> {
        let staged: Vec<String> = self
            .planned
            .iter()
            .filter(|n| std::fs::symlink_metadata(self.staging().join(n)).is_ok())
            .cloned()
            .collect();
        let mut written = staged.clone();
        written.push(MANIFEST.to_owned());
        written.sort();
        // While the files move, the manifest names both runs' files and says the run has
        // not finished.
        let mut marker = manifest.clone();
        marker.complete = false;
        let mut files = self.previous.clone();
        files.extend(written.iter().cloned());
        files.sort();
        files.dedup();
        marker.files = Some(files);
        write_manifest(&self.dir, &marker)?;
        if self.replacing {
            // --force: the run of another configuration goes first, wholly.
            remove(&self.dir, &self.previous)?;
        }
        for name in &staged {
            put_in_place(&self.staging().join(name), &self.dir.join(name))?;
        }
        let stale: Vec<String> = self
            .previous
            .iter()
            .filter(|p| !written.contains(p))
            .cloned()
            .collect();
        remove(&self.dir, &stale)?;
        let mut done = manifest.clone();
        done.complete = true;
        done.files = Some(written);
        write_manifest(&self.dir, &done)
    }
}

/// Moves the staged file `from` to `to`: renamed over it (the file a symlink resolves to, the
/// link kept), with the mode of the file it replaces; copied when a rename cannot (the link's
/// file on another file system).
fn put_in_place(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let (target, keep) = runner::files::output_target(to)?;
    if let Some(keep) = keep {
        #[cfg(unix)]
        let keep = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::Permissions::from_mode(keep.mode() & 0o777)
        };
        std::fs::set_permissions(from, keep)
            .with_context(|| format!("setting the mode of {}", to.display()))?;
    }
    if std::fs::rename(from, &target).is_ok() {
        return Ok(());
    }
    let mut source =
        std::fs::File::open(from).with_context(|| format!("reading {}", from.display()))?;
    runner::files::write_atomic_with(to, |w| std::io::copy(&mut source, w).map(drop))?;
    Ok(())
}

/// Refuses to read the run in `dir` when its manifest says it did not finish; `what` is the
/// command ("report", "rerun").
pub(crate) fn check_complete(dir: &Path, what: &str) -> Result<()> {
    let path = dir.join(MANIFEST);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(());
    }
    let m = RunManifest::load(&path).with_context(|| format!("{what} {}", dir.display()))?;
    if !m.complete {
        bail!(
            "{what} {}: its run did not finish (interrupted, or it failed: {} says complete = false), so its files are not one run's; run it again into the folder (the same configuration finishes it) or give --force to replace it",
            dir.display(),
            path.display()
        );
    }
    Ok(())
}

/// Adds `names` to the files the run in `dir` wrote (`prunesim report` writing its page into
/// the folder), after refusing any of them that is there and not the run's. Returns the lock
/// and the manifest, `None` when `dir` holds no run manifest.
pub(crate) fn adopt(dir: &Path, names: &[String]) -> Result<Option<std::fs::File>> {
    let lock = runner::files::lock_folder(dir)?;
    let Some(mut run) = previous_run(dir)? else {
        return Ok(lock);
    };
    check_outputs(dir, names, |n| run.wrote(n))?;
    let mut files = files_of(dir, &run)?;
    files.extend(names.iter().cloned());
    files.sort();
    files.dedup();
    run.files = Some(files);
    write_manifest(dir, &run)?;
    Ok(lock)
}
