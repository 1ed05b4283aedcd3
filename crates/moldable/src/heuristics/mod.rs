//! The five heuristics of Hansen et al. §III: processor balance random and smart (PB-R,
//! PB-S), and robustness floor with min-min processors, min-max processors and duplex.
//!
//! Each heuristic maps a read-only [`Instance`] (and, for the random ones, an explicit RNG) to
//! a complete [`Allocation`]: decisions as data.

pub mod pb;
pub mod rf;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::MoldableError;
use crate::robustness::{Allocation, Instance};

/// The heuristics compared in figs. 4 and 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Heuristic {
    /// Processor balance, random (§III-A2).
    PbR,
    /// Processor balance, smart (§III-A3).
    PbS,
    /// Robustness floor with min-min processors (§III-B2).
    RfMinMin,
    /// Robustness floor with min-max processors (§III-B3).
    RfMinMax,
    /// Robustness floor with duplex (§III-B4).
    RfDuplex,
}

impl Heuristic {
    /// All five, in the order of fig. 4.
    pub const ALL: [Heuristic; 5] = [
        Heuristic::PbR,
        Heuristic::PbS,
        Heuristic::RfMinMin,
        Heuristic::RfMinMax,
        Heuristic::RfDuplex,
    ];

    /// The paper's name.
    pub fn name(self) -> &'static str {
        match self {
            Heuristic::PbR => "PB-R",
            Heuristic::PbS => "PB-S",
            Heuristic::RfMinMin => "RF Min-Min",
            Heuristic::RfMinMax => "RF Min-Max",
            Heuristic::RfDuplex => "RF Duplex",
        }
    }

    /// Runs the heuristic. Only PB-R and PB-S draw from `rng`.
    pub fn allocate<R: Rng + ?Sized>(
        self,
        inst: &Instance,
        rng: &mut R,
    ) -> Result<Allocation, MoldableError> {
        match self {
            Heuristic::PbR => pb::random(inst, rng),
            Heuristic::PbS => pb::smart(inst, rng),
            Heuristic::RfMinMin => rf::robustness_floor(inst, rf::Greedy::MinMin, rf::RESIDUAL),
            Heuristic::RfMinMax => rf::robustness_floor(inst, rf::Greedy::MinMax, rf::RESIDUAL),
            Heuristic::RfDuplex => rf::robustness_floor(inst, rf::Greedy::Duplex, rf::RESIDUAL),
        }
    }
}
