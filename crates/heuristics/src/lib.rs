//! Mapping heuristics for the `model` crate's plug points.
//!
//! * Batch mode (thesis 3.3.1, paper V-D/VI-C, JPDC-2016 6.2): MM, MSD, MMU, MOC, PAM, and
//!   for homogeneous systems EDF and SJF (thesis 3.3.3). All share the two-phase loop of
//!   [`plan`]: see its docs for the phase-1 scope option.
//! * Immediate mode (thesis 3.3.2, JPDC-2016 6.1): FCFS, MET, MCT, KPB, MR.
//!
//! Deferring is not a heuristic's own business: the pruner hands defer thresholds to the
//! mapper through [`model::View::defer`], and every batch heuristic applies them in phase 1
//! to the success probability of the pair it is about to make (for PAM and MOC that is the
//! task's best success probability). Variants such as PAMF, PUM, MOCA, PAMND or MM-D are
//! pruner configurations around these heuristics; the runner resolves their names.

pub mod auto;
mod immediate;
mod named;
pub mod plan;
pub mod reference;
mod registry;
mod search;

use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use auto::Auto;
pub use immediate::reference as immediate_reference;
pub use immediate::{Fcfs, Kpb, MaxRobust, Mct, Met};
pub use named::{Moc, TwoPhase};
pub use plan::{Phase1, Phase1Scope, Phase2, Plan};
pub use registry::{Entry, HEURISTICS, Mode, REGISTRY, is_immediate, parameters_of};

use registry::Params;

use model::{BatchHeuristic, ImmediateHeuristic};
use pmf::DropModel;

/// A heuristic ready to run: batch or immediate mode.
pub enum Mapper {
    /// Maps batches into bounded queues at every mapping event.
    Batch(Box<dyn BatchHeuristic>),
    /// Maps each arriving task at once into unbounded queues.
    Immediate(Box<dyn ImmediateHeuristic>),
}

impl std::fmt::Debug for Mapper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mapper::Batch(h) => write!(f, "Batch({})", h.name()),
            Mapper::Immediate(h) => write!(f, "Immediate({})", h.name()),
        }
    }
}

impl Mapper {
    /// The heuristic's name.
    pub fn name(&self) -> &str {
        match self {
            Mapper::Batch(h) => h.name(),
            Mapper::Immediate(h) => h.name(),
        }
    }

    /// True for immediate mode.
    pub fn is_immediate(&self) -> bool {
        matches!(self, Mapper::Immediate(_))
    }
}

/// A heuristic and its parameters, as written in an experiment TOML (`[mapper]`). A parameter
/// left out takes the heuristic's default; a parameter the heuristic does not use is an error
/// ([`HeuristicError::NotApplicable`]), never silently ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeuristicConfig {
    /// The base heuristic's name (case-insensitive): auto (the recommended one), MM, MSD,
    /// MMU, MOC, PAM, EDF, SJF, FCFS, MET (MEET), MCT (MECT), KPB, MR.
    pub name: String,
    /// Which machines phase 1 may choose (batch heuristics; default `all_machines`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase1: Option<Phase1Scope>,
    /// MOC's culling threshold (JPDC-2016: 0.2; thesis: 0.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// MOC's and MR's near-best width (0.05).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// KPB's and MR's share of machines (0.62 when the executing task may be dropped, 0.5
    /// when not, JPDC-2016 6.1.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// `auto`'s queue depth: the most tasks, the executing one included, it commits to a
    /// machine ([`auto::DEFAULT_DEPTH`]; the queue's limit with staging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

impl HeuristicConfig {
    /// A heuristic by name with default parameters.
    pub fn named(name: &str) -> Self {
        HeuristicConfig {
            name: name.to_string(),
            phase1: None,
            alpha: None,
            epsilon: None,
            k: None,
            depth: None,
        }
    }

