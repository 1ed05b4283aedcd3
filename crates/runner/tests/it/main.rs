//! Integration tests of the engine and the experiment runner.

mod bound_engine;
mod bound_trials;
mod cache;
mod clairvoyant;
mod common;
mod config_reference;
mod engine;
mod experiment;
mod fairness;
mod heuristics;
mod jpdc;
mod learn;
mod load;
mod options;
mod queues;
mod replay;
mod rollout;
mod trace;
