//! Integration tests of the clairvoyant bound (one binary).

mod engine;
mod errors;
mod exact;
mod monotone;
mod support;
