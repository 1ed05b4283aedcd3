//! Integration tests of the engine and the experiment runner.

mod engine;
mod experiment;
mod heuristics;
