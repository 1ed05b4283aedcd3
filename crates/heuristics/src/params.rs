//! The `[mapper]` parameters: a parameter's schema ([`Param`]: its TOML name, its kind, its
//! default and its entry of the configuration reference), a value as written
//! ([`ParamValue`]), and the values a heuristic is built with ([`Params`]: given or default,
//! checked). The parameters themselves, and which heuristic uses which, are the registry's
//! ([`crate::PARAMS`], [`crate::REGISTRY`]): a new parameter is a [`Param`] there and the
//! heuristic that reads it.

use std::cell::RefCell;
use std::collections::BTreeMap;

use pmf::DropModel;
use serde::{Deserialize, Serialize};

use crate::{HeuristicConfig, HeuristicError, Phase1Scope};

/// A parameter's value as written in a `[mapper]` table: a whole number, a number or a word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// A whole number (`depth = 3`; also a share written `k = 1`).
    Integer(i64),
    /// A number (`alpha = 0.3`).
    Number(f64),
    /// A word (`phase1 = "free_machines"`).
    Word(String),
}

impl From<f64> for ParamValue {
    fn from(x: f64) -> Self {
        ParamValue::Number(x)
    }
}

impl From<usize> for ParamValue {
    fn from(n: usize) -> Self {
        ParamValue::Integer(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

impl From<Phase1Scope> for ParamValue {
    fn from(s: Phase1Scope) -> Self {
        ParamValue::Word(s.word().to_owned())
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Integer(n) => write!(f, "{n}"),
            ParamValue::Number(x) => write!(f, "{x}"),
            ParamValue::Word(w) => write!(f, "{w}"),
        }
    }
}

impl ParamValue {
    /// The value as a number (a whole number read as one); `None` for a word.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            ParamValue::Integer(n) => Some(n as f64),
            ParamValue::Number(x) => Some(x),
            ParamValue::Word(_) => None,
        }
    }
}

/// What a parameter holds, and the values it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A share: a number in `[0, 1]`, or in `(0, 1]` when `open` (zero excluded).
    Share {
        /// Zero excluded.
        open: bool,
    },
    /// A whole number of at least `min`.
    Count {
        /// The least value.
        min: i64,
    },
    /// Phase 1's scope: a word of [`Phase1Scope`].
    Scope,
}

/// One `[mapper]` parameter: its TOML name, kind and default, and its entry of the
/// configuration reference (`prunesim config-reference`), which the reference shows as it
/// is written here.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The key as written in TOML.
    pub key: &'static str,
    /// What it holds and accepts.
    pub kind: Kind,
    /// Its default under a drop model; `None` when the heuristic chooses (then the
    /// configuration leaves it out, and [`Param::default`] says what is used).
    pub value: Option<fn(DropModel) -> ParamValue>,
    /// The reference: its TOML type.
    pub ty: &'static str,
    /// The reference: what a file without the key gets.
    pub default: &'static str,
    /// The reference: the unit of a number ("" when it has none).
    pub unit: &'static str,
    /// The reference: the values accepted, as the reference and the errors say them.
    pub allowed: &'static str,
    /// The reference: the papers' name for it, and where ("" when they have none).
    pub paper: &'static str,
    /// The reference: what it does, and for which heuristics.
    pub meaning: &'static str,
    /// The reference: TOML lines of a `[mapper]` table that use it (each parses: a test).
    pub example: &'static str,
    /// The reference: the default as a TOML value, when writing it gives the same
    /// configuration as leaving the key out ("" when the default depends on other keys).
    pub default_toml: &'static str,
}

impl Param {
    /// Whether `value`'s form is this parameter's (a number for a share, a whole number for
    /// a count, a word of [`Phase1Scope`] for the scope); the range is checked at build.
    pub(crate) fn accepts(&self, value: &ParamValue) -> Result<(), String> {
        match (self.kind, value) {
            (Kind::Share { .. }, ParamValue::Integer(_) | ParamValue::Number(_))
            | (Kind::Count { .. }, ParamValue::Integer(_)) => Ok(()),
            (Kind::Scope, ParamValue::Word(w)) if Phase1Scope::from_word(w).is_some() => Ok(()),
            (Kind::Scope, v) => Err(format!(
                "{}: expected one of {}, found {v}",
                self.key, self.allowed
            )),
            (_, v) => {
                let article = if self.ty.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                Err(format!(
                    "{}: expected {article} {} ({}), found {v}",
                    self.key, self.ty, self.allowed
                ))
            }
        }
    }

