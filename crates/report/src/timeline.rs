//! The timeline figure of one traced trial: machines on the vertical axis, time on the
//! horizontal one, one bar per executed task from its start to its end coloured by its
//! outcome, a cross where a task was dropped (by the pruner or the heuristic) and a triangle
//! where one expired at its deadline on a machine. Deferral periods are in the interactive
//! report ([`crate::html`]), not here.
//!
//! Up to [`MAX_BARS`] executed tasks every task is a bar; beyond, each machine's row is cut
//! into [`SLICES`] time slices, each coloured by the outcome that used most of its machine
//! time and shaded by how busy the machine was in it, and the marks are kept once per slice.
//! A trace file is read twice, row by row, and never held whole ([`Timeline::from_csv`]).

use std::path::Path;

use model::Outcome;
use plotters::prelude::*;
use runner::trace::{TaskRow, for_each_row};

use crate::Error;
use crate::render::FONT;

/// Above this many executed tasks the figure draws time slices instead of bars.
pub const MAX_BARS: usize = 20_000;

/// Time slices per machine row when the figure aggregates.
pub const SLICES: usize = 1_000;

/// The executed outcomes, in legend order: a bar's colour.
pub const BAR_OUTCOMES: [Outcome; 4] = [
    Outcome::OnTime,
    Outcome::Late,
    Outcome::ExpiredExecuting,
    Outcome::PrunedExecuting,
];

/// The colour of an outcome (Okabe-Ito, readable by colour-blind readers), as RGB.
pub fn outcome_rgb(o: Outcome) -> (u8, u8, u8) {
    match o {
        Outcome::OnTime => (0, 158, 115),
        Outcome::Late => (230, 159, 0),
        Outcome::ExpiredExecuting => (213, 94, 0),
        Outcome::PrunedExecuting => (204, 121, 167),
        Outcome::ExpiredPending => (240, 228, 66),
        Outcome::PrunedPending => (0, 114, 178),
        Outcome::Unmapped => (153, 153, 153),
        Outcome::Discarded => (86, 180, 233),
    }
}

fn rgb(o: Outcome) -> RGBColor {
    let (r, g, b) = outcome_rgb(o);
    RGBColor(r, g, b)
}

const DROP: RGBColor = RGBColor(0, 0, 0);
const EXPIRY: RGBColor = RGBColor(213, 94, 0);

/// What a mark stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MarkKind {
    /// Dropped by the pruner or the heuristic (pending or executing).
    Dropped,
    /// Expired at its deadline in a machine queue or while executing.
    Expired,
}

/// A mark on a machine's row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// The machine.
    pub machine: usize,
    /// The tick.
    pub at: i64,
    /// What happened.
    pub kind: MarkKind,
}

/// An executed task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    /// The machine.
    pub machine: usize,
    /// Start tick.
    pub start: i64,
    /// End tick.
    pub end: i64,
    /// Outcome (one of [`BAR_OUTCOMES`]).
    pub outcome: Outcome,
}

/// Each machine's time slices: per slice, the machine time of each of [`BAR_OUTCOMES`].
#[derive(Debug, Clone, PartialEq)]
pub struct Slices {
    /// Ticks per slice.
    pub width: f64,
    /// `busy[m][s][k]`: machine `m`'s ticks in slice `s` spent on tasks of outcome `k`.
    pub busy: Vec<Vec<[f32; 4]>>,
}

/// What a timeline draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The figure's title.
    pub title: String,
    /// Machine names, by index.
    pub machines: Vec<String>,
    /// First tick shown (the first arrival).
    pub t0: i64,
    /// Last tick shown (the last end).
    pub t1: i64,
    /// Executed tasks (empty when aggregated).
    pub bars: Vec<Bar>,
    /// The slices, when there are more than [`MAX_BARS`] executed tasks.
    pub slices: Option<Slices>,
    /// Drops and expiries on machines (one per slice and kind when aggregated).
    pub marks: Vec<Mark>,
    /// Executed tasks.
    pub executed: usize,
    /// Tasks never mapped (no row of theirs is drawn).
    pub never_mapped: usize,
}

/// The first pass: the time span and the number of executed tasks.
#[derive(Debug, Clone, Copy)]
struct Extent {
    t0: i64,
    t1: i64,
    executed: usize,
}

