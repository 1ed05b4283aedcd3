//! The pruner's configuration (`[pruner]` in an experiment TOML). Each mechanism is on or
//! off on its own, so every variant in the thesis' figures is a configuration, not code.
//!
//! A `[pruner]` table ([`PrunerTable`]) starts from nothing, or from a named preset, and sets
//! keys; a key left out means its mechanism is off or neutral, never a published value:
//!
//! | key | left out (no preset) | `preset = "paper"` | `preset = "thesis"` |
//! |---|---|---|---|
//! | `rule` | the papers' pruner (`"probabilistic"`) | - | - |
//! | `drop_threshold` | dropping off | 0.5 | 0.75 |
//! | `defer_threshold` | deferring off | 0.9 | 0.75 |
//! | `toggle` | 0 (engaged at every event) when dropping is on | 1 | 1 |
//! | `lambda` | 1 (no history) | 0.9 | 1 |
//! | `schmitt` | false | true | false |
//! | `schmitt_off` | 0.8 (used only with `schmitt`) | 0.8 | 0.8 |
//! | `dynamic_weight` | 0 (off) | 0 | 0 |
//! | `fairness` | 0 (off) | 0 | 0 |
//! | `fairness_mode` | `"literal"` (the paper's PAMF; needs `fairness`) | `"literal"` | `"literal"` |
//! | `fairness_cap` | 1 (no bound; needs `fairness`) | 1 | 1 |
//! | `fairness_relief` | `"both"` (needs `fairness`) | `"both"` | `"both"` |
//!
//! ```toml
//! [pruner]
//! preset = "paper"        # HCW 2019, VII: the settings of the paper's experiments
//! drop_threshold = 0.25   # ... with a lower drop threshold
//! ```
//! `rule` names a pruning rule of one's own ([`crate::registry`]), which runs instead of the
//! papers' pruner; no other key may be set with it. `toggle` without dropping (no `drop_threshold`, no preset) is an error: it would gate
//! nothing; so are `fairness_mode`, `fairness_cap` and `fairness_relief` without fairness
//! (`fairness` 0), and `fairness_relief = "defer"` without deferring. The fairness modes are
//! described at [`crate::Fairness`]. The resolved [`PrunerConfig`] is what runs, and what
//! results print and save.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fairness::{FairnessMode, ReliefScope};

/// When dropping engages: at an oversubscription level `d_t >= toggle`, or never.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Toggle {
    /// Engage when `d_t >= level` (0 = always engaged).
    Level(f64),
    /// `"never"`: dropping is off.
    Never(Never),
}

/// The word `never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Never {
    /// Dropping is off.
    Never,
}

impl<'de> Deserialize<'de> for Toggle {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(f64),
            Word(String),
            Other(serde::de::IgnoredAny),
        }
        let expected = "toggle: expected a number of deadline misses >= 0 or \"never\"";
        match Repr::deserialize(d)? {
            Repr::Number(x) => Ok(Toggle::Level(x)),
            Repr::Word(w) if w == "never" => Ok(Toggle::Never(Never::Never)),
            Repr::Word(w) => Err(serde::de::Error::custom(format!(
                "{expected}, found \"{w}\""
            ))),
            Repr::Other(_) => Err(serde::de::Error::custom(expected)),
        }
    }
}

impl Toggle {
    /// The toggle level, `None` for never.
    pub fn level(self) -> Option<f64> {
        match self {
            Toggle::Level(l) => Some(l),
            Toggle::Never(_) => None,
        }
    }
}

impl Default for Toggle {
    fn default() -> Self {
        Toggle::Level(1.0)
    }
}

