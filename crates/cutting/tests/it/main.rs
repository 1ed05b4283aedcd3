//! Integration tests of the cutting crate (Gao, Robert, Vivien, cutting thresholds, Inria RR-9373): each
//! equation against a hand-computed or published example, then properties.

mod distributions;
mod prec;
mod simulation;
mod special;
mod tables;
mod threshold;
mod yield_;
