//! The registry of base heuristics and their `[mapper]` parameters: one entry per heuristic
//! with its name and aliases, its mode (batch or immediate), the parameters it uses, a
//! one-line description and its constructor; one [`Param`] per parameter with its kind,
//! default and reference text. Name lookup, the parameter lists, the configuration's keys,
//! the configuration reference, the mode and [`HEURISTICS`] all read it.

use std::sync::{PoisonError, RwLock};

use pmf::DropModel;

use crate::params::{Kind, Param, ParamValue, Params};
use crate::{Auto, Fcfs, Kpb, Mapper, MaxRobust, Mct, Met, Moc, Phase1Scope, TwoPhase};

/// How a heuristic maps: batches at mapping events, or each task as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Maps batches into bounded queues at every mapping event (thesis 3.3.1).
    Batch,
    /// Maps each arriving task at once into unbounded queues (thesis 3.3.2).
    Immediate,
}

/// MOC's default culling threshold `alpha` (JPDC-2016 6.2.5).
pub const DEFAULT_ALPHA: f64 = 0.2;

/// MOC's and MR's default near-best width `epsilon`.
pub const DEFAULT_EPSILON: f64 = 0.05;

/// Every `[mapper]` parameter, in the order configurations list them.
pub const PARAMS: &[Param] = &[
    Param {
        key: "phase1",
        kind: Kind::Scope,
        value: Some(|_| ParamValue::Word(Phase1Scope::AllMachines.word().to_owned())),
        ty: "string",
        default: "\"all_machines\"",
        unit: "",
        allowed: "\"all_machines\", \"free_machines\"",
        paper: "phase 1 of the two-phase heuristics (JPDC 2016, 6.2.2; thesis Algorithm 2)",
        meaning: "batch heuristics: may phase 1 choose a full machine (the task then waits for it) or only machines with a free slot",
        example: "phase1 = \"free_machines\"",
        default_toml: "",
    },
    Param {
        key: "alpha",
        kind: Kind::Share { open: false },
        value: Some(|_| ParamValue::Number(DEFAULT_ALPHA)),
        ty: "number",
        default: "0.2",
        unit: "",
        allowed: "[0, 1]",
        paper: "MOC's culling threshold (JPDC 2016, 6.2.5: 0.2; the thesis' figures: 0.3)",
        meaning: "MOC, MOCA: pending tasks below this chance are culled",
        example: "name = \"MOC\"\nalpha = 0.3",
        default_toml: "",
    },
    Param {
        key: "epsilon",
        kind: Kind::Share { open: false },
        value: Some(|_| ParamValue::Number(DEFAULT_EPSILON)),
        ty: "number",
        default: "0.05",
        unit: "",
        allowed: "[0, 1]",
        paper: "epsilon, the near-best width (JPDC 2016, 6.1.4 and 6.2.5)",
        meaning: "MOC, MR: candidates within this of the best chance count as near-best",
        example: "name = \"MR\"\nepsilon = 0.1",
        default_toml: "",
    },
    Param {
        key: "k",
        kind: Kind::Share { open: true },
        value: Some(|model| ParamValue::Number(if model == DropModel::All { 0.62 } else { 0.5 })),
        ty: "number",
        default: "0.62 when the executing task may be dropped (`drop_model = \"all\"`), else 0.5",
        unit: "",
        allowed: "(0, 1]",
        paper: "k, the share of machines (JPDC 2016, 6.1.3)",
        meaning: "KPB, MR: the share of machines considered",
        example: "name = \"KPB\"\nk = 0.5",
        default_toml: "",
    },
    Param {
        key: "depth",
        kind: Kind::Count { min: 1 },
        value: None,
        ty: "integer",
        default: "2; with [staging], the queue size",
        unit: "tasks",
        allowed: ">= 1",
        paper: "",
        meaning: "auto, lookahead: the most tasks, the executing one included, committed to a machine's queue (at most `[system] queue_size`); the rest wait in the batch queue for a later mapping event (lookahead plans them into the queues up to `queue_size` first)",
        example: "name = \"auto\"\ndepth = 3",
        default_toml: "",
    },
];

/// The keys of a `[mapper]` table: `name` and every parameter's ([`PARAMS`]).
pub const KEYS: [&str; 1 + PARAMS.len()] = {
    let mut out = ["name"; 1 + PARAMS.len()];
    let mut i = 0;
    while i < PARAMS.len() {
        out[i + 1] = PARAMS[i].key;
        i += 1;
    }
    out
};

