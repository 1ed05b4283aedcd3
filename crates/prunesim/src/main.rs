//! `prunesim`: run experiments of probabilistic task pruning ([`prunesim::cli::main`]).

fn main() -> std::process::ExitCode {
    prunesim::cli::main()
}
