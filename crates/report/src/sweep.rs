//! The report of a sweep's output folder: one self-contained HTML page per folder, for every
//! sweep that `prunesim sweep --out DIR` wrote there (`<id>.manifest.json`, `<id>.csv`,
//! `<id>.trials.csv`, traces under `<id>.trace/`).
//!
//! For each sweep: its title, source and notes; its figure redrawn as an SVG in which every
//! point (a series at an x value, its mean with the 95% interval) links to that point's
//! section; and per point, its configuration (heuristic, pruner, seed, trials), every
//! trial's measures, and for a traced point the timeline of each of its first
//! [`TIMELINES_PER_POINT`] traced trials (drawn as the run report's timelines are; machines
//! named by index, as a sweep's manifest does not name them). No file outside the page is
//! read when it is viewed.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use runner::trace::{TaskRow, for_each_row};

use crate::html::{html_escape, read_json};
use crate::{Error, traced_trials};

/// Traced trials drawn per point (the others are left as files; each timeline is an SVG of
/// one bar per executed task).
pub const TIMELINES_PER_POINT: usize = 3;

/// What a written sweep report holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepReportStats {
    /// The sweeps it shows.
    pub sweeps: Vec<String>,
    /// Points over all sweeps.
    pub points: usize,
    /// Timelines drawn.
    pub timelines: usize,
    /// The file's size in bytes.
    pub bytes: usize,
}

/// The ids of the sweeps whose output `dir` holds (each `<id>.manifest.json` that is a
/// sweep's manifest), in order; none when `dir` is not a sweep's output folder.
pub fn sweep_ids(dir: &Path) -> Result<Vec<String>, Error> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::data(dir, format!("cannot list: {e}")))?;
    let mut ids = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".manifest.json")) else {
            continue;
        };
        let is_sweep = read_json(&e.path())
            .ok()
            .flatten()
            .is_some_and(|m| m.get("figure").is_some() && m.get("points").is_some());
        if is_sweep {
            ids.push(id.to_owned());
        }
    }
    ids.sort();
    Ok(ids)
}

/// The sweep output folder a traced point's folder (`OUT/<id>.trace/<point>-<x>-<series>`)
/// belongs to, and the point's anchor in that folder's report; `None` for any other folder.
pub fn point_folder(dir: &Path) -> Option<(PathBuf, String)> {
    let trace = dir.parent()?;
    let id = trace.file_name()?.to_str()?.strip_suffix(".trace")?;
    let point: usize = dir.file_name()?.to_str()?.split('-').next()?.parse().ok()?;
    Some((trace.parent()?.to_path_buf(), anchor(id, point)))
}

fn anchor(id: &str, point: usize) -> String {
    let id: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{id}-point-{point}")
}

/// One point of a sweep: its manifest entry and its trials' measures.
struct Point {
    x: String,
    series: String,
    heuristic: String,
    pruner: String,
    seed: String,
    trace: Option<PathBuf>,
    /// `metric -> value per trial` in trial order.
    trials: BTreeMap<String, Vec<(u64, f64)>>,
    mean: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
}