/// One base heuristic.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Its name as listed.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// Batch or immediate mode.
    pub mode: Mode,
    /// The `[mapper]` parameters it uses, by their TOML names ([`PARAMS`]).
    pub parameters: &'static [&'static str],
    /// A one-line description.
    pub description: &'static str,
    /// Its constructor, from the values of its parameters.
    pub build: fn(&Params) -> Mapper,
}

impl Entry {
    /// True when `name` (any case) is this heuristic's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
}

/// Every base heuristic, in the order they are listed.
pub const REGISTRY: &[Entry] = &[
    Entry {
        name: "auto",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1", "depth"],
        description: "batch, recommended: MM's two phases with the paper's pruner, committing at most `depth` tasks (default 2) to a machine; a machine that would stay idle takes a deferred task",
        build: |p| Mapper::Batch(Box::new(Auto::new(p.scope(), p.count("depth")))),
    },
    Entry {
        name: "lookahead",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1", "depth"],
        description: "batch: auto with PAM's two phases, planned to the queue size and committing at most `depth` tasks (default 2) to a machine; for one machine type fastest for everything and narrow times",
        build: |p| Mapper::Batch(Box::new(Auto::lookahead(p.scope(), p.count("depth")))),
    },
    Entry {
        name: "MM",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-MinCompletion on expected completion times",
        build: |p| Mapper::Batch(Box::new(TwoPhase::mm(p.scope()))),
    },
    Entry {
        name: "MSD",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-SoonestDeadline, ties by minimum expected completion",
        build: |p| Mapper::Batch(Box::new(TwoPhase::msd(p.scope()))),
    },
    Entry {
        name: "MMU",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-MaxUrgency, U = 1/(deadline - E[C])",
        build: |p| Mapper::Batch(Box::new(TwoPhase::mmu(p.scope()))),
    },
    Entry {
        name: "MOC",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1", "alpha", "epsilon"],
        description: "batch: Max On-time Completions (JPDC-2016): cull < alpha, best-robustness machine, epsilon shortlist, min completion",
        build: |p| {
            Mapper::Batch(Box::new(Moc::new(
                p.number("alpha"),
                p.number("epsilon"),
                p.scope(),
            )))
        },
    },
    Entry {
        name: "PAM",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: Pruning-Aware Mapper: best-robustness machine, defer at the pruner's threshold, min completion",
        build: |p| Mapper::Batch(Box::new(TwoPhase::pam(p.scope()))),
    },
    Entry {
        name: "EDF",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch, homogeneous: Earliest Deadline First (as MSD)",
        build: |p| Mapper::Batch(Box::new(TwoPhase::edf(p.scope()))),
    },
    Entry {
        name: "SJF",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch, homogeneous: Shortest Job First on completion time (as MM)",
        build: |p| Mapper::Batch(Box::new(TwoPhase::sjf(p.scope()))),
    },
    Entry {
        name: "FCFS",
        aliases: &[],
        mode: Mode::Immediate,
        parameters: &[],
        description: "immediate: first idle machine, else the one expected to free first",
        build: |_| Mapper::Immediate(Box::new(Fcfs)),
    },
    Entry {
        name: "MET",
        aliases: &["MEET"],
        mode: Mode::Immediate,
        parameters: &[],
        description: "immediate: minimum expected execution time (MEET)",
        build: |_| Mapper::Immediate(Box::new(Met)),
    },
    Entry {
        name: "MCT",
        aliases: &["MECT"],
        mode: Mode::Immediate,
        parameters: &[],
        description: "immediate: minimum expected completion time (MECT)",
        build: |_| Mapper::Immediate(Box::new(Mct)),
    },
    Entry {
        name: "KPB",
        aliases: &[],
        mode: Mode::Immediate,
        parameters: &["k"],
        description: "immediate: MCT among the k% machines with the best expected execution time",
        build: |p| Mapper::Immediate(Box::new(Kpb { k: p.number("k") })),
    },
    Entry {
        name: "MR",
        aliases: &[],
        mode: Mode::Immediate,
        parameters: &["k", "epsilon"],
        description: "immediate: MaxRobust: highest success among the k% best, near-ties by smallest variance",
        build: |p| {
            Mapper::Immediate(Box::new(MaxRobust {
                k: p.number("k"),
                epsilon: p.number("epsilon"),
            }))
        },
    },
];

