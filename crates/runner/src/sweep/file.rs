//! Sweep files: one TOML format per kind of sweep, told apart by the top-level `kind` key.
//!
//! | `kind` | what a point is | what a trial computes | file |
//! |---|---|---|---|
//! | `"experiment"` (or absent) | a simulator experiment: the base tables with an x value and a series applied | a trial's measures | [`FigureSpec`] |
//! | `"cutting"` | a distribution of Gao, Robert, Vivien's table 2 | the tasks each cutting strategy completes on one instance | [`CuttingSpec`] |
//! | `"moldable"` | a scenario of Hansen et al.'s fig. 4 or 5 | each heuristic's robustness and the upper bound on one random scenario | [`MoldableSpec`] |
//!
//! ```toml
//! kind = "cutting"
//! id = "gao-table4"
//! title = "Cutting strategies against ORACLE, b = 1000, d = 100"
//! source = "Gao, Robert, Vivien, table 4"
//! table = "table4"        # or "table5"
//! trials = 1000           # instances per distribution
//! seed = 2020
//! ```
//! ```toml
//! kind = "moldable"
//! id = "hansen-5"
//! title = "Normalised gap to the upper bound vs processor types"
//! source = "Hansen et al., fig. 5"
//! figure = 5              # 4 or 5
//! trials = 48
//! seed = 2
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::FigureSpec;
use crate::error::RunError;

/// The kind of a sweep file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepKind {
    /// Simulator experiments ([`FigureSpec`]).
    #[default]
    Experiment,
    /// Gao, Robert, Vivien's cutting thresholds ([`CuttingSpec`]).
    Cutting,
    /// Hansen et al.'s moldable applications ([`MoldableSpec`]).
    Moldable,
}

/// A table of Gao, Robert, Vivien (Inria RR-9373, section 7.2.4): the ratio to ORACLE of the
/// tasks each cutting strategy completes, per distribution of their table 2
/// ([`cutting::TableRun`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CuttingSpec {
    /// `"cutting"`.
    pub kind: SweepKind,
    /// Identifier, the outputs' stem: a plain file name ([`crate::files::check_name`]).
    #[serde(deserialize_with = "crate::files::deserialize_name")]
    pub id: String,
    /// Title.
    pub title: String,
    /// Where the table comes from.
    #[serde(default)]
    pub source: String,
    /// Which table.
    pub table: cutting::GaoTable,
    /// Instances per distribution.
    pub trials: u64,
    /// Master seed.
    pub seed: u64,
    /// Notes, copied into the manifest.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A figure of Hansen et al. (robust allocation of moldable applications, section V): fig. 4,
/// the robustness of each heuristic over random scenarios, or fig. 5, RF Duplex's normalised
/// gap to the upper bound per number of processor types ([`moldable::experiments`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoldableSpec {
    /// `"moldable"`.
    pub kind: SweepKind,
    /// Identifier, the outputs' stem: a plain file name ([`crate::files::check_name`]).
    #[serde(deserialize_with = "crate::files::deserialize_name")]
    pub id: String,
    /// Title.
    pub title: String,
    /// Where the figure comes from.
    #[serde(default)]
    pub source: String,
    /// Which figure: 4 or 5.
    pub figure: u8,
    /// Random scenarios per point.
    pub trials: u64,
    /// Master seed.
    pub seed: u64,
    /// Notes, copied into the manifest.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A sweep file of any kind.
#[derive(Debug, Clone, PartialEq)]
pub enum SweepFile {
    /// Simulator experiments.
    Experiment(Box<FigureSpec>),
    /// A cutting-thresholds table.
    Cutting(CuttingSpec),
    /// A moldable-applications figure.
    Moldable(MoldableSpec),
}

/// Only the `kind` key of a file.
#[derive(Deserialize)]
struct KindOnly {
    #[serde(default)]
    kind: SweepKind,
}

fn config_error(name: &str, text: &str, e: &toml::de::Error) -> RunError {
    RunError::Config {
        file: name.to_string(),
        line: workload::toml_line::error_line(text, e),
        message: e.message().to_string(),
    }
}

impl SweepFile {
    /// Parses and validates a sweep file of any kind; `name` appears in errors.
    pub fn from_toml_str(text: &str, name: &str) -> Result<Self, RunError> {
        let kind = toml::from_str::<KindOnly>(text)
            .map_err(|e| config_error(name, text, &e))?
            .kind;
        let invalid = |message: String| RunError::Config {
            file: name.to_string(),
            line: None,
            message,
        };
        match kind {
            SweepKind::Experiment => Ok(SweepFile::Experiment(Box::new(
                FigureSpec::from_toml_str(text, name)?,
            ))),
            SweepKind::Cutting => {
                let spec: CuttingSpec =
                    toml::from_str(text).map_err(|e| config_error(name, text, &e))?;
                if spec.trials == 0 {
                    return Err(invalid("trials must be at least 1".into()));
                }
                Ok(SweepFile::Cutting(spec))
            }
            SweepKind::Moldable => {
                let spec: MoldableSpec =
                    toml::from_str(text).map_err(|e| config_error(name, text, &e))?;
                if !matches!(spec.figure, 4 | 5) {
                    return Err(invalid(format!(
                        "figure = {}: Hansen et al.'s simulation study has figures 4 and 5",
                        spec.figure
                    )));
                }
                if spec.trials == 0 {
                    return Err(invalid("trials must be at least 1".into()));
                }
                Ok(SweepFile::Moldable(spec))
            }
        }
    }

