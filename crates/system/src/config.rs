//! A scheduler's settings ([`SchedulerConfig`]) and the same as a user writes them
//! ([`SchedulerSpec`]): a heuristic by
//! name (a base heuristic such as `PAM` or `auto`, or a variant such as `PAMF` or `MM-P`) or
//! as a full `[mapper]` table, the `[pruner]` table's keys, and the system's settings. Any
//! serde format reads it (a Python dict through the bindings, a TOML or JSON file of a
//! dispatcher's own); [`SchedulerSpec::resolve`] turns it into the [`SchedulerConfig`] that
//! runs, as an experiment's `[mapper]` and `[pruner]` tables resolve ([`crate::variants`]).

use std::fmt;

use heuristics::HeuristicConfig;
use pmf::DropModel;
use pruner::{PrunerConfig, PrunerTable};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A scheduler's settings (the live scheduler's): the same heuristic and pruner
/// configurations as an experiment's `[mapper]` and `[pruner]` tables. It reads from any
/// serde format as its [`SchedulerSpec`] does, resolved ([`SchedulerSpec::resolve`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerConfig {
    /// The mapping heuristic (`[mapper]`).
    pub heuristic: HeuristicConfig,
    /// The pruner (`[pruner]`).
    pub pruner: PrunerConfig,
    /// Tasks per machine queue, the executing one included (batch mode; immediate mode's
    /// queues are unbounded).
    pub queue_size: usize,
    /// Which tasks are dropped at their deadline.
    pub drop_model: DropModel,
    /// PCTs are trimmed within this total-variation distance; 0 = exact.
    pub pct_epsilon: f64,
    /// Seconds per tick, the PET's time unit: times are mapped to ticks by
    /// `floor(t / resolution)`, deadlines by `ceil(d / resolution)`.
    pub resolution: f64,
}

impl Default for SchedulerConfig {
    /// PAM with the paper's pruner, queues of 6, everything dropped at its deadline, exact
    /// PCTs, one tick per second.
    fn default() -> Self {
        SchedulerConfig {
            heuristic: HeuristicConfig::named("PAM"),
            pruner: PrunerConfig::default(),
            queue_size: 6,
            drop_model: DropModel::All,
            pct_epsilon: 0.0,
            resolution: 1.0,
        }
    }
}

impl<'de> Deserialize<'de> for SchedulerConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        SchedulerSpec::deserialize(d)?
            .resolve()
            .map_err(de::Error::custom)
    }
}

/// A heuristic as written: a name, or a `[mapper]` table with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum HeuristicSpec {
    /// A base heuristic or a variant, by name.
    Name(String),
    /// A full `[mapper]` table (`name` and the heuristic's parameters).
    Table(HeuristicConfig),
}

impl Default for HeuristicSpec {
    /// PAM, the papers' heuristic.
    fn default() -> Self {
        HeuristicSpec::Name("PAM".to_owned())
    }
}

impl<'de> Deserialize<'de> for HeuristicSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Spec;
        impl<'de> Visitor<'de> for Spec {
            type Value = HeuristicSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a heuristic's name or a [mapper] table")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<HeuristicSpec, E> {
                Ok(HeuristicSpec::Name(v.to_owned()))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<HeuristicSpec, M::Error> {
                HeuristicConfig::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(HeuristicSpec::Table)
            }
        }
        d.deserialize_any(Spec)
    }
}

/// The live scheduler's settings as written; every key has a default
/// ([`SchedulerConfig::default`]'s), and an unknown key is an error naming it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SchedulerSpec {
    /// The mapping heuristic: a name or a `[mapper]` table (default PAM).
    pub heuristic: HeuristicSpec,
    /// The `[pruner]` table's keys (a preset and overrides); absent: the heuristic's own.
    pub pruner: Option<PrunerTable>,
    /// Tasks per machine queue, the executing one included.
    pub queue_size: usize,
    /// Which tasks are dropped at their deadline: `"all"`, `"pending"` or `"none"`.
    pub drop_model: DropModel,
    /// PCTs trimmed within this total-variation distance; 0 = exact.
    pub pct_epsilon: f64,
    /// Seconds per tick, the PET's time unit.
    pub resolution: f64,
}

impl Default for SchedulerSpec {
    fn default() -> Self {
        let c = SchedulerConfig::default();
        SchedulerSpec {
            heuristic: HeuristicSpec::default(),
            pruner: None,
            queue_size: c.queue_size,
            drop_model: c.drop_model,
            pct_epsilon: c.pct_epsilon,
            resolution: c.resolution,
        }
    }
}

impl SchedulerSpec {
    /// The configuration that runs: the heuristic's name resolved to a base heuristic and
    /// its pruner ([`crate::variants::resolve`]), with the given pruner keys over it. The
    /// values are checked when the scheduler is built (the live scheduler's `new`).
    pub fn resolve(&self) -> Result<SchedulerConfig, crate::variants::VariantError> {
        let mapper = match &self.heuristic {
            HeuristicSpec::Name(name) => HeuristicConfig::named(name),
            HeuristicSpec::Table(table) => table.clone(),
        };
        let (heuristic, pruner) = crate::variants::resolve(&mapper, self.pruner.as_ref())?;
        Ok(SchedulerConfig {
            heuristic,
            pruner,
            queue_size: self.queue_size,
            drop_model: self.drop_model,
            pct_epsilon: self.pct_epsilon,
            resolution: self.resolution,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IntoDeserializer;
    use serde::de::value::{Error as ValueError, MapDeserializer};

    fn spec(pairs: Vec<(&'static str, &'static str)>) -> Result<SchedulerSpec, ValueError> {
        SchedulerSpec::deserialize(MapDeserializer::new(
            pairs.into_iter().map(|(k, v)| (k, v.into_deserializer())),
        ))
    }

    #[test]
    fn a_name_resolves_as_an_experiment_does() {
        let s = spec(vec![("heuristic", "PAMF"), ("drop_model", "pending")]).unwrap();
        assert_eq!(s.queue_size, 6);
        let c = s.resolve().unwrap();
        let (h, p) = crate::variants::resolve(&HeuristicConfig::named("PAMF"), None).unwrap();
        assert_eq!((&c.heuristic, &c.pruner), (&h, &p));
        assert_eq!(c.drop_model, DropModel::Pending);
        let pairs = [("heuristic", "PAMF"), ("drop_model", "pending")];
        let config = SchedulerConfig::deserialize(MapDeserializer::<_, ValueError>::new(
            pairs.into_iter().map(|(k, v)| (k, v.into_deserializer())),
        ))
        .unwrap();
        assert_eq!(config, c);
        assert_eq!(
            SchedulerSpec::default().resolve().unwrap(),
            SchedulerConfig::default()
        );
    }

    #[test]
    fn unknown_keys_and_names_are_errors_that_name_them() {
        let e = spec(vec![("heuristc", "PAM")]).unwrap_err().to_string();
        assert!(e.contains("heuristc"), "{e}");
        let config = spec(vec![("heuristic", "NOPE")])
            .unwrap()
            .resolve()
            .unwrap();
        let Err(e) = heuristics::build(&config.heuristic, config.drop_model) else {
            panic!("an unknown heuristic is accepted");
        };
        let e = e.to_string();
        assert!(e.contains("NOPE"), "{e}");
    }
}
