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
mod params;
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
pub use params::{Kind, Param, ParamValue, Params};
pub use plan::{Phase1, Phase1Scope, Phase2, Plan};
pub use registry::{
    DEFAULT_ALPHA, DEFAULT_EPSILON, Entry, HEURISTICS, KEYS, Mode, PARAMS, REGISTRY, RegisterError,
    VARIANT_NAMES, VARIANT_SUFFIXES, entries, is_immediate, parameters_of, register,
};

use std::collections::BTreeMap;

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

/// A heuristic and its parameters, as written in an experiment TOML (`[mapper]`): `name` and
/// any of the registry's parameters ([`PARAMS`]). A parameter left out takes the heuristic's
/// default; a parameter the heuristic does not use is an error
/// ([`HeuristicError::NotApplicable`]), never silently ignored; a key that is no parameter
/// is an error when the table is read.
#[derive(Debug, Clone, PartialEq)]
pub struct HeuristicConfig {
    /// The base heuristic's name (case-insensitive): auto (the recommended one), MM, MSD,
    /// MMU, MOC, PAM, EDF, SJF, FCFS, MET (MEET), MCT (MECT), KPB, MR.
    pub name: String,
    /// The parameters set, by key.
    params: BTreeMap<String, ParamValue>,
}

impl HeuristicConfig {
    /// A heuristic by name with default parameters.
    pub fn named(name: &str) -> Self {
        HeuristicConfig {
            name: name.to_string(),
            params: BTreeMap::new(),
        }
    }

    /// The configuration with the parameter `key` set to `value`.
    pub fn with(mut self, key: &str, value: impl Into<ParamValue>) -> Self {
        self.set(key, value);
        self
    }

    /// Sets the parameter `key` to `value`.
    pub fn set(&mut self, key: &str, value: impl Into<ParamValue>) {
        self.params.insert(key.to_owned(), value.into());
    }

    /// The value set for the parameter `key`; `None` when it is left out.
    pub fn get(&self, key: &str) -> Option<&ParamValue> {
        self.params.get(key)
    }

    /// The parameters set, in the registry's order ([`PARAMS`]; any other key after them,
    /// by name).
    pub fn params(&self) -> impl Iterator<Item = (&str, &ParamValue)> {
        let known = PARAMS
            .iter()
            .filter_map(|p| self.params.get_key_value(p.key));
        let others = self
            .params
            .iter()
            .filter(|(k, _)| params::find(PARAMS, k).is_none());
        known.chain(others).map(|(k, v)| (k.as_str(), v))
    }

    /// The configuration with every parameter the heuristic uses set to the value that runs
    /// (the given one, else its default for `model`), and the others absent; a parameter
    /// whose default the heuristic chooses (`depth`) stays absent when not given.
    pub fn with_defaults(&self, model: DropModel) -> HeuristicConfig {
        let uses = parameters_of(&self.name).unwrap_or(&[]);
        let mut out = HeuristicConfig::named(&self.name);
        for p in PARAMS.iter().filter(|p| uses.contains(&p.key)) {
            let value = self
                .get(p.key)
                .cloned()
                .or_else(|| p.value.map(|f| f(model)));
            if let Some(v) = value {
                out.params.insert(p.key.to_owned(), v);
            }
        }
        out
    }
}

impl Serialize for HeuristicConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1 + self.params.len()))?;
        map.serialize_entry("name", &self.name)?;
        for (k, v) in self.params() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for HeuristicConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{DeserializeSeed, Error, MapAccess, Visitor};

        /// A key of the table: `name` (`None`) or a parameter; any other key is an error
        /// raised where the key is read, so that it names the key's line.
        struct Key;
        impl<'de> DeserializeSeed<'de> for Key {
            type Value = Option<&'static Param>;
            fn deserialize<K: serde::Deserializer<'de>>(
                self,
                d: K,
            ) -> Result<Self::Value, K::Error> {
                let key = String::deserialize(d)?;
                if key == "name" {
                    return Ok(None);
                }
                params::find(PARAMS, &key)
                    .map(Some)
                    .ok_or_else(|| K::Error::unknown_field(&key, &KEYS))
            }
        }

        /// A parameter's value, of its form ([`Param::accepts`]) or an error at its line.
        struct Value(&'static Param);
        impl<'de> DeserializeSeed<'de> for Value {
            type Value = ParamValue;
            fn deserialize<V: serde::Deserializer<'de>>(
                self,
                d: V,
            ) -> Result<ParamValue, V::Error> {
                let value = ParamValue::deserialize(d)?;
                self.0.accepts(&value).map_err(V::Error::custom)?;
                Ok(value)
            }
        }

        struct Table;
        impl<'de> Visitor<'de> for Table {
            type Value = HeuristicConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a [mapper] table: name and the heuristic's parameters")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HeuristicConfig, A::Error> {
                let mut name: Option<String> = None;
                let mut params = BTreeMap::new();
                while let Some(key) = map.next_key_seed(Key)? {
                    match key {
                        None if name.is_some() => return Err(A::Error::duplicate_field("name")),
                        None => name = Some(map.next_value()?),
                        Some(param) => {
                            let value = map.next_value_seed(Value(param))?;
                            if params.insert(param.key.to_owned(), value).is_some() {
                                return Err(A::Error::duplicate_field(param.key));
                            }
                        }
                    }
                }
                let name = name.ok_or_else(|| A::Error::missing_field("name"))?;
                Ok(HeuristicConfig { name, params })
            }
        }
        d.deserialize_struct("HeuristicConfig", &KEYS, Table)
    }
}

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
        param: String,
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
    /// A parameter set to a value of the wrong form (a word for a number, a fraction for a
    /// count: [`HeuristicConfig::set`] takes any value; a table read from a file is checked
    /// when it is read).
    #[error("heuristic {heuristic}: parameter {reason}")]
    WrongForm {
        /// The heuristic.
        heuristic: String,
        /// What was expected and found, naming the parameter.
        reason: String,
    },
}

/// Builds the heuristic a config names. `model` picks KPB's and MR's default `k`.
pub fn build(config: &HeuristicConfig, model: DropModel) -> Result<Mapper, HeuristicError> {
    let name = config.name.to_ascii_uppercase();
    let entry =
        registry::lookup(&name).ok_or_else(|| HeuristicError::Unknown(config.name.clone()))?;
    let uses = entry.parameters;
    if let Some((key, _)) = config.params().find(|(k, _)| !uses.contains(k)) {
        return Err(HeuristicError::NotApplicable {
            heuristic: config.name.clone(),
            param: key.to_owned(),
            uses,
        });
    }
    let params = Params::resolve(&name, config, uses, model)?;
    Ok((entry.build)(&params))
}
