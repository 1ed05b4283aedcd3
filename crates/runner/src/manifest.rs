//! The manifest of a run (`prunesim run --out DIR` writes `DIR/manifest.json`): everything
//! needed to run it again and get the same summary byte for byte (the fully resolved
//! experiment, the trial count and seed, the input files with their content hashes) and
//! where it comes from (program version, git revision embedded at build time). `prunesim
//! rerun DIR` reads it back, checks the inputs against their hashes and runs it again.

use std::path::{Path, PathBuf};

use pruner::PrunerTable;
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::experiment::{ExperimentConfig, Prepared, TrialSource};
use crate::provenance::{GIT_REVISION, VERSION, file_sha256, pet_sha256};

/// An input file and the SHA-256 of its content when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRef {
    /// The file (absolute when the run could make it so).
    pub path: PathBuf,
    /// SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
}

impl FileRef {
    /// Hashes a file now.
    pub fn of(path: &Path) -> Result<Self, RunError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let sha256 = file_sha256(&path).map_err(|e| RunError::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        Ok(FileRef { path, sha256 })
    }

    /// Checks that the file still has the content it had.
    pub fn verify(&self) -> Result<(), RunError> {
        let now = file_sha256(&self.path).map_err(|e| RunError::Io {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        if now != self.sha256 {
            return Err(RunError::Input(format!(
                "{} changed since the run: its SHA-256 is {now}, the manifest says {}",
                self.path.display(),
                self.sha256
            )));
        }
        Ok(())
    }
}

/// Everything a run was, as written to `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunManifest {
    /// The program that ran (`prunesim`).
    pub program: String,
    /// Its version.
    pub version: String,
    /// The git revision it was built from ([`GIT_REVISION`]).
    pub git_revision: String,
    /// The experiment as it ran: every option of the command line applied, the PET source's
    /// paths absolute, `workload.pet_seed`, `system.queue_size` and every `[pruner]` key
    /// explicit (the heuristic keeps the name it was given, e.g. `MM-P`).
    pub experiment: ExperimentConfig,
    /// Trials run.
    pub trials: u64,
    /// Master seed.
    pub seed: u64,
    /// Whether the clairvoyant bracket (`optimum_lower`, `optimum_upper`) was computed.
    pub with_bound: bool,
    /// The PET's file and its hash, when it came from a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pet_file: Option<FileRef>,
    /// The content hash of the PET that ran ([`crate::provenance::pet_sha256`]).
    pub pet_sha256: String,
    /// The machines, by name (`m3#2` is the third copy of `m3`).
    pub machines: Vec<String>,
    /// The arrival-trial files, in trial order, when the trials came from files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_files: Option<Vec<FileRef>>,
    /// Whether the run finished: `false` from the moment it starts writing its folder until
    /// every output is in place, so a folder whose run was interrupted says so (`prunesim
    /// report` and `rerun` refuse it). Absent in manifests of earlier versions: finished.
    #[serde(default = "finished")]
    pub complete: bool,
    /// The files the run wrote into its folder, relative to it (`/`-separated): the only
    /// files a later run into the folder replaces or removes. `None` in manifests of earlier
    /// versions ([`RunManifest::wrote`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
}

fn finished() -> bool {
    true
}

/// Appends to `out` the dotted paths under `at` where `a` and `b` differ (a whole array as one
/// value).
fn diff(at: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                let (u, v) = (x.get(k), y.get(k));
                match (u, v) {
                    (Some(u), Some(v)) => diff(&path, u, v, out),
                    _ => out.push(path),
                }
            }
        }
        _ if a != b => out.push(at.to_owned()),
        _ => {}
    }
}

/// The files a run folder holds besides its traces.
pub const RUN_FILES: [&str; 5] = [
    "trials.csv",
    "summary.json",
    "manifest.json",
    "experiment.toml",
    "report.html",
];

/// The trial of a trace file a run writes into `trace/` (`tasks-<k>.csv`, `events-<k>.csv`,
/// `timeline-<k>.svg`, `timeline-<k>.png`); `None` for any other name.
pub fn trace_file_trial(name: &str) -> Option<u64> {
    let (stem, ext) = name.rsplit_once('.')?;
    let k = match ext {
        "csv" => stem
            .strip_prefix("tasks-")
            .or_else(|| stem.strip_prefix("events-"))?,
        "svg" | "png" => stem.strip_prefix("timeline-")?,
        _ => return None,
    };
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse().ok()
}

