//! The `prunesim` command line as a library: [`cli::main`], the whole command line, which a
//! policy crate runs with its own heuristics registered ([`heuristics::register`]);
//! [`sweep`], the `prunesim sweep` command, which `cargo xtask reproduce-figure` runs too;
//! [`template`], the crate `prunesim new-policy` writes; [`progress`], `prunesim run`'s
//! progress.

pub mod cli;
pub mod progress;
pub mod sweep;
pub mod template;

/// `s` with every control character but newline and tab written as a Rust escape (`\u{1b}`),
/// so bytes from an input file that reach the terminal (a name, an error message) cannot
/// drive it.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
