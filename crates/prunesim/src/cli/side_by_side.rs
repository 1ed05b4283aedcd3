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
//! --out` writes it: `prunesim rerun` and `prunesim report` take it), `DIR/comparison.csv`
//! the table, `DIR/comparison.svg` and `.png` its figure (each heuristic's robustness and
//! interval, the bracket behind), with `--report` `DIR/comparison.html` (the table, the
//! figure, a link to each run's report), and `DIR/comparison.json` the manifest: the experiment,
//! the heuristics' folders and the SHA-256 of each file written. A comparison file already
//! there is replaced only when that manifest names it with its hash unchanged: a file of
//! the user's, or one the user edited, is never written over. `prunesim rerun DIR` reruns
//! the comparison as a whole ([`rerun`]).

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use runner::comparison::{Compared, Comparison};
use runner::{Estimate, ExperimentConfig, Summary, TrialMetrics};
use serde::Serialize;

use super::{
    Outputs, RunArgs, output, prepare, prepared_from_files, report_repairs, run_folder, simulate,
    threads,
};

/// The comparison table's file in the `--out` folder.
pub(crate) const COMPARISON_FILE: &str = "comparison.csv";

/// The comparison's manifest in the `--out` folder.
const MANIFEST_FILE: &str = "comparison.json";

/// The comparison's page, with `--report`.
const PAGE_FILE: &str = "comparison.html";

/// The files the comparison writes beside the run folders, the manifest last.
const FILES: [&str; 5] = [
    COMPARISON_FILE,
    "comparison.svg",
    "comparison.png",
    PAGE_FILE,
    MANIFEST_FILE,
];

/// The manifest's `kind`: how a `comparison.json` of this command is recognised.
const KIND: &str = "prunesim comparison";

/// The comparison table's CSV header.
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
        check_comparison_files(out)?;
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
    let mut runs: Vec<(String, Vec<TrialMetrics>)> = Vec::new();
    let mut summaries: Vec<Summary> = Vec::new();
    for (i, (name, c)) in names.iter().zip(configs).enumerate() {
        tracing::info!(heuristic = %name, "running");
        // The bracket depends on the trials alone: computed with the first heuristic.
        let (prepared, manifest, repairs) = prepare(args, c, i == 0 && !args.no_bound)?;
        if i == 0 && prepared_from_files(args) {
            // The same files for every heuristic: what was repaired, said once.
            report_repairs(&repairs);
        }
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
        runs.push((name.clone(), trials));
        summaries.push(summary);
        if first.is_none() {
            first = Some(prepared);
        }
    }
    let Some(prepared) = first else {
        bail!("--heuristic: no heuristic given");
    };
    let comparison = Comparison::new(&runs);
    let pruners: Vec<String> = summaries
        .iter()
        .map(|s| output::pruner_line(&s.pruner))
        .collect();
    let summary = &summaries[0];
    if let Some(out) = &args.out {
        write_files(out, summary, &comparison, &pruners, names, args.report)?;
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
            "each heuristic's run folder: {}/<heuristic>/; this table: {}, its figure: comparison.svg and .png",
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

/// The manifest of a comparison folder: what ran and what was written.
#[derive(Debug, Serialize, serde::Deserialize)]
struct Manifest {
    /// [`KIND`].
    kind: String,
    /// The experiment's name.
    experiment: String,
    /// Each heuristic and its run folder (relative to the comparison folder).
    heuristics: Vec<RunFolder>,
    /// Each comparison file written (not the manifest) and its SHA-256.
    files: std::collections::BTreeMap<String, String>,
}

/// A heuristic's run folder in a comparison folder.
#[derive(Debug, Serialize, serde::Deserialize)]
struct RunFolder {
    /// The heuristic.
    heuristic: String,
    /// Its run folder, relative to the comparison folder.
    folder: String,
}

/// The comparison's files in `out` may be written: each absent, or named by the folder's
/// manifest with its hash unchanged (the manifest itself: one of this command's).
fn check_comparison_files(out: &Path) -> Result<()> {
    let manifest_path = out.join(MANIFEST_FILE);
    let manifest = match std::fs::symlink_metadata(&manifest_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| manifest_path.display().to_string()),
        Ok(m) if !m.is_file() => bail!(
            "{}: not a regular file; prunesim writes the comparison's manifest there",
            manifest_path.display()
        ),
        Ok(_) => {
            let text = runner::files::read_input(&manifest_path)?;
            match serde_json::from_str::<Manifest>(&text) {
                Ok(m) if m.kind == KIND => Some(m),
                _ => bail!(
                    "{}: a file prunesim did not write; it is left as it is: move it, or give --out another folder",
                    manifest_path.display()
                ),
            }
        }
    };
    for name in &FILES[..FILES.len() - 1] {
        let path = out.join(name);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| path.display().to_string()),
            Ok(m) if m.is_file() => {}
            Ok(_) => bail!(
                "{}: not a regular file; prunesim writes the comparison there",
                path.display()
            ),
        }
        let ours = manifest
            .as_ref()
            .and_then(|m| m.files.get(*name))
            .is_some_and(|hash| {
                std::fs::read(&path).is_ok_and(|b| runner::provenance::sha256_hex(&b) == *hash)
            });
        if !ours {
            bail!(
                "{}: a file prunesim did not write, or changed since; it is left as it is: move it, or give --out another folder",
                path.display()
            );
        }
    }
    Ok(())
}

