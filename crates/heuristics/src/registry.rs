//! The registry of base heuristics: one entry per heuristic with its name and aliases, its
//! mode (batch or immediate), the `[mapper]` parameters it uses, a one-line description and
//! its constructor. Name lookup, the parameter lists, the mode and [`HEURISTICS`] all read it.

use crate::{Auto, Fcfs, Kpb, Mapper, MaxRobust, Mct, Met, Moc, Phase1Scope, TwoPhase};

/// How a heuristic maps: batches at mapping events, or each task as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Maps batches into bounded queues at every mapping event (thesis 3.3.1).
    Batch,
    /// Maps each arriving task at once into unbounded queues (thesis 3.3.2).
    Immediate,
}

/// The parameters a heuristic is built with, defaults applied and ranges checked
/// ([`crate::build`]).
pub(crate) struct Params {
    pub(crate) scope: Phase1Scope,
    pub(crate) alpha: f64,
    pub(crate) epsilon: f64,
    pub(crate) k: f64,
    pub(crate) depth: Option<usize>,
}

/// One base heuristic.
pub struct Entry {
    /// Its name as listed.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// Batch or immediate mode.
    pub mode: Mode,
    /// The `[mapper]` parameters it uses, by their TOML names.
    pub parameters: &'static [&'static str],
    /// A one-line description.
    pub description: &'static str,
    pub(crate) build: fn(&Params) -> Mapper,
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
        build: |p| Mapper::Batch(Box::new(Auto::new(p.scope, p.depth))),
    },
    Entry {
        name: "lookahead",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1", "depth"],
        description: "batch: auto with PAM's two phases, planned to the queue size and committing at most `depth` tasks (default 2) to a machine; for one machine type fastest for everything and narrow times",
        build: |p| Mapper::Batch(Box::new(Auto::lookahead(p.scope, p.depth))),
    },
    Entry {
        name: "MM",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-MinCompletion on expected completion times",
        build: |p| Mapper::Batch(Box::new(TwoPhase::mm(p.scope))),
    },
    Entry {
        name: "MSD",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-SoonestDeadline, ties by minimum expected completion",
        build: |p| Mapper::Batch(Box::new(TwoPhase::msd(p.scope))),
    },
    Entry {
        name: "MMU",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: MinCompletion-MaxUrgency, U = 1/(deadline - E[C])",
        build: |p| Mapper::Batch(Box::new(TwoPhase::mmu(p.scope))),
    },
    Entry {
        name: "MOC",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1", "alpha", "epsilon"],
        description: "batch: Max On-time Completions (JPDC-2016): cull < alpha, best-robustness machine, epsilon shortlist, min completion",
        build: |p| Mapper::Batch(Box::new(Moc::new(p.alpha, p.epsilon, p.scope))),
    },
    Entry {
        name: "PAM",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch: Pruning-Aware Mapper: best-robustness machine, defer at the pruner's threshold, min completion",
        build: |p| Mapper::Batch(Box::new(TwoPhase::pam(p.scope))),
    },
    Entry {
        name: "EDF",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch, homogeneous: Earliest Deadline First (as MSD)",
        build: |p| Mapper::Batch(Box::new(TwoPhase::edf(p.scope))),
    },
    Entry {
        name: "SJF",
        aliases: &[],
        mode: Mode::Batch,
        parameters: &["phase1"],
        description: "batch, homogeneous: Shortest Job First on completion time (as MM)",
        build: |p| Mapper::Batch(Box::new(TwoPhase::sjf(p.scope))),
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
        build: |p| Mapper::Immediate(Box::new(Kpb { k: p.k })),
    },
    Entry {
        name: "MR",
        aliases: &[],
        mode: Mode::Immediate,
        parameters: &["k", "epsilon"],
        description: "immediate: MaxRobust: highest success among the k% best, near-ties by smallest variance",
        build: |p| {
            Mapper::Immediate(Box::new(MaxRobust {
                k: p.k,
                epsilon: p.epsilon,
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
