//! `prunesim run --heuristic A,B,C`: several heuristics on the same trials, one table.
//!
//! Every heuristic runs the experiment as `--heuristic NAME` alone would (the `[mapper]`
//! table's other keys kept), on the same seed: the same arrivals and the same execution-time
//! draws (common random numbers), so a difference between two rows is the heuristics' alone.
//! The table gives each one's mean robustness with its 95% interval, and its paired
//! difference to the best one (the mean of the per-trial differences, with the interval of
//! that mean: much narrower than the two intervals side by side suggest;
//! [`runner::comparison`]). The clairvoyant
//! bracket is computed once, with the first heuristic: the trials are the same for all.
//!
//! With `--out DIR`, `DIR/<heuristic>/` is each heuristic's run folder (as `prunesim run
//! --out` writes it: `prunesim rerun` and `prunesim report` take it), and
//! `DIR/comparison.csv` the table. A `comparison.csv` already there is replaced only when it
//! is one this command wrote (its header is this table's): a file of the user's is never
//! written over.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use runner::comparison::{Compared, Comparison};
use runner::{Estimate, ExperimentConfig, Summary, TrialMetrics};
use serde::Serialize;

use super::{Outputs, RunArgs, output, prepare, run_folder, simulate, threads};

/// The comparison table's file in the `--out` folder.
pub(crate) const COMPARISON_FILE: &str = "comparison.csv";

/// The comparison table's CSV header: how a `comparison.csv` written by this command is
/// recognised.
const CSV_HEADER: &str = "heuristic,pruner,robustness_mean,robustness_ci95_low,robustness_ci95_high,difference_to_best_mean,difference_to_best_ci95_low,difference_to_best_ci95_high,worst_type_on_time_mean,trials";

/// The heuristics of `--heuristic`: one name, or several separated by commas. Errors: an
/// empty name, a name given twice.
pub(crate) fn names(arg: Option<&str>) -> Result<Vec<String>> {
    let Some(arg) = arg else {
        return Ok(Vec::new());
    };
    let names: Vec<String> = arg.split(',').map(|n| n.trim().to_owned()).collect();
    if names.iter().any(String::is_empty) {
        bail!(
            "--heuristic {arg:?}: an empty name; give names separated by commas, e.g. auto,PAM,MM-P"
        );
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            bail!("--heuristic {arg:?}: {n} is given twice");
        }
    }
    Ok(names)
}

/// The comparison as `--json` prints it.
#[derive(Debug, Serialize)]
struct Printed<'a> {
    /// The experiment's name.
    experiment: &'a str,
    /// The heuristic with the highest mean robustness (the first of those tied).
    best: &'a str,
    /// The trials every heuristic ran.
    trials: u64,
    /// The clairvoyant optimum's bracket, mean over trials (when computed).
    #[serde(skip_serializing_if = "Option::is_none")]
    optimum: Option<&'a runner::summary::OptimumBracket>,
    /// One row per heuristic, in the order given, with its pruner as the header says it.
    heuristics: Vec<Row<'a>>,
}

/// A row of [`Printed`].
#[derive(Debug, Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    compared: &'a Compared,
    /// The pruner that ran with the heuristic.
    pruner: &'a str,
}

/// Runs the experiment `config` once per heuristic of `names` (see the module docs), then
/// prints the comparison and writes its files.
pub(crate) fn run(args: &RunArgs, config: &ExperimentConfig, names: &[String]) -> Result<()> {
    if let Some(out) = &args.out {
        for n in names {
            runner::files::check_name(n)
                .map_err(anyhow::Error::msg)
                .with_context(|| {
                    format!("--heuristic {n}: the name of a folder of {}", out.display())
                })?;
        }
        check_comparison_file(&out.join(COMPARISON_FILE))?;
    }
    // Every heuristic checked before any runs.
    let configs = names
        .iter()
        .map(|name| {
            let mut c = config.clone();
            c.mapper.name.clone_from(name);
            c.validate()
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("--heuristic {name}"))?;
            Ok(c)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut first = None;
    let mut runs: Vec<(String, Summary, Vec<TrialMetrics>)> = Vec::new();
    for (i, (name, c)) in names.iter().zip(configs).enumerate() {
        tracing::info!(heuristic = %name, "running");
        // The bracket depends on the trials alone: computed with the first heuristic.
        let (prepared, manifest, _) = prepare(args, c, i == 0 && !args.no_bound)?;
        let dir = args.out.as_ref().map(|d| d.join(name));
        let experiment_file = args.experiment.as_deref().filter(|p| p.as_os_str() != "-");
        let (summary, trials) = simulate(
            &prepared,
            &manifest,
            threads(args.jobs),
            &Outputs {
                dir: dir.as_deref(),
                force: args.force,
                kept: true,
                timelines: args.timelines,
                report: args.report,
                inputs: run_folder::inputs(&manifest, experiment_file),
            },
        )?;
        runs.push((name.clone(), summary, trials));
        if first.is_none() {
            first = Some(prepared);
        }
    }
    let Some(prepared) = first else {
        bail!("--heuristic: no heuristic given");
    };
    let comparison = Comparison::new(
        &runs
            .iter()
            .map(|(name, _, trials)| (name.clone(), trials.clone()))
            .collect::<Vec<_>>(),
    );
    let pruners: Vec<String> = runs
        .iter()
        .map(|(_, s, _)| output::pruner_line(&s.pruner))
        .collect();
    let (_, summary, _) = &runs[0];
    if let Some(out) = &args.out {
        runner::files::write_atomic(
            &out.join(COMPARISON_FILE),
            csv(&comparison, &pruners).as_bytes(),
        )?;
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        let printed = Printed {
            experiment: &summary.experiment,
            best: comparison.best_name(),
            trials: prepared.trials,
            optimum: summary.optimum.as_ref(),
            heuristics: comparison
                .rows
                .iter()
                .zip(&pruners)
                .map(|(compared, pruner)| Row { compared, pruner })
                .collect(),
        };
        writeln!(stdout, "{}", serde_json::to_string_pretty(&printed)?)?;
        return Ok(());
    }
    let mut text = Vec::new();
    output::print_header(&mut text, summary, &prepared, false)?;
    table(&mut text, &comparison, summary.optimum.as_ref())?;
    if let Some(out) = &args.out {
        writeln!(
            text,
            "each heuristic's run folder: {}/<heuristic>/; this table: {}",
            out.display(),
            out.join(COMPARISON_FILE).display()
        )?;
    }
    // Names come from files: none may drive the terminal.
    write!(
        stdout,
        "{}",
        output::escape_controls(&String::from_utf8_lossy(&text))
    )?;
    Ok(())
}

/// A `comparison.csv` may be replaced only when this command wrote it.
fn check_comparison_file(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| path.display().to_string()),
        Ok(m) if !m.is_file() => {
            bail!(
                "{}: not a regular file; prunesim writes the comparison table there",
                path.display()
            )
        }
        Ok(_) => {
            let text = runner::files::read_input(path)?;
            if text.lines().next() == Some(CSV_HEADER) {
                Ok(())
            } else {
                bail!(
                    "{}: a file prunesim did not write; it is left as it is: move it, or give --out another folder",
                    path.display()
                )
            }
        }
    }
}