/// Writes the table, its figure and the manifest into `out` (checked by
/// [`check_comparison_files`] before the runs).
fn write_files(
    out: &Path,
    summary: &Summary,
    comparison: &Comparison,
    pruners: &[String],
    names: &[String],
    report: bool,
) -> Result<()> {
    let contents = contents(summary, comparison, pruners, report)?;
    let mut files = std::collections::BTreeMap::new();
    for (name, bytes) in &contents {
        runner::files::write_atomic(&out.join(name), bytes)?;
        files.insert((*name).to_owned(), runner::provenance::sha256_hex(bytes));
    }
    let manifest = Manifest {
        kind: KIND.to_owned(),
        experiment: summary.experiment.clone(),
        heuristics: names
            .iter()
            .map(|n| RunFolder {
                heuristic: n.clone(),
                folder: n.clone(),
            })
            .collect(),
        files,
    };
    runner::files::write_atomic(
        &out.join(MANIFEST_FILE),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    Ok(())
}

/// The comparison's files but the manifest, each with its bytes: the table, its figure
/// (SVG, and PNG in a build that draws them), with `report` the page.
fn contents(
    summary: &Summary,
    comparison: &Comparison,
    pruners: &[String],
    report: bool,
) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let svg = figures::svg(&figures::Plot::Figure(figure(summary, comparison)))
        .context("drawing the comparison")?;
    let mut contents: Vec<(&str, Vec<u8>)> =
        vec![(COMPARISON_FILE, csv(comparison, pruners).into_bytes())];
    if figures::PNG {
        let png = figures::png(&svg).context("drawing the comparison")?;
        contents.push(("comparison.png", png));
    }
    if report {
        contents.push((
            PAGE_FILE,
            page(summary, comparison, pruners, &svg).into_bytes(),
        ));
    }
    contents.push(("comparison.svg", svg.into_bytes()));
    Ok(contents)
}

/// Whether `dir` holds a comparison (its `comparison.json`), which `prunesim rerun DIR`
/// reruns as a whole ([`rerun`]).
pub(crate) fn is_comparison(dir: &Path) -> bool {
    dir.is_dir() && dir.join(MANIFEST_FILE).is_file() && !dir.join("manifest.json").exists()
}

