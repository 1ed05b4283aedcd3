//! What a run prints and writes: the grouped table, the glossary of measures, and the files of
//! `--out` (per-trial CSV, summary JSON, manifest, the experiment as it ran), each written
//! atomically.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use runner::experiment::DEFAULT_PRICES;
use runner::metrics::{Group, METRICS, MetricDoc};
use runner::{Estimate, Prepared, RunManifest, Summary, TrialMetrics, TrialSource};

pub(crate) use crate::escape_controls;

/// The pruner in one line.
pub(crate) fn pruner_line(p: &pruner::PrunerConfig) -> String {
    if let Some(rule) = &p.rule {
        return match pruner::registry::find(rule) {
            Some(r) => format!("rule {} ({})", r.name, r.description),
            None => format!("rule {rule}"),
        };
    }
    let mut parts = Vec::new();
    match p.toggle.level() {
        None => parts.push("dropping off".to_owned()),
        Some(level) => {
            parts.push(format!("drop at <= {}", p.drop_threshold));
            parts.push(format!("toggle {level}"));
            parts.push(format!("lambda {}", p.lambda));
            if p.schmitt {
                parts.push(format!("Schmitt trigger off at {} x toggle", p.schmitt_off));
            }
            if p.dynamic_weight > 0.0 {
                parts.push(format!("per-task threshold weight {}", p.dynamic_weight));
            }
        }
    }
    match p.defer_threshold {
        Some(d) => parts.push(format!("defer at <= {d}")),
        None => parts.push("deferring off".to_owned()),
    }
    if p.fairness > 0.0 {
        let mut f = format!("fairness {}", p.fairness);
        if p.fairness_mode != pruner::FairnessMode::Literal {
            f.push_str(&format!(" ({})", p.fairness_mode.name()));
        }
        if p.fairness_cap < 1.0 {
            f.push_str(&format!(", relief at most {}", p.fairness_cap));
        }
        if p.fairness_relief == pruner::ReliefScope::Defer {
            f.push_str(", relief on the defer threshold only");
        }
        parts.push(f);
    }
    parts.join(", ")
}

/// A value of a measure: counts without decimals when whole, one decimal otherwise;
/// percentages with two decimals; anything else with four significant digits.
fn value(doc: &MetricDoc, x: f64) -> String {
    if !x.is_finite() {
        return "n/a".to_owned();
    }
    match doc.unit {
        u if u.is_count() && x.fract() == 0.0 => format!("{x:.0}"),
        u if u.is_count() => format!("{x:.1}"),
        runner::metrics::Unit::Percent | runner::metrics::Unit::Points => format!("{x:.2}"),
        _ => {
            let decimals = match x.abs() {
                a if a >= 1000.0 => 0,
                a if a >= 100.0 => 1,
                a if a >= 10.0 => 2,
                a if a >= 1.0 || a == 0.0 => 3,
                a => (3 - a.log10().floor() as i64).clamp(3, 12) as usize,
            };
            format!("{x:.decimals$}")
        }
    }
}

fn interval(doc: &MetricDoc, e: &Estimate) -> String {
    match (e.ci95_low, e.ci95_high) {
        (Some(lo), Some(hi)) => format!("[{}, {}]", value(doc, lo), value(doc, hi)),
        _ => "n/a (one trial)".to_owned(),
    }
}

/// How much of the summary the table shows.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Table {
    /// Every measure, and the definitions below (`--all`); else [`ESSENTIAL`] only.
    pub(crate) all: bool,
    /// The built-in experiment as it is (the paper's headline setting): a line says where
    /// the paper's value lies against the bracket.
    pub(crate) headline: bool,
}

/// The measures the table shows without `--all` (beside robustness over windows): the
/// headline measure, the clairvoyant bracket's two sides, how the counted tasks ended, and
/// the worst task type's share.
pub(crate) const ESSENTIAL: &[&str] = &[
    "robustness",
    "optimum_lower",
    "optimum_upper",
    "on_time",
    "counted",
    "n_late",
    "n_expired_pending",
    "n_expired_executing",
    "n_pruned_pending",
    "n_pruned_executing",
    "n_unmapped",
    "n_discarded",
    "worst_type_on_time",
];

/// Whether the table shows a measure without `--all`.
fn essential(doc: &runner::MetricDoc) -> bool {
    ESSENTIAL.contains(&doc.name) || doc.group == Group::Robustness
}

