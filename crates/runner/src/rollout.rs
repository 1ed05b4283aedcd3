//! `[rollout]`: a knowable reference for the simulator, rollout by policy switching
//! (Bertsekas, *Rollout, Policy Iteration, and Distributed Reinforcement Learning*, ch. 2;
//! Chang, Givan and Chong, "Parallel rollout for online solution of partially observable
//! Markov decision processes", 2004).
//!
//! At a mapping event the trial's heuristic (the *base*) and the `policies` listed are each
//! simulated forward from the present, over `scenarios` futures drawn from what an online
//! scheduler knows, and the event is mapped by the policy whose futures hold the most tasks
//! on time. Nothing it reads is hidden from a live scheduler:
//!
//! * **Execution times** come from the belief (the PET the policies read), each executing
//!   task's conditioned on its having run so far ([`pmf::Pmf::condition_after`]); never the
//!   trial's draws of the truth.
//! * **Arrivals** after the present are a Poisson stream at the rate of the last `window`
//!   arrivals, each a copy of one of them drawn at random: its type and its relative
//!   deadline (deadline less arrival). The trial's own future tasks are never read.
//! * **The pruner** is the trial's, copied in its present state ([`model::Pruner::fork`]);
//!   every policy runs with it, so `"MM"` is MM with the trial's pruner.
//!
//! A future is simulated by the same rules as the trial ([`system::System::fork`] of the
//! trial's system, [`System::mapping_event`]) until `horizon` times the mean relative
//! deadline of those arrivals has passed; its value is the number of tasks that complete on
//! time in it. Every policy meets the same futures (common random numbers: a task's time
//! is drawn from its own uniform, the same whichever policy starts it). A tie goes to the
//! base, and where every policy would map the event alike (tried on a copy first) nothing
//! is simulated. In expectation under the belief's model the result is at least as good as
//! the best of the policies (Chang et al., theorem 2); how much better is what it measures.
//!
//! It is a reference, not a scheduler to deploy: its cost per mapping event is
//! `(policies + 1) x scenarios` simulations of the horizon (docs/reproduction.md states it
//! measured). Its draws come from the stream `(seed, trial, Other(ROLLOUT_STREAM))`, so a
//! trial is the same on any number of threads.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use heuristics::{HeuristicConfig, Mapper};
use model::{MachineId, Pruner, TaskId, TaskSpec};
use pmf::{DropModel, Tick};
use rand::{Rng, RngCore};
use rand_chacha::{ChaCha8Rng, ChaCha12Rng};
use serde::{Deserialize, Serialize};
use system::{Env, Hooks, System, TaskRecord};
use workload::Pet;

/// The stream code of the rollout's draws (`workload::rng::Purpose::Other`).
pub const ROLLOUT_STREAM: u64 = 0x726f_6c6c; // "roll"

/// The most futures a mapping event may simulate per policy.
pub const MAX_SCENARIOS: usize = 10_000;

/// `[rollout]` as written (the module docs say what each key means).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RolloutConfig {
    /// The heuristics simulated beside the trial's own (`[mapper]`): a name, or a table as
    /// `[mapper]` (`{ name = "auto", depth = 4 }`); each runs with the trial's pruner.
    #[serde(default = "default_policies")]
    pub policies: Vec<Policy>,
    /// The futures drawn per mapping event, each met by every policy.
    #[serde(default = "default_scenarios")]
    pub scenarios: usize,
    /// How far a future runs, in mean relative deadlines of the recent arrivals.
    #[serde(default = "default_horizon")]
    pub horizon: f64,
    /// Choose a policy at every this many mapping events (the one chosen maps the events
    /// between).
    #[serde(default = "default_every")]
    pub every: usize,
    /// The recent arrivals the futures' arrival rate, types and deadlines are drawn from.
    #[serde(default = "default_window")]
    pub window: usize,
}

fn default_policies() -> Vec<Policy> {
    ["MM", "MSD", "PAM", "lookahead"]
        .map(|n| Policy::Name(n.into()))
        .to_vec()
}

/// One of `rollout.policies`: a heuristic's name, or a table as `[mapper]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Policy {
    /// A heuristic at its defaults: `"MM"`.
    Name(String),
    /// A heuristic with parameters: `{ name = "auto", depth = 4 }`.
    Table(HeuristicConfig),
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Policy::Name(n) => write!(f, "\"{n}\""),
            Policy::Table(h) => write!(f, "{{ name = \"{}\", ... }}", h.name),
        }
    }
}

impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Policy;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a heuristic's name or a table as [mapper]")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Policy, E> {
                Ok(Policy::Name(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Policy, A::Error> {
                HeuristicConfig::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Policy::Table)
            }
        }
        d.deserialize_any(Visit)
    }
}
fn default_scenarios() -> usize {
    4
}
fn default_horizon() -> f64 {
    1.0
}
fn default_every() -> usize {
    1
}
fn default_window() -> usize {
    200
}

impl Default for RolloutConfig {
    fn default() -> Self {
        RolloutConfig {
            policies: default_policies(),
            scenarios: default_scenarios(),
            horizon: default_horizon(),
            every: default_every(),
            window: default_window(),
        }
    }
}

impl RolloutConfig {
    /// Checks every key; `drop_model` is the trial's, with which the policies are built.
    pub fn validate(&self, drop_model: DropModel) -> Result<(), String> {
        if self.scenarios == 0 || self.scenarios > MAX_SCENARIOS {
            return Err(format!(
                "rollout.scenarios: expected 1 to {MAX_SCENARIOS}, found {}",
                self.scenarios
            ));
        }
        if !(self.horizon.is_finite() && self.horizon > 0.0 && self.horizon <= 1000.0) {
            return Err(format!(
                "rollout.horizon: expected a number of mean relative deadlines in (0, 1000], found {}",
                self.horizon
            ));
        }
        if self.every == 0 {
            return Err("rollout.every: expected at least 1 mapping event, found 0".into());
        }
        if self.window < 2 {
            return Err(format!(
                "rollout.window: expected at least 2 arrivals (a rate needs two), found {}",
                self.window
            ));
        }
        for name in &self.policies {
            let h = name
                .resolve()
                .map_err(|e| format!("rollout.policies: {e}"))?;
            let m =
                heuristics::build(&h, drop_model).map_err(|e| format!("rollout.policies: {e}"))?;
            if m.is_immediate() {
                return Err(format!(
                    "rollout.policies: {name} maps immediately into unbounded queues; a rollout switches between batch heuristics"
                ));
            }
        }
        Ok(())
    }
}

impl Policy {
    /// The heuristic it runs (a variant's suffix or preset names its pruner, which the
    /// rollout does not switch: the trial's runs).
    fn resolve(&self) -> Result<HeuristicConfig, String> {
        let h = match self {
            Policy::Name(n) => HeuristicConfig::named(n),
            Policy::Table(h) => h.clone(),
        };
        system::variants::resolve(&h, None)
            .map(|(h, _)| h)
            .map_err(|e| e.to_string())
    }
}

/// A trial's rollout: the policies, their mappers in the trial, the stream and the counts
/// of what it chose.
#[derive(Debug)]
pub(crate) struct Rollout {
    config: RolloutConfig,
    /// The base, then every other policy: built afresh for each simulated future.
    policies: Vec<HeuristicConfig>,
    drop_model: DropModel,
    /// The policies' mappers that map the trial's events (the base's is the trial's own).
    live: Vec<Mapper>,
    rng: ChaCha12Rng,
    events: u64,
    current: usize,
    /// Per policy (the base first), the mapping events it mapped.
    chosen: Vec<u64>,
}

impl Rollout {
    /// The rollout of one trial over its heuristic `base` (as resolved) and `config`'s
    /// policies, drawing from `rng`.
    pub(crate) fn new(
        config: &RolloutConfig,
        base: &HeuristicConfig,
        drop_model: DropModel,
        rng: ChaCha12Rng,
    ) -> Result<Self, String> {
        config.validate(drop_model)?;
        let mut policies = vec![base.clone()];
        for p in &config.policies {
            policies.push(p.resolve()?);
        }
        let live = policies[1..]
            .iter()
            .map(|h| heuristics::build(h, drop_model).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        Ok(Rollout {
            config: config.clone(),
            chosen: vec![0; policies.len()],
            policies,
            drop_model,
            live,
            rng,
            events: 0,
            current: 0,
        })
    }

    /// Per policy (the trial's heuristic first, then `policies` in order), the mapping
    /// events it mapped.
    pub(crate) fn chosen(&self) -> &[u64] {
        &self.chosen
    }

    /// The mapping event at `now`, mapped by the policy chosen for it. `base` is the trial's
    /// heuristic; `arrived` the tasks that have arrived, in arrival order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mapping_event(
        &mut self,
        sys: &mut System<'_>,
        now: Tick,
        env: &Env<'_>,
        base: &mut Mapper,
        pruner: &mut dyn Pruner,
        hooks: &mut dyn Hooks,
        arrived: &[TaskSpec],
    ) {
        if self.events % self.config.every as u64 == 0 {
            self.current = self.choose(sys, now, env, pruner, arrived);
        }
        self.events += 1;
        self.chosen[self.current] += 1;
        let mapper = match self.current {
            0 => base,
            i => &mut self.live[i - 1],
        };
        sys.mapping_event(now, env, mapper, pruner, hooks);
    }

