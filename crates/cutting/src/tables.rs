//! Reproduction of tables 4 and 5 (section 7.2.4): ratio to ORACLE of the number of tasks
//! completed, per strategy and distribution, with the paper's published numbers alongside.
//!
//! * Table 4: `b = 1000`, `d = 100`; table 5: `b = 50`, `d = 5`; both with `M = 10` VMs,
//!   `delta = 0.05`, `p = 10%`, AUTOPERSURVIVAL(40%, 0.01), 1,000 instances in the paper.
//! * The ratio is the **ratio of means**, `sum_i s_i / sum_i o_i` over instances (`s_i`: tasks
//!   completed by the strategy on instance `i`, `o_i`: by ORACLE on the same execution
//!   times), with a 95% confidence interval by the delta method:
//!   `R +- 1.96 sqrt(Var(s_i - R o_i) / n) / mean(o)`. The paper does not say whether it
//!   averages ratios or counts; with common random numbers both give 1.0000 exactly for
//!   NEVERINTERRUPT when ORACLE never interrupts, as its tables print.
//! * [`TableRun`] runs a table instance by instance ([`TableRun::completed`]) and assembles
//!   its rows from the counts ([`TableRun::rows`]): the sweep files `gao-table4` and
//!   `gao-table5` run its instances in parallel through the sweep engine; [`reproduce`] runs
//!   them one after the other.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::distributions::{PAPER_DELTA, PaperDistribution, table2, table2_as_run};
use crate::error::CuttingError;
use crate::simulation::{Experiment, Setting};
use crate::strategies::{Strategy, paper_strategies};

/// Which table of the paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GaoTable {
    /// Table 4: `b = 1000`, `d = 100`.
    Table4,
    /// Table 5: `b = 50`, `d = 5`.
    Table5,
}

impl GaoTable {
    /// The setting of the table (`delta = 0.05`, `M = ceil(b/d) = 10`).
    pub fn setting(self) -> Setting {
        match self {
            GaoTable::Table4 => Setting {
                budget: 1000.0,
                deadline: 100.0,
                delta: PAPER_DELTA,
            },
            GaoTable::Table5 => Setting {
                budget: 50.0,
                deadline: 5.0,
                delta: PAPER_DELTA,
            },
        }
    }

    /// The table's sweep id: `"gao-table4"` or `"gao-table5"`.
    pub fn name(self) -> &'static str {
        match self {
            GaoTable::Table4 => "gao-table4",
            GaoTable::Table5 => "gao-table5",
        }
    }
}

impl std::str::FromStr for GaoTable {
    type Err = CuttingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "gao-table4" | "table4" | "4" => Ok(GaoTable::Table4),
            "gao-table5" | "table5" | "5" => Ok(GaoTable::Table5),
            _ => Err(CuttingError::InvalidArgument(format!(
                "unknown table {s:?} (expected gao-table4 or gao-table5)"
            ))),
        }
    }
}

/// One cell of a reproduced table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Distribution label as in the paper, e.g. `"lnorm(1,3)"`.
    pub distribution: String,
    /// Strategy label as in the paper, e.g. `"PerSurvival (10%)"`.
    pub strategy: String,
    /// Ratio to ORACLE of the mean number of tasks completed.
    pub ratio: f64,
    /// Lower end of the 95% confidence interval of the ratio.
    pub ci95_low: f64,
    /// Upper end of the 95% confidence interval of the ratio.
    pub ci95_high: f64,
    /// Number of instances.
    pub n: usize,
    /// Mean number of tasks completed by the strategy.
    pub mean_completed: f64,
    /// Mean number of tasks completed by ORACLE.
    pub oracle_mean_completed: f64,
    /// ORACLE's threshold (`inf`: never interrupt).
    pub oracle_threshold: f64,
    /// The paper's value for this cell.
    pub paper: Option<f64>,
}

