//! Integration tests of the workload crate: the PET, arrival trials, the paper's real files
//! (when `shared/data/hcw19` is present), malformed inputs, configuration, round trips and
//! pinned values.

mod arrivals;
mod common;
mod config;
mod family;
mod fuzz_regressions;
mod malformed;
mod pet;
mod real_files;
mod roundtrip;
mod units;
mod value_stability;
mod writers;