/// The pruner's settings. Defaults are the paper's (HCW 2019, VII): drop 50%, defer 90%,
/// toggle 1, lambda 0.9, Schmitt trigger with the off level at 80% of the toggle, no
/// per-task thresholds, no fairness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PrunerConfig {
    /// A pruning rule of one's own that runs instead of the papers' pruner (registered by a
    /// policy crate, [`crate::registry::register`]); `None`: the papers' pruner, as the
    /// other fields configure it. With a rule, the other fields are [`PrunerConfig::off`]'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Drop a queued or executing task whose success probability is at or below this
    /// (Algorithm 1). Only while dropping is engaged.
    pub drop_threshold: f64,
    /// Defer mapping a task whose best success probability is at or below this; `"off"`
    /// (`None`) turns deferring off. The thesis' chapters 4-5 use one threshold for both.
    #[serde(with = "off_or_number")]
    pub defer_threshold: Option<f64>,
    /// When dropping engages.
    pub toggle: Toggle,
    /// Weight of the latest event in the oversubscription level, paper eq. (8):
    /// `d_t = lambda mu_t + (1 - lambda) d_{t-1}`. 1 = no history (the thesis' toggle).
    pub lambda: f64,
    /// Schmitt trigger: once engaged, disengage only at `d_t <= schmitt_off * toggle`.
    /// Without it, disengage as soon as `d_t < toggle`.
    pub schmitt: bool,
    /// The Schmitt trigger's off level as a fraction of the toggle (paper: 20% separation).
    pub schmitt_off: f64,
    /// Weight `p` of the per-task dynamic drop threshold, paper eq. (7); 0 = off.
    pub dynamic_weight: f64,
    /// PAMF's fairness factor (paper V-D2): the step of a type's relief per task; 0 = off.
    pub fairness: f64,
    /// How a type's relief follows from its outcomes (with `fairness` on): the paper's
    /// sufferage (`literal`), or steered by the type's on-time rate against the mean across
    /// types (`relative`, both ways; `lagging`, relief only).
    #[serde(default, skip_serializing_if = "is_default")]
    pub fairness_mode: FairnessMode,
    /// How far relief may move a type's thresholds from their base (with `fairness` on), in
    /// [0, 1]; 1 = no bound.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub fairness_cap: f64,
    /// Which thresholds relief moves (with `fairness` on): `both` (the paper) or `defer`
    /// (dropping keeps its base threshold).
    #[serde(default, skip_serializing_if = "is_default")]
    pub fairness_relief: ReliefScope,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn one() -> f64 {
    1.0
}

#[allow(clippy::trivially_copy_pass_by_ref, clippy::float_cmp)]
fn is_one(v: &f64) -> bool {
    *v == 1.0
}

impl Default for PrunerConfig {
    fn default() -> Self {
        PrunerConfig {
            rule: None,
            drop_threshold: 0.5,
            defer_threshold: Some(0.9),
            toggle: Toggle::Level(1.0),
            lambda: 0.9,
            schmitt: true,
            schmitt_off: 0.8,
            dynamic_weight: 0.0,
            fairness: 0.0,
            fairness_mode: FairnessMode::Literal,
            fairness_cap: 1.0,
            fairness_relief: ReliefScope::Both,
        }
    }
}

/// `defer_threshold = 0.9` or `defer_threshold = "off"`.
mod off_or_number {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Word(String),
    }

    pub(super) fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(x) => Repr::Number(*x).serialize(s),
            None => Repr::Word("off".into()).serialize(s),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        match Repr::deserialize(d)? {
            Repr::Number(x) => Ok(Some(x)),
            Repr::Word(w) if w == "off" => Ok(None),
            Repr::Word(w) => Err(serde::de::Error::custom(format!(
                "defer_threshold: expected a probability in [0, 1] or \"off\", found \"{w}\""
            ))),
        }
    }
}

/// The most task types a pruner keeps values for (a sufferage and a defer threshold each).
pub const MAX_TASK_TYPES: usize = 1 << 20;

