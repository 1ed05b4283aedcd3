//! The robustness model (Hansen et al. §II-C3, §II-D, §IV-D): the final execution time of
//! eq. (1), the probability `P(i, (j, k))` of finishing by the makespan goal, the robustness
//! `Psi(I)` of eq. (2), and the makespan goal of eq. (4).
//!
//! # How `P(i, (j, k))` is computed
//! Eq. (1) is `X_ijk = S_j T_ij / S_i(k)`. Because `S_i(k)` is a positive constant,
//! `P(X_ijk <= Delta) = P(Z_ij <= Delta S_i(k))` with `Z_ij = S_j T_ij`, the serial time
//! slowed down. [`Instance`] therefore computes the product `Z_ij` once per (application,
//! type) with [`pmf::transform::product`] and reads every `k` off its CDF. This is the same
//! probability as evaluating eq. (1) literally (scale by `1/S(k)`, then multiply), which
//! [`Instance::final_execution_time`] does, but it keeps the full resolution of the serial
//! grid: scaling a PMF of 1000 ticks by `1/S(k) = 1/40` first would leave 25 ticks. The test
//! suite checks that both agree within the transforms' one-tick bounds.
//!
//! Times are in ticks; see [`crate::experiments`] for the resolution chosen.

use pmf::Pmf;
use pmf::transform::{product, scale_time};
use serde::{Deserialize, Serialize};

use crate::error::MoldableError;
use crate::slowdown::SLOWDOWN_TICKS_PER_UNIT;
use crate::speedup::Downey;

/// One application: its Downey parameters and its serial execution-time PMF on each type.
#[derive(Debug, Clone, PartialEq)]
pub struct Application {
    /// The parallelism parameters (§II-B2).
    pub downey: Downey,
    /// `T_ij` for each processor type `j`, in ticks.
    pub serial: Vec<Pmf>,
}

/// One processor type: how many processors it has and its slowdown PMF.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessorType {
    /// `n_j`.
    pub count: u32,
    /// `S_j` on the grid of [`SLOWDOWN_TICKS_PER_UNIT`] ticks per unit.
    pub slowdown: Pmf,
}

/// `I[i] = (j_i, k_i)`: application `i` runs on `procs` processors of type `ptype`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Assignment {
    /// The processor type `j` (0-based).
    pub ptype: usize,
    /// The number of processors `k >= 1`.
    pub procs: u32,
}

/// A complete resource allocation `I`, one assignment per application.
pub type Allocation = Vec<Assignment>;

/// A batch of applications on a heterogeneous system, with every `P(i, (j, k))` tabulated.
#[derive(Debug, Clone)]
pub struct Instance {
    apps: Vec<Application>,
    types: Vec<ProcessorType>,
    /// `Z_ij = S_j T_ij` as a cumulative array: `cum[i][j][t - offset] = P(Z_ij <= t)`.
    cum: Vec<Vec<(i64, Vec<f64>)>>,
    goal: f64,
    /// `prob[i][j][k - 1] = P(i, (j, k))` for `k = 1..=n_j`.
    prob: Vec<Vec<Vec<f64>>>,
}

impl Instance {
    /// Builds the instance with the makespan goal of eq. (4).
    pub fn new(apps: Vec<Application>, types: Vec<ProcessorType>) -> Result<Self, MoldableError> {
        let mut inst = Self::build(apps, types)?;
        inst.goal = inst.makespan_goal();
        inst.tabulate();
        Ok(inst)
    }

    /// Builds the instance with a given makespan goal `Delta` (in ticks).
    pub fn with_goal(
        apps: Vec<Application>,
        types: Vec<ProcessorType>,
        goal: f64,
    ) -> Result<Self, MoldableError> {
        crate::error::check("Delta", goal, goal > 0.0, "makespan goal must be > 0")?;
        let mut inst = Self::build(apps, types)?;
        inst.goal = goal;
        inst.tabulate();
        Ok(inst)
    }

