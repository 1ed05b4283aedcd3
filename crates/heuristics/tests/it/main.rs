//! Integration tests of the heuristics: the accelerated searches against the plain
//! reference loop on random systems.

mod auto;
mod reference;
mod standalone;
mod system;
