//! The simulation of section 7.1: `ceil(b/d)` identical VMs, each running tasks back to back
//! until it has spent its share `h = b / ceil(b/d)` of the budget (`h = d` when `b = M d`, as
//! in the paper); execution times are `delta + X`, `X` drawn from one distribution of table 2.
//! A task counts when it completes by `h`; an interrupted task's work is lost.
//!
//! # Randomness
//! An *instance* is the set of execution times: the `k`-th task started on VM `j` of instance
//! `i` takes the `k`-th draw of its own stream, a `ChaCha12Rng` keyed by
//! `(seed, stream, i, j)` (`stream` identifies the distribution), with the ChaCha stream number
//! set to the purpose [`EXEC_TIMES_PURPOSE`]. Every strategy therefore meets the same
//! execution times (common random numbers: NEVERINTERRUPT and an ORACLE that never interrupts
//! coincide exactly), and each instance is a pure function of `(seed, stream, instance)`: a
//! caller may run instances in any order, on any thread, and collect them by index.

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;
use serde::{Deserialize, Serialize};

use crate::distributions::{Distribution, TaskSampler};
use crate::error::CuttingError;
use crate::strategies::{Moments, Observations, Policy, Strategy};
use crate::threshold::{Optimum, optimal_continuous};

/// The ChaCha stream number of execution-time draws.
pub const EXEC_TIMES_PURPOSE: u64 = 1;

/// The largest number of VMs a setting may enrol (guards against absurd allocations).
pub const MAX_VMS: usize = 1 << 20;

/// Budget, deadline, and the constant added to every execution time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// The budget `b` (one unit pays one VM for one time unit).
    pub budget: f64,
    /// The deadline `d`.
    pub deadline: f64,
    /// The constant `delta` of eq. (3) (0.05 in section 7.1).
    pub delta: f64,
}

impl Setting {
    /// A validated setting.
    pub fn new(budget: f64, deadline: f64, delta: f64) -> Result<Self, CuttingError> {
        let s = Setting {
            budget,
            deadline,
            delta,
        };
        s.validate()?;
        Ok(s)
    }

    /// Checks `b > 0`, `d > 0` finite, `delta >= 0` finite, and `ceil(b/d) <= MAX_VMS`.
    pub fn validate(&self) -> Result<(), CuttingError> {
        let (b, d, delta) = (self.budget, self.deadline, self.delta);
        if !(b.is_finite() && b > 0.0 && d.is_finite() && d > 0.0) {
            return Err(CuttingError::InvalidSetting(format!(
                "budget and deadline must be finite and positive, got b = {b}, d = {d}"
            )));
        }
        if !(delta.is_finite() && delta >= 0.0) {
            return Err(CuttingError::InvalidSetting(format!(
                "delta must be finite and non-negative, got {delta}"
            )));
        }
        if (b / d).ceil() > MAX_VMS as f64 {
            return Err(CuttingError::InvalidSetting(format!(
                "b / d = {} asks for more than {MAX_VMS} VMs",
                b / d
            )));
        }
        Ok(())
    }

    /// The number of VMs enrolled, `M = ceil(b / d)` (section 4.1).
    pub fn vms(&self) -> usize {
        ((self.budget / self.deadline).ceil() as usize).max(1)
    }

    /// The time each VM works, `h = b / M <= d`.
    pub fn horizon(&self) -> f64 {
        self.budget / self.vms() as f64
    }
}

/// What happened in one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Tasks completed by the horizon (the objective).
    pub completed: u64,
    /// Tasks interrupted by the threshold (work lost).
    pub interrupted: u64,
    /// Decisions taken (thresholds computed or postponed).
    pub decisions: u32,
    /// The threshold in force at the end (`+inf`: never interrupt).
    pub final_threshold: f64,
    /// When the first threshold was set (0 for ORACLE, `+inf` if never): the length of the
    /// observation phase.
    pub first_threshold_at: f64,
}