/// Writes the report of every sweep in `dir` to `out`.
pub fn write_sweep_report(dir: &Path, out: &Path) -> Result<SweepReportStats, Error> {
    let ids = sweep_ids(dir)?;
    if ids.is_empty() {
        return Err(Error::data(
            dir,
            "no <id>.manifest.json of a sweep: not a folder that prunesim sweep --out wrote",
        ));
    }
    let mut body = String::new();
    let mut stats = SweepReportStats {
        sweeps: ids.clone(),
        points: 0,
        timelines: 0,
        bytes: 0,
    };
    for id in &ids {
        let (section, points, timelines) = sweep_section(dir, id)?;
        body.push_str(&section);
        stats.points += points;
        stats.timelines += timelines;
    }
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"generator\" content=\"prunesim\"><title>{title}</title><style>{STYLE}</style></head><body>\n<h1>{title}</h1>\n{body}</body></html>\n",
        title = html_escape(&format!("Sweeps: {}", ids.join(", "))),
    );
    stats.bytes = html.len();
    runner::files::write_atomic(out, html.as_bytes())?;
    Ok(stats)
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1200px}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\
th{background:#f4f4f4}td.l,th.l{text-align:left}section.point{border-top:1px solid #ddd;margin-top:1em}\
section.point:target{background:#fffbe6}div.timeline{overflow-x:auto}svg a circle:hover{stroke-width:3}";

/// One sweep's section of the page, with the number of its points and of the timelines it shows.
///
/// One function because it writes one sweep's section of the page top to bottom: its
/// figure, its table and one block per point, in the order the page shows them.
fn sweep_section(dir: &Path, id: &str) -> Result<(String, usize, usize), Error> {
    let manifest_path = dir.join(format!("{id}.manifest.json"));
    let manifest =
        read_json(&manifest_path)?.ok_or_else(|| Error::data(&manifest_path, "missing"))?;
    fn text(v: &serde_json::Value) -> String {
        match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => String::new(),
            // A table (the pruner) as `key = value` pairs.
            serde_json::Value::Object(o) => o
                .iter()
                .map(|(k, v)| format!("{k} = {}", text(v)))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        }
    }
    let entries = manifest
        .get("points")
        .and_then(|p| p.as_array())
        .ok_or_else(|| Error::data(&manifest_path, "no list of points"))?;
    let mut points: Vec<Point> = entries
        .iter()
        .map(|p| Point {
            x: text(&p["x"]),
            series: text(&p["series"]),
            heuristic: text(&p["heuristic"]),
            pruner: text(&p["pruner"]),
            seed: text(&p["seed"]),
            trace: p["trace"].as_str().map(|t| dir.join(t)),
            trials: BTreeMap::new(),
            mean: None,
            low: None,
            high: None,
        })
        .collect();
    let index: BTreeMap<(String, String), usize> = points
        .iter()
        .enumerate()
        .map(|(i, p)| ((p.x.clone(), p.series.clone()), i))
        .collect();
    // The figure's values: <id>.csv (x, series, mean, ci95_low, ci95_high, n).
    let csv_path = dir.join(format!("{id}.csv"));
    for rec in records(&csv_path)? {
        if let Some(&i) = index.get(&(
            rec.get("x").cloned().unwrap_or_default(),
            rec.get("series").cloned().unwrap_or_default(),
        )) {
            let num = |k: &str| rec.get(k).and_then(|v| v.parse::<f64>().ok());
            points[i].mean = num("mean");
            points[i].low = num("ci95_low");
            points[i].high = num("ci95_high");
        }
    }
    // Every trial's measures: <id>.trials.csv (x, series, trial, metric, value).
    let trials_path = dir.join(format!("{id}.trials.csv"));
    if trials_path.exists() {
        for rec in records(&trials_path)? {
            let key = (
                rec.get("x").cloned().unwrap_or_default(),
                rec.get("series").cloned().unwrap_or_default(),
            );
            let (Some(&i), Some(trial), Some(metric), Some(value)) = (
                index.get(&key),
                rec.get("trial").and_then(|t| t.parse::<u64>().ok()),
                rec.get("metric"),
                rec.get("value").and_then(|v| v.parse::<f64>().ok()),
            ) else {
                continue;
            };
            points[i]
                .trials
                .entry(metric.clone())
                .or_default()
                .push((trial, value));
        }
    }
    let title = text(&manifest["title"]);
    let mut s = String::new();
    let _ = writeln!(s, "<h2>{}: {}</h2>", html_escape(id), html_escape(&title));
    if let Some(source) = manifest["source"].as_str().filter(|t| !t.trim().is_empty()) {
        let _ = writeln!(s, "<p>Source: {}</p>", html_escape(source));
    }
    if let Some(notes) = manifest["notes"].as_array() {
        s.push_str("<ul>");
        for n in notes {
            let _ = write!(s, "<li>{}</li>", html_escape(&text(n)));
        }
        s.push_str("</ul>\n");
    }
    let axes = Axes {
        x: text(&manifest["x_label"]),
        y: text(&manifest["y_label"]),
        unit: text(&manifest["unit"]),
    };
    s.push_str(&means_table(&points, &axes));
    s.push_str("<p>Each point links to its trials below (and to its timelines when traced); the whiskers are the 95% intervals.</p>\n");
    s.push_str(&figure(id, &points, &axes));
    let mut timelines = 0;
    for (n, p) in points.iter().enumerate() {
        let _ = writeln!(
            s,
            "<section class=\"point\" id=\"{}\"><h3>point {n}: {} at x = {}</h3>",
            anchor(id, n),
            html_escape(&p.series),
            html_escape(&p.x)
        );
        let _ = writeln!(
            s,
            "<p>heuristic {}; pruner: {}; seed {}; mean {} [{}, {}] (95% interval)</p>",
            html_escape(&p.heuristic),
            html_escape(&p.pruner),
            html_escape(&p.seed),
            shown(p.mean),
            shown(p.low),
            shown(p.high)
        );
        s.push_str(&trial_table(p));
        if let Some(trace) = &p.trace {
            let ks = traced_trials(trace)?;
            let _ = writeln!(
                s,
                "<p>Traced: {} trials in <code>{}</code>{}.</p>",
                ks.len(),
                html_escape(
                    &trace
                        .strip_prefix(dir)
                        .unwrap_or(trace)
                        .display()
                        .to_string()
                ),
                if ks.len() > TIMELINES_PER_POINT {
                    format!(" (the first {TIMELINES_PER_POINT} drawn)")
                } else {
                    String::new()
                }
            );
            for &k in ks.iter().take(TIMELINES_PER_POINT) {
                s.push_str(&timeline_svg(
                    trace,
                    k,
                    &format!("{}, x = {}, trial {k}", p.series, p.x),
                )?);
                timelines += 1;
            }
        }
        s.push_str("</section>\n");
    }
    Ok((s, points.len(), timelines))
}

fn shown(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"))
}

/// A CSV file's rows as maps from column to text.
fn records(path: &Path) -> Result<Vec<BTreeMap<String, String>>, Error> {
    let (mut r, header) = crate::csv_with_header(path)?;
    r.records()
        .map(|rec| {
            let rec = rec.map_err(|e| Error::data(path, e))?;
            Ok(header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_owned))
                .collect())
        })
        .collect()
}