/// The summary as a table: what ran, then robustness, the clairvoyant bracket, and the other
/// measures in groups, each with its unit; with `--all` every measure and the definitions
/// below, else the essential ones and where the rest are.
///
/// One function because it prints the table top to bottom in the order a reader sees it:
/// what ran, the measures by group, the sentences below, the definitions.
pub(crate) fn print_table(
    out: &mut impl Write,
    s: &Summary,
    prepared: &Prepared,
    table: Table,
) -> Result<()> {
    print_header(out, s, prepared, true)?;
    writeln!(
        out,
        "{:<22} {:>10} {:>24}  unit",
        "measure", "mean", "95% CI"
    )?;
    let mut group = None;
    let mut hidden = 0;
    for doc in METRICS {
        let Some(e) = s.metrics.get(doc.name) else {
            continue;
        };
        if !table.all && !essential(doc) {
            hidden += 1;
            continue;
        }
        if group != Some(doc.group) {
            if doc.group != Group::Robustness {
                writeln!(out, "-- {}", doc.group.title())?;
            }
            group = Some(doc.group);
        }
        writeln!(
            out,
            "{:<22} {:>10} {:>24}  {}",
            doc.name,
            value(doc, e.mean),
            interval(doc, e),
            doc.unit.symbol()
        )?;
    }
    if let (Some(o), Some(r)) = (&s.optimum, s.metrics.get("robustness")) {
        writeln!(
            out,
            "\nthe clairvoyant optimum is in [optimum_lower, optimum_upper] = [{:.2}, {:.2}]% (mean over trials); {} reaches {:.1}% of optimum_lower and {:.1}% of optimum_upper",
            o.lower,
            o.upper,
            s.heuristic,
            100.0 * r.mean / o.lower,
            100.0 * r.mean / o.upper,
        )?;
    }
    if table.headline {
        let against = match &s.optimum {
            Some(o) if o.upper < PAPER_HEADLINE => {
                "above the bracket's upper side: no scheduler reaches it"
            }
            Some(_) => "inside or below the bracket",
            None => "above the clairvoyant optimum (drop --no-bound to see the bracket)",
        };
        writeln!(
            out,
            "the paper reports about {PAPER_HEADLINE:.0}% on time here (HCW 2019, figs. 4 and 7), {against}; why: docs/reproduction.md, \"The limit, first\""
        )?;
    }
    if s.pct_epsilon > 0.0 {
        writeln!(
            out,
            "approximate: PCT tails trimmed at epsilon = {:e} (user guide: Command line, --pct-epsilon)",
            s.pct_epsilon
        )?;
    }
    if !table.all {
        if hidden > 0 {
            writeln!(
                out,
                "{hidden} more measures (the gaps, pruning activity, fairness, cost, time) and what each means: --all, or `prunesim metrics`"
            )?;
        }
        return Ok(());
    }
    if prepared.config.system.prices.is_none() && s.metrics.contains_key("cost") {
        writeln!(
            out,
            "cost uses the default price table {DEFAULT_PRICES:?} per machine-hour, cycled over the machines"
        )?;
    }
    writeln!(out, "\nmeasures:")?;
    for doc in METRICS.iter().filter(|d| s.metrics.contains_key(d.name)) {
        writeln!(out, "  {:<20} {}", doc.name, doc.definition)?;
    }
    Ok(())
}

/// The run's header: the experiment's name, then one line each for the heuristic and the
/// pruner (when `policies`), the system, the workload, the belief and drift if any, the
/// trials and the program; a blank line ends it.
pub(crate) fn print_header(
    out: &mut impl Write,
    s: &Summary,
    prepared: &Prepared,
    policies: bool,
) -> Result<()> {
    writeln!(out, "{}", s.experiment)?;
    if policies {
        print_policies(out, s)?;
    }
    let origins: Vec<String> = s
        .pet
        .machine_origins
        .iter()
        .map(|o| {
            if o.copies == 1 {
                o.machine.clone()
            } else {
                format!("{} x{}", o.machine, o.copies)
            }
        })
        .collect();
    let drawn = if prepared.config.workload.machines.is_some() {
        format!(", drawn with pet_seed {}", s.pet_seed)
    } else {
        String::new()
    };
    writeln!(
        out,
        "  system     {} task types x {} machines ({}{drawn}); queue size {}; drop model {}",
        s.pet.task_types,
        s.pet.machines,
        abbreviate(&origins, 12),
        s.system
            .queue_size
            .and_then(|q| q.limit())
            .map_or("unbounded".to_owned(), |l| l.to_string()),
        drop_model_word(s.system.drop_model),
    )?;
    let tasks = match s.tasks_per_trial {
        r if r.fewest == r.most => format!("{} tasks", r.most),
        r => format!("{} to {} tasks", r.fewest, r.most),
    };
    writeln!(
        out,
        "  workload   {}",
        workload_line(prepared, &tasks, s.tasks_per_trial.most)
    )?;
    if let Some(b) = &s.belief {
        writeln!(out, "  belief     {}", inline_toml(b))?;
    }
    if !s.drift.is_empty() {
        let changes: Vec<String> = s.drift.iter().map(inline_toml).collect();
        writeln!(
            out,
            "  drift      {} change{}: {}",
            changes.len(),
            if changes.len() == 1 { "" } else { "s" },
            abbreviate(&changes, 4)
        )?;
    }
    writeln!(
        out,
        "  trials     {} of {tasks} (seed {}, PET seed {}); the first {} and last {} tasks by arrival not counted",
        s.trials, s.seed, s.pet_seed, s.system.skip_first, s.system.skip_last
    )?;
    writeln!(
        out,
        "  program    prunesim {} ({})",
        s.version, s.git_revision
    )?;
    writeln!(out)?;
    Ok(())
}

