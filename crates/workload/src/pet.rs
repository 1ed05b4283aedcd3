//! The PET matrix (probabilistic execution times): one execution-time PMF per (task type,
//! machine), paper section VI-A, thesis 3.4.1.

use std::sync::{Mutex, PoisonError};

use ndarray::Array2;
use pmf::{BinValue, ExecPmf, Pmf, Tick};
use rand::Rng;
use rand_distr::{Distribution, Gamma};

use crate::error::WorkloadError;
use crate::rng::{Purpose, stream, substream};

/// The mean execution times (time units) behind the paper's PET: rows are task types 0..11,
/// columns machines 0..7 (HCW 2019 section VI-A: means of twelve SPECint benchmarks on eight
/// machines). They are exactly the means of the PMFs of the paper's `classes_2.etc`, and the
/// deadlines of its `.dat` trials follow from them by eq. (3.7) with beta = 1
/// (`avg_all` = 94.72; type 0 has slack 175.43, type 7 248.02).
pub const PUBLISHED_MEANS: [[f64; 8]; 12] = [
    [70.9, 91.0, 54.1, 105.6, 75.0, 84.7, 82.2, 82.2],
    [97.7, 112.9, 97.6, 126.2, 105.3, 77.0, 111.4, 111.4],
    [82.2, 94.8, 119.0, 110.6, 91.4, 47.1, 102.0, 102.0],
    [62.3, 72.2, 74.7, 92.4, 133.4, 23.0, 75.8, 75.8],
    [102.7, 80.6, 53.3, 121.5, 73.2, 65.8, 98.4, 98.4],
    [110.2, 115.5, 74.2, 73.4, 90.5, 73.9, 136.0, 136.0],
    [129.7, 105.9, 68.7, 143.9, 94.9, 87.2, 119.7, 119.7],
    [117.5, 180.3, 273.9, 91.8, 148.2, 39.0, 187.9, 187.9],
    [111.9, 134.8, 68.5, 149.1, 108.9, 74.9, 130.4, 130.4],
    [62.2, 91.9, 101.6, 68.6, 85.9, 39.1, 74.7, 74.7],
    [80.7, 83.6, 70.0, 90.5, 87.6, 55.1, 89.1, 89.1],
    [42.8, 62.9, 49.6, 72.6, 119.3, 41.8, 53.7, 53.7],
];

/// The eight machines of the paper (footnote 1 of section VI-A; JPDC-2016 footnote 2). The
/// papers do not say which column of the PET is which machine, so the default PET names its
/// machines `m0`..`m7` and this list is informative only.
pub const PAPER_MACHINES: [&str; 8] = [
    "Dell Precision 380 3 GHz Pentium Extreme",
    "Apple iMac 2 GHz Intel Core Duo",
    "Apple XServe 2 GHz Intel Core Duo",
    "IBM System X 3455 AMD Opteron 2347",
    "Shuttle SN25P AMD Athlon 64 FX-60",
    "IBM System P 570 4.7 GHz",
    "SunFire 3800",
    "IBM BladeCenter HS21XM",
];

/// Parameters of the thesis' PET procedure (3.4.1), used by [`Pet::default_pet`].
pub mod defaults {
    use pmf::Tick;

    /// Gamma samples per (task type, machine).
    pub const SAMPLES: usize = 500;
    /// The smallest gamma shape (the shape is uniform in `[SHAPE_MIN, SHAPE_MAX]`).
    pub const SHAPE_MIN: f64 = 1.0;
    /// The largest gamma shape.
    pub const SHAPE_MAX: f64 = 20.0;
    /// Histogram bin width in time units (the paper's PET is on a 2-unit grid).
    pub const BIN_WIDTH: Tick = 2;
}