    /// A fresh mapper of policy `i`: a simulated future must not share a heuristic's memos
    /// with the trial or another future.
    fn fresh(&self, i: usize) -> Option<Mapper> {
        heuristics::build(&self.policies[i], self.drop_model).ok()
    }

    /// The policy that maps the event at `now`: the base unless another's futures hold more
    /// tasks on time.
    fn choose(
        &mut self,
        sys: &System<'_>,
        now: Tick,
        env: &Env<'_>,
        pruner: &dyn Pruner,
        arrived: &[TaskSpec],
    ) -> usize {
        let n = self.policies.len();
        if n == 1 || sys.batch().is_empty() {
            return 0;
        }
        let Some(fresh) = (0..n)
            .map(|i| self.fresh(i))
            .collect::<Option<Vec<Mapper>>>()
        else {
            return 0;
        };
        // The event as each policy would map it, on a copy: where all agree there is nothing
        // to choose.
        let mut first = Vec::with_capacity(n);
        for mut mapper in fresh {
            let Some(mut p) = pruner.fork() else {
                return 0;
            };
            let mut copy = sys.fork(|_, _| now + 1);
            let mut hooks = Forward::new(sys.pet(), 0, Tick::MAX);
            copy.mapping_event(now, env, &mut mapper, p.as_mut(), &mut hooks);
            first.push(placement(&copy));
        }
        if first.iter().all(|f| *f == first[0]) {
            return 0;
        }
        let Some(futures) = Futures::recent(arrived, self.config.window, self.config.horizon)
        else {
            return 0;
        };
        let end = now.saturating_add(futures.horizon);
        let mut value = vec![0u64; n];
        for _ in 0..self.config.scenarios {
            let seed = self.rng.next_u64();
            let arrivals = futures.draw(now, end, seed);
            for (i, v) in value.iter_mut().enumerate() {
                let (Some(mut mapper), Some(mut p)) = (self.fresh(i), pruner.fork()) else {
                    return 0;
                };
                *v += simulate(sys, now, end, env, &mut mapper, p.as_mut(), seed, &arrivals);
            }
        }
        let best = value.iter().copied().max().unwrap_or(0);
        value.iter().position(|&v| v == best).unwrap_or(0)
    }
}

/// Where every task of the system is: each machine's tasks in order, then the batch.
fn placement(sys: &System<'_>) -> Vec<Vec<TaskId>> {
    let mut out: Vec<Vec<TaskId>> = sys.machines().iter().map(|m| m.tasks().collect()).collect();
    out.push(sys.batch().to_vec());
    out
}

/// What the futures are drawn from: the recent arrivals.
#[derive(Debug)]
struct Futures<'a> {
    recent: &'a [TaskSpec],
    /// Arrivals per tick; 0 when the recent ones came at one tick.
    rate: f64,
    /// How far a future runs, ticks.
    horizon: Tick,
}

impl<'a> Futures<'a> {
    /// From the last `window` of `arrived`; `None` before any arrival.
    fn recent(arrived: &'a [TaskSpec], window: usize, horizon: f64) -> Option<Self> {
        let recent = &arrived[arrived.len().saturating_sub(window)..];
        let (first, last) = (recent.first()?, recent.last()?);
        let span = last.arrival.saturating_sub(first.arrival);
        let rate = if span > 0 {
            (recent.len() - 1) as f64 / span as f64
        } else {
            0.0
        };
        let mean_slack = recent
            .iter()
            .map(|t| t.deadline.saturating_sub(t.arrival) as f64)
            .sum::<f64>()
            / recent.len() as f64;
        let horizon = (horizon * mean_slack)
            .ceil()
            .clamp(1.0, Tick::MAX as f64 / 4.0) as Tick;
        Some(Futures {
            recent,
            rate,
            horizon,
        })
    }