/// Every base heuristic with its one-line description ([`REGISTRY`]'s names and
/// descriptions).
pub const HEURISTICS: &[(&str, &str)] = &{
    let mut out = [("", ""); REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        out[i] = (REGISTRY[i].name, REGISTRY[i].description);
        i += 1;
    }
    out
};

/// Names the heuristic registry cannot give a heuristic of one's own: the variant names,
/// which resolve to a built-in heuristic with a pruner (`system::variants`).
pub const VARIANT_NAMES: [&str; 5] = ["PAMF", "PAMF-R", "PUM", "PAMND", "MOCA"];

/// The suffixes that make a variant of any heuristic (`-D` deferring, `-Drop` dropping, `-P`
/// both, `system::variants`): a name of one's own cannot end with one.
pub const VARIANT_SUFFIXES: [&str; 3] = ["-D", "-DROP", "-P"];

/// The heuristics registered while the program runs ([`register`]), after [`REGISTRY`]'s.
static REGISTERED: RwLock<Vec<&'static Entry>> = RwLock::new(Vec::new());

/// Why [`register`] refused an entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name (or an alias) is taken, by a built-in heuristic, a variant or an entry
    /// registered before.
    #[error("heuristic '{name}': the name is taken by {by}; choose another")]
    Taken {
        /// The name or alias.
        name: String,
        /// What has it.
        by: String,
    },
    /// The name (or an alias) cannot be written in a `[mapper]` table or on a command line.
    #[error(
        "heuristic '{name}': {why} (a name is 1 to 40 letters, digits, '-', '_' or '.', and starts with a letter)"
    )]
    BadName {
        /// The name or alias.
        name: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A parameter the registry does not know ([`PARAMS`]).
    #[error("heuristic '{name}': parameter '{param}' is not one of the registry's ({known})")]
    UnknownParameter {
        /// The heuristic.
        name: String,
        /// The parameter.
        param: String,
        /// The keys known.
        known: String,
    },
}

/// Adds a heuristic of one's own to the registry for the rest of the program: every tool
/// that takes a heuristic by name (`[mapper] name`, `prunesim run --heuristic`, sweeps,
/// variants such as `NAME-P`) then finds it beside the built-in ones. The entry's
/// `parameters` are keys of [`PARAMS`] (a `[mapper]` table may set those, checked as for a
/// built-in heuristic). Refused, with nothing registered: a name or alias already taken
/// (any case, built-in, variant or registered), one that ends with a variant suffix
/// (`-D`, `-Drop`, `-P`), or one that a table or command line cannot carry.
///
/// ```
/// use heuristics::{Entry, Mapper, Mode, TwoPhase, Phase1Scope};
///
/// heuristics::register(Entry {
///     name: "MM-free",
///     aliases: &[],
///     mode: Mode::Batch,
///     parameters: &[],
///     description: "MM, phase 1 on free machines only",
///     build: |_| Mapper::Batch(Box::new(TwoPhase::mm(Phase1Scope::FreeMachines))),
/// })
/// .unwrap();
/// assert!(heuristics::parameters_of("mm-free").is_some());
/// assert!(heuristics::register(Entry { name: "mm", ..heuristics::REGISTRY[2] }).is_err());
/// ```
pub fn register(entry: Entry) -> Result<(), RegisterError> {
    for p in entry.parameters {
        if crate::params::find(PARAMS, p).is_none() {
            return Err(RegisterError::UnknownParameter {
                name: entry.name.to_owned(),
                param: (*p).to_owned(),
                known: KEYS[1..].join(", "),
            });
        }
    }
    let mut registered = REGISTERED.write().unwrap_or_else(PoisonError::into_inner);
    for name in std::iter::once(entry.name).chain(entry.aliases.iter().copied()) {
        check_name(name)?;
        let taken = |by: String| RegisterError::Taken {
            name: name.to_owned(),
            by,
        };
        if let Some(e) = REGISTRY
            .iter()
            .chain(registered.iter().copied())
            .find(|e| e.answers_to(name))
        {
            return Err(taken(format!("the heuristic {}", e.name)));
        }
        let upper = name.to_ascii_uppercase();
        if VARIANT_NAMES.contains(&upper.as_str()) {
            return Err(taken("a variant (`prunesim list`)".to_owned()));
        }
    }
    registered.push(Box::leak(Box::new(entry)));
    Ok(())
}

