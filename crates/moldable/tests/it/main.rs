//! Integration tests of the moldable crate: every equation against a hand-computed example,
//! the heuristics on hand-built instances, then properties and reproducibility.

mod common;
mod experiments;
mod heuristics;
mod model;
mod speedup;