/// The PET matrix: an execution-time [`Pmf`] per (task type, machine), in time units, with
/// names for task types and machines and the derived ETC matrix of means.
///
/// Each cell is kept as an [`ExecPmf`]: the PMF with the tables the PCT functions and the
/// append query read ([`Pet::exec_pmf`]), built once when the cell is set.
///
/// `avg_i` ([`Pet::avg_type`]) and `avg_all` ([`Pet::avg_all`]) of the deadline equation
/// (thesis eq. 3.7) are computed from the PMFs of this PET, not from [`PUBLISHED_MEANS`]: on
/// the paper's `classes_2.etc` they equal the published values; on [`Pet::default_pet`] they
/// are close to them (sampling noise and the 2-unit histogram, whose upper-edge bins add about
/// one unit); on a homogeneous PET they are those of the one machine kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Pet {
    pmfs: Array2<ExecPmf>,
    type_names: Vec<String>,
    machine_names: Vec<String>,
    etc: Array2<f64>,
    /// The variance of each PMF ([`Pet::variance`]).
    variances: Array2<f64>,
    avg_type: Vec<f64>,
    avg_all: f64,
    /// Per machine, the first machine whose column of PMFs is identical (itself when none
    /// before it is): [`Pet::pmf`] answers from that column, so a system built from copies of
    /// a few machines (`[workload] machines = N`) reads a few PMFs, not N, on its hot path.
    canonical: Vec<usize>,
}

/// Per machine, the first machine with an identical column (bit for bit).
fn canonical_columns(pmfs: &Array2<ExecPmf>) -> Vec<usize> {
    let (n_types, n_machines) = pmfs.dim();
    pmf::columns::first_copies(n_types, n_machines, |t, m| pmfs[[t, m]].as_pmf())
}

impl Pet {
    /// Builds a PET from a task types x machines matrix of execution-time PMFs.
    ///
    /// Errors: an empty matrix, name lists whose lengths differ from the matrix's shape, a
    /// name with a control character (a NUL, a terminal escape), or a PMF with mass at a
    /// negative time (an execution time is never negative).
    pub fn new(
        pmfs: Array2<Pmf>,
        type_names: Vec<String>,
        machine_names: Vec<String>,
    ) -> Result<Pet, WorkloadError> {
        let (n_types, n_machines) = pmfs.dim();
        if n_types == 0 || n_machines == 0 {
            return Err(WorkloadError::InvalidPet(format!(
                "the matrix is {n_types} x {n_machines}; a PET needs at least one task type and one machine"
            )));
        }
        if type_names.len() != n_types {
            return Err(WorkloadError::InvalidPet(format!(
                "{} task type names for {n_types} task types",
                type_names.len()
            )));
        }
        if machine_names.len() != n_machines {
            return Err(WorkloadError::InvalidPet(format!(
                "{} machine names for {n_machines} machines",
                machine_names.len()
            )));
        }
        for (what, names) in [("task type", &type_names), ("machine", &machine_names)] {
            if let Some((i, n)) = names
                .iter()
                .enumerate()
                .find(|(_, n)| n.chars().any(char::is_control))
            {
                return Err(WorkloadError::InvalidPet(format!(
                    "the name of {what} {i}, {n:?}, holds a control character; names are printed and drawn, and may hold none"
                )));
            }
        }
        if let Some(((t, m), p)) = pmfs.indexed_iter().find(|(_, p)| p.min() < 0) {
            return Err(WorkloadError::InvalidPet(format!(
                "the PMF of task type {t} on machine {m} has mass at time {}, but execution times are not negative",
                p.min()
            )));
        }
        let dim = pmfs.dim();
        // Elements in logical (row-major) order: the shape's standard layout.
        let cells: Vec<ExecPmf> = pmfs.into_iter().map(ExecPmf::from).collect();
        let pmfs = Array2::from_shape_vec(dim, cells)
            .map_err(|e| WorkloadError::InvalidPet(e.to_string()))?;
        Ok(Self::from_parts(pmfs, type_names, machine_names))
    }

    /// Builds the cached means from checked parts.
    fn from_parts(
        pmfs: Array2<ExecPmf>,
        type_names: Vec<String>,
        machine_names: Vec<String>,
    ) -> Pet {
        let etc = pmfs.map(|p| p.mean());
        let variances = pmfs.map(|p| p.variance());
        let n_machines = etc.ncols() as f64;
        let avg_type: Vec<f64> = etc
            .rows()
            .into_iter()
            .map(|row| row.iter().sum::<f64>() / n_machines)
            .collect();
        let avg_all = avg_type.iter().sum::<f64>() / avg_type.len() as f64;
        let canonical = canonical_columns(&pmfs);
        Pet {
            pmfs,
            type_names,
            machine_names,
            etc,
            variances,
            avg_type,
            avg_all,
            canonical,
        }
    }

    /// Number of task types (rows).
    pub fn n_types(&self) -> usize {
        self.pmfs.nrows()
    }

    /// Number of machines (columns).
    pub fn n_machines(&self) -> usize {
        self.pmfs.ncols()
    }

