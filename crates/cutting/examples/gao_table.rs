//! Runs table 4 or 5 of Gao, Robert, Vivien (RR-9373) with few instances and prints ours next
//! to the paper's numbers, plus ORACLE's threshold per distribution (table 3).
//!
//! `cargo run --release -p cutting --example gao_table -- [gao-table4|gao-table5] [instances] [seed] [out.csv]`
//! (defaults: gao-table5, 100 instances, seed 1, no CSV).

use std::process::ExitCode;

use cutting::distributions::{PAPER_DELTA, table2};
use cutting::tables::render;
use cutting::threshold::optimal_continuous;
use cutting::{CuttingError, GaoTable, reproduce, write_csv};

fn run() -> Result<(), CuttingError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let table: GaoTable = args.first().map_or(Ok(GaoTable::Table5), |s| s.parse())?;
    let parse = |i: usize, default: u64| -> Result<u64, CuttingError> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse()
                .map_err(|_| CuttingError::InvalidArgument(format!("not a number: {s}")))
        })
    };
    let instances = parse(1, 100)? as usize;
    let seed = parse(2, 1)?;
    println!("ORACLE thresholds (delta = {PAPER_DELTA}):");
    for d in table2() {
        let o = optimal_continuous(&d.dist, PAPER_DELTA)?;
        println!(
            "  {:<38} tau = {:>8.4}  yield = {:.4}",
            d.label, o.threshold, o.yield_
        );
    }
    let s = table.setting();
    println!(
        "\n{}: b = {}, d = {}, {} instances, seed {seed}",
        table.name(),
        s.budget,
        s.deadline,
        instances
    );
    let rows = reproduce(table, instances, seed)?;
    print!("{}", render(&rows));
    if let Some(path) = args.get(3) {
        let file = std::fs::File::create(path)
            .map_err(|e| CuttingError::InvalidArgument(format!("cannot create {path}: {e}")))?;
        write_csv(&rows, file)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