/// A published value of table 4 or 5.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PaperValue {
    /// Distribution label.
    pub distribution: &'static str,
    /// Strategy label.
    pub strategy: &'static str,
    /// Ratio to ORACLE.
    pub value: f64,
}

const STRATEGY_LABELS: [&str; 6] = [
    "NeverInterrupt",
    "AutoPerSurvival (40%,0.01)",
    "PerSurvival (10%)",
    "Survival (10%)",
    "PerEmpirical (10%)",
    "Empirical (10%)",
];

/// Table 4 as printed (rows in table 2's order, columns as [`STRATEGY_LABELS`]).
const TABLE4: [[f64; 6]; 14] = [
    [1.0000, 0.9217, 0.9880, 0.9887, 0.9873, 0.9881],
    [1.0000, 0.9170, 0.9911, 0.9914, 0.9913, 0.9914],
    [1.0000, 0.9186, 0.9894, 0.9909, 0.9903, 0.9909],
    [1.0000, 0.9168, 0.9920, 0.9920, 0.9903, 0.9903],
    [1.0000, 0.9127, 0.9881, 0.9873, 0.9860, 0.9859],
    [1.0000, 0.9360, 0.9690, 0.9379, 0.9370, 0.9367],
    [1.0000, 0.9388, 0.9685, 0.9352, 0.9362, 0.9367],
    [1.0000, 0.9391, 0.9669, 0.9397, 0.9381, 0.9391],
    [0.9350, 0.9512, 0.9876, 0.9871, 0.9897, 0.9881],
    [0.5345, 0.9620, 0.9464, 0.9352, 0.9344, 0.9351],
    [0.5023, 0.9470, 0.9338, 0.9229, 0.9259, 0.9259],
    [0.3610, 0.9522, 0.9236, 0.9151, 0.9169, 0.9162],
    [0.8440, 0.9711, 0.9810, 0.9801, 0.9803, 0.9799],
    [0.2296, 0.9613, 0.9183, 0.9108, 0.9109, 0.9109],
];

/// Table 5 as printed.
const TABLE5: [[f64; 6]; 14] = [
    [1.0000, 0.8872, 0.4659, 0.4522, 0.4513, 0.4775],
    [1.0000, 0.8904, 0.4089, 0.4002, 0.3981, 0.4288],
    [1.0000, 0.9230, 0.3620, 0.3646, 0.3633, 0.3667],
    [1.0000, 0.8874, 0.6046, 0.5701, 0.5974, 0.6146],
    [1.0000, 0.8881, 0.4989, 0.4818, 0.4940, 0.5088],
    [1.0000, 0.9086, 0.7846, 0.7552, 0.7927, 0.8172],
    [1.0000, 0.9235, 0.7973, 0.7456, 0.7916, 0.8010],
    [1.0000, 0.9221, 0.8033, 0.7604, 0.8133, 0.8203],
    [0.9858, 0.9647, 0.4729, 0.4738, 0.4790, 0.4788],
    [0.6865, 0.8896, 0.9238, 0.9048, 0.9484, 0.9493],
    [0.5233, 0.7794, 0.9190, 0.8831, 0.9386, 0.9420],
    [0.4107, 0.7725, 0.9190, 0.8925, 0.9068, 0.9057],
    [0.8513, 0.9599, 0.9658, 0.9592, 0.9603, 0.9610],
    [0.3291, 0.7995, 0.9198, 0.9014, 0.8802, 0.8711],
];

/// The paper's published values of table 4 or 5, as printed.
pub fn paper_values(table: GaoTable) -> Vec<PaperValue> {
    let values = match table {
        GaoTable::Table4 => &TABLE4,
        GaoTable::Table5 => &TABLE5,
    };
    table2()
        .iter()
        .zip(values)
        .flat_map(|(d, row)| {
            STRATEGY_LABELS
                .iter()
                .zip(row)
                .map(|(&strategy, &value)| PaperValue {
                    distribution: d.label,
                    strategy,
                    value,
                })
        })
        .collect()
}