    /// `value` checked against the range ([`HeuristicError::OutOfRange`] naming `heuristic`).
    fn in_range(&self, heuristic: &str, value: &ParamValue) -> Result<(), HeuristicError> {
        let out = |v: f64| HeuristicError::OutOfRange {
            heuristic: heuristic.to_owned(),
            param: self.key,
            value: v,
            range: self.allowed,
        };
        match (self.kind, value.as_f64()) {
            (Kind::Share { open }, Some(v)) => {
                let ok = v.is_finite() && v <= 1.0 && if open { v > 0.0 } else { v >= 0.0 };
                if ok { Ok(()) } else { Err(out(v)) }
            }
            (Kind::Count { min }, Some(v)) => {
                if v >= min as f64 {
                    Ok(())
                } else {
                    Err(out(v))
                }
            }
            _ => Ok(()),
        }
    }
}

/// The parameter of `params` called `key`.
pub(crate) fn find<'p>(params: &'p [Param], key: &str) -> Option<&'p Param> {
    params.iter().find(|p| p.key == key)
}

/// The values a heuristic is built with: every parameter of the registry, given or default,
/// checked against its kind and range. A registry entry reads those it declares.
pub struct Params {
    values: BTreeMap<&'static str, ParamValue>,
    /// The parameters read that hold no value (none in a consistent registry: a test).
    missed: RefCell<Vec<&'static str>>,
}

impl Params {
    /// The values of `config` for the heuristic `name` (as the errors name it) under `model`:
    /// each parameter of `params` given, else its default; the given ones in range.
    pub(crate) fn resolve(
        name: &str,
        config: &HeuristicConfig,
        uses: &[&str],
        model: DropModel,
    ) -> Result<Params, HeuristicError> {
        let mut values = BTreeMap::new();
        for p in crate::PARAMS.iter().filter(|p| uses.contains(&p.key)) {
            let value = match config.get(p.key) {
                Some(v) => Some(v.clone()),
                None => p.value.map(|f| f(model)),
            };
            if let Some(v) = value {
                p.accepts(&v).map_err(|reason| HeuristicError::WrongForm {
                    heuristic: name.to_owned(),
                    reason,
                })?;
                p.in_range(name, &v)?;
                values.insert(p.key, v);
            }
        }
        Ok(Params {
            values,
            missed: RefCell::new(Vec::new()),
        })
    }

    fn read(&self, key: &'static str) -> Option<&ParamValue> {
        let v = self.values.get(key);
        if v.is_none() {
            self.missed.borrow_mut().push(key);
        }
        v
    }

    /// A share or number parameter's value (NaN when it holds none, which a consistent
    /// registry never reads: [`Params::missed`]).
    pub fn number(&self, key: &'static str) -> f64 {
        self.read(key)
            .and_then(ParamValue::as_f64)
            .unwrap_or(f64::NAN)
    }

    /// A count parameter's value; `None` when it is left to the heuristic.
    pub fn count(&self, key: &'static str) -> Option<usize> {
        match self.values.get(key) {
            Some(ParamValue::Integer(n)) => usize::try_from(*n).ok(),
            _ => None,
        }
    }

    /// Phase 1's scope (`phase1`): the value given, else the default.
    pub fn scope(&self) -> Phase1Scope {
        match self.read("phase1") {
            Some(ParamValue::Word(w)) => Phase1Scope::from_word(w).unwrap_or_default(),
            _ => Phase1Scope::default(),
        }
    }

    /// The parameters read that held no value.
    pub fn missed(&self) -> Vec<&'static str> {
        self.missed.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{REGISTRY, build};

