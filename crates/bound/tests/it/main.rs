//! Integration tests of the clairvoyant bound (one binary).

mod bracket;
mod errors;
mod exact;
mod gaps;
mod monotone;
mod schedule;
mod support;
