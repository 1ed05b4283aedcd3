//! The incremental estimator against a plain reference: every cell's observations kept and
//! the estimate rebuilt from all of them by sorting them ([`learn::estimate`], Kaplan-Meier
//! on the samples). On the same recorded times the PMFs are the same bits.

use std::collections::VecDeque;

use learn::{
    Estimator, LearnError, MAX_SCALE, MIN_MACHINE_OBSERVATIONS, Options, SCALE_STEP, Update, blend,
    estimate_checked, median_ratio,
};
use pmf::Pmf;
use pmf::kaplan_meier::Sample;
use proptest::prelude::*;

/// The reference: every observation kept, each rebuild sorts them all.
struct Reference {
    machines: usize,
    types: usize,
    prior: Vec<Pmf>,
    medians: Vec<f64>,
    samples: Vec<VecDeque<Sample>>,
    since: Vec<usize>,
    current: Vec<Pmf>,
    base: Vec<Pmf>,
    ratios: Vec<VecDeque<Sample>>,
    applied: Vec<f64>,
    factor_since: Vec<usize>,
    options: Options,
}

fn stretch(p: &Pmf, factor: f64) -> Pmf {
    if factor == 1.0 {
        p.clone()
    } else {
        pmf::transform::scale_time(p, factor).unwrap()
    }
}

impl Reference {
    fn new(types: usize, machines: usize, prior: Vec<Pmf>, options: Options) -> Self {
        let medians = prior
            .iter()
            .map(|p| (p.quantile(0.5).unwrap() as f64).max(1.0))
            .collect();
        Reference {
            machines,
            types,
            medians,
            samples: vec![VecDeque::new(); prior.len()],
            since: vec![0; prior.len()],
            current: prior.clone(),
            base: prior.clone(),
            prior,
            ratios: vec![VecDeque::new(); machines],
            applied: vec![1.0; machines],
            factor_since: vec![0; machines],
            options,
        }
    }

    /// As `Estimator::observe`, on the time as the estimator records it (its tick).
    fn observe(
        &mut self,
        t: usize,
        m: usize,
        time: f64,
        censored: bool,
    ) -> Result<Update, LearnError> {
        let time = if censored { time.floor() } else { time.ceil() } + 0.0;
        let i = t * self.machines + m;
        let o = self.options;
        let mut update = Update::Unchanged;
        if o.machine_scale {
            let r = &mut self.ratios[m];
            r.push_back(Sample {
                time: time / self.medians[i],
                censored,
            });
            while r.len() > o.machine_window {
                r.pop_front();
            }
            self.factor_since[m] += 1;
            if r.len() >= MIN_MACHINE_OBSERVATIONS.min(o.machine_window)
                && self.factor_since[m] >= o.cadence
            {
                self.factor_since[m] = 0;
                if let Some(est) = median_ratio(r.make_contiguous())? {
                    let est = est.clamp(1.0 / MAX_SCALE, MAX_SCALE);
                    if (est / self.applied[m]).ln().abs() > SCALE_STEP.ln_1p() {
                        for tt in 0..self.types {
                            let j = tt * self.machines + m;
                            self.current[j] = stretch(&self.base[j], est);
                        }
                        self.applied[m] = est;
                        update = Update::Machine;
                    }
                }
            }
        }
        let factor = self.applied[m];
        let s = &mut self.samples[i];
        s.push_back(Sample {
            time: time / factor,
            censored,
        });
        if let Some(w) = o.window {
            while s.len() > w {
                s.pop_front();
            }
        }
        self.since[i] += 1;
        let share = (o.cadence_share * s.len() as f64).ceil() as usize;
        if self.since[i] >= o.cadence.max(share) {
            self.since[i] = 0;
            let next = match estimate_checked(s.make_contiguous(), &self.prior[i], &o)? {
                Some((e, n, rejected)) => {
                    let n0 = if rejected { 0.0 } else { o.prior_weight };
                    blend(&self.prior[i], n0, &e, n)?
                }
                None => self.prior[i].clone(),
            };
            let current = stretch(&next, factor);
            if current != self.current[i] && update == Update::Unchanged {
                update = Update::Cell;
            }
            self.current[i] = current;
            self.base[i] = next;
        }
        Ok(update)
    }
}