    fn read(text: &str) -> Result<HeuristicConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_reads_and_writes_its_parameters_in_the_registrys_order() {
        let c = read("k = 0.4\nname = \"MR\"\nepsilon = 0.1\n").unwrap();
        assert_eq!(c.get("k"), Some(&ParamValue::Number(0.4)));
        assert_eq!(c.get("alpha"), None);
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"name":"MR","epsilon":0.1,"k":0.4}"#
        );
        let back: HeuristicConfig =
            serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        // A share written as a whole number is that share.
        let c = read("name = \"KPB\"\nk = 1\n").unwrap();
        assert!(build(&c, DropModel::All).is_ok());
    }

    #[test]
    fn a_key_or_a_value_of_the_wrong_form_is_refused_when_read() {
        let e = read("name = \"MOC\"\nalpah = 0.3\n").unwrap_err();
        assert!(e.contains("unknown field `alpah`"), "{e}");
        assert!(e.contains("line 2, column 1"), "at the key: {e}");
        let at = read("name = \"auto\"\n\ndepth = 0.5\n").unwrap_err();
        assert!(at.contains("line 3, column 9"), "at the value: {at}");
        assert!(e.contains("alpha"), "the keys listed: {e}");
        let e = read("name = \"auto\"\ndepth = 2.5\n").unwrap_err();
        assert!(
            e.contains("depth: expected an integer (>= 1), found 2.5"),
            "{e}"
        );
        let e = read("name = \"MOC\"\nalpha = \"high\"\n").unwrap_err();
        assert!(
            e.contains("alpha: expected a number ([0, 1]), found high"),
            "{e}"
        );
        let e = read("name = \"MM\"\nphase1 = \"some\"\n").unwrap_err();
        assert!(e.contains("\"all_machines\", \"free_machines\""), "{e}");
        let e = read("alpha = 0.3\n").unwrap_err();
        assert!(e.contains("missing field `name`"), "{e}");
    }

    #[test]
    fn a_value_out_of_its_range_or_a_parameter_not_used_is_refused_at_build() {
        let moc = HeuristicConfig::named("MOC").with("alpha", 1.5);
        let e = build(&moc, DropModel::All).unwrap_err();
        assert_eq!(
            e.to_string(),
            "heuristic MOC: parameter 'alpha' = 1.5 is outside [0, 1]"
        );
        let auto = HeuristicConfig::named("auto").with("depth", 0usize);
        let e = build(&auto, DropModel::All).unwrap_err();
        assert!(e.to_string().contains("'depth' = 0 is outside >= 1"), "{e}");
        let kpb = HeuristicConfig::named("KPB").with("k", 0.0);
        assert!(build(&kpb, DropModel::All).is_err(), "k excludes 0");
        // A value set in code is checked for its form too.
        let moc = HeuristicConfig::named("MOC").with("alpha", ParamValue::Word("high".into()));
        let e = build(&moc, DropModel::All).unwrap_err();
        assert_eq!(
            e.to_string(),
            "heuristic MOC: parameter alpha: expected a number ([0, 1]), found high"
        );
        let auto = HeuristicConfig::named("auto").with("depth", 2.5);
        assert!(matches!(
            build(&auto, DropModel::All),
            Err(HeuristicError::WrongForm { .. })
        ));
        let mm = HeuristicConfig::named("MM").with("depth", 3usize);
        let e = build(&mm, DropModel::All).unwrap_err();
        assert!(e.to_string().contains("depth does not apply to MM"), "{e}");
    }

    #[test]
    fn defaults_fill_what_runs_and_leave_what_the_heuristic_chooses() {
        let kpb = HeuristicConfig::named("KPB");
        assert_eq!(
            kpb.with_defaults(DropModel::All).get("k"),
            Some(&ParamValue::Number(0.62))
        );
        assert_eq!(
            kpb.with_defaults(DropModel::Pending).get("k"),
            Some(&ParamValue::Number(0.5))
        );
        let auto = HeuristicConfig::named("auto").with_defaults(DropModel::All);
        assert_eq!(
            auto.get("phase1"),
            Some(&ParamValue::Word("all_machines".into()))
        );
        assert_eq!(auto.get("depth"), None, "auto chooses its depth");
        assert_eq!(auto.get("alpha"), None, "auto does not use alpha");
    }

    #[test]
    fn every_heuristic_declares_known_parameters_and_reads_only_those() {
        for e in REGISTRY {
            for key in e.parameters {
                assert!(find(crate::PARAMS, key).is_some(), "{}: {key}", e.name);
            }
            for model in [DropModel::All, DropModel::Pending] {
                let config = HeuristicConfig::named(e.name);
                let params = Params::resolve(e.name, &config, e.parameters, model).unwrap();
                let _ = (e.build)(&params);
                assert_eq!(params.missed(), Vec::<&str>::new(), "{}", e.name);
            }
        }
        for (i, p) in crate::PARAMS.iter().enumerate() {
            assert_eq!(crate::KEYS[i + 1], p.key);
        }
    }
}
