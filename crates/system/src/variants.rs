//! Names that resolve to a heuristic plus a pruner configuration (thesis chapters 4-6,
//! paper VI-C): PAMF, PAMF-R, PUM, MOCA, PAMND, and every base heuristic with deferring (-D),
//! dropping (-Drop) or both (-P).

use heuristics::HeuristicConfig;
use pruner::{
    ConfigError, FairnessMode, Never, Preset, PrunerConfig, PrunerTable, ReliefScope, Toggle,
};

/// Why a heuristic's name and a `[pruner]` table mean nothing together ([`resolve`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VariantError {
    /// A suffix (`-D`, `-Drop`, `-P`) on a variant rather than a base heuristic.
    #[error(
        "mapper.name = \"{name}\": the suffixes -D, -Drop and -P apply to base heuristics, not to {base} (see `prunesim list`)"
    )]
    SuffixOnVariant {
        /// The name as written.
        name: String,
        /// The variant it names.
        base: String,
    },
    /// PAMF-R with a `[pruner]` table of another fairness mode.
    #[error(
        "mapper.name = \"{name}\" is fairness_mode = \"relative\", but the [pruner] table sets \"{mode}\": use PAMF with that fairness_mode, or leave the key out"
    )]
    FairnessMode {
        /// The name as written.
        name: String,
        /// The table's mode.
        mode: &'static str,
    },
    /// A deferring name with deferring turned off.
    #[error(
        "mapper.name = \"{name}\" defers, but the [pruner] table turns deferring off: set pruner.defer_threshold (or preset = \"paper\")"
    )]
    NoDeferring {
        /// The name as written.
        name: String,
    },
    /// A dropping name with dropping turned off.
    #[error(
        "mapper.name = \"{name}\" drops, but the [pruner] table turns dropping off: set pruner.drop_threshold (or preset = \"paper\")"
    )]
    NoDropping {
        /// The name as written.
        name: String,
    },
    /// A name that sets the papers' pruner (a variant, a suffix) with a rule of one's own.
    #[error(
        "mapper.name = \"{name}\" sets the papers' pruner, but the [pruner] table runs the rule '{rule}': name the base heuristic, or leave out the rule"
    )]
    OwnRule {
        /// The name as written.
        name: String,
        /// The rule.
        rule: String,
    },
    /// The `[pruner]` table does not resolve ([`PrunerTable::resolve`]).
    #[error(transparent)]
    Pruner(#[from] ConfigError),
}

/// How a name maps onto a pruner configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pruning {
    /// No suffix: the name's own rule.
    Plain,
    /// `-P`: deferring and dropping.
    Both,
    /// `-D`: deferring only, dropping never engages.
    DeferOnly,
    /// `-Drop`: dropping only, no deferring.
    DropOnly,
}