fn bits(p: &Pmf) -> (i64, Vec<u64>) {
    (p.min(), p.masses().iter().map(|m| m.to_bits()).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn the_incremental_estimator_is_the_reference_bit_for_bit(
        obs in proptest::collection::vec((0usize..2, 0usize..2, 0u32..120, 0u32..4, any::<bool>()), 1..400),
        prior_weight in prop_oneof![Just(0.0), Just(10.0), 0.0f64..20.0],
        prior_len in 1usize..60,
        prior_at in 0i64..80,
        naive in any::<bool>(),
        at_last in any::<bool>(),
        window in proptest::option::of(1usize..40),
        cadence in 1usize..4,
        share in prop_oneof![Just(0.0), 0.0f64..0.5],
        machine_scale in any::<bool>(),
        machine_window in 1usize..30,
        fractional in any::<bool>(),
        prior_check in any::<bool>(),
    ) {
        let prior: Vec<Pmf> = (0..4)
            .map(|c| {
                Pmf::from_weights(prior_at + 7 * c, (0..prior_len + c as usize).map(|i| ((i + c as usize) % 3 + 1) as f64).collect()).unwrap()
            })
            .collect();
        let o = Options {
            prior_weight,
            censoring: if naive { learn::Censoring::Ignore } else { learn::Censoring::KaplanMeier },
            tail: if at_last { learn::Tail::AtLast } else { learn::Tail::Prior },
            window,
            cadence,
            cadence_share: share,
            machine_scale,
            // The reference applies the factor unconditionally (`machine_scale`); the
            // evidence's gate is tested in `estimator.rs`.
            scale_by_evidence: false,
            machine_window,
            explore: 0,
            optimism: false,
            // The reference learns each machine alone (pooling: `estimator.rs`).
            pool_copies: false,
            pool_by_evidence: false,
            prior_check,
            // The reference keeps its prior (the guard: `guard.rs`).
            prior_guard: false,
        };
        let mut est = Estimator::new(2, 2, prior.clone(), o).unwrap();
        let mut reference = Reference::new(2, 2, prior, o);
        for &(t, m, x, frac, censored) in &obs {
            // Integer ticks, or (some of the time) a fraction of a tick past one.
            let time = f64::from(x) + if fractional { f64::from(frac) / 4.0 } else { 0.0 };
            let a = est.observe(t, m, time, censored).unwrap();
            let b = reference.observe(t, m, time, censored).unwrap();
            prop_assert_eq!(a, b);
            for tt in 0..2 {
                for mm in 0..2 {
                    prop_assert_eq!(bits(est.pmf(tt, mm)), bits(&reference.current[tt * 2 + mm]));
                }
                prop_assert_eq!(est.scale(tt).to_bits(), reference.applied[tt].to_bits());
            }
            prop_assert_eq!(est.observations(t, m), reference.samples[t * 2 + m].len());
        }
    }
}

#[test]
fn the_reference_agrees_on_a_long_sequence_with_a_geometric_tail() {
    // Times beyond the prior (so the geometric tail, which reads the sum of the times),
    // many censored, with and without a window.
    for window in [None, Some(50)] {
        let o = Options {
            window,
            prior_weight: 3.0,
            scale_by_evidence: false,
            prior_guard: false,
            ..Options::default()
        };
        let prior = vec![Pmf::point(5)];
        let mut est = Estimator::new(1, 1, prior.clone(), o).unwrap();
        let mut reference = Reference::new(1, 1, prior, o);
        let mut i = 1u64;
        for k in 0..3000 {
            i = i
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = 1 + (i >> 40) % 300;
            let censored = k % 3 != 0 || x > 250;
            let a = est.observe(0, 0, x as f64, censored).unwrap();
            let b = reference.observe(0, 0, x as f64, censored).unwrap();
            assert_eq!(a, b, "observation {k}");
            assert_eq!(
                bits(est.pmf(0, 0)),
                bits(&reference.current[0]),
                "observation {k}"
            );
        }
    }
}