    /// The arrivals of one future after `now` and before `end`: a Poisson stream at the
    /// recent rate, each a copy of a recent arrival (its type and relative deadline).
    fn draw(&self, now: Tick, end: Tick, seed: u64) -> Vec<TaskSpec> {
        let mut out = Vec::new();
        if self.rate <= 0.0 {
            return out;
        }
        let mut rng = <ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
        let mut t = now as f64;
        loop {
            let u: f64 = rng.random();
            t += -(1.0 - u).ln() / self.rate;
            if t >= end as f64 {
                return out;
            }
            let like = self.recent[rng.random_range(0..self.recent.len())];
            let arrival = (t.ceil() as Tick).max(now + 1);
            out.push(TaskSpec {
                id: 0,
                task_type: like.task_type,
                arrival,
                deadline: arrival.saturating_add(like.deadline.saturating_sub(like.arrival)),
            });
        }
    }
}

/// A task's uniform draw in one future: the same for every policy (common random numbers).
fn luck(seed: u64, t: TaskId) -> f64 {
    // SplitMix64 of the future's seed and the task's id.
    let mut z = seed
        ^ (t as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The driver of one future: execution times from the belief and the future's draws, the
/// ends in a heap, the tasks on time counted.
struct Forward<'a> {
    belief: &'a Pet,
    seed: u64,
    heap: BinaryHeap<Reverse<(Tick, u64, MachineId, TaskId)>>,
    seq: u64,
    /// The future's end: a task on time after it is not counted (it is not reached).
    end: Tick,
    on_time: u64,
}

impl<'a> Forward<'a> {
    fn new(belief: &'a Pet, seed: u64, end: Tick) -> Self {
        Forward {
            belief,
            seed,
            heap: BinaryHeap::new(),
            seq: 0,
            end,
            on_time: 0,
        }
    }

    fn push(&mut self, at: Tick, m: MachineId, t: TaskId) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, m, t)));
    }
}

impl Hooks for Forward<'_> {
    fn started(&mut self, m: MachineId, spec: &TaskSpec, now: Tick, stop: Option<Tick>) -> Tick {
        let pmf = self.belief.exec_pmf(spec.task_type, m);
        let exec = pmf
            .quantile(luck(self.seed, spec.id))
            .unwrap_or(pmf.max())
            .max(0);
        let end = now.saturating_add(exec);
        self.push(stop.map_or(end, |s| end.min(s)), m, spec.id);
        exec
    }

    fn settled(
        &mut self,
        _spec: &TaskSpec,
        record: &TaskRecord,
        _deferrals: u32,
        _: system::Cause,
    ) {
        if record.outcome.is_success() && record.end <= self.end {
            self.on_time += 1;
        }
    }
}