impl Extent {
    fn new() -> Self {
        Extent {
            t0: i64::MAX,
            t1: i64::MIN,
            executed: 0,
        }
    }
    fn add(&mut self, r: &TaskRow) {
        self.t0 = self.t0.min(r.arrival);
        self.t1 = self.t1.max(r.end);
        self.executed += usize::from(r.executed());
    }
}

fn mark_kind(o: Outcome) -> Option<MarkKind> {
    match o {
        Outcome::PrunedPending | Outcome::PrunedExecuting => Some(MarkKind::Dropped),
        Outcome::ExpiredPending | Outcome::ExpiredExecuting => Some(MarkKind::Expired),
        _ => None,
    }
}

impl Timeline {
    fn empty(title: String, machines: Vec<String>, e: Extent) -> Self {
        let (t0, t1) = if e.t0 > e.t1 {
            (0, 1)
        } else {
            (e.t0, e.t1.max(e.t0 + 1))
        };
        let slices = (e.executed > MAX_BARS).then(|| Slices {
            width: (t1 - t0) as f64 / SLICES as f64,
            busy: vec![vec![[0.0; 4]; SLICES]; machines.len()],
        });
        Timeline {
            title,
            machines,
            t0,
            t1,
            bars: Vec::new(),
            slices,
            marks: Vec::new(),
            executed: 0,
            never_mapped: 0,
        }
    }

    fn slice_of(&self, t: f64) -> usize {
        let w = self.slices.as_ref().map_or(1.0, |s| s.width);
        (((t - self.t0 as f64) / w).floor().max(0.0) as usize).min(SLICES - 1)
    }

    fn add(&mut self, r: &TaskRow) {
        let Some(m) = r.machine.filter(|&m| m < self.machines.len()) else {
            self.never_mapped += usize::from(r.machine.is_none());
            return;
        };
        if let Some(start) = r.start {
            self.executed += 1;
            let k = BAR_OUTCOMES
                .iter()
                .position(|&o| o == r.outcome)
                .unwrap_or(0);
            match &self.slices {
                None => self.bars.push(Bar {
                    machine: m,
                    start,
                    end: r.end,
                    outcome: r.outcome,
                }),
                Some(s) => {
                    let w = s.width;
                    let (a, b) = (start as f64, r.end as f64);
                    let (first, last) = (self.slice_of(a), self.slice_of(b));
                    let t0 = self.t0 as f64;
                    if let Some(s) = &mut self.slices {
                        for i in first..=last {
                            let lo = a.max(t0 + i as f64 * w);
                            let hi = b.min(t0 + (i + 1) as f64 * w);
                            if hi > lo {
                                s.busy[m][i][k] += (hi - lo) as f32;
                            }
                        }
                    }
                }
            }
        }
        if let Some(kind) = mark_kind(r.outcome) {
            let mark = Mark {
                machine: m,
                at: r.end,
                kind,
            };
            self.marks.push(mark);
        }
    }

    fn finish(mut self) -> Self {
        if self.slices.is_some() {
            // One mark per machine, slice and kind.
            let mut keyed: Vec<(usize, usize, MarkKind)> = self
                .marks
                .iter()
                .map(|k| (k.machine, self.slice_of(k.at as f64), k.kind))
                .collect();
            keyed.sort_unstable();
            keyed.dedup();
            let w = self.slices.as_ref().map_or(1.0, |s| s.width);
            self.marks = keyed
                .into_iter()
                .map(|(machine, s, kind)| Mark {
                    machine,
                    at: self.t0 + ((s as f64 + 0.5) * w) as i64,
                    kind,
                })
                .collect();
        }
        self
    }

    /// The timeline of a trial's task rows.
    pub fn from_rows(title: String, machines: Vec<String>, rows: &[TaskRow]) -> Self {
        let mut e = Extent::new();
        rows.iter().for_each(|r| e.add(r));
        let mut t = Timeline::empty(title, machines, e);
        rows.iter().for_each(|r| t.add(r));
        t.finish()
    }

    /// The timeline of a per-task trace file, read twice row by row.
    pub fn from_csv(title: String, machines: Vec<String>, path: &Path) -> Result<Self, Error> {
        let mut e = Extent::new();
        for_each_row(path, |r: TaskRow| e.add(&r))?;
        let mut t = Timeline::empty(title, machines, e);
        for_each_row(path, |r: TaskRow| t.add(&r))?;
        Ok(t.finish())
    }