    /// Reads a sweep file.
    pub fn load(path: &Path) -> Result<Self, RunError> {
        let text = workload::io::read_text(path)?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// Loads the sweep files `paths`, in their order; two files of the same id are an error
    /// (their outputs would overwrite each other), naming both.
    pub fn load_all(paths: &[PathBuf]) -> Result<Vec<Self>, RunError> {
        let mut seen: HashMap<String, &PathBuf> = HashMap::new();
        let mut sweeps = Vec::with_capacity(paths.len());
        for p in paths {
            let s = Self::load(p)?;
            if let Some(other) = seen.insert(s.id().to_owned(), p) {
                return Err(RunError::Input(format!(
                    "{} and {} are both sweep '{}': their outputs would overwrite each other",
                    other.display(),
                    p.display(),
                    s.id()
                )));
            }
            sweeps.push(s);
        }
        Ok(sweeps)
    }

    /// The sweep's id (the outputs' stem).
    pub fn id(&self) -> &str {
        match self {
            SweepFile::Experiment(s) => &s.id,
            SweepFile::Cutting(s) => &s.id,
            SweepFile::Moldable(s) => &s.id,
        }
    }

    /// The sweep's title.
    pub fn title(&self) -> &str {
        match self {
            SweepFile::Experiment(s) => &s.title,
            SweepFile::Cutting(s) => &s.title,
            SweepFile::Moldable(s) => &s.title,
        }
    }

    /// The sweep's kind.
    pub fn kind(&self) -> SweepKind {
        match self {
            SweepFile::Experiment(_) => SweepKind::Experiment,
            SweepFile::Cutting(_) => SweepKind::Cutting,
            SweepFile::Moldable(_) => SweepKind::Moldable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_key_chooses_the_format() {
        let cutting = "kind = \"cutting\"\nid = \"t\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 3\nseed = 1\n";
        let f = SweepFile::from_toml_str(cutting, "t.toml").unwrap();
        assert_eq!(
            (f.kind(), f.id(), f.title()),
            (SweepKind::Cutting, "t", "T")
        );
        let moldable =
            "kind = \"moldable\"\nid = \"m\"\ntitle = \"M\"\nfigure = 5\ntrials = 2\nseed = 2\n";
        let f = SweepFile::from_toml_str(moldable, "m.toml").unwrap();
        assert_eq!(f.kind(), SweepKind::Moldable);
    }

    #[test]
    fn bad_sweep_files_name_the_problem() {
        for (text, want) in [
            ("kind = \"lottery\"\n", "unknown variant"),
            (
                "kind = \"moldable\"\nid = \"m\"\ntitle = \"M\"\nfigure = 6\ntrials = 2\nseed = 2\n",
                "figures 4 and 5",
            ),
            (
                "kind = \"cutting\"\nid = \"t\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 0\nseed = 1\n",
                "at least 1",
            ),
            (
                "kind = \"cutting\"\nid = \"t\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 3\nseed = 1\nx = 2\n",
                "unknown field",
            ),
        ] {
            let e = SweepFile::from_toml_str(text, "f.toml")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("f.toml") && e.contains(want), "{e}");
        }
    }

    /// Two sweep files of one id are refused, naming both; distinct ids load in order.
    #[test]
    fn two_files_of_one_id_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, id: &str| {
            let p = dir.path().join(name);
            std::fs::write(
                &p,
                format!("kind = \"cutting\"\nid = \"{id}\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 3\nseed = 1\n"),
            )
            .unwrap();
            p
        };
        let (a, b, c) = (
            write("a.toml", "x"),
            write("b.toml", "y"),
            write("c.toml", "x"),
        );
        let ids: Vec<String> = SweepFile::load_all(&[a.clone(), b])
            .unwrap()
            .iter()
            .map(|s| s.id().to_owned())
            .collect();
        assert_eq!(ids, ["x", "y"]);
        let e = SweepFile::load_all(&[a, c]).unwrap_err().to_string();
        assert!(
            e.contains("a.toml") && e.contains("c.toml") && e.contains("both sweep 'x'"),
            "{e}"
        );
    }

    /// A sweep's `id` becomes file names: anything but one plain file name is refused at its
    /// line, for every kind of sweep file (a path wrote outside the output folder).
    #[test]
    fn an_id_that_is_not_a_plain_file_name_is_refused_at_its_line() {
        let experiment = |id: &str| {
            format!(
                "title = \"T\"\nid = {id}\n[base]\nname = \"b\"\n[base.workload]\nseed = 1\n[x]\nkey = \"workload.rate\"\nvalues = [1000]\n[[series]]\nlabel = \"PAM\"\noverrides = {{ mapper = {{ name = \"PAM\" }} }}\n"
            )
        };
        let cutting = |id: &str| {
            format!(
                "kind = \"cutting\"\ntitle = \"T\"\nid = {id}\ntable = \"table5\"\ntrials = 3\nseed = 1\n"
            )
        };
        let moldable = |id: &str| {
            format!(
                "kind = \"moldable\"\ntitle = \"M\"\nid = {id}\nfigure = 5\ntrials = 2\nseed = 2\n"
            )
        };
        for id in [
            "\"/some/where/victim\"",
            "\"../../escaped\"",
            "\"\"",
            "\".\"",
            "\"..\"",
        ] {
            for (text, line) in [(experiment(id), 2), (cutting(id), 3), (moldable(id), 3)] {
                let e = SweepFile::from_toml_str(&text, "f.toml").unwrap_err();
                let message = e.to_string();
                assert!(
                    matches!(e, RunError::Config { line: Some(l), .. } if l == line),
                    "{id}: {message}"
                );
                assert!(message.starts_with(&format!("f.toml:{line}")), "{message}");
            }
        }
        assert_eq!(
            SweepFile::from_toml_str(&cutting("\"gao-t5\""), "f.toml")
                .unwrap()
                .id(),
            "gao-t5"
        );
    }
}