/// The header's heuristic line (with the parameters that ran) and pruner line.
fn print_policies(out: &mut impl Write, s: &Summary) -> Result<()> {
    let mapper = if s.heuristic.eq_ignore_ascii_case(&s.mapper.name) {
        s.heuristic.clone()
    } else {
        format!("{} (= {})", s.heuristic, s.mapper.name)
    };
    // The parameters that ran: given or default; one the heuristic chooses (auto's depth)
    // with the reference's words for its default.
    let uses = heuristics::parameters_of(&s.mapper.name).unwrap_or(&[]);
    let params: Vec<String> = heuristics::PARAMS
        .iter()
        .filter(|p| uses.contains(&p.key))
        .map(|p| match s.mapper.get(p.key) {
            Some(v) => format!("{} {v}", p.key),
            None => format!("{} {}", p.key, p.default),
        })
        .collect();
    let params = if params.is_empty() {
        String::new()
    } else {
        format!(" ({})", params.join(", "))
    };
    writeln!(out, "  heuristic  {mapper}{params}")?;
    writeln!(out, "  pruner     {}", pruner_line(&s.pruner))?;
    Ok(())
}

/// What the paper reports for PAM at 34k on the default PET (HCW 2019: fig. 7 near 70%,
/// fig. 4 67.7-71.9%), in percent.
const PAPER_HEADLINE: f64 = 70.0;

/// The header's workload line: the offered load, the arrival rate per time unit and the
/// time unit first (what decides the result), then how the rate was given, the pattern, the
/// deadlines' slack, the tasks and the tick.
fn workload_line(prepared: &Prepared, tasks: &str, most: usize) -> String {
    let w = &prepared.config.workload;
    let (unit, units) = (w.unit_name(), w.units_name());
    let tick = if w.tick == 1.0 {
        String::new()
    } else {
        format!("; tick {} {units}", w.tick)
    };
    let capacity = workload::capacity(&prepared.pet).ok().map(|c| c / w.tick);
    let load = |per_unit: f64| match capacity {
        Some(c) => format!(
            "offered load {} ({} tasks per {unit}; capacity {})",
            significant(per_unit / c, 3),
            significant(per_unit, 4),
            significant(c, 4)
        ),
        None => format!("{} tasks per {unit}", significant(per_unit, 4)),
    };
    match (&prepared.source, &prepared.arrivals) {
        (TrialSource::Generated, Some(spec)) => {
            let per_unit = spec.rate * spec.pattern.mean_factor() / w.horizon;
            let given = match (w.rate, w.load, w.arrival_rate) {
                (Some(r), _, _) => {
                    format!("rate {} per {} {units}", number(r), number(w.horizon))
                }
                (None, Some(l), _) => format!("load = {}", number(l)),
                (None, None, Some(a)) => format!("arrival_rate = {}", number(a)),
                (None, None, None) => String::new(),
            };
            let capped = if most < w.tasks {
                format!(
                    " (workload.tasks = {} capped: the horizon ends first)",
                    w.tasks
                )
            } else {
                String::new()
            };
            format!(
                "{}, {given}, {} arrivals; beta {}; {tasks} per trial{capped}{tick}",
                load(per_unit),
                match w.pattern {
                    workload::PatternName::Constant => "constant",
                    workload::PatternName::Bursty => "bursty",
                },
                w.beta,
            )
        }
        (TrialSource::Given(trials), _) => {
            // The arrivals per tick of the trials read, over their arrival spans together.
            let (n, span) = trials.iter().fold((0.0, 0.0), |(n, span), t| {
                let first = t.tasks.first().map_or(0.0, |x| x.arrival);
                let last = t.tasks.last().map_or(0.0, |x| x.arrival);
                (
                    n + t.tasks.len().saturating_sub(1) as f64,
                    span + (last - first),
                )
            });
            let rate = if span > 0.0 {
                format!("{}, ", load(n / (span * w.tick)))
            } else {
                String::new()
            };
            format!("{rate}trials read from files{tick}")
        }
        (TrialSource::Generated, None) => format!("generated trials{tick}"),
    }
}