/// `prunesim rerun DIR` of a comparison folder: each heuristic's run folder run again into
/// a temporary folder and compared with its files byte for byte, then the comparison's table,
/// figure and page made again from those runs and compared with the hashes its manifest
/// holds and with the files there. Nothing in `dir` is written. The verdicts go to stderr,
/// one line per run and one for the comparison; an error when any differs.
pub(crate) fn rerun(dir: &Path, jobs: usize) -> Result<()> {
    let path = dir.join(MANIFEST_FILE);
    let text = runner::files::read_input(&path)?;
    let manifest: Manifest = serde_json::from_str(&text)
        .ok()
        .filter(|m: &Manifest| m.kind == KIND)
        .with_context(|| format!("{}: not a comparison prunesim wrote", path.display()))?;
    let mut runs = Vec::new();
    let mut summaries = Vec::new();
    let mut differ = Vec::new();
    for h in &manifest.heuristics {
        runner::files::check_name(&h.folder)
            .map_err(anyhow::Error::msg)
            .with_context(|| format!("{}: folder {:?}", path.display(), h.folder))?;
        let super::compare::Reread {
            manifest: run,
            prepared,
            before,
            timelines,
            ..
        } = super::compare::reread(&dir.join(&h.folder), &h.folder)?;
        let scratch = tempfile::tempdir().context("creating a temporary folder for the rerun")?;
        let (summary, trials) = simulate(
            &prepared,
            &run,
            threads(jobs),
            &Outputs {
                dir: Some(scratch.path()),
                force: false,
                kept: false,
                timelines,
                report: false,
                inputs: run_folder::inputs(&run, None),
            },
        )?;
        match super::compare::verdict(&before, scratch.path(), prepared.trials) {
            Ok(v) => eprintln!("{}: {v}", h.folder),
            Err(e) => {
                eprintln!("{}: {e:#}", h.folder);
                differ.push(h.folder.clone());
            }
        }
        runs.push((h.heuristic.clone(), trials));
        summaries.push(summary);
    }
    let Some(summary) = summaries.first() else {
        bail!("{}: names no heuristic", path.display());
    };
    let comparison = Comparison::new(&runs);
    let pruners: Vec<String> = summaries
        .iter()
        .map(|s| output::pruner_line(&s.pruner))
        .collect();
    let report = manifest.files.contains_key(PAGE_FILE);
    let made = contents(summary, &comparison, &pruners, report)?;
    for (name, hash) in &manifest.files {
        let Some((_, bytes)) = made.iter().find(|(n, _)| n == name) else {
            eprintln!("{name}: not made by this build (it draws no PNG): not compared");
            continue;
        };
        let now = std::fs::read(dir.join(name)).ok();
        let same = runner::provenance::sha256_hex(bytes) == *hash
            && now.as_deref() == Some(bytes.as_slice());
        if !same {
            differ.push(name.clone());
        }
    }
    if differ.is_empty() {
        eprintln!(
            "reproduced bit for bit: {} runs and the comparison ({})",
            manifest.heuristics.len(),
            manifest
                .files
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(())
    } else {
        bail!(
            "rerun of {}: not reproduced: {}",
            dir.display(),
            differ.join(", ")
        )
    }
}

/// The comparison's page (`--report`): the table, the figure, and a link to each
/// heuristic's own report.
fn page(summary: &Summary, comparison: &Comparison, pruners: &[String], svg: &str) -> String {
    use report::html::html_escape as e;
    let mut rows = String::new();
    for (i, (r, pruner)) in comparison.rows.iter().zip(pruners).enumerate() {
        let vs = match &r.difference_to_best {
            _ if i == comparison.best => "best".to_owned(),
            Some(d) => format!("{:+.2} {}", d.mean, interval(d)),
            None => "-".to_owned(),
        };
        rows.push_str(&format!(
            "<tr><th><a href=\"{h}/report.html\">{h}</a></th><td>{}</td><td>{:.2} {}</td><td>{}</td><td>{:.2}</td></tr>\n",
            e(pruner),
            r.robustness.mean,
            interval(&r.robustness),
            vs,
            r.worst_type_on_time.mean,
            h = e(&r.heuristic),
        ));
    }
    let bracket = summary.optimum.as_ref().map_or_else(String::new, |o| {
        format!(
            "<p>The clairvoyant optimum is in [{:.2}, {:.2}]% (mean over the trials).</p>",
            o.lower, o.upper
        )
    });
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:4px 8px;text-align:left}}</style></head><body>\n\
         <h1>{title}</h1>\n<p>Each heuristic on the same trials (common random numbers); \
         vs best: the paired difference to {best} in points, trial by trial, with its 95% \
         interval. Each name links to its run's report.</p>\n<table><tr><th>heuristic</th>\
         <th>pruner</th><th>robustness (%) [95% CI]</th><th>vs best</th><th>worst type (%)</th>\
         </tr>\n{rows}</table>\n{bracket}\n{svg}</body></html>\n",
        title = e(&summary.experiment),
        best = e(comparison.best_name()),
    )
}

/// The comparison's figure: each heuristic's robustness and its 95% interval, the
/// clairvoyant bracket (when computed) behind every bar.
fn figure(summary: &Summary, comparison: &Comparison) -> figures::Figure {
    let rows = &comparison.rows;
    figures::Figure {
        title: format!("{}: best {}", summary.experiment, comparison.best_name()),
        x_label: "heuristic".into(),
        y_label: "robustness (%)".into(),
        x_labels: rows.iter().map(|r| r.heuristic.clone()).collect(),
        series: vec!["robustness".into()],
        bars: rows
            .iter()
            .enumerate()
            .map(|(i, r)| figures::Bar {
                x_index: i,
                series_index: 0,
                value: figures::Interval {
                    mean: r.robustness.mean,
                    ci95_low: r.robustness.ci95_low,
                    ci95_high: r.robustness.ci95_high,
                },
                label: None,
            })
            .collect(),
        bands: summary.optimum.as_ref().map_or_else(Vec::new, |o| {
            (0..rows.len())
                .map(|i| figures::Band {
                    x_index: i,
                    lower: o.lower,
                    upper: o.upper,
                })
                .collect()
        }),
        published: Vec::new(),
        chart: figures::Chart::Bars,
        integer_y: false,
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