/// `[low, high]` with two decimals, or `-` without an interval (one trial).
fn interval(e: &Estimate) -> String {
    match (e.ci95_low, e.ci95_high) {
        (Some(l), Some(h)) => format!("[{l:.2}, {h:.2}]"),
        _ => "-".to_owned(),
    }
}

/// The table, then the bracket's line.
fn table(
    out: &mut impl Write,
    comparison: &Comparison,
    optimum: Option<&runner::summary::OptimumBracket>,
) -> Result<()> {
    let (rows, best) = (&comparison.rows, comparison.best);
    let width = rows
        .iter()
        .map(|r| r.heuristic.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    writeln!(
        out,
        "{:<width$}  {:>10} {:>16}  {:>8} {:>18}  {:>10}",
        "heuristic", "robustness", "95% CI", "vs best", "95% CI", "worst type"
    )?;
    for (i, r) in rows.iter().enumerate() {
        let (d, di) = match &r.difference_to_best {
            _ if i == best => ("best".to_owned(), String::new()),
            Some(d) => (format!("{:+.2}", d.mean), interval(d)),
            None => ("-".to_owned(), String::new()),
        };
        writeln!(
            out,
            "{:<width$}  {:>10.2} {:>16}  {:>8} {:>18}  {:>10.2}",
            r.heuristic,
            r.robustness.mean,
            interval(&r.robustness),
            d,
            di,
            r.worst_type_on_time.mean
        )?;
    }
    writeln!(
        out,
        "\nrobustness and the worst task type's on-time share in %; vs best: the paired difference \
         to {} in points, trial by trial on the same trials, with its 95% interval",
        rows[best].heuristic
    )?;
    if let Some(o) = optimum {
        writeln!(
            out,
            "the clairvoyant optimum is in [optimum_lower, optimum_upper] = [{:.2}, {:.2}]% (mean over trials); {} reaches {:.1}% of optimum_lower",
            o.lower,
            o.upper,
            rows[best].heuristic,
            100.0 * rows[best].robustness.mean / o.lower
        )?;
    }
    Ok(())
}

/// The table as CSV ([`CSV_HEADER`]), empty fields where a value is absent.
fn csv(comparison: &Comparison, pruners: &[String]) -> String {
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
    let mut text = format!("{CSV_HEADER}\n");
    for (r, pruner) in comparison.rows.iter().zip(pruners) {
        let d = r.difference_to_best.as_ref();
        let fields = [
            quote(&r.heuristic),
            quote(pruner),
            r.robustness.mean.to_string(),
            opt(r.robustness.ci95_low),
            opt(r.robustness.ci95_high),
            d.map_or_else(|| "0".to_owned(), |d| d.mean.to_string()),
            opt(d.and_then(|d| d.ci95_low)),
            opt(d.and_then(|d| d.ci95_high)),
            r.worst_type_on_time.mean.to_string(),
            r.robustness.n.to_string(),
        ];
        text.push_str(&fields.join(","));
        text.push('\n');
    }
    text
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_a_list_without_gaps_or_repeats() {
        assert!(names(None).unwrap().is_empty());
        assert_eq!(names(Some("PAM")).unwrap(), ["PAM"]);
        assert_eq!(
            names(Some("auto, PAM,MM-P")).unwrap(),
            ["auto", "PAM", "MM-P"]
        );
        assert!(
            names(Some("PAM,,MM"))
                .unwrap_err()
                .to_string()
                .contains("empty name")
        );
        assert!(
            names(Some("PAM,MM,PAM"))
                .unwrap_err()
                .to_string()
                .contains("twice")
        );
    }

    #[test]
    fn csv_fields_with_commas_are_quoted() {
        assert_eq!(
            quote("drop at <= 0.5, toggle 1"),
            "\"drop at <= 0.5, toggle 1\""
        );
        assert_eq!(quote("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote("MM"), "MM");
    }
}