impl RunManifest {
    /// The manifest of a prepared run; `workload_files` are the files its trials were read
    /// from (in trial order), if they were.
    pub fn new(prepared: &Prepared, workload_files: Option<&[PathBuf]>) -> Result<Self, RunError> {
        let mut experiment = prepared.config.clone();
        let immediate = heuristics::is_immediate(&prepared.heuristic.name).unwrap_or(false);
        experiment.system.queue_size = Some(experiment.system.queue_size_for(immediate));
        experiment.workload.pet_seed = Some(experiment.workload.pet_seed());
        experiment.workload.trials = prepared.trials;
        experiment.pruner = Some(PrunerTable::explicit(&prepared.pruner));
        let pet_file = match &mut experiment.workload.pet {
            workload::PetSource::Etc(p) | workload::PetSource::Samples { path: p, .. } => {
                let r = FileRef::of(p)?;
                p.clone_from(&r.path);
                Some(r)
            }
            _ => None,
        };
        let workload_files = workload_files
            .map(|files| files.iter().map(|p| FileRef::of(p)).collect())
            .transpose()?;
        Ok(RunManifest {
            program: "prunesim".into(),
            version: VERSION.into(),
            git_revision: GIT_REVISION.into(),
            experiment,
            trials: prepared.trials,
            seed: prepared.seed,
            with_bound: prepared.with_bound,
            pet_file,
            pet_sha256: pet_sha256(&prepared.pet),
            machines: prepared.pet.machine_names().to_vec(),
            workload_files,
            complete: true,
            files: None,
        })
    }

    /// Where the configurations of two runs differ ([`RunManifest::config_sha256`]): the
    /// dotted paths of the values that differ, what a user writes first (`name`, `seed`,
    /// `workload`, `mapper`, `system`), what follows from it last (the pruner a heuristic's
    /// name resolves to, the PET's content).
    pub fn config_differences(&self, other: &RunManifest) -> Vec<String> {
        let mut out = Vec::new();
        diff("", &self.config_key(), &other.config_key(), &mut out);
        let rank = |path: &String| match path.split('.').next().unwrap_or_default() {
            "name" | "seed" | "workload" => 0,
            "mapper" | "system" | "with_bound" | "workload_files" => 1,
            "pruner" | "pet" => 3,
            _ => 2,
        };
        out.sort_by_key(rank);
        out
    }

    /// The configuration [`RunManifest::config_sha256`] hashes.
    fn config_key(&self) -> serde_json::Value {
        let mut experiment = self.experiment.clone();
        experiment.trace = false;
        experiment.workload.trials = 0;
        let mut key = serde_json::to_value(&experiment).unwrap_or_default();
        if let Some(o) = key.as_object_mut() {
            o.insert("seed".into(), self.seed.into());
            o.insert("with_bound".into(), self.with_bound.into());
            o.insert("pet".into(), self.pet_sha256.clone().into());
            let workload: Vec<&str> = self
                .workload_files
                .iter()
                .flatten()
                .map(|f| f.sha256.as_str())
                .collect();
            o.insert("workload_files".into(), workload.into());
        }
        key
    }

    /// The content hash of the run's whole configuration: the experiment as it ran, the seed,
    /// the bracket, the PET's content and the workload files' contents; a run folder holds the
    /// run of one hash. Left out: whether it was traced, and how many trials ran, which change
    /// no trial's result (trial `k` has its own random streams: a run of 2 trials is the first
    /// 2 trials of a run of 30).
    pub fn config_sha256(&self) -> String {
        crate::provenance::sha256_hex(self.config_key().to_string().as_bytes())
    }

    /// Whether the run wrote `name` (relative to its folder, `/`-separated) into its folder:
    /// named in [`RunManifest::files`]; for a manifest of an earlier version, which does not
    /// list them, one of the files such a run wrote ([`RUN_FILES`], and trace files of its
    /// trials under `trace/`).
    pub fn wrote(&self, name: &str) -> bool {
        if let Some(files) = &self.files {
            return files.iter().any(|f| f == name);
        }
        RUN_FILES.contains(&name)
            || name
                .strip_prefix("trace/")
                .and_then(trace_file_trial)
                .is_some_and(|k| k < self.trials)
    }