    /// The execution-time PMF of `task_type` on `machine`.
    ///
    /// # Panics
    /// On an index out of range (a programming error: indices come from this PET's shape).
    #[inline]
    pub fn pmf(&self, task_type: usize, machine: usize) -> &Pmf {
        self.exec_pmf(task_type, machine).as_pmf()
    }

    /// The execution-time PMF of `task_type` on `machine` with its tables, for
    /// [`pmf::next_pct`], [`pmf::executing_pct`] and [`pmf::TailCdf::append_success`].
    ///
    /// # Panics
    /// On an index out of range (a programming error: indices come from this PET's shape).
    #[inline]
    pub fn exec_pmf(&self, task_type: usize, machine: usize) -> &ExecPmf {
        &self.pmfs[[task_type, self.canonical[machine]]]
    }

    /// The first machine whose column of PMFs is identical to `machine`'s (itself when none
    /// before it is): machines with the same canonical machine are interchangeable copies.
    ///
    /// # Panics
    /// On an index out of range.
    pub fn canonical(&self, machine: usize) -> usize {
        self.canonical[machine]
    }

    /// The whole matrix of PMFs with their tables, task types x machines.
    pub fn pmfs(&self) -> &Array2<ExecPmf> {
        &self.pmfs
    }

    /// The ETC matrix: the mean execution time of each (task type, machine).
    pub fn etc(&self) -> &Array2<f64> {
        &self.etc
    }

    /// The mean execution time of `task_type` on `machine` (`etc()[[task_type, machine]]`).
    ///
    /// # Panics
    /// On an index out of range.
    #[inline]
    pub fn mean(&self, task_type: usize, machine: usize) -> f64 {
        self.etc[[task_type, machine]]
    }

    /// The variance of the execution time of `task_type` on `machine` ([`Pmf::variance`] of
    /// [`Pet::pmf`], kept: MaxRobust reads it for every near-best machine at every arrival).
    ///
    /// # Panics
    /// On an index out of range.
    #[inline]
    pub fn variance(&self, task_type: usize, machine: usize) -> f64 {
        self.variances[[task_type, machine]]
    }

    /// `avg_i` of thesis eq. (3.7): the mean execution time of `task_type` averaged over the
    /// machines.
    ///
    /// # Panics
    /// On an index out of range.
    pub fn avg_type(&self, task_type: usize) -> f64 {
        self.avg_type[task_type]
    }

    /// `avg_all` of thesis eq. (3.7): the mean of `avg_i` over the task types.
    pub fn avg_all(&self) -> f64 {
        self.avg_all
    }

    /// The slack of eq. (3.7) for `task_type`: `avg_i + beta * avg_all`, so that a task's
    /// deadline is its arrival plus this.
    ///
    /// # Panics
    /// On an index out of range.
    pub fn slack(&self, task_type: usize, beta: f64) -> f64 {
        self.avg_type[task_type] + beta * self.avg_all
    }

    /// The task types' names.
    pub fn type_names(&self) -> &[String] {
        &self.type_names
    }

    /// The machines' names.
    pub fn machine_names(&self) -> &[String] {
        &self.machine_names
    }

    /// A homogeneous PET (thesis 5.4): as many machines as this one, each with the PMFs of
    /// `source_machine`. Machines are named after the source: `m0`, `m0#1`, `m0#2`, ...
    ///
    /// # Panics
    /// When `source_machine` is out of range.
    pub fn homogeneous(&self, source_machine: usize) -> Pet {
        assert!(
            source_machine < self.n_machines(),
            "source machine {source_machine} out of range: the PET has {} machines",
            self.n_machines()
        );
        self.select_machines(&vec![source_machine; self.n_machines()])
    }

    /// A PET whose machines are the given columns of this one, in order; a column may repeat
    /// (to build large systems, e.g. 1,024 machines from 8). The `k`-th repeat (k >= 1) of a
    /// machine named `x` is named `x#k`. The task types are unchanged.
    ///
    /// # Panics
    /// When `columns` is empty or holds an index out of range.
    pub fn select_machines(&self, columns: &[usize]) -> Pet {
        assert!(!columns.is_empty(), "a PET needs at least one machine");
        let n = self.n_machines();
        if let Some(bad) = columns.iter().find(|&&c| c >= n) {
            panic!("machine {bad} out of range: the PET has {n} machines");
        }
        let pmfs = Array2::from_shape_fn((self.n_types(), columns.len()), |(t, j)| {
            self.pmfs[[t, columns[j]]].clone()
        });
        let mut seen = vec![0usize; n];
        let machine_names = columns
            .iter()
            .map(|&c| {
                let k = seen[c];
                seen[c] += 1;
                if k == 0 {
                    self.machine_names[c].clone()
                } else {
                    format!("{}#{k}", self.machine_names[c])
                }
            })
            .collect();
        Self::from_parts(pmfs, self.type_names.clone(), machine_names)
    }

