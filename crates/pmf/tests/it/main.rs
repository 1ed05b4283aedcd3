//! Integration tests of the PMF crate: worked examples checked by hand, then properties.

mod check;
mod examples;
mod kaplan_meier;
mod properties;
mod tick_range;
mod transform;

/// `p` as an execution-time PMF, with its tables.
pub fn as_exec(p: &pmf::Pmf) -> pmf::ExecPmf {
    pmf::ExecPmf::from(p.clone())
}