/// Whether `name` can name a heuristic of one's own.
fn check_name(name: &str) -> Result<(), RegisterError> {
    let bad = |why| {
        Err(RegisterError::BadName {
            name: name.to_owned(),
            why,
        })
    };
    let upper = name.to_ascii_uppercase();
    if name.is_empty() || name.len() > 40 {
        bad("empty or longer than 40 characters")
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        bad("it does not start with a letter")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        bad("it holds a character other than a letter, a digit, '-', '_' or '.'")
    } else if VARIANT_SUFFIXES.iter().any(|s| upper.ends_with(s)) {
        bad(
            "it ends with a variant suffix (-D, -Drop or -P), which names the heuristic before it with a pruner",
        )
    } else {
        Ok(())
    }
}

/// Every heuristic: [`REGISTRY`]'s, then those registered ([`register`]) in their order.
pub fn entries() -> Vec<&'static Entry> {
    let registered = REGISTERED.read().unwrap_or_else(PoisonError::into_inner);
    REGISTRY.iter().chain(registered.iter().copied()).collect()
}

/// The entry of the heuristic called `name` (any case, or an alias); `None` for an unknown
/// name.
pub(crate) fn lookup(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.answers_to(name)).or_else(|| {
        REGISTERED
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .copied()
            .find(|e| e.answers_to(name))
    })
}

/// The `[mapper]` parameters a base heuristic uses; `None` for an unknown name.
pub fn parameters_of(name: &str) -> Option<&'static [&'static str]> {
    lookup(name).map(|e| e.parameters)
}

/// True when a base heuristic maps in immediate mode; `None` for an unknown name.
pub fn is_immediate(name: &str) -> Option<bool> {
    lookup(name).map(|e| e.mode == Mode::Immediate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HeuristicConfig, HeuristicError, build};

    fn own(name: &'static str) -> Entry {
        Entry {
            name,
            aliases: &[],
            mode: Mode::Batch,
            parameters: &["phase1"],
            description: "a test's own",
            build: |p| Mapper::Batch(Box::new(TwoPhase::msd(p.scope()))),
        }
    }

    #[test]
    fn a_registered_heuristic_is_found_built_and_listed_by_name_after_the_built_in_ones() {
        register(own("Mine-A")).unwrap();
        let config = HeuristicConfig::named("mine-a").with("phase1", Phase1Scope::FreeMachines);
        let mapper = build(&config, DropModel::All).unwrap();
        assert_eq!(mapper.name(), "MSD", "its constructor ran");
        assert_eq!(is_immediate("MINE-A"), Some(false));
        assert_eq!(parameters_of("mine-a"), Some(&["phase1"][..]));
        let all = entries();
        assert!(
            all[..REGISTRY.len()]
                .iter()
                .zip(REGISTRY)
                .all(|(a, b)| a.name == b.name)
        );
        assert!(all.iter().any(|e| e.name == "Mine-A"));
        // Its parameters are checked as a built-in heuristic's.
        let e = build(
            &HeuristicConfig::named("Mine-A").with("alpha", 0.3),
            DropModel::All,
        );
        assert!(matches!(e, Err(HeuristicError::NotApplicable { .. })));
    }

    /// Whether an entry of exactly this name was registered (tests run in parallel: no
    /// count of the whole registry holds).
    fn registered(name: &str) -> bool {
        REGISTERED.read().unwrap().iter().any(|e| e.name == name)
    }

    #[test]
    fn a_name_taken_or_unfit_or_a_parameter_unknown_is_refused_and_nothing_registered() {
        register(own("Mine-B")).unwrap();
        let cases: [(Entry, &str); 9] = [
            (own("mm"), "taken by the heuristic MM"),
            (own("MEET"), "taken by the heuristic MET"),
            (own("mine-b"), "taken by the heuristic Mine-B"),
            (own("pamf-r"), "a variant"),
            (own("Mine-P"), "variant suffix"),
            (own("Mine-drop"), "variant suffix"),
            (own("9lives"), "start with a letter"),
            (own("my heuristic"), "a character other than"),
            (
                Entry {
                    parameters: &["beta"],
                    ..own("Mine-C")
                },
                "parameter 'beta' is not one of the registry's (phase1, alpha, epsilon, k, depth)",
            ),
        ];
        for (entry, says) in cases {
            let name = entry.name;
            let e = register(entry).unwrap_err().to_string();
            assert!(e.contains(says), "{name}: {e}");
            assert!(!registered(name), "{name}");
        }
        let alias = Entry {
            aliases: &["MSD"],
            ..own("Mine-E")
        };
        assert!(register(alias).unwrap_err().to_string().contains("'MSD'"));
        assert!(lookup("Mine-E").is_none());
    }
}
