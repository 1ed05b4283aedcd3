//! The registry of base heuristics and their `[mapper]` parameters: one entry per heuristic
//! with its name and aliases, its mode (batch or immediate), the parameters it uses, a
//! one-line description and its constructor; one [`Param`] per parameter with its kind,
//! default and reference text. Name lookup, the parameter lists, the configuration's keys,
//! the configuration reference, the mode and [`HEURISTICS`] all read it.

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

/// The entry of the heuristic called `name` (any case, or an alias); `None` for an unknown
/// name.
pub(crate) fn lookup(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.answers_to(name))
}

/// The `[mapper]` parameters a base heuristic uses; `None` for an unknown name.
pub fn parameters_of(name: &str) -> Option<&'static [&'static str]> {
    lookup(name).map(|e| e.parameters)
}

/// True when a base heuristic maps in immediate mode; `None` for an unknown name.
pub fn is_immediate(name: &str) -> Option<bool> {
    lookup(name).map(|e| e.mode == Mode::Immediate)
}
