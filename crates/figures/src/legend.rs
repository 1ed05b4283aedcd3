//! Where a figure's legend goes: in an upper corner, over no bar, line, band or marker.
//!
//! The legend is a box of one row per entry in the plot area's upper right or upper left
//! corner. Of the two, it takes the one whose data below it reach least high (the right one
//! when they tie), and the y axis then reaches high enough that the box's lower edge clears
//! those data: the axis grows only when neither corner has room already.

use crate::{Chart, Figure};

/// The plot area of a figure in pixels (the 960 x 600 picture less its margins, caption
/// and axis label areas).
const PLOT_WIDTH: f64 = 860.0;
const PLOT_HEIGHT: f64 = 490.0;

/// A legend row's height and a label character's width in pixels (13-pixel DejaVu Sans),
/// and the box's padding and glyph column: sizes on the generous side, so that the box
/// drawn is never larger than the room made for it.
const ROW: f64 = 18.0;
const CHAR: f64 = 6.5;
const PADDING: f64 = 12.0;
const GLYPH: f64 = 50.0;

/// Room between the legend's lower edge and the highest data under it, as a share of the
/// y axis.
const GAP: f64 = 0.02;

/// Where the legend goes and how high the y axis reaches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Place {
    /// The upper left corner (else the upper right).
    pub left: bool,
    /// The top of the y axis.
    pub y_hi: f64,
}

/// The legend's place for `fig` on a y axis from `y_lo` to at least `y_hi`; `band_label`
/// is the bracket's entry when the figure draws one.
pub(crate) fn place(fig: &Figure, band_label: Option<&str>, y_lo: f64, y_hi: f64) -> Place {
    let labels: Vec<&str> = band_label
        .into_iter()
        .chain(fig.series.iter().map(String::as_str))
        .collect();
    if labels.is_empty() {
        return Place { left: false, y_hi };
    }
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let width = ((chars as f64 * CHAR + GLYPH + PADDING) / PLOT_WIDTH).min(1.0);
    let height = ((labels.len() as f64 * ROW + PADDING) / PLOT_HEIGHT).min(0.9);
    // The x axis runs from -0.5 to n - 0.5.
    let n = fig.x_labels.len().max(1) as f64;
    let span = width * n;
    // A bar's label is printed above it: about a row's height.
    let label_room = ROW / PLOT_HEIGHT * (y_hi - y_lo);
    let needed = |x0: f64, x1: f64| {
        let top = highest(fig, x0, x1, label_room);
        if top.is_finite() {
            // The box's lower edge, y_hi - height (y_hi - y_lo), above top + GAP (y_hi - y_lo).
            ((top - (height + GAP) * y_lo) / (1.0 - height - GAP)).max(y_hi)
        } else {
            y_hi
        }
    };
    let right = needed(n - 0.5 - span, n - 0.5);
    let left = needed(-0.5, -0.5 + span);
    if left < right {
        Place {
            left: true,
            y_hi: left,
        }
    } else {
        Place {
            left: false,
            y_hi: right,
        }
    }
}

/// The highest value drawn between `x0` and `x1` on the x axis: bars with their error bars
/// and labels (`label_room` above the bar), line points with their error bars, the bracket
/// and the published markers (negative infinity when nothing is).
fn highest(fig: &Figure, x0: f64, x1: f64, label_room: f64) -> f64 {
    let overlaps = |a: f64, b: f64| a < x1 && b > x0;
    let n_s = fig.series.len().max(1) as f64;
    // Each value's horizontal extent: a bar's slot in its group, or a point with its marker.
    let extent = |x_index: usize, series_index: usize| match fig.chart {
        Chart::Bars => {
            let w = 0.8 / n_s;
            let a = x_index as f64 - 0.4 + series_index as f64 * w;
            (a, a + w)
        }
        Chart::Lines => (x_index as f64 - 0.05, x_index as f64 + 0.05),
    };
    let bars = fig.bars.iter().filter_map(|b| {
        let (a, c) = extent(b.x_index, b.series_index);
        let top = b.value.ci95_high.unwrap_or(b.value.mean).max(b.value.mean);
        let top = if b.label.is_some() {
            top + label_room
        } else {
            top
        };
        overlaps(a, c).then_some(top)
    });
    let bands = fig.bands.iter().filter_map(|b| {
        let x = b.x_index as f64;
        overlaps(x - 0.45, x + 0.45).then_some(b.upper)
    });
    let published = fig.published.iter().filter_map(|p| {
        let (a, c) = extent(p.x_index, p.series_index);
        overlaps(a, c).then_some(p.value)
    });
    bars.chain(bands)
        .chain(published)
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bar, Interval};

    /// Two series at three x values, each bar `value[x]` high.
    fn bars(values: [f64; 3]) -> Figure {
        Figure {
            x_labels: vec!["a".into(), "b".into(), "c".into()],
            series: vec!["one".into(), "two".into()],
            bars: (0..3)
                .flat_map(|x| {
                    (0..2).map(move |s| Bar {
                        x_index: x,
                        series_index: s,
                        value: Interval {
                            mean: values[x],
                            ci95_low: None,
                            ci95_high: None,
                        },
                        label: None,
                    })
                })
                .collect(),
            chart: Chart::Bars,
            ..Figure::default()
        }
    }

    /// The legend's lower edge on the axis `place` gives, as `place` sizes the box.
    fn lower_edge(fig: &Figure, p: Place, y_lo: f64) -> f64 {
        let rows = fig.series.len() as f64;
        let height = (rows * ROW + PADDING) / PLOT_HEIGHT;
        p.y_hi - height * (p.y_hi - y_lo)
    }

    #[test]
    fn low_data_leave_the_axis_and_the_upper_right_corner() {
        let fig = bars([10.0, 20.0, 30.0]);
        assert_eq!(
            place(&fig, None, 0.0, 115.0),
            Place {
                left: false,
                y_hi: 115.0
            }
        );
    }

    #[test]
    fn tall_data_on_the_right_send_the_legend_left() {
        let fig = bars([10.0, 50.0, 105.0]);
        let p = place(&fig, None, 0.0, 115.0);
        assert_eq!(
            p,
            Place {
                left: true,
                y_hi: 115.0
            }
        );
        // On the right the box's lower edge would not clear the last bars' tops.
        assert!(lower_edge(&fig, p, 0.0) < 105.0 + GAP * 115.0);
    }

    #[test]
    fn tall_data_on_both_sides_raise_the_axis_above_them() {
        let fig = bars([105.0, 10.0, 105.0]);
        let p = place(&fig, None, 0.0, 115.0);
        assert!(!p.left && p.y_hi > 115.0, "{p:?}");
        let edge = lower_edge(&fig, p, 0.0);
        assert!((edge - (105.0 + GAP * p.y_hi)).abs() < 1e-9, "{edge}");
    }

    #[test]
    fn the_bracket_counts_as_data_and_as_a_row() {
        let mut fig = bars([10.0, 10.0, 10.0]);
        fig.bands = vec![crate::Band {
            x_index: 2,
            lower: 95.0,
            upper: 100.0,
        }];
        let p = place(&fig, Some("the bracket"), 0.0, 115.0);
        assert!(p.left, "{p:?}");
    }
}