    /// A PET of `count` machines, each a copy of one of this PET's machines drawn uniformly
    /// with replacement (to build large systems, e.g. 1,024 machines from the default 8);
    /// [`select_machines`](Self::select_machines) of the drawn columns, so the `k`-th repeat
    /// of a machine `x` is named `x#k`.
    ///
    /// Deterministic: the columns are successive uniform draws from
    /// [`stream`]`(seed, 0, Purpose::Machines)`; they depend on `seed` and on the number of
    /// machines of this PET only.
    ///
    /// # Panics
    /// When `count` is 0.
    pub fn draw_machines(&self, count: usize, seed: u64) -> Pet {
        let mut rng = stream(seed, 0, Purpose::Machines);
        let n = self.n_machines();
        let columns: Vec<usize> = (0..count).map(|_| rng.random_range(0..n)).collect();
        self.select_machines(&columns)
    }

    /// A PET whose PMFs are generated by the thesis procedure (3.4.1, paper VI-A) from the
    /// given means (rows = task types, columns = machines): for each (type, machine) a gamma
    /// distribution with that mean and a shape uniform in [1, 20], 500 samples, a histogram
    /// with `bin_width`-unit bins whose value is the upper edge ([`BinValue::Upper`]).
    ///
    /// Deterministic: block (t, m) draws from [`substream`]`(seed, 0, Purpose::Pet, t * M + m)`
    /// (M = number of machines): first the shape, then the 500 samples. Types are named
    /// `t0`, `t1`, ..., machines `m0`, `m1`, ...
    ///
    /// Errors: a matrix without rows or columns, a mean that is not finite and positive, a
    /// non-positive bin width.
    pub fn from_means(
        means: &Array2<f64>,
        bin_width: Tick,
        seed: u64,
    ) -> Result<Pet, WorkloadError> {
        let (n_types, n_machines) = means.dim();
        if n_types == 0 || n_machines == 0 {
            return Err(WorkloadError::InvalidPet(format!(
                "the matrix of means is {n_types} x {n_machines}"
            )));
        }
        if let Some(((t, m), v)) = means
            .indexed_iter()
            .find(|(_, v)| !(v.is_finite() && **v > 0.0))
        {
            return Err(WorkloadError::InvalidPet(format!(
                "mean execution time of task type {t} on machine {m} is {v}; expected a positive number"
            )));
        }
        let mut pmfs = Vec::with_capacity(n_types * n_machines);
        for ((t, m), &mean) in means.indexed_iter() {
            let mut rng = substream(seed, 0, Purpose::Pet, (t * n_machines + m) as u64);
            let shape: f64 = rng.random_range(defaults::SHAPE_MIN..=defaults::SHAPE_MAX);
            // Gamma(shape k, scale theta) has mean k theta.
            let gamma = Gamma::new(shape, mean / shape).map_err(|e| {
                WorkloadError::InvalidPet(format!("gamma({shape}, {}): {e}", mean / shape))
            })?;
            let samples: Vec<f64> = (0..defaults::SAMPLES)
                .map(|_| gamma.sample(&mut rng))
                .collect();
            let pmf =
                pmf::from_samples(&samples, bin_width, BinValue::Upper).map_err(|reason| {
                    WorkloadError::InvalidPmf {
                        file: "<generated>".into(),
                        line: 0,
                        task_type: t.to_string(),
                        machine: m.to_string(),
                        reason,
                    }
                })?;
            pmfs.push(ExecPmf::from(pmf));
        }
        let pmfs = Array2::from_shape_vec((n_types, n_machines), pmfs)
            .map_err(|e| WorkloadError::InvalidPet(e.to_string()))?;
        Ok(Self::from_parts(
            pmfs,
            (0..n_types).map(|t| format!("t{t}")).collect(),
            (0..n_machines).map(|m| format!("m{m}")).collect(),
        ))
    }