/// A configuration value out of range.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A value outside its range.
    #[error("pruner: '{field}' = {value} is outside {range}")]
    OutOfRange {
        /// The field's TOML name.
        field: &'static str,
        /// Its value.
        value: f64,
        /// The accepted range.
        range: &'static str,
    },
    /// A key that has no effect in the table it is in.
    #[error("pruner: '{field}' has no effect: {why}")]
    NoEffect {
        /// The field's TOML name.
        field: &'static str,
        /// Why, and what to write instead.
        why: &'static str,
    },
    /// A `rule` that no program registered ([`crate::registry::register`]).
    #[error(
        "pruner: rule '{name}' is not registered (known: {known}); a rule of one's own is registered by the program that runs it (a policy crate's, `prunesim new-policy`)"
    )]
    UnknownRule {
        /// The name given.
        name: String,
        /// The names known.
        known: String,
    },
    /// More task types than [`MAX_TASK_TYPES`].
    #[error("pruner: 'task_types' = {types} is more than the limit of {limit}")]
    TooManyTaskTypes {
        /// The number asked for.
        types: usize,
        /// [`MAX_TASK_TYPES`].
        limit: usize,
    },
}

/// A published pruner setting that a `[pruner]` table can start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// The HCW 2019 paper's experiments (VII): drop 50%, defer 90%, toggle 1, lambda 0.9,
    /// Schmitt trigger off at 80% of the toggle ([`PrunerConfig::default`]).
    Paper,
    /// The thesis' chapters 4-6: one threshold of 75% for dropping and deferring, toggle 1, no
    /// history, no Schmitt trigger ([`PrunerConfig::thesis`] at 0.75 and toggle 1).
    Thesis,
}

impl Preset {
    /// Every preset with its TOML name.
    pub const ALL: [(Preset, &'static str); 2] =
        [(Preset::Paper, "paper"), (Preset::Thesis, "thesis")];

    /// The preset's configuration.
    pub fn config(self) -> PrunerConfig {
        match self {
            Preset::Paper => PrunerConfig::default(),
            Preset::Thesis => PrunerConfig::thesis(0.75, Toggle::Level(1.0)),
        }
    }
}

/// A `[pruner]` table as written: an optional preset and the keys that override it (see the
/// module docs for what a key left out means). [`PrunerTable::resolve`] gives the
/// configuration that runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrunerTable {
    /// A pruning rule of one's own by its registered name ([`crate::registry`]), instead of
    /// the papers' pruner; `"probabilistic"` or none: the papers' pruner, which the other
    /// keys configure (none of them may be set with another rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The published setting to start from; none = every mechanism off or neutral.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// [`PrunerConfig::drop_threshold`]; setting it turns dropping on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_threshold: Option<f64>,
    /// [`PrunerConfig::defer_threshold`]: a number turns deferring on, `"off"` turns it off.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "off_or_number_opt"
    )]
    pub defer_threshold: Option<Option<f64>>,
    /// [`PrunerConfig::toggle`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toggle: Option<Toggle>,
    /// [`PrunerConfig::lambda`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lambda: Option<f64>,
    /// [`PrunerConfig::schmitt`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schmitt: Option<bool>,
    /// [`PrunerConfig::schmitt_off`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schmitt_off: Option<f64>,
    /// [`PrunerConfig::dynamic_weight`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_weight: Option<f64>,
    /// [`PrunerConfig::fairness`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<f64>,
    /// [`PrunerConfig::fairness_mode`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness_mode: Option<FairnessMode>,
    /// [`PrunerConfig::fairness_cap`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness_cap: Option<f64>,
    /// [`PrunerConfig::fairness_relief`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness_relief: Option<ReliefScope>,
}

impl PrunerTable {
    /// A table that states every key of `config` (no preset): it resolves to `config`.
    pub fn explicit(config: &PrunerConfig) -> Self {
        if let Some(rule) = &config.rule {
            return PrunerTable {
                rule: Some(rule.clone()),
                ..PrunerTable::default()
            };
        }
        PrunerTable {
            rule: None,
            preset: None,
            drop_threshold: Some(config.drop_threshold),
            defer_threshold: Some(config.defer_threshold),
            toggle: Some(config.toggle),
            lambda: Some(config.lambda),
            schmitt: Some(config.schmitt),
            schmitt_off: Some(config.schmitt_off),
            dynamic_weight: Some(config.dynamic_weight),
            fairness: Some(config.fairness),
            // Left out at their neutral values (a key left out means exactly that), so that
            // the table of a configuration without fairness has no key without an effect.
            fairness_mode: (config.fairness_mode != FairnessMode::default())
                .then_some(config.fairness_mode),
            fairness_cap: (!is_one(&config.fairness_cap)).then_some(config.fairness_cap),
            fairness_relief: (config.fairness_relief != ReliefScope::default())
                .then_some(config.fairness_relief),
        }
    }