    /// The figure as SVG.
    pub fn svg(&self) -> Result<String, Error> {
        let mut svg = String::new();
        self.draw(&mut svg).map_err(|message| Error::Draw {
            what: self.title.clone(),
            message,
        })?;
        Ok(svg)
    }

    /// Writes `<stem>.svg` and `<stem>.png`, each atomically.
    pub fn write(&self, svg_path: &Path, png_path: &Path) -> Result<(), Error> {
        let svg = self.svg()?;
        runner::files::write_atomic(svg_path, svg.as_bytes())?;
        crate::render::write_png(&svg, png_path)
    }

    fn draw(&self, svg: &mut String) -> Result<(), String> {
        let m = self.machines.len().max(1);
        let (row, every) = row_height(m);
        let width = 1200u32;
        let legend_h = legend_height(&self.legend_items(), width);
        let height = 70 + 60 + legend_h + row * m as u32;
        let root = SVGBackend::with_string(svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (plot, legend) = root.split_vertically(height - legend_h);
        let names = self.machines.clone();
        let mut chart = ChartBuilder::on(&plot)
            .caption(&self.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(90)
            .build_cartesian_2d(self.t0 as f64..self.t1 as f64, -0.5f64..(m as f64 - 0.5))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(m)
            .y_label_formatter(&|v| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                    let machine = names.len() - 1 - i as usize;
                    if machine % every == 0 {
                        return names[machine].clone();
                    }
                }
                String::new()
            })
            .x_label_formatter(&|v| format!("{v:.0}"))
            .x_desc("time (time units of the experiment)")
            .y_desc("machine")
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        let half = 0.38;
        // Machine 0 on top, as in the report.
        let row_y = |machine: usize| (m - 1 - machine.min(m - 1)) as f64;
        match &self.slices {
            None => {
                // A pixel's gap at the end of each bar longer than two, so that tasks run
                // back to back stay apart.
                let pixel = (self.t1 - self.t0) as f64 / f64::from(width - 120);
                chart
                    .draw_series(self.bars.iter().map(|b| {
                        let y = row_y(b.machine);
                        let (x0, x1) = (b.start as f64, b.end as f64);
                        // At least a pixel wide: a task may start and be dropped at one tick.
                        let x1 = if x1 - x0 > 2.0 * pixel {
                            x1 - pixel
                        } else {
                            x1.max(x0 + pixel)
                        };
                        Rectangle::new([(x0, y - half), (x1, y + half)], rgb(b.outcome).filled())
                    }))
                    .map_err(|e| e.to_string())?;
            }
            Some(s) => {
                let mut rects = Vec::new();
                for (mi, slices) in s.busy.iter().enumerate() {
                    for (i, busy) in slices.iter().enumerate() {
                        let total: f32 = busy.iter().sum();
                        if total <= 0.0 {
                            continue;
                        }
                        let k = (0..4)
                            .max_by(|&a, &b| busy[a].total_cmp(&busy[b]))
                            .unwrap_or(0);
                        let share = f64::from(total) / s.width;
                        let x0 = self.t0 as f64 + i as f64 * s.width;
                        let y = row_y(mi);
                        rects.push(Rectangle::new(
                            [(x0, y - half), (x0 + s.width, y + half)],
                            rgb(BAR_OUTCOMES[k]).mix(share.clamp(0.25, 1.0)).filled(),
                        ));
                    }
                }
                chart.draw_series(rects).map_err(|e| e.to_string())?;
            }
        }
        let size = (row as i32 / 4).clamp(3, 6);
        chart
            .draw_series(
                self.marks
                    .iter()
                    .filter(|k| k.kind == MarkKind::Expired)
                    .map(|k| {
                        TriangleMarker::new(
                            (k.at as f64, row_y(k.machine) + half),
                            size,
                            EXPIRY.filled(),
                        )
                    }),
            )
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                self.marks
                    .iter()
                    .filter(|k| k.kind == MarkKind::Dropped)
                    .map(|k| {
                        Cross::new((k.at as f64, row_y(k.machine)), size, DROP.stroke_width(2))
                    }),
            )
            .map_err(|e| e.to_string())?;
        self.draw_legend(&legend)?;
        root.present().map_err(|e| e.to_string())?;
        Ok(())
    }

    /// The legend's entries in order: each outcome's swatch, the drop and expiry marks, and
    /// the note of what is (not) drawn.
    fn legend_items(&self) -> Vec<LegendItem> {
        let mut items: Vec<LegendItem> = BAR_OUTCOMES
            .iter()
            .map(|&o| LegendItem::Outcome(o, o.name().replace('_', " ")))
            .collect();
        items.push(LegendItem::Dropped);
        items.push(LegendItem::Expired);
        let mut note = format!("{} executed", self.executed);
        if self.never_mapped > 0 {
            note.push_str(&format!(", {} never mapped (not drawn)", self.never_mapped));
        }
        let (_, every) = row_height(self.machines.len().max(1));
        if every > 1 {
            note.push_str(&format!("; every {every}th machine labelled"));
        }
        if let Some(s) = &self.slices {
            note.push_str(&format!(
                "; slices of {:.0} time units, coloured by the outcome that used most of each",
                s.width
            ));
        }
        items.push(LegendItem::Note(note));
        items
    }

    fn draw_legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), String> {
        let style = (FONT, 13).into_font().color(&BLACK);
        let width = area.dim_in_pixel().0;
        for (item, (x, y)) in self
            .legend_items()
            .iter()
            .zip(legend_layout(&self.legend_items(), width))
        {
            match item {
                LegendItem::Outcome(o, text) => {
                    area.draw(&Rectangle::new(
                        [(x, y - 6), (x + 18, y + 6)],
                        rgb(*o).filled(),
                    ))
                    .map_err(|e| e.to_string())?;
                    area.draw(&Text::new(text.clone(), (x + 24, y - 7), style.clone()))
                        .map_err(|e| e.to_string())?;
                }
                LegendItem::Dropped => {
                    area.draw(&Cross::new((x + 8, y), 5, DROP.stroke_width(2)))
                        .map_err(|e| e.to_string())?;
                    area.draw(&Text::new("dropped", (x + 20, y - 7), style.clone()))
                        .map_err(|e| e.to_string())?;
                }
                LegendItem::Expired => {
                    area.draw(&TriangleMarker::new((x + 8, y), 5, EXPIRY.filled()))
                        .map_err(|e| e.to_string())?;
                    area.draw(&Text::new("expired", (x + 20, y - 7), style.clone()))
                        .map_err(|e| e.to_string())?;
                }
                LegendItem::Note(note) => {
                    area.draw(&Text::new(note.clone(), (x, y - 7), style.clone()))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        Ok(())
    }
}

/// One entry of a timeline's legend.
enum LegendItem {
    /// A bar colour and its outcome's name.
    Outcome(Outcome, String),
    /// The cross of a drop.
    Dropped,
    /// The triangle of an expiry.
    Expired,
    /// Plain text.
    Note(String),
}

/// Pixels per character of the legend's 13-point font (an upper estimate, so that a line
/// never runs past the picture).
const LEGEND_CHAR: i32 = 8;
/// The legend's left margin, line height and the room below its last line, in pixels.
const LEGEND_LEFT: i32 = 100;
const LEGEND_LINE: i32 = 22;
const LEGEND_PAD: i32 = 12;

impl LegendItem {
    /// The item's width in pixels, with the gap after it.
    fn width(&self) -> i32 {
        let chars = |t: &str| LEGEND_CHAR * t.chars().count() as i32;
        match self {
            LegendItem::Outcome(_, text) => 36 + chars(text),
            LegendItem::Dropped | LegendItem::Expired => 90,
            LegendItem::Note(text) => 20 + chars(text),
        }
    }
}

/// Where each legend item starts, `(x, y)` of its centre line: items fill a line from the
/// left margin and wrap to the next when they would run past `width` (an item wider than a
/// line gets a line of its own).
fn legend_layout(items: &[LegendItem], width: u32) -> Vec<(i32, i32)> {
    let right = width as i32 - 20;
    let (mut x, mut y) = (LEGEND_LEFT, 18);
    items
        .iter()
        .map(|item| {
            if x > LEGEND_LEFT && x + item.width() > right {
                x = LEGEND_LEFT;
                y += LEGEND_LINE;
            }
            let at = (x, y);
            x += item.width();
            at
        })
        .collect()
}

/// The legend's height: its lines and the room below.
fn legend_height(items: &[LegendItem], width: u32) -> u32 {
    let last = legend_layout(items, width).last().map_or(18, |&(_, y)| y);
    (last + LEGEND_LINE / 2 + LEGEND_PAD + 8) as u32
}

/// A machine row's height in pixels, and which machines are labelled (every `every`-th,
/// from machine 0): every machine while a row fits a 12-point label (up to 128 machines,
/// the picture growing with them), then rows of at least 2 pixels with every `every`-th
/// machine labelled so that labels never overlap.
fn row_height(machines: usize) -> (u32, usize) {
    let m = machines.max(1);
    if m <= 128 {
        ((640 / m).clamp(12, 44) as u32, 1)
    } else {
        let row = (1536 / m).max(2);
        (row as u32, 12usize.div_ceil(row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runner::trace::EndedBy;

    fn row(
        task: usize,
        machine: Option<usize>,
        start: Option<i64>,
        end: i64,
        o: Outcome,
    ) -> TaskRow {
        TaskRow {
            task,
            task_type: 0,
            arrival: 0,
            deadline: 100,
            counted: true,
            considered: Some(0),
            deferrals: 0,
            first_deferred: None,
            mapped: machine.map(|_| 0),
            machine,
            chance: machine.map(|_| 0.5),
            start,
            end,
            outcome: o,
            ended_by: EndedBy::of(o, false),
        }
    }

    #[test]
    fn bars_marks_and_slices() {
        let rows = vec![
            row(0, Some(0), Some(0), 10, Outcome::OnTime),
            row(1, Some(1), Some(5), 30, Outcome::PrunedExecuting),
            row(2, Some(1), None, 12, Outcome::ExpiredPending),
            row(3, None, None, 40, Outcome::Unmapped),
        ];
        let t = Timeline::from_rows("t".into(), vec!["a".into(), "b".into()], &rows);
        assert_eq!(t.bars.len(), 2);
        assert_eq!(t.executed, 2);
        assert_eq!(t.never_mapped, 1);
        assert_eq!((t.t0, t.t1), (0, 40));
        let kinds: Vec<MarkKind> = t.marks.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [MarkKind::Dropped, MarkKind::Expired]);
        let svg = t.svg().unwrap();
        assert!(svg.starts_with("<svg"));
        let png = crate::render::png_bytes(&svg).unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn many_tasks_become_slices_that_keep_the_machine_time() {
        let n = MAX_BARS + 1;
        let rows: Vec<TaskRow> = (0..n)
            .map(|i| {
                row(
                    i,
                    Some(i % 2),
                    Some(i as i64),
                    i as i64 + 1,
                    Outcome::OnTime,
                )
            })
            .collect();
        let t = Timeline::from_rows("t".into(), vec!["a".into(), "b".into()], &rows);
        assert!(t.bars.is_empty());
        let s = t.slices.as_ref().unwrap();
        let total: f64 = s
            .busy
            .iter()
            .flatten()
            .map(|b| f64::from(b.iter().sum::<f32>()))
            .sum();
        assert!((total - n as f64).abs() < 1e-3 * n as f64, "{total}");
        assert!(t.svg().unwrap().len() < 2_000_000);
    }

    /// At 64 machines every machine is labelled, and the legend's lines (a long note of a
    /// sliced timeline too) stay inside the picture's width.
    #[test]
    fn every_machine_is_labelled_and_the_legend_wraps_inside_the_picture() {
        let names: Vec<String> = (0..64).map(|j| format!("gpu-{j}")).collect();
        let n = MAX_BARS + 1;
        let rows: Vec<TaskRow> = (0..n)
            .map(|i| {
                row(
                    i,
                    Some(i % 64),
                    Some(i as i64),
                    i as i64 + 3,
                    Outcome::OnTime,
                )
            })
            .collect();
        let t = Timeline::from_rows("t".into(), names.clone(), &rows);
        assert!(t.slices.is_some());
        let svg = t.svg().unwrap();
        for name in &names {
            assert!(
                svg.contains(&format!(">\n{name}\n<")),
                "{name} is not labelled"
            );
        }
        let items = t.legend_items();
        let layout = legend_layout(&items, 1200);
        assert!(
            layout.iter().map(|&(_, y)| y).max() > Some(18),
            "one line: {layout:?}"
        );
        for (item, (x, _)) in items.iter().zip(&layout) {
            assert!(
                x + item.width() <= 1200 || *x == LEGEND_LEFT,
                "{x} + {}",
                item.width()
            );
        }
        // Beyond 128 machines every k-th is labelled, the rows never shorter than 2 pixels.
        assert_eq!(row_height(64), (12, 1));
        let (row, every) = row_height(1024);
        assert!(row >= 2 && every as u32 * row >= 12, "{row} {every}");
    }
}
