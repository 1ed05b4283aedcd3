//! Names that resolve to a heuristic plus a pruner configuration (thesis chapters 4-6,
//! paper VI-C): PAMF, PUM, MOCA, PAMND, and every base heuristic with deferring (-D),
//! dropping (-Drop) or both (-P).

use heuristics::HeuristicConfig;
use pruner::{Never, PrunerConfig, Toggle};

/// How a name maps onto a pruner configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pruning {
    /// The given (or default) pruner as is.
    AsGiven,
    /// No pruning, unless the experiment gives a `[pruner]` table.
    OffUnlessGiven,
    /// Deferring only: dropping never engages.
    DeferOnly,
    /// Dropping only: no deferring.
    DropOnly,
}

/// A name with its description, for `prunesim list`.
pub const VARIANTS: &[(&str, &str)] = &[
    (
        "PAMF",
        "PAM with the pruner's fairness (sufferage) on; factor 0.05 unless the pruner sets one",
    ),
    (
        "PUM",
        "PAM deferring at a fixed 30% whatever the pruning threshold (thesis 4.4.3.1)",
    ),
    (
        "PAMND",
        "PAM with probabilistic dropping off (deferring only, thesis 4.4.5)",
    ),
    (
        "MOCA",
        "MOC aware of the pruning threshold: culls and defers at it (thesis 4.4.3.1)",
    ),
    (
        "<H>-D",
        "a base heuristic with probabilistic deferring only (thesis 5.2.1)",
    ),
    (
        "<H>-Drop",
        "a base heuristic with probabilistic dropping only (thesis 5.2.2, 5.3)",
    ),
    (
        "<H>-P",
        "a base heuristic with both deferring and dropping (thesis 5.2.3)",
    ),
];

/// Resolves a heuristic name (base or variant) against the experiment's pruner table
/// (`given`, `None` when the experiment has none). Returns the base heuristic's config and the
/// effective pruner configuration.
///
/// Without a `[pruner]` table, PAM and its variants use the paper's defaults and the base
/// heuristics run unpruned; with one, a base heuristic runs with exactly that pruner.
pub fn resolve(
    mapper: &HeuristicConfig,
    given: Option<&PrunerConfig>,
) -> (HeuristicConfig, PrunerConfig) {
    let upper = mapper.name.to_ascii_uppercase();
    let (base, pruning) = if let Some(b) = upper.strip_suffix("-DROP") {
        (b.to_string(), Pruning::DropOnly)
    } else if let Some(b) = upper.strip_suffix("-D") {
        (b.to_string(), Pruning::DeferOnly)
    } else if let Some(b) = upper.strip_suffix("-P") {
        (b.to_string(), Pruning::AsGiven)
    } else {
        (upper, Pruning::OffUnlessGiven)
    };
    let p = given.cloned().unwrap_or_default();
    let mut h = mapper.clone();
    let (name, pruner) = match (base.as_str(), pruning) {
        ("PAM", Pruning::OffUnlessGiven) => ("PAM", p),
        ("PAMF", Pruning::OffUnlessGiven) => {
            let mut p = p;
            if p.fairness == 0.0 {
                p.fairness = 0.05;
            }
            ("PAM", p)
        }
        ("PUM", Pruning::OffUnlessGiven) => {
            let mut p = p;
            p.defer_threshold = Some(0.3);
            ("PAM", p)
        }
        ("PAMND", Pruning::OffUnlessGiven) => {
            let mut p = p;
            p.toggle = Toggle::Never(Never::Never);
            ("PAM", p)
        }
        ("MOCA", Pruning::OffUnlessGiven) => {
            if h.alpha.is_none() {
                h.alpha = Some(p.drop_threshold);
            }
            ("MOC", p)
        }
        (_, Pruning::OffUnlessGiven) => {
            let p = match given {
                Some(g) => g.clone(),
                None => PrunerConfig::off(),
            };
            return (HeuristicConfig { name: base, ..h }, p);
        }
        (_, Pruning::AsGiven) => {
            return (HeuristicConfig { name: base, ..h }, p);
        }
        (_, Pruning::DeferOnly) => {
            let mut p = p;
            p.toggle = Toggle::Never(Never::Never);
            return (HeuristicConfig { name: base, ..h }, p);
        }
        (_, Pruning::DropOnly) => {
            let mut p = p;
            p.defer_threshold = None;
            return (HeuristicConfig { name: base, ..h }, p);
        }
    };
    (
        HeuristicConfig {
            name: name.to_string(),
            ..h
        },
        pruner,
    )
}