/// The generator of the execution times of VM `vm` in instance `instance`.
pub fn vm_rng(seed: u64, stream: u64, instance: u64, vm: u64) -> ChaCha12Rng {
    let mut key = [0u8; 32];
    for (k, v) in [seed, stream, instance, vm].into_iter().enumerate() {
        key[8 * k..8 * k + 8].copy_from_slice(&v.to_le_bytes());
    }
    let mut rng = ChaCha12Rng::from_seed(key);
    rng.set_stream(EXEC_TIMES_PURPOSE);
    rng
}

/// One distribution in one setting, with ORACLE's threshold computed once.
#[derive(Debug, Clone)]
pub struct Experiment {
    setting: Setting,
    dist: Distribution,
    sampler: TaskSampler,
    oracle: Optimum,
    stream: u64,
    moments: Moments,
}

struct Vm {
    rng: ChaCha12Rng,
    start: f64,
    exec: f64,
}

/// The observations gathered during a run.
#[derive(Default)]
struct Data {
    deaths: Vec<f64>,
    pending: Vec<f64>,
    merged: Vec<f64>,
    interrupted: Vec<(f64, usize)>,
    censored: Vec<(f64, usize)>,
}

impl Data {
    fn add_death(&mut self, t: f64) {
        self.pending.push(t);
    }

    fn add_interrupted(&mut self, t: f64) {
        match self.interrupted.last_mut() {
            Some(last) if last.0 == t => last.1 += 1,
            _ => self.interrupted.push((t, 1)),
        }
    }

    /// Sorts the new completions into the sorted list (merge, O(n)).
    fn sort_deaths(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.sort_by(f64::total_cmp);
        self.merged.clear();
        let (a, b) = (&self.deaths, &self.pending);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] <= b[j] {
                self.merged.push(a[i]);
                i += 1;
            } else {
                self.merged.push(b[j]);
                j += 1;
            }
        }
        self.merged.extend_from_slice(&a[i..]);
        self.merged.extend_from_slice(&b[j..]);
        std::mem::swap(&mut self.deaths, &mut self.merged);
        self.pending.clear();
    }

    /// Interrupted tasks plus running tasks censored at their elapsed time, sorted.
    fn build_censored(&mut self, now: f64, vms: &[Vm]) {
        self.censored.clear();
        self.censored.extend_from_slice(&self.interrupted);
        for vm in vms {
            let elapsed = now - vm.start;
            if elapsed > 0.0 {
                self.censored.push((elapsed, 1));
            }
        }
        self.censored.sort_by(|x, y| x.0.total_cmp(&y.0));
    }
}

impl Experiment {
    /// Validates the setting and the distribution and computes ORACLE's threshold.
    /// `stream` keys the random streams (use a distinct value per distribution).
    pub fn new(setting: Setting, dist: Distribution, stream: u64) -> Result<Self, CuttingError> {
        setting.validate()?;
        let sampler = dist.sampler()?;
        let oracle = optimal_continuous(&dist, setting.delta)?;
        Ok(Experiment {
            setting,
            dist,
            sampler,
            oracle,
            stream,
            moments: Moments::default(),
        })
    }

    /// Chooses the moments AUTOPERSURVIVAL's convergence test watches (default
    /// [`Moments::Empirical`]).
    pub fn with_convergence(mut self, moments: Moments) -> Self {
        self.moments = moments;
        self
    }

    /// The setting.
    pub fn setting(&self) -> Setting {
        self.setting
    }

    /// The distribution.
    pub fn distribution(&self) -> Distribution {
        self.dist
    }

    /// ORACLE's threshold and its asymptotic yield.
    pub fn oracle(&self) -> Optimum {
        self.oracle
    }

