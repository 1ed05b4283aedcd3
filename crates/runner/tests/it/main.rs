//! Integration tests of the engine and the experiment runner.

mod cache;
mod common;
mod engine;
mod experiment;
mod heuristics;
mod jpdc;
mod options;
mod trace;
