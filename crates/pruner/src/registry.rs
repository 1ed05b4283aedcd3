//! The pruning rules a `[pruner]` table can name (`rule = "NAME"`): the papers' probabilistic
//! pruner ([`PROBABILISTIC`], configured by the table's other keys, and the default), and the
//! rules registered while the program runs ([`register`]: a policy crate's own pruner, built
//! by its constructor for each trial). [`build`] makes the pruner a resolved configuration
//! names.

use std::sync::{PoisonError, RwLock};

use crate::{ConfigError, ProbabilisticPruner, PrunerConfig};

/// The papers' pruner's name as a rule: `rule = "probabilistic"` is the same as no `rule`.
pub const PROBABILISTIC: &str = "probabilistic";

/// A pruning rule of one's own.
#[derive(Clone, Copy)]
pub struct Rule {
    /// The name a `[pruner]` table gives it (`rule = "..."`, any case).
    pub name: &'static str,
    /// A one-line description (`prunesim list`).
    pub description: &'static str,
    /// Its constructor, for a system of `task_types` task types; called once per trial.
    pub build: fn(task_types: usize) -> Box<dyn model::Pruner>,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("name", &self.name).finish()
    }
}

/// The rules registered while the program runs ([`register`]).
static REGISTERED: RwLock<Vec<&'static Rule>> = RwLock::new(Vec::new());

/// Why [`register`] refused a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name is taken (any case).
    #[error("pruning rule '{0}': the name is taken; choose another")]
    Taken(String),
    /// The name cannot be written in a `[pruner]` table.
    #[error(
        "pruning rule '{0}': a name is 1 to 40 letters, digits, '-', '_' or '.', and starts with a letter"
    )]
    BadName(String),
}

/// Adds a pruning rule of one's own for the rest of the program: a `[pruner]` table with
/// `rule = "NAME"` then runs it (in `prunesim run`, sweeps, Python's `run`), built afresh by
/// `rule.build` for every trial. Refused, with nothing registered: a name taken (any case;
/// [`PROBABILISTIC`] is), or one a table cannot carry.
///
/// ```
/// use pruner::registry::{self, Rule};
///
/// registry::register(Rule {
///     name: "never",
///     description: "drops nothing, defers nothing",
///     build: |_types| Box::new(model::NoPruner),
/// })
/// .unwrap();
/// assert!(registry::find("Never").is_some());
/// assert!(registry::register(Rule { name: "probabilistic", ..*registry::find("never").unwrap() }).is_err());
/// ```
pub fn register(rule: Rule) -> Result<(), RegisterError> {
    let name = rule.name;
    let ok_name = !name.is_empty()
        && name.len() <= 40
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok_name {
        return Err(RegisterError::BadName(name.to_owned()));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(PoisonError::into_inner);
    if name.eq_ignore_ascii_case(PROBABILISTIC)
        || registered.iter().any(|r| r.name.eq_ignore_ascii_case(name))
    {
        return Err(RegisterError::Taken(name.to_owned()));
    }
    registered.push(Box::leak(Box::new(rule)));
    Ok(())
}

/// The registered rule called `name` (any case); `None` for [`PROBABILISTIC`] or an unknown
/// name.
pub fn find(name: &str) -> Option<&'static Rule> {
    REGISTERED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .copied()
        .find(|r| r.name.eq_ignore_ascii_case(name))
}

/// The rules registered, in their order.
pub fn rules() -> Vec<&'static Rule> {
    REGISTERED
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// The rules a table may name, for an error message.
pub(crate) fn known() -> String {
    std::iter::once(PROBABILISTIC.to_owned())
        .chain(rules().iter().map(|r| r.name.to_owned()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The pruner `config` describes for a system of `task_types` task types: its rule's
/// ([`PrunerConfig::rule`]), else the papers' ([`ProbabilisticPruner`]).
///
/// # Errors
/// A rule no longer registered (a configuration read by another program), or what
/// [`ProbabilisticPruner::new`] refuses.
pub fn build(
    config: &PrunerConfig,
    task_types: usize,
) -> Result<Box<dyn model::Pruner>, ConfigError> {
    match config.rule.as_deref() {
        Some(name) => {
            let rule = find(name).ok_or_else(|| ConfigError::UnknownRule {
                name: name.to_owned(),
                known: known(),
            })?;
            Ok((rule.build)(task_types))
        }
        None => Ok(Box::new(ProbabilisticPruner::new(
            config.clone(),
            task_types,
        )?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PrunerTable, Toggle};

    fn rule(name: &'static str) -> Rule {
        Rule {
            name,
            description: "a test's own",
            build: |_| Box::new(model::NoPruner),
        }
    }

    fn table(text: &str) -> Result<PrunerConfig, String> {
        let t: PrunerTable = toml::from_str(text).map_err(|e| e.to_string())?;
        t.resolve().map_err(|e| e.to_string())
    }

    #[test]
    fn a_table_naming_a_registered_rule_resolves_to_it_and_builds_it() {
        register(rule("test-floor")).unwrap();
        let c = table("rule = \"Test-Floor\"").unwrap();
        assert_eq!(
            c.rule.as_deref(),
            Some("test-floor"),
            "the registered spelling"
        );
        assert_eq!(c.toggle, Toggle::Never(crate::Never::Never));
        let built = build(&c, 3).unwrap();
        assert_eq!(
            built.name(),
            model::Pruner::name(&model::NoPruner),
            "its constructor ran"
        );
        // Written back, the table names the rule alone, and reads back the same.
        let back = PrunerTable::explicit(&c);
        assert_eq!(back.rule.as_deref(), Some("test-floor"));
        assert_eq!(back.resolve().unwrap(), c);
        // The papers' pruner by its name is the table without a rule.
        let paper = table("rule = \"probabilistic\"\npreset = \"paper\"").unwrap();
        assert_eq!(paper, PrunerConfig::default());
        assert!(build(&paper, 3).unwrap().name().contains("drop_threshold"));
        assert!(rules().iter().any(|r| r.name == "test-floor"));
    }

    #[test]
    fn a_rule_unknown_or_with_a_key_of_the_papers_pruner_or_a_name_taken_is_refused() {
        register(rule("test-other")).unwrap();
        let e = table("rule = \"nope\"").unwrap_err();
        assert!(
            e.contains("rule 'nope' is not registered (known: probabilistic, ")
                && e.contains("test-other"),
            "{e}"
        );
        let e = table("rule = \"test-other\"\nschmitt = true").unwrap_err();
        assert!(e.contains("'schmitt' has no effect"), "{e}");
        let e = table("rule = \"test-other\"\npreset = \"paper\"").unwrap_err();
        assert!(e.contains("'preset' has no effect"), "{e}");
        for (name, says) in [
            ("Probabilistic", "taken"),
            ("TEST-OTHER", "taken"),
            ("", "a name is"),
            ("a b", "a name is"),
        ] {
            let e = register(rule(name)).unwrap_err().to_string();
            assert!(e.contains(says), "{name:?}: {e}");
        }
        // A configuration naming a rule this program did not register.
        let c = PrunerConfig {
            rule: Some("gone".into()),
            ..PrunerConfig::off()
        };
        assert!(matches!(build(&c, 2), Err(ConfigError::UnknownRule { .. })));
        assert!(crate::ProbabilisticPruner::new(c, 2).is_err());
    }
}