    /// The configuration the table describes: the preset (or every mechanism off) with the
    /// table's keys set, validated.
    pub fn resolve(&self) -> Result<PrunerConfig, ConfigError> {
        if let Some(rule) = self.own_rule() {
            return self.resolve_rule(rule);
        }
        let mut c = match self.preset {
            Some(p) => p.config(),
            None => PrunerConfig {
                toggle: if self.drop_threshold.is_some() {
                    Toggle::Level(0.0)
                } else {
                    Toggle::Never(Never::Never)
                },
                ..PrunerConfig::off()
            },
        };
        if let Some(v) = self.drop_threshold {
            c.drop_threshold = v;
        }
        if let Some(v) = self.defer_threshold {
            c.defer_threshold = v;
        }
        if let Some(v) = self.toggle {
            c.toggle = v;
        }
        if let Some(v) = self.lambda {
            c.lambda = v;
        }
        if let Some(v) = self.schmitt {
            c.schmitt = v;
        }
        if let Some(v) = self.schmitt_off {
            c.schmitt_off = v;
        }
        if let Some(v) = self.dynamic_weight {
            c.dynamic_weight = v;
        }
        if let Some(v) = self.fairness {
            c.fairness = v;
        }
        if let Some(v) = self.fairness_mode {
            c.fairness_mode = v;
        }
        if let Some(v) = self.fairness_cap {
            c.fairness_cap = v;
        }
        if let Some(v) = self.fairness_relief {
            c.fairness_relief = v;
        }
        c.validate()?;
        if self.preset.is_none() && self.drop_threshold.is_none() && self.toggle.is_some() {
            return Err(ConfigError::NoEffect {
                field: "toggle",
                why: "dropping is off (set drop_threshold, or start from a preset)",
            });
        }
        if c.fairness == 0.0 {
            let given = [
                ("fairness_mode", self.fairness_mode.is_some()),
                ("fairness_cap", self.fairness_cap.is_some()),
                ("fairness_relief", self.fairness_relief.is_some()),
            ];
            if let Some((field, _)) = given.into_iter().find(|(_, g)| *g) {
                return Err(ConfigError::NoEffect {
                    field,
                    why: "fairness is off (set fairness > 0, or use PAMF or PAMF-R)",
                });
            }
        }
        if self.fairness_relief == Some(ReliefScope::Defer) && c.defer_threshold.is_none() {
            return Err(ConfigError::NoEffect {
                field: "fairness_relief",
                why: "deferring is off, so relief on the defer threshold only moves nothing (set defer_threshold)",
            });
        }
        Ok(c)
    }
}

impl PrunerTable {
    /// The rule of one's own the table names; `None` for the papers' pruner.
    fn own_rule(&self) -> Option<&str> {
        self.rule
            .as_deref()
            .filter(|r| !r.eq_ignore_ascii_case(crate::registry::PROBABILISTIC))
    }

    /// The configuration of a table naming a rule of one's own: the rule, registered, and no
    /// key of the papers' pruner.
    fn resolve_rule(&self, rule: &str) -> Result<PrunerConfig, ConfigError> {
        let found = crate::registry::find(rule).ok_or_else(|| ConfigError::UnknownRule {
            name: rule.to_owned(),
            known: crate::registry::known(),
        })?;
        let table = PrunerTable {
            rule: None,
            ..self.clone()
        };
        if let Some(field) = table.keys_set().first() {
            return Err(ConfigError::NoEffect {
                field,
                why: "it configures the papers' pruner, and `rule` names another (leave it out, or the rule)",
            });
        }
        Ok(PrunerConfig {
            rule: Some(found.name.to_owned()),
            ..PrunerConfig::off()
        })
    }