    /// The built-in default PET: [`Pet::from_means`] on [`PUBLISHED_MEANS`] with 2-unit bins
    /// (thesis 3.4.1). 12 task types x 8 machines; the same seed gives the same PET on every
    /// platform.
    ///
    /// Building it draws about 10^6 samples; the last few seeds' PETs are
    /// kept in the process, so that a sweep's points (every figure point prepares its own
    /// experiment) build each once and clone it.
    pub fn default_pet(seed: u64) -> Pet {
        static KEPT: Mutex<Vec<(u64, Pet)>> = Mutex::new(Vec::new());
        // A poisoned lock still holds whole PETs (they are pushed built).
        let kept = || KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        let found = kept()
            .iter()
            .find(|(s, _)| *s == seed)
            .map(|(_, p)| p.clone());
        if let Some(pet) = found {
            return pet;
        }
        let pet = build_default_pet(seed);
        let mut v = kept();
        // Another thread may have kept the same seed's meanwhile: one copy is enough.
        if !v.iter().any(|(s, _)| *s == seed) {
            if v.len() >= KEPT_DEFAULT_PETS {
                v.remove(0);
            }
            v.push((seed, pet.clone()));
        }
        pet
    }

    /// Replaces the PMF of `task_type` on `machine` (a belief learned online, a drift of the
    /// truth): the means, variances, `avg_i`, `avg_all` and the identical columns
    /// ([`Pet::canonical`]) follow. Only `machine`'s reads change: a machine that copied its
    /// column keeps the old PMF.
    ///
    /// Errors: a cell outside the PET, or a PMF with mass at a negative time.
    pub fn set_pmf(
        &mut self,
        task_type: usize,
        machine: usize,
        pmf: Pmf,
    ) -> Result<(), WorkloadError> {
        if task_type >= self.n_types() || machine >= self.n_machines() {
            return Err(WorkloadError::InvalidPet(format!(
                "cell (task type {task_type}, machine {machine}) outside the {} x {} PET",
                self.n_types(),
                self.n_machines()
            )));
        }
        if pmf.min() < 0 {
            return Err(WorkloadError::InvalidPet(format!(
                "the PMF of task type {task_type} on machine {machine} has mass at time {}, but execution times are not negative",
                pmf.min()
            )));
        }
        // A machine reading another's column reads its own from now on: the columns are
        // whole in `pmfs`, `canonical` only shares the reads.
        let shared = self.canonical[machine] != machine
            || self
                .canonical
                .iter()
                .enumerate()
                .any(|(j, &c)| c == machine && j != machine);
        self.etc[[task_type, machine]] = pmf.mean();
        self.variances[[task_type, machine]] = pmf.variance();
        self.pmfs[[task_type, machine]] = ExecPmf::from(pmf);
        let n_machines = self.n_machines() as f64;
        self.avg_type[task_type] = self.etc.row(task_type).iter().sum::<f64>() / n_machines;
        self.avg_all = self.avg_type.iter().sum::<f64>() / self.avg_type.len() as f64;
        if shared {
            self.canonical = canonical_columns(&self.pmfs);
        }
        Ok(())
    }

    /// Replaces the PMF of `task_type` on each of `machines` by the same `pmf`, as
    /// [`Pet::set_pmf`] on each. When `machines` are exactly one group of identical columns
    /// ([`Pet::canonical`]; copies learned as one), they stay one group and nothing else is
    /// compared.
    ///
    /// Errors: as [`Pet::set_pmf`]; the machines before the failing one are changed.
    pub fn set_pmf_copies(
        &mut self,
        task_type: usize,
        machines: &[usize],
        pmf: Pmf,
    ) -> Result<(), WorkloadError> {
        let group = machines
            .first()
            .and_then(|&m| self.canonical.get(m))
            .copied();
        let whole = group.is_some_and(|g| {
            machines.iter().all(|&m| self.canonical.get(m) == Some(&g))
                && self.canonical.iter().filter(|&&c| c == g).count() == machines.len()
        });
        if !whole {
            for &m in machines {
                self.set_pmf(task_type, m, pmf.clone())?;
            }
            return Ok(());
        }
        if pmf.min() < 0 {
            return Err(WorkloadError::InvalidPet(format!(
                "the PMF of task type {task_type} on machine {} has mass at time {}, but execution times are not negative",
                machines[0],
                pmf.min()
            )));
        }
        if task_type >= self.n_types() {
            return Err(WorkloadError::InvalidPet(format!(
                "task type {task_type} outside the {} x {} PET",
                self.n_types(),
                self.n_machines()
            )));
        }
        let (mean, variance) = (pmf.mean(), pmf.variance());
        let exec = ExecPmf::from(pmf);
        for &m in machines {
            self.etc[[task_type, m]] = mean;
            self.variances[[task_type, m]] = variance;
            self.pmfs[[task_type, m]] = exec.clone();
        }
        let n_machines = self.n_machines() as f64;
        self.avg_type[task_type] = self.etc.row(task_type).iter().sum::<f64>() / n_machines;
        self.avg_all = self.avg_type.iter().sum::<f64>() / self.avg_type.len() as f64;
        Ok(())
    }