/// `x` as written (its shortest exact form) for everyday magnitudes, with an exponent
/// beyond them.
fn number(x: f64) -> String {
    if x == 0.0 || (1e-4..1e12).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// `x` with `digits` significant digits, without an exponent for everyday magnitudes.
fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    if !(-4..=9).contains(&magnitude) {
        return format!("{:.*e}", (digits - 1).max(0) as usize, x);
    }
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A table as one line of inline TOML (`{ source = "learned", prior = "scaled", scale = 0.5 }`).
fn inline_toml(value: &impl serde::Serialize) -> String {
    match toml::Value::try_from(value) {
        Ok(v) => v.to_string(),
        Err(e) => format!("(not printable: {e})"),
    }
}

fn drop_model_word(m: pmf::DropModel) -> &'static str {
    match m {
        pmf::DropModel::None => "none (nothing is dropped at its deadline)",
        pmf::DropModel::Pending => "pending (the executing task runs to completion)",
        pmf::DropModel::All => "all (executing tasks are dropped too)",
    }
}

/// The first `n` items, then how many more.
fn abbreviate(items: &[String], n: usize) -> String {
    if items.len() <= n {
        items.join(", ")
    } else {
        format!("{}, ... {} more", items[..n].join(", "), items.len() - n)
    }
}

/// `prunesim metrics`: every measure's unit and definition, by group.
pub(crate) fn print_glossary(out: &mut impl Write) -> Result<()> {
    let mut group = None;
    for doc in METRICS {
        if group != Some(doc.group) {
            writeln!(out, "{}", doc.group.title())?;
            group = Some(doc.group);
        }
        writeln!(
            out,
            "  {:<20} [{}] {}",
            doc.name,
            doc.unit.symbol(),
            doc.definition
        )?;
    }
    Ok(())
}

/// `--out DIR`: `trials.csv` (one row per trial, every measure), `summary.json` and
/// `experiment.toml` (the experiment as it ran, readable by `prunesim run`), written into
/// `dir` (the claim's staging folder) for the run folder `shown`; the manifest (what `prunesim
/// rerun DIR` runs again) is the claim's ([`super::run_folder`]).
pub(crate) fn write_outputs(
    dir: &Path,
    shown: &Path,
    summary: &Summary,
    trials: &[TrialMetrics],
    manifest: &RunManifest,
) -> Result<()> {
    let write_atomic = |path: &Path, bytes: &[u8]| runner::files::write_atomic(path, bytes);
    let mut w = csv::Writer::from_writer(Vec::new());
    if let Some(first) = trials.first() {
        let mut header = vec!["trial".to_string()];
        header.extend(first.scalars().into_iter().map(|(n, _)| n.to_string()));
        w.write_record(&header)?;
    }
    for (k, t) in trials.iter().enumerate() {
        let mut row = vec![k.to_string()];
        row.extend(t.scalars().into_iter().map(|(_, v)| v.to_string()));
        w.write_record(&row)?;
    }
    let csv = w.into_inner().context("formatting trials.csv")?;
    write_atomic(&dir.join("trials.csv"), &csv)?;
    write_atomic(
        &dir.join("summary.json"),
        serde_json::to_string_pretty(summary)?.as_bytes(),
    )?;
    let experiment = format!(
        "# The experiment as it ran (prunesim {}, git {}). `prunesim rerun {}` also\n# checks the input files against their hashes in manifest.json.\n{}",
        manifest.version,
        manifest.git_revision,
        shown.display(),
        toml::to_string(&manifest.experiment).context("formatting experiment.toml")?
    );
    write_atomic(&dir.join("experiment.toml"), experiment.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_text_is_kept() {
        assert_eq!(
            escape_controls("a\u{1b}[31mb\0c\nd\te é"),
            "a\\u{1b}[31mb\\u{0}c\nd\te é"
        );
    }
}