    /// Reads `manifest.json` (or the manifest inside a folder).
    pub fn load(path: &Path) -> Result<Self, RunError> {
        let path = if path.is_dir() {
            path.join("manifest.json")
        } else {
            path.to_path_buf()
        };
        let text = workload::io::read_text(&path)?;
        let m: RunManifest = serde_json::from_str(&text).map_err(|e| RunError::Config {
            file: path.display().to_string(),
            line: Some(e.line()),
            message: e.to_string(),
        })?;
        m.experiment
            .validate()
            .map_err(|message| RunError::Config {
                file: path.display().to_string(),
                line: None,
                message,
            })?;
        Ok(m)
    }

    /// The files this manifest's inputs must still match.
    pub fn verify_inputs(&self) -> Result<(), RunError> {
        if let Some(f) = &self.pet_file {
            f.verify()?;
        }
        for f in self.workload_files.iter().flatten() {
            f.verify()?;
        }
        Ok(())
    }

    /// Differences from the running program that may change results: another version or
    /// revision. Empty when it is the same build.
    pub fn build_differences(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.version != VERSION {
            v.push(format!(
                "version {} (this program: {VERSION})",
                self.version
            ));
        }
        if self.git_revision != GIT_REVISION {
            v.push(format!(
                "git revision {} (this program: {GIT_REVISION})",
                self.git_revision
            ));
        }
        v
    }

    /// Prepares the run again: the experiment, the PET checked against its hash, and the
    /// trials (`read_trials` reads the workload files with the PET, as the original run did).
    pub fn prepare(
        &self,
        read_trials: impl FnOnce(&[PathBuf], &workload::Pet) -> Result<Vec<workload::Trial>, RunError>,
    ) -> Result<Prepared, RunError> {
        self.verify_inputs()?;
        let pet = self.experiment.workload.pet().map_err(RunError::Workload)?;
        let hash = pet_sha256(&pet);
        if hash != self.pet_sha256 {
            return Err(RunError::Input(format!(
                "the PET built from the manifest has SHA-256 {hash}, the run's had {}",
                self.pet_sha256
            )));
        }
        let source = match &self.workload_files {
            Some(files) => {
                let paths: Vec<PathBuf> = files.iter().map(|f| f.path.clone()).collect();
                TrialSource::Given(read_trials(&paths, &pet)?)
            }
            None => TrialSource::Generated,
        };
        let mut p = Prepared::new(
            self.experiment.clone(),
            Some(pet),
            source,
            Some(self.trials),
            Some(self.seed),
        )?;
        p.with_bound = self.with_bound;
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_trace_files_a_run_writes_are_recognised() {
        for (name, k) in [
            ("tasks-0.csv", Some(0)),
            ("events-12.csv", Some(12)),
            ("timeline-3.svg", Some(3)),
            ("timeline-3.png", Some(3)),
            ("tasks-.csv", None),
            ("tasks-1.txt", None),
            ("timeline-1.csv", None),
            ("tasks-+1.csv", None),
            ("notes.csv", None),
            ("mine-1.csv", None),
        ] {
            assert_eq!(trace_file_trial(name), k, "{name}");
        }
    }

    #[test]
    fn differences_are_the_paths_of_the_values_that_differ() {
        let a = serde_json::json!({"seed": 1, "workload": {"rate": 1, "tasks": 2}, "x": [1, 2]});
        let b =
            serde_json::json!({"seed": 1, "workload": {"rate": 3, "tasks": 2, "new": 0}, "x": [1]});
        let mut out = Vec::new();
        diff("", &a, &b, &mut out);
        assert_eq!(out, ["workload.new", "workload.rate", "x"]);
        out.clear();
        diff("", &a, &a, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_manifest_of_an_earlier_version_names_the_files_such_a_run_wrote() {
        // The fields a manifest had before it listed its files.
        let text = serde_json::json!({
            "program": "prunesim", "version": "0", "git_revision": "x",
            "experiment": ExperimentConfig::paper_default(),
            "trials": 2, "seed": 1, "with_bound": false, "pet_sha256": "p", "machines": [],
        });
        let m: RunManifest = serde_json::from_value(text).unwrap();
        assert!(m.complete && m.files.is_none());
        for name in [
            "trials.csv",
            "report.html",
            "trace/tasks-1.csv",
            "trace/timeline-0.png",
        ] {
            assert!(m.wrote(name), "{name}");
        }
        for name in [
            "notes.txt",
            "trace/tasks-2.csv",
            "trace/mine.csv",
            "tasks-0.csv",
        ] {
            assert!(!m.wrote(name), "{name}");
        }
        let listed = RunManifest {
            files: Some(vec!["trials.csv".into()]),
            ..m
        };
        assert!(listed.wrote("trials.csv") && !listed.wrote("summary.json"));
    }
}