/// A point's trials: one row per trial, one column per measure.
fn trial_table(p: &Point) -> String {
    if p.trials.is_empty() {
        return "<p>No per-trial measures (no trials file).</p>\n".into();
    }
    let mut trials: Vec<u64> = p.trials.values().flatten().map(|&(k, _)| k).collect();
    trials.sort_unstable();
    trials.dedup();
    let mut s = String::from("<table><tr><th>trial</th>");
    for m in p.trials.keys() {
        let _ = write!(s, "<th>{}</th>", html_escape(m));
    }
    s.push_str("</tr>\n");
    for k in trials {
        let _ = write!(s, "<tr><td>{k}</td>");
        for values in p.trials.values() {
            let v = values.iter().find(|&&(t, _)| t == k).map(|&(_, v)| v);
            let _ = write!(
                s,
                "<td>{}</td>",
                v.map_or_else(String::new, |v| format!("{v}"))
            );
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// The timeline of traced trial `k` as an inline SVG, machines named by index.
fn timeline_svg(trace: &Path, k: u64, title: &str) -> Result<String, Error> {
    let path = runner::trace::tasks_path(trace, k);
    let mut machines = 0;
    for_each_row(&path, |r: TaskRow| {
        if let Some(m) = r.machine {
            machines = machines.max(m + 1);
        }
    })?;
    let names = (0..machines).map(|j| format!("m{j}")).collect();
    let t = crate::timeline::Timeline::from_csv(title.to_owned(), names, &path)?;
    let svg = t.svg()?;
    // Drop the XML declaration, if any: the SVG sits inside HTML.
    Ok(match svg.find("<svg") {
        Some(i) => format!("<div class=\"timeline\">{}</div>\n", &svg[i..]),
        None => String::new(),
    })
}

/// What the sweep's axes show, from its manifest (empty for a sweep written before the
/// manifest named them).
struct Axes {
    /// The x axis' label.
    x: String,
    /// The y axis' label (the measure).
    y: String,
    /// The measure's unit.
    unit: String,
}

impl Axes {
    /// The y label with its unit.
    fn y_with_unit(&self) -> String {
        match (self.y.is_empty(), self.unit.is_empty()) {
            (true, _) => "mean".to_owned(),
            (false, true) => self.y.clone(),
            (false, false) => format!("{} ({})", self.y, self.unit),
        }
    }
}

/// The x values and the series, each in the order of their first point.
fn axes_values(points: &[Point]) -> (Vec<&str>, Vec<&str>) {
    let mut xs: Vec<&str> = Vec::new();
    let mut series: Vec<&str> = Vec::new();
    for p in points {
        if !xs.contains(&p.x.as_str()) {
            xs.push(&p.x);
        }
        if !series.contains(&p.series.as_str()) {
            series.push(&p.series);
        }
    }
    (xs, series)
}

/// The table of means the section opens on: a row per series, a column per x value, each
/// cell the mean and its 95% interval, the unit in the caption.
fn means_table(points: &[Point], axes: &Axes) -> String {
    let (xs, series) = axes_values(points);
    let mut s = format!(
        "<table class=\"means\"><caption>{}: the mean over the trials and its 95% interval, by {}</caption>\n<tr><th>series</th>",
        html_escape(&axes.y_with_unit()),
        html_escape(if axes.x.is_empty() { "x" } else { &axes.x })
    );
    for x in &xs {
        let _ = write!(s, "<th>{}</th>", html_escape(x));
    }
    s.push_str("</tr>\n");
    for name in &series {
        let _ = write!(s, "<tr><th>{}</th>", html_escape(name));
        for x in &xs {
            let cell = points
                .iter()
                .find(|p| p.series == *name && p.x == *x)
                .map_or_else(String::new, |p| match (p.low, p.high) {
                    (Some(_), Some(_)) => {
                        format!("{} [{}, {}]", shown(p.mean), shown(p.low), shown(p.high))
                    }
                    _ => shown(p.mean),
                });
            let _ = write!(s, "<td>{cell}</td>");
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// A marker of shape `k` (circle, square, triangle, diamond, cross: one per series, so that
/// series of close colours stay apart in grey) centred at `(x, y)`.
fn marker(k: usize, x: f64, y: f64, colour: &str) -> String {
    let r = 5.0;
    match k % 5 {
        0 => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{colour}\"/>"),
        1 => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{}\" fill=\"{colour}\"/>",
            x - r + 0.5,
            y - r + 0.5,
            2.0 * r - 1.0,
            2.0 * r - 1.0
        ),
        2 => format!(
            "<polygon points=\"{x:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{colour}\"/>",
            y - r - 1.0,
            x - r,
            y + r - 1.0,
            x + r,
            y + r - 1.0
        ),
        3 => format!(
            "<polygon points=\"{x:.1},{:.1} {:.1},{y:.1} {x:.1},{:.1} {:.1},{y:.1}\" fill=\"{colour}\"/>",
            y - r - 1.0,
            x + r + 1.0,
            y + r + 1.0,
            x - r - 1.0
        ),
        _ => format!(
            "<path d=\"M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}\" stroke=\"{colour}\" stroke-width=\"2.5\"/>",
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
    }
}

/// The dash pattern of series `k`'s line (solid, dashed, dotted, dash-dot, long dashes).
fn dashes(k: usize) -> &'static str {
    ["", "6 3", "2 3", "8 3 2 3", "12 4"][k % 5]
}

/// The sweep's figure: the series' means at each x value (in the order of the points) with
/// their 95% intervals, each point a link to its section; each series its own colour, marker
/// and dash pattern; the axes labelled.
fn figure(id: &str, points: &[Point], axes: &Axes) -> String {
    const COLOURS: [&str; 8] = [
        "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
    ];
    let (w, h, left, right, top, bottom) = (900.0, 440.0, 70.0, 240.0, 20.0, 60.0);
    let (xs, series) = axes_values(points);
    let top_value = points
        .iter()
        .filter_map(|p| p.high.or(p.mean))
        .fold(0.0f64, f64::max);
    let y_max = if top_value <= 100.0 {
        100.0
    } else {
        top_value * 1.05
    };
    let plot_w = w - left - right;
    let plot_h = h - top - bottom;
    let px = |i: usize| left + plot_w * (i as f64 + 0.5) / xs.len().max(1) as f64;
    let py = |v: f64| top + plot_h * (1.0 - (v / y_max).clamp(0.0, 1.0));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    let _ = writeln!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{plot_w}\" height=\"{plot_h}\" fill=\"none\" stroke=\"#999\"/>"
    );
    for tick in 0..=4 {
        let v = y_max * f64::from(tick) / 4.0;
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{v:.0}</text>",
            left - 6.0,
            py(v) + 4.0
        );
    }
    for (i, x) in xs.iter().enumerate() {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(i),
            h - bottom + 18.0,
            html_escape(x)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        left + plot_w / 2.0,
        h - 12.0,
        html_escape(if axes.x.is_empty() { "x" } else { &axes.x })
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(18,{}) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        top + plot_h / 2.0,
        html_escape(&axes.y_with_unit())
    );
    for (si, name) in series.iter().enumerate() {
        let colour = COLOURS[si % COLOURS.len()];
        let mine: Vec<(usize, usize, &Point)> = points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.series == *name)
            .filter_map(|(n, p)| xs.iter().position(|x| *x == p.x).map(|i| (n, i, p)))
            .collect();
        let line: Vec<String> = mine
            .iter()
            .filter_map(|&(_, i, p)| p.mean.map(|m| format!("{:.1},{:.1}", px(i), py(m))))
            .collect();
        let dash = match dashes(si) {
            "" => String::new(),
            d => format!(" stroke-dasharray=\"{d}\""),
        };
        let _ = writeln!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash} points=\"{}\"/>",
            line.join(" ")
        );
        for &(n, i, p) in &mine {
            let Some(m) = p.mean else { continue };
            if let (Some(lo), Some(hi)) = (p.low, p.high) {
                let _ = writeln!(
                    s,
                    "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\"/>",
                    py(lo),
                    py(hi),
                    x = px(i)
                );
            }
            let _ = writeln!(
                s,
                "<a href=\"#{}\"><title>{}, x = {}: {m:.2}</title>{}</a>",
                anchor(id, n),
                html_escape(&p.series),
                html_escape(&p.x),
                marker(si, px(i), py(m), colour)
            );
        }
        let ly = top + 18.0 * si as f64 + 8.0;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash}/>{}<text x=\"{}\" y=\"{}\">{}</text>",
            w - right + 6.0,
            w - right + 30.0,
            marker(si, w - right + 18.0, ly, colour),
            w - right + 36.0,
            ly + 4.0,
            html_escape(name)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_folder_leads_to_its_sweep_and_anchor() {
        let dir = Path::new("/out/paper-7.trace/003-34k-PAM");
        assert_eq!(
            point_folder(dir),
            Some((PathBuf::from("/out"), "paper-7-point-3".to_owned()))
        );
        assert_eq!(point_folder(Path::new("/out/results")), None);
    }
}