/// The tasks on time in one future of `sys` from `now` to `end` under `mapper` and
/// `pruner`, with the future's `arrivals` and draws (`seed`).
#[allow(clippy::too_many_arguments)]
fn simulate(
    sys: &System<'_>,
    now: Tick,
    end: Tick,
    env: &Env<'_>,
    mapper: &mut Mapper,
    pruner: &mut dyn Pruner,
    seed: u64,
    arrivals: &[TaskSpec],
) -> u64 {
    let belief = sys.pet();
    let mut h = Forward::new(belief, seed, end);
    // Each executing task ends at a time drawn from its PMF given that it runs past `now`.
    let mut ends = Vec::new();
    let mut copy = sys.fork(|m, r| {
        let spec = &sys.tasks()[r.task];
        let ran = now.saturating_sub(r.start);
        let left = belief
            .exec_pmf(spec.task_type, m)
            .as_pmf()
            .condition_after(ran);
        let exec = left.quantile(luck(seed, r.task)).unwrap_or(left.max());
        let at = r.start.saturating_add(exec).max(now + 1);
        ends.push((m, r.task, at));
        at
    });
    for (m, t, at) in ends {
        let stop = copy.deadline_drop(t).filter(|&s| s > now);
        h.push(stop.map_or(at, |s| at.min(s)), m, t);
    }
    if copy.mapping_due(now) {
        copy.mapping_event(now, env, mapper, pruner, &mut h);
    }
    let mut next = 0;
    loop {
        let t_end = h.heap.peek().map(|Reverse((t, ..))| *t);
        let t_arr = arrivals.get(next).map(|a| a.arrival);
        let at = [t_end, t_arr, copy.next_map()].into_iter().flatten().min();
        let Some(at) = at.filter(|&t| t <= end) else {
            break;
        };
        while let Some(&Reverse((t, _, m, task))) = h.heap.peek() {
            if t != at {
                break;
            }
            h.heap.pop();
            if copy.machines()[m].running().map(|r| r.task) == Some(task) {
                let on_time = system::meets_deadline(at, copy.tasks()[task].deadline);
                copy.finish_running(m, at, on_time, None, pruner, &mut h);
            }
        }
        while let Some(a) = arrivals.get(next).filter(|a| a.arrival == at) {
            let id = copy.add_task(*a);
            copy.arrive(id);
            next += 1;
        }
        if copy.mapping_due(at) {
            copy.mapping_event(at, env, mapper, pruner, &mut h);
        }
    }
    h.on_time
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: usize, task_type: usize, arrival: Tick, deadline: Tick) -> TaskSpec {
        TaskSpec {
            id,
            task_type,
            arrival,
            deadline,
        }
    }

    #[test]
    fn the_futures_rate_and_horizon_come_from_the_recent_arrivals() {
        // Five arrivals 10 ticks apart (0.1 a tick) with relative deadlines 20 and 40.
        let arrived: Vec<TaskSpec> = (0..5)
            .map(|i| {
                spec(
                    i,
                    i % 2,
                    10 * i as Tick,
                    10 * i as Tick + 20 + 20 * (i % 2) as Tick,
                )
            })
            .collect();
        // The last 4: span 30 ticks, 3 gaps; slacks 40, 20, 40, 20 (mean 30).
        let f = Futures::recent(&arrived, 4, 2.0).unwrap();
        assert!((f.rate - 0.1).abs() < 1e-12);
        assert_eq!(f.horizon, 60);
        assert!(Futures::recent(&[], 4, 1.0).is_none());
        // One arrival: no rate, so no arrivals drawn.
        let one = Futures::recent(&arrived[..1], 4, 1.0).unwrap();
        assert!(one.draw(0, 1000, 7).is_empty());
    }

    #[test]
    fn drawn_arrivals_copy_a_recent_task_after_now_at_the_recent_rate() {
        let arrived: Vec<TaskSpec> = (0..200)
            .map(|i| {
                spec(
                    i,
                    i % 3,
                    5 * i as Tick,
                    5 * i as Tick + 17 + (i % 3) as Tick,
                )
            })
            .collect();
        let f = Futures::recent(&arrived, 200, 1.0).unwrap();
        let a = f.draw(1000, 101_000, 11);
        // 0.2 a tick over 100,000 ticks: 20,000 expected (sd 141).
        assert!((19_400..20_600).contains(&a.len()), "{}", a.len());
        assert!(a.windows(2).all(|w| w[0].arrival <= w[1].arrival));
        assert!(a.iter().all(|t| t.arrival > 1000 && t.arrival < 101_000));
        assert!(
            a.iter()
                .all(|t| t.deadline - t.arrival == 17 + t.task_type as Tick)
        );
        // The same seed, the same future.
        assert_eq!(a, f.draw(1000, 101_000, 11));
    }

    #[test]
    fn luck_is_uniform_and_differs_between_tasks_and_futures() {
        let n = 100_000;
        let mean = (0..n).map(|t| luck(3, t)).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        assert!((0..n).all(|t| (0.0..1.0).contains(&luck(3, t))));
        assert_ne!(luck(3, 1), luck(3, 2));
        assert_ne!(luck(3, 1), luck(4, 1));
    }

    #[test]
    fn a_bad_key_is_refused_naming_it() {
        let bad = |c: RolloutConfig, key: &str| {
            let e = c.validate(DropModel::All).unwrap_err();
            assert!(e.starts_with(&format!("rollout.{key}")), "{e}");
        };
        let ok = RolloutConfig::default();
        ok.validate(DropModel::All).unwrap();
        bad(
            RolloutConfig {
                scenarios: 0,
                ..ok.clone()
            },
            "scenarios",
        );
        bad(
            RolloutConfig {
                horizon: f64::NAN,
                ..ok.clone()
            },
            "horizon",
        );
        bad(
            RolloutConfig {
                every: 0,
                ..ok.clone()
            },
            "every",
        );
        bad(
            RolloutConfig {
                window: 1,
                ..ok.clone()
            },
            "window",
        );
        bad(
            RolloutConfig {
                policies: vec![Policy::Name("nope".into())],
                ..ok
            },
            "policies",
        );
        bad(
            RolloutConfig {
                policies: vec![Policy::Name("MCT".into())],
                ..ok
            },
            "policies",
        );
    }
}