/// Ratio of means with its 95% confidence interval (delta method).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioEstimate {
    /// `sum(s) / sum(o)`.
    pub ratio: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// `sum(s) / sum(o)` and its 95% confidence interval by the delta method. NaN when the
/// slices are empty, of different lengths, or ORACLE completed nothing.
pub fn ratio_of_means(s: &[u64], o: &[u64]) -> RatioEstimate {
    let n = s.len();
    let nan = RatioEstimate {
        ratio: f64::NAN,
        low: f64::NAN,
        high: f64::NAN,
    };
    if n == 0 || o.len() != n {
        return nan;
    }
    let sum_s: f64 = s.iter().map(|&x| x as f64).sum();
    let sum_o: f64 = o.iter().map(|&x| x as f64).sum();
    if sum_o <= 0.0 {
        return nan;
    }
    let r = sum_s / sum_o;
    if n < 2 {
        return RatioEstimate {
            ratio: r,
            low: r,
            high: r,
        };
    }
    let mean_o = sum_o / n as f64;
    let z: Vec<f64> = s
        .iter()
        .zip(o)
        .map(|(&a, &b)| a as f64 - r * b as f64)
        .collect();
    let mz = z.iter().sum::<f64>() / n as f64;
    let var = z.iter().map(|v| (v - mz) * (v - mz)).sum::<f64>() / (n - 1) as f64;
    let half = 1.96 * (var / n as f64).sqrt() / mean_o;
    RatioEstimate {
        ratio: r,
        low: r - half,
        high: r + half,
    }
}

/// One table's simulations: ORACLE and the six strategies of the table on each distribution,
/// with ORACLE's threshold computed once per distribution.
#[derive(Debug, Clone)]
pub struct TableRun {
    table: GaoTable,
    dists: Vec<PaperDistribution>,
    experiments: Vec<Experiment>,
    strategies: Vec<Strategy>,
}

impl TableRun {
    /// The table over the given distributions (the random streams are keyed by the position in
    /// `dists`).
    pub fn new(table: GaoTable, dists: &[PaperDistribution]) -> Result<Self, CuttingError> {
        let setting = table.setting();
        let experiments = dists
            .iter()
            .enumerate()
            .map(|(index, pd)| Experiment::new(setting, pd.dist, index as u64))
            .collect::<Result<_, _>>()?;
        let mut strategies = vec![Strategy::Oracle];
        strategies.extend(paper_strategies());
        for s in &strategies {
            s.validate()?;
        }
        Ok(TableRun {
            table,
            dists: dists.to_vec(),
            experiments,
            strategies,
        })
    }

    /// The table over [`table2_as_run`] (gamma(0.333, 3) with rate 3, as the paper's numbers
    /// show it was run).
    pub fn as_run(table: GaoTable) -> Result<Self, CuttingError> {
        Self::new(table, &table2_as_run())
    }

    /// The table.
    pub fn table(&self) -> GaoTable {
        self.table
    }

    /// The distributions, in the table's row order.
    pub fn distributions(&self) -> &[PaperDistribution] {
        &self.dists
    }

    /// The tasks completed on instance `instance` of distribution `dist` by each strategy,
    /// ORACLE first, then the table's strategies in column order. A pure function of its
    /// arguments: instances may run in any order and on any thread.
    pub fn completed(
        &self,
        dist: usize,
        seed: u64,
        instance: u64,
    ) -> Result<Vec<u64>, CuttingError> {
        let exp = self.experiments.get(dist).ok_or_else(|| {
            CuttingError::InvalidArgument(format!(
                "distribution {dist} of {}",
                self.experiments.len()
            ))
        })?;
        Ok(exp
            .run_instance(&self.strategies, seed, instance)?
            .iter()
            .map(|o| o.completed)
            .collect())
    }