/// A name with its description, for `prunesim list`.
pub const VARIANTS: &[(&str, &str)] = &[
    (
        "PAMF",
        "PAM with the pruner's fairness (sufferage) on, as the paper states it unless the [pruner] table sets fairness_mode; factor 0.05 unless the table sets one",
    ),
    (
        "PAMF-R",
        "PAM with relative fairness: a type's relief follows its on-time rate against the mean across types, both ways, on the defer threshold only (fairness_mode = \"relative\", fairness_relief = \"defer\"); factor 0.03 unless the [pruner] table sets one",
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
        "MOC aware of the pruning threshold: culls at the drop threshold unless [mapper] alpha is set (thesis 4.4.3.1)",
    ),
    (
        "<H>-D",
        "a base heuristic with probabilistic deferring only (thesis 5.2.1); immediate ones keep deferred tasks in a pool revisited at the next mapping event (thesis 7.2.5)",
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

/// The pruner of a name without a `[pruner]` table: the paper's for PAM, its variants,
/// `auto`, `lookahead` and the suffixed names, none for a plain base heuristic.
fn default_table(pruned: bool) -> PrunerTable {
    PrunerTable {
        preset: pruned.then_some(Preset::Paper),
        ..PrunerTable::default()
    }
}

/// Resolves a heuristic name (base or variant) against the experiment's `[pruner]` table
/// (`given`, `None` when the experiment has none). Returns the base heuristic's config and the
/// effective pruner configuration, or why the combination means nothing.
///
/// Without a `[pruner]` table, PAM, its variants, `auto`, `lookahead` and the suffixed names (`-D`, `-Drop`, `-P`)
/// use the paper's pruner ([`Preset::Paper`]) and a plain base heuristic runs unpruned; with
/// one, the table as resolved by [`PrunerTable::resolve`], adjusted by the name's rule.
pub fn resolve(
    mapper: &HeuristicConfig,
    given: Option<&PrunerTable>,
) -> Result<(HeuristicConfig, PrunerConfig), VariantError> {
    let upper = mapper.name.to_ascii_uppercase();
    let (base, pruning) = if let Some(b) = upper.strip_suffix("-DROP") {
        (b.to_string(), Pruning::DropOnly)
    } else if let Some(b) = upper.strip_suffix("-D") {
        (b.to_string(), Pruning::DeferOnly)
    } else if let Some(b) = upper.strip_suffix("-P") {
        (b.to_string(), Pruning::Both)
    } else {
        (upper, Pruning::Plain)
    };
    let variant = heuristics::VARIANT_NAMES.contains(&base.as_str())
        || matches!(base.as_str(), "AUTO" | "LOOKAHEAD");
    if variant && pruning != Pruning::Plain {
        return Err(VariantError::SuffixOnVariant {
            name: mapper.name.clone(),
            base,
        });
    }
    let mut table = given
        .cloned()
        .unwrap_or_else(|| default_table(variant || base == "PAM" || pruning != Pruning::Plain));
    // The fairness variants fill the keys the table leaves out before it is resolved (so that
    // their fairness keys have an effect); a key that contradicts the name is an error.
    match base.as_str() {
        "PAMF" => {
            table.fairness.get_or_insert(0.05);
        }
        "PAMF-R" => fill_relative(&mut table, &mapper.name)?,
        _ => {}
    }
    let mut p = table.resolve()?;
    if let Some(rule) = &p.rule {
        if variant && !matches!(base.as_str(), "AUTO" | "LOOKAHEAD") || pruning != Pruning::Plain {
            return Err(VariantError::OwnRule {
                name: mapper.name.clone(),
                rule: rule.clone(),
            });
        }
    }
    let mut h = mapper.clone();
    let name = match base.as_str() {
        "PAMF" | "PAMF-R" => "PAM",
        "PUM" => {
            p.defer_threshold = Some(0.3);
            "PAM"
        }
        "PAMND" => {
            p.toggle = Toggle::Never(Never::Never);
            "PAM"
        }
        "MOCA" => {
            if h.get("alpha").is_none() {
                h.set("alpha", p.drop_threshold);
            }
            "MOC"
        }
        other => other,
    };
    match pruning {
        Pruning::Plain => {}
        Pruning::Both => {
            require_defer(&mapper.name, &p)?;
            require_drop(&mapper.name, &table)?;
        }
        Pruning::DeferOnly => {
            require_defer(&mapper.name, &p)?;
            p.toggle = Toggle::Never(Never::Never);
        }
        Pruning::DropOnly => {
            require_drop(&mapper.name, &table)?;
            p.defer_threshold = None;
        }
    }
    h.name = name.to_string();
    Ok((h, p))
}

/// PAMF-R: relative fairness with the factor 0.03 and relief on the defer threshold only,
/// where `table` leaves them out; a table with another mode is an error.
fn fill_relative(table: &mut PrunerTable, name: &str) -> Result<(), VariantError> {
    if let Some(m) = table.fairness_mode.filter(|m| *m != FairnessMode::Relative) {
        return Err(VariantError::FairnessMode {
            name: name.to_owned(),
            mode: m.name(),
        });
    }
    table.fairness.get_or_insert(0.03);
    table.fairness_mode = Some(FairnessMode::Relative);
    table.fairness_relief.get_or_insert(ReliefScope::Defer);
    Ok(())
}

fn require_defer(name: &str, p: &PrunerConfig) -> Result<(), VariantError> {
    if p.defer_threshold.is_none() {
        return Err(VariantError::NoDeferring {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// Dropping is configured when the table has a drop threshold (its own or its preset's); its
/// toggle may still be `"never"`, as a point of a toggle sweep.
fn require_drop(name: &str, table: &PrunerTable) -> Result<(), VariantError> {
    if table.preset.is_none() && table.drop_threshold.is_none() {
        return Err(VariantError::NoDropping {
            name: name.to_owned(),
        });
    }
    Ok(())
}