    /// The keys the table sets, `rule` aside, in the order of the table.
    fn keys_set(&self) -> Vec<&'static str> {
        [
            ("preset", self.preset.is_some()),
            ("drop_threshold", self.drop_threshold.is_some()),
            ("defer_threshold", self.defer_threshold.is_some()),
            ("toggle", self.toggle.is_some()),
            ("lambda", self.lambda.is_some()),
            ("schmitt", self.schmitt.is_some()),
            ("schmitt_off", self.schmitt_off.is_some()),
            ("dynamic_weight", self.dynamic_weight.is_some()),
            ("fairness", self.fairness.is_some()),
            ("fairness_mode", self.fairness_mode.is_some()),
            ("fairness_cap", self.fairness_cap.is_some()),
            ("fairness_relief", self.fairness_relief.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect()
    }
}

/// `defer_threshold` absent, `= 0.9` or `= "off"`.
mod off_or_number_opt {
    use serde::{Deserializer, Serializer};

    // Only called for present values (`skip_serializing_if` and `default` handle absence).
    #[allow(clippy::ref_option)]
    pub(super) fn serialize<S: Serializer>(
        v: &Option<Option<f64>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        super::off_or_number::serialize(&v.flatten(), s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<f64>>, D::Error> {
        super::off_or_number::deserialize(d).map(Some)
    }
}

/// Checks a number of task types against [`MAX_TASK_TYPES`].
pub(crate) fn task_types(types: usize) -> Result<(), ConfigError> {
    if types > MAX_TASK_TYPES {
        return Err(ConfigError::TooManyTaskTypes {
            types,
            limit: MAX_TASK_TYPES,
        });
    }
    Ok(())
}

/// Checks a toggle level: finite and `>= 0`.
pub(crate) fn toggle_level(toggle: Toggle) -> Result<(), ConfigError> {
    if let Toggle::Level(l) = toggle {
        if !(l.is_finite() && l >= 0.0) {
            return Err(ConfigError::OutOfRange {
                field: "toggle",
                value: l,
                range: "[0, inf) or \"never\"",
            });
        }
    }
    Ok(())
}

pub(crate) fn in_unit(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange {
            field,
            value: v,
            range: "[0, 1]",
        })
    }
}

impl PrunerConfig {
    /// No pruning at all: dropping never engages, no deferring.
    pub fn off() -> Self {
        PrunerConfig {
            rule: None,
            drop_threshold: 0.0,
            defer_threshold: None,
            toggle: Toggle::Never(Never::Never),
            lambda: 1.0,
            schmitt: false,
            schmitt_off: 0.8,
            dynamic_weight: 0.0,
            fairness: 0.0,
            fairness_mode: FairnessMode::Literal,
            fairness_cap: 1.0,
            fairness_relief: ReliefScope::Both,
        }
    }

    /// The thesis' chapter-4 pruner: one threshold for dropping and deferring, a plain toggle
    /// (no history, no Schmitt trigger).
    pub fn thesis(threshold: f64, toggle: Toggle) -> Self {
        PrunerConfig {
            rule: None,
            drop_threshold: threshold,
            defer_threshold: Some(threshold),
            toggle,
            lambda: 1.0,
            schmitt: false,
            schmitt_off: 0.8,
            dynamic_weight: 0.0,
            fairness: 0.0,
            fairness_mode: FairnessMode::Literal,
            fairness_cap: 1.0,
            fairness_relief: ReliefScope::Both,
        }
    }

    /// Checks every value's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        in_unit("drop_threshold", self.drop_threshold)?;
        if let Some(d) = self.defer_threshold {
            in_unit("defer_threshold", d)?;
        }
        in_unit("lambda", self.lambda)?;
        in_unit("schmitt_off", self.schmitt_off)?;
        in_unit("fairness", self.fairness)?;
        in_unit("fairness_cap", self.fairness_cap)?;
        toggle_level(self.toggle)?;
        if !(self.dynamic_weight.is_finite() && self.dynamic_weight >= 0.0) {
            return Err(ConfigError::OutOfRange {
                field: "dynamic_weight",
                value: self.dynamic_weight,
                range: "[0, inf)",
            });
        }
        Ok(())
    }
}