    /// A PET with every PMF replaced by `f(task_type, machine, pmf)`, names kept.
    ///
    /// Errors: as [`Pet::new`], or the first error `f` returns.
    pub fn map_pmfs<E>(
        &self,
        mut f: impl FnMut(usize, usize, &Pmf) -> Result<Pmf, E>,
    ) -> Result<Pet, E>
    where
        E: From<WorkloadError>,
    {
        let mut v = Vec::with_capacity(self.pmfs.len());
        for ((t, m), p) in self.pmfs.indexed_iter() {
            v.push(f(t, m, p)?);
        }
        let pmfs = Array2::from_shape_vec(self.pmfs.dim(), v)
            .map_err(|e| WorkloadError::InvalidPet(e.to_string()))?;
        Ok(Pet::new(
            pmfs,
            self.type_names.clone(),
            self.machine_names.clone(),
        )?)
    }

    /// Checks that every task of `tasks` has a task type of this PET.
    pub fn check_tasks(&self, tasks: &[crate::Task]) -> Result<(), WorkloadError> {
        match tasks.iter().position(|t| t.task_type >= self.n_types()) {
            None => Ok(()),
            Some(task) => Err(WorkloadError::UnknownTaskType {
                task,
                task_type: tasks[task].task_type,
                n_types: self.n_types(),
            }),
        }
    }
}

/// How many default PETs (by seed) [`Pet::default_pet`] keeps.
const KEPT_DEFAULT_PETS: usize = 8;

/// [`Pet::default_pet`] built afresh.
fn build_default_pet(seed: u64) -> Pet {
    let means = Array2::from_shape_fn((12, 8), |(t, m)| PUBLISHED_MEANS[t][m]);
    match Pet::from_means(&means, defaults::BIN_WIDTH, seed) {
        Ok(pet) => pet,
        // The means are positive constants and the bin width is 2: no error is possible.
        Err(e) => unreachable!("the default PET's parameters are valid: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_default_pet_is_the_one_built_afresh() {
        // More seeds than are kept: the first ones are built again, the same.
        for round in 0..2 {
            for seed in 0..(KEPT_DEFAULT_PETS as u64 + 3) {
                let kept = Pet::default_pet(seed);
                assert_eq!(kept, build_default_pet(seed), "round {round}, seed {seed}");
            }
        }
        assert_ne!(Pet::default_pet(1), Pet::default_pet(2));
    }

    #[test]
    fn setting_a_pmf_gives_the_pet_built_with_it() {
        let base = Pet::default_pet(3).select_machines(&[0, 1, 0, 2]);
        let new = Pmf::new(5, vec![0.5, 0.0, 0.5]).unwrap();
        // Machine 0's column is shared with machine 2: only machine 0 changes.
        let mut set = base.clone();
        set.set_pmf(4, 0, new.clone()).unwrap();
        let mut pmfs = base.pmfs().map(|p| p.as_pmf().clone());
        pmfs[[4, 0]] = new.clone();
        let built = Pet::new(
            pmfs,
            base.type_names().to_vec(),
            base.machine_names().to_vec(),
        )
        .unwrap();
        assert_eq!(set, built);
        assert_eq!(set.pmf(4, 0), &new);
        assert_eq!(set.pmf(4, 2), base.pmf(4, 2));
        assert_eq!(set.mean(4, 0), 6.0);
        assert!(set.set_pmf(12, 0, new).is_err());
        assert!(set.set_pmf(0, 0, Pmf::point(-1)).is_err());
    }
}