    fn build(apps: Vec<Application>, types: Vec<ProcessorType>) -> Result<Self, MoldableError> {
        if apps.is_empty() || types.is_empty() {
            return Err(MoldableError::Inconsistent(
                "need at least one application and one processor type".into(),
            ));
        }
        if let Some((i, a)) = apps
            .iter()
            .enumerate()
            .find(|(_, a)| a.serial.len() != types.len())
        {
            return Err(MoldableError::Inconsistent(format!(
                "application {i} has {} serial PMFs for {} processor types",
                a.serial.len(),
                types.len()
            )));
        }
        if let Some(j) = types.iter().position(|t| t.count == 0) {
            return Err(MoldableError::Inconsistent(format!(
                "processor type {j} has no processors"
            )));
        }
        let mut cum = Vec::with_capacity(apps.len());
        for a in &apps {
            let mut row = Vec::with_capacity(types.len());
            for (t, ty) in a.serial.iter().zip(&types) {
                let z = product(t, &ty.slowdown, 1.0 / SLOWDOWN_TICKS_PER_UNIT)?;
                let mut acc = 0.0;
                let c: Vec<f64> = z
                    .masses()
                    .iter()
                    .map(|m| {
                        acc += m;
                        acc.min(1.0)
                    })
                    .collect();
                row.push((z.min(), c));
            }
            cum.push(row);
        }
        Ok(Instance {
            apps,
            types,
            cum,
            goal: 0.0,
            prob: Vec::new(),
        })
    }

    fn tabulate(&mut self) {
        let mut prob = Vec::with_capacity(self.apps.len());
        for (i, a) in self.apps.iter().enumerate() {
            let mut row = Vec::with_capacity(self.types.len());
            for (j, ty) in self.types.iter().enumerate() {
                let p: Vec<f64> = (1..=ty.count)
                    .map(|k| self.z_cdf(i, j, self.goal * a.downey.speedup(k)))
                    .collect();
                row.push(p);
            }
            prob.push(row);
        }
        self.prob = prob;
    }

    /// `P(S_j T_ij <= x)` for a real `x` in ticks: the CDF of the slowed-down serial time
    /// `Z_ij`, from which every `P(i, (j, k)) = P(Z_ij <= Delta S_i(k))` is read. An unknown
    /// `i` or `j` gives 0.
    pub fn slowed_serial_cdf(&self, i: usize, j: usize, x: f64) -> f64 {
        match self.cum.get(i).and_then(|r| r.get(j)) {
            Some(_) => self.z_cdf(i, j, x),
            None => 0.0,
        }
    }

    /// `P(Z_ij <= x)` for a real `x` (the mass of every tick `<= x`).
    fn z_cdf(&self, i: usize, j: usize, x: f64) -> f64 {
        let (offset, c) = &self.cum[i][j];
        if x.is_nan() {
            return 0.0;
        }
        let t = x.floor();
        if t < *offset as f64 {
            return 0.0;
        }
        let k = (t - *offset as f64) as usize;
        c.get(k).copied().unwrap_or(1.0)
    }

    /// The mean of `Z_ij = S_j T_ij` in ticks.
    fn z_mean(&self, i: usize, j: usize) -> f64 {
        let (offset, c) = &self.cum[i][j];
        // E[Z] = offset + sum_k P(Z > offset + k).
        *offset as f64 + c.iter().map(|f| 1.0 - f).sum::<f64>()
    }

    /// Number of applications `N_a`.
    pub fn n_apps(&self) -> usize {
        self.apps.len()
    }

    /// Number of processor types `N_p`.
    pub fn n_types(&self) -> usize {
        self.types.len()
    }

    /// The applications.
    pub fn apps(&self) -> &[Application] {
        &self.apps
    }

    /// The processor types.
    pub fn types(&self) -> &[ProcessorType] {
        &self.types
    }

    /// `n_j` for each type.
    pub fn counts(&self) -> Vec<u32> {
        self.types.iter().map(|t| t.count).collect()
    }

    /// `tau`, the total number of processors.
    pub fn total_processors(&self) -> u64 {
        self.types.iter().map(|t| u64::from(t.count)).sum()
    }

    /// `M = tau / N_a`, the average number of processors per application (§III-A1).
    pub fn average_processors(&self) -> f64 {
        self.total_processors() as f64 / self.apps.len() as f64
    }

    /// The makespan goal `Delta` in ticks.
    pub fn goal(&self) -> f64 {
        self.goal
    }