    /// The rows from the counts of [`TableRun::completed`], indexed
    /// `[distribution][instance]`, in the paper's order (distribution, then strategy).
    pub fn rows(&self, completed: &[Vec<Vec<u64>>]) -> Vec<Row> {
        let paper = paper_values(self.table);
        let mut rows = Vec::new();
        for ((pd, exp), runs) in self.dists.iter().zip(&self.experiments).zip(completed) {
            let instances = runs.len();
            let oracle: Vec<u64> = runs.iter().map(|r| r[0]).collect();
            let oracle_mean = oracle.iter().sum::<u64>() as f64 / instances.max(1) as f64;
            for (k, strategy) in self.strategies.iter().enumerate().skip(1) {
                let counts: Vec<u64> = runs.iter().map(|r| r[k]).collect();
                let est = ratio_of_means(&counts, &oracle);
                let label = strategy.label();
                rows.push(Row {
                    distribution: pd.label.to_string(),
                    paper: paper
                        .iter()
                        .find(|v| v.distribution == pd.label && v.strategy == label)
                        .map(|v| v.value),
                    strategy: label,
                    ratio: est.ratio,
                    ci95_low: est.low,
                    ci95_high: est.high,
                    n: instances,
                    mean_completed: counts.iter().sum::<u64>() as f64 / instances.max(1) as f64,
                    oracle_mean_completed: oracle_mean,
                    oracle_threshold: exp.oracle().threshold,
                });
            }
        }
        rows
    }
}

/// Runs one table: the 14 distributions of table 2, ORACLE and the six strategies of the
/// table, `instances` instances each, from `seed`, one after the other. Rows come in the
/// paper's order (distribution, then strategy).
///
/// The distributions are [`table2_as_run`] (gamma(0.333, 3) with rate 3, as the paper's
/// numbers show it was run); use [`reproduce_with`] and [`table2`] for table 2 as printed.
pub fn reproduce(table: GaoTable, instances: usize, seed: u64) -> Result<Vec<Row>, CuttingError> {
    reproduce_with(table, &table2_as_run(), instances, seed)
}

/// As [`reproduce`], over the given distributions (the random streams are keyed by the
/// position in `dists`).
pub fn reproduce_with(
    table: GaoTable,
    dists: &[PaperDistribution],
    instances: usize,
    seed: u64,
) -> Result<Vec<Row>, CuttingError> {
    let run = TableRun::new(table, dists)?;
    let completed = (0..dists.len())
        .map(|d| {
            (0..instances as u64)
                .map(|i| run.completed(d, seed, i))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(run.rows(&completed))
}

/// Writes rows as CSV with a header (one line per row, fields as in [`Row`]).
pub fn write_csv<W: Write>(rows: &[Row], writer: W) -> Result<(), CuttingError> {
    let mut w = csv::Writer::from_writer(writer);
    for row in rows {
        w.serialize(row)?;
    }
    w.flush().map_err(csv::Error::from)?;
    Ok(())
}

/// A plain-text side-by-side table: for each distribution, ours / paper per strategy.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut strategies: Vec<&str> = Vec::new();
    for r in rows {
        if !strategies.contains(&r.strategy.as_str()) {
            strategies.push(&r.strategy);
        }
    }
    out.push_str(&format!("{:<38}", "distribution (ours / paper)"));
    for s in &strategies {
        out.push_str(&format!(" {s:>26}"));
    }
    out.push('\n');
    let mut dists: Vec<&str> = Vec::new();
    for r in rows {
        if !dists.contains(&r.distribution.as_str()) {
            dists.push(&r.distribution);
        }
    }
    for d in dists {
        out.push_str(&format!("{d:<38}"));
        for s in &strategies {
            let cell = rows
                .iter()
                .find(|r| r.distribution == d && r.strategy == *s)
                .map(|r| match r.paper {
                    Some(p) => format!("{:.4} / {:.4}", r.ratio, p),
                    None => format!("{:.4}", r.ratio),
                })
                .unwrap_or_default();
            out.push_str(&format!(" {cell:>26}"));
        }
        out.push('\n');
    }
    out
}
