//! The `prunesim` command line as a library: [`sweep`], the `prunesim sweep` command, which
//! `cargo xtask reproduce-figure` runs too.

pub mod sweep;