    /// `mu_ijk`, the mean of `X_ijk` (eq. (1)): `E[S_j T_ij] / S_i(k)`, for real `k`.
    pub fn mean_execution_time(&self, i: usize, j: usize, k: f64) -> f64 {
        self.z_mean(i, j) / self.apps[i].downey.speedup_f64(k)
    }

    /// Eq. (4): `Delta = (1 / (N_a N_p)) sum_i sum_j mu_{i,j,M}`, with `M = tau / N_a`.
    pub fn makespan_goal(&self) -> f64 {
        let m = self.average_processors();
        let mut s = 0.0;
        for i in 0..self.n_apps() {
            for j in 0..self.n_types() {
                s += self.mean_execution_time(i, j, m);
            }
        }
        s / (self.n_apps() * self.n_types()) as f64
    }

    /// `P(i, (j, k))`: the probability that application `i` on `k` processors of type `j`
    /// finishes by `Delta` (the CDF of `X_ijk` at `Delta`, §II-D). `k = 0` gives 0; `k`
    /// beyond `n_j` reads as `n_j`; an unknown `i` or `j` gives 0.
    pub fn prob(&self, i: usize, j: usize, k: u32) -> f64 {
        if k == 0 {
            return 0.0;
        }
        match self.prob.get(i).and_then(|r| r.get(j)) {
            Some(p) => p[(k as usize).min(p.len()) - 1],
            None => 0.0,
        }
    }

    /// The tabulated `P(i, (j, k))` for `k = 1..=n_j` (empty for an unknown `i` or `j`).
    pub fn prob_row(&self, i: usize, j: usize) -> &[f64] {
        self.prob
            .get(i)
            .and_then(|r| r.get(j))
            .map_or(&[], Vec::as_slice)
    }

    /// Eq. (1) evaluated literally: `X_ijk = S_j (T_ij / S_i(k))`, by
    /// [`pmf::transform::scale_time`] then [`pmf::transform::product`].
    pub fn final_execution_time(&self, i: usize, j: usize, k: u32) -> Result<Pmf, MoldableError> {
        let app = self
            .apps
            .get(i)
            .ok_or_else(|| MoldableError::InvalidAllocation(format!("no application {i}")))?;
        let ty = self
            .types
            .get(j)
            .ok_or_else(|| MoldableError::InvalidAllocation(format!("no processor type {j}")))?;
        let parallel = scale_time(&app.serial[j], 1.0 / app.downey.speedup(k))?;
        Ok(product(
            &parallel,
            &ty.slowdown,
            1.0 / SLOWDOWN_TICKS_PER_UNIT,
        )?)
    }

    /// Checks that `alloc` is complete and fits: one assignment per application, existing
    /// types, at least one processor each, at most `n_j` processors of type `j` in total.
    pub fn check(&self, alloc: &[Assignment]) -> Result<(), MoldableError> {
        if alloc.len() != self.n_apps() {
            return Err(MoldableError::InvalidAllocation(format!(
                "{} assignments for {} applications",
                alloc.len(),
                self.n_apps()
            )));
        }
        let mut used = vec![0u64; self.n_types()];
        for (i, a) in alloc.iter().enumerate() {
            if a.ptype >= self.n_types() || a.procs == 0 {
                return Err(MoldableError::InvalidAllocation(format!(
                    "application {i}: type {} with {} processors",
                    a.ptype, a.procs
                )));
            }
            used[a.ptype] += u64::from(a.procs);
        }
        for (j, (&u, t)) in used.iter().zip(&self.types).enumerate() {
            if u > u64::from(t.count) {
                return Err(MoldableError::InvalidAllocation(format!(
                    "type {j}: {u} processors used, {} available",
                    t.count
                )));
            }
        }
        Ok(())
    }

    /// Eq. (2): `Psi(I) = min_i P(i, I[i])`, after checking the allocation.
    pub fn robustness(&self, alloc: &[Assignment]) -> Result<f64, MoldableError> {
        self.check(alloc)?;
        Ok(self.psi(alloc))
    }

    /// Eq. (2) without the check (the heuristics' inner loop).
    pub(crate) fn psi(&self, alloc: &[Assignment]) -> f64 {
        alloc
            .iter()
            .enumerate()
            .map(|(i, a)| self.prob(i, a.ptype, a.procs))
            .fold(1.0, f64::min)
    }
}