    /// Runs `strategy` on instance `instance` of seed `seed`.
    pub fn run(
        &self,
        strategy: Strategy,
        seed: u64,
        instance: u64,
    ) -> Result<Outcome, CuttingError> {
        strategy.validate()?;
        let m = self.setting.vms();
        let h = self.setting.horizon();
        let delta = self.setting.delta;
        let draw = |rng: &mut ChaCha12Rng| delta + self.sampler.sample(rng);
        let mut vms: Vec<Vm> = (0..m as u64)
            .map(|j| {
                let mut rng = vm_rng(seed, self.stream, instance, j);
                let exec = draw(&mut rng);
                Vm {
                    rng,
                    start: 0.0,
                    exec,
                }
            })
            .collect();
        let mut policy = Policy::new(strategy, self.moments);
        let mut tau = policy.initial_threshold(self.oracle);
        let mut next_decision = policy.first_decision(h);
        let record = !matches!(strategy, Strategy::NeverInterrupt | Strategy::Oracle);
        let mut data = Data::default();
        let mut out = Outcome {
            completed: 0,
            interrupted: 0,
            decisions: 0,
            final_threshold: tau,
            first_threshold_at: if tau.is_finite() { 0.0 } else { f64::INFINITY },
        };

        // Applies a decision taken at time `now`.
        let apply = |decision: crate::strategies::Decision,
                     now: f64,
                     tau: &mut f64,
                     vms: &mut [Vm],
                     data: &mut Data,
                     out: &mut Outcome| {
            out.decisions += 1;
            if let Some(t) = decision.threshold {
                *tau = t;
                out.first_threshold_at = out.first_threshold_at.min(now);
                for vm in vms.iter_mut() {
                    let elapsed = now - vm.start;
                    if elapsed >= t && vm.exec > t {
                        out.interrupted += 1;
                        data.add_interrupted(elapsed);
                        vm.start = now;
                        vm.exec = draw(&mut vm.rng);
                    }
                }
            }
        };

        loop {
            let (mut j, mut t_ev) = (0, f64::INFINITY);
            for (k, vm) in vms.iter().enumerate() {
                let end = vm.start + vm.exec.min(tau);
                if end < t_ev {
                    t_ev = end;
                    j = k;
                }
            }
            let due = next_decision.filter(|&t| t <= t_ev && t < h);
            if let Some(t_dec) = due {
                data.sort_deaths();
                data.build_censored(t_dec, &vms);
                let obs = Observations {
                    now: t_dec,
                    horizon: h,
                    completed: &data.deaths,
                    censored: &data.censored,
                };
                let decision = policy.decide(&obs);
                next_decision = decision.next;
                apply(decision, t_dec, &mut tau, &mut vms, &mut data, &mut out);
                continue;
            }
            if t_ev > h {
                break;
            }
            let vm = &mut vms[j];
            let completed = vm.exec <= tau;
            if completed {
                out.completed += 1;
                if record {
                    data.add_death(vm.exec);
                }
            } else {
                out.interrupted += 1;
                if record {
                    data.add_interrupted(tau);
                }
            }
            vm.start = t_ev;
            vm.exec = draw(&mut vm.rng);
            if completed && policy.watches_completions() {
                data.sort_deaths();
                data.build_censored(t_ev, &vms);
                let obs = Observations {
                    now: t_ev,
                    horizon: h,
                    completed: &data.deaths,
                    censored: &data.censored,
                };
                if policy.converged(&obs) {
                    let decision = policy.decide(&obs);
                    next_decision = decision.next;
                    apply(decision, t_ev, &mut tau, &mut vms, &mut data, &mut out);
                }
            }
        }
        out.final_threshold = tau;
        Ok(out)
    }

    /// Runs every strategy on instance `instance`, in the order given.
    pub fn run_instance(
        &self,
        strategies: &[Strategy],
        seed: u64,
        instance: u64,
    ) -> Result<Vec<Outcome>, CuttingError> {
        strategies
            .iter()
            .map(|&s| self.run(s, seed, instance))
            .collect()
    }

    /// Runs every strategy on instances `0..instances`, one after the other; the result is
    /// indexed `[instance][strategy]`.
    pub fn run_many(
        &self,
        strategies: &[Strategy],
        seed: u64,
        instances: usize,
    ) -> Result<Vec<Vec<Outcome>>, CuttingError> {
        for s in strategies {
            s.validate()?;
        }
        (0..instances as u64)
            .map(|i| self.run_instance(strategies, seed, i))
            .collect()
    }
}