    /// The configuration with every parameter the heuristic uses set to the value that runs
    /// (the given one, else the default for `model`), and the others absent.
    pub fn with_defaults(&self, model: DropModel) -> HeuristicConfig {
        let uses = parameters_of(&self.name).unwrap_or(&[]);
        let default_k = if model == DropModel::All { 0.62 } else { 0.5 };
        HeuristicConfig {
            name: self.name.clone(),
            phase1: uses
                .contains(&"phase1")
                .then(|| self.phase1.unwrap_or_default()),
            alpha: uses
                .contains(&"alpha")
                .then(|| self.alpha.unwrap_or(DEFAULT_ALPHA)),
            epsilon: uses
                .contains(&"epsilon")
                .then(|| self.epsilon.unwrap_or(DEFAULT_EPSILON)),
            k: uses.contains(&"k").then(|| self.k.unwrap_or(default_k)),
            // The default depth depends on staging, so it is left out when not given.
            depth: uses.contains(&"depth").then_some(self.depth).flatten(),
        }
    }

    /// The parameters that are set, by their TOML names.
    fn set_parameters(&self) -> impl Iterator<Item = &'static str> {
        [
            ("phase1", self.phase1.is_some()),
            ("alpha", self.alpha.is_some()),
            ("epsilon", self.epsilon.is_some()),
            ("k", self.k.is_some()),
            ("depth", self.depth.is_some()),
        ]
        .into_iter()
        .filter(|&(_, set)| set)
        .map(|(name, _)| name)
    }
}

/// MOC's default culling threshold `alpha` (JPDC-2016 6.2.5).
pub const DEFAULT_ALPHA: f64 = 0.2;

/// MOC's and MR's default near-best width `epsilon`.
pub const DEFAULT_EPSILON: f64 = 0.05;

/// Why a heuristic could not be built.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum HeuristicError {
    /// The name is not a known heuristic.
    #[error("unknown heuristic '{0}' (see `prunesim list`)")]
    Unknown(String),
    /// A parameter that the heuristic does not use.
    #[error(
        "[mapper] {param} does not apply to {heuristic} (it uses {}); remove it",
        if uses.is_empty() { "no parameter".to_string() } else { uses.join(", ") }
    )]
    NotApplicable {
        /// The heuristic.
        heuristic: String,
        /// The parameter.
        param: &'static str,
        /// The parameters it uses.
        uses: &'static [&'static str],
    },
    /// A parameter is out of its range.
    #[error("heuristic {heuristic}: parameter '{param}' = {value} is outside {range}")]
    OutOfRange {
        /// The heuristic.
        heuristic: String,
        /// The parameter.
        param: &'static str,
        /// Its value.
        value: f64,
        /// The accepted range.
        range: &'static str,
    },
}

fn check(name: &str, param: &'static str, v: f64, lo_open: bool) -> Result<f64, HeuristicError> {
    let ok = v.is_finite() && v <= 1.0 && if lo_open { v > 0.0 } else { v >= 0.0 };
    if ok {
        Ok(v)
    } else {
        Err(HeuristicError::OutOfRange {
            heuristic: name.to_string(),
            param,
            value: v,
            range: if lo_open { "(0, 1]" } else { "[0, 1]" },
        })
    }
}

/// Builds the heuristic a config names. `model` picks KPB's and MR's default `k`.
pub fn build(config: &HeuristicConfig, model: DropModel) -> Result<Mapper, HeuristicError> {
    let name = config.name.to_ascii_uppercase();
    let entry =
        registry::lookup(&name).ok_or_else(|| HeuristicError::Unknown(config.name.clone()))?;
    let uses = entry.parameters;
    if let Some(param) = config.set_parameters().find(|p| !uses.contains(p)) {
        return Err(HeuristicError::NotApplicable {
            heuristic: config.name.clone(),
            param,
            uses,
        });
    }
    let scope = config.phase1.unwrap_or_default();
    let eps = check(
        &name,
        "epsilon",
        config.epsilon.unwrap_or(DEFAULT_EPSILON),
        false,
    )?;
    let default_k = if model == DropModel::All { 0.62 } else { 0.5 };
    let k = check(&name, "k", config.k.unwrap_or(default_k), true)?;
    let alpha = check(&name, "alpha", config.alpha.unwrap_or(DEFAULT_ALPHA), false)?;
    if config.depth == Some(0) {
        return Err(HeuristicError::OutOfRange {
            heuristic: name,
            param: "depth",
            value: 0.0,
            range: "1 or more tasks",
        });
    }
    Ok((entry.build)(&Params {
        scope,
        alpha,
        epsilon: eps,
        k,
        depth: config.depth,
    }))
}
