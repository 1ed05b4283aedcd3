//! The tick range: inputs at and beyond its ends, one regression test per defect.

use crate::as_exec;
use pmf::{
    BinValue, DropModel, MAX_TICK, MIN_TICK, Pmf, PmfError, TailCdf, executing_pct, from_samples,
    next_pct,
};

fn in_range(p: &Pmf) {
    p.check_invariants().expect("valid PMF");
    assert!(p.min() >= MIN_TICK && p.max() <= MAX_TICK, "{p:?}");
}

fn two() -> Pmf {
    Pmf::new(3, vec![0.5, 0.5]).expect("valid")
}

#[test]
fn new_rejects_an_offset_beyond_the_range() {
    assert_eq!(
        Pmf::new(i64::MAX, vec![0.5, 0.5]),
        Err(PmfError::TickOutOfRange {
            bin: 0,
            tick: i64::MAX
        })
    );
    assert_eq!(
        Pmf::new(MAX_TICK, vec![0.5, 0.5]),
        Err(PmfError::TickOutOfRange {
            bin: 1,
            tick: MAX_TICK + 1
        })
    );
    let p = Pmf::new(MAX_TICK - 1, vec![0.5, 0.5]).expect("the range's last two ticks");
    assert_eq!(p.max(), MAX_TICK);
}

#[test]
fn new_rejects_negative_times() {
    let e = Pmf::new(-5, vec![1.0]).expect_err("negative time");
    assert_eq!(e, PmfError::TickOutOfRange { bin: 0, tick: -5 });
    assert_eq!(
        e.to_string(),
        "the time of bin #0 (offset + 0) is -5, outside [0, 4503599627370496]: times built \
         from data are not negative and at most 4503599627370496 ticks"
    );
    assert!(Pmf::from_weights(-5, vec![1.0, 1.0]).is_err());
    assert!(Pmf::from_pairs([(-1, 0.5), (3, 0.5)]).is_err());
    // Zero bins before time 0 hold no time.
    assert!(Pmf::new(-2, vec![0.0, 0.0, 1.0]).is_ok());
}

#[test]
fn shift_saturates_at_the_ends() {
    let p = two().shift(i64::MAX);
    in_range(&p);
    assert_eq!(p.masses(), &[1.0]);
    let q = two().shift(i64::MIN);
    in_range(&q);
    assert_eq!((q.min(), q.masses()), (MIN_TICK, &[1.0][..]));
    // Part of the support beyond the end: that part is gathered at the end.
    let p = Pmf::new(0, vec![0.25, 0.25, 0.5])
        .expect("valid")
        .shift(MAX_TICK - 1);
    assert_eq!((p.min(), p.masses()), (MAX_TICK - 1, &[0.25, 0.75][..]));
    let p = Pmf::new(0, vec![0.25, 0.25, 0.5])
        .expect("valid")
        .shift(MIN_TICK - 1);
    assert_eq!((p.min(), p.masses()), (MIN_TICK, &[0.5, 0.5][..]));
    let mut r = two();
    r.shift_in_place(i64::MAX);
    in_range(&r);
}

#[test]
fn convolve_of_large_offsets_saturates() {
    let p = Pmf::point(i64::MAX).convolve(&two());
    in_range(&p);
    let q = Pmf::point(i64::MIN).convolve(&Pmf::point(i64::MIN));
    in_range(&q);
}

#[test]
fn condition_after_the_last_tick_of_time() {
    let p = two().condition_after(i64::MAX);
    in_range(&p);
    assert_eq!(p.max(), MAX_TICK);
}

#[test]
fn next_pct_with_a_deadline_at_the_start_of_time() {
    for model in [DropModel::None, DropModel::Pending, DropModel::All] {
        in_range(&next_pct(&two(), &as_exec(&two()), i64::MIN, model).expect("narrow"));
        in_range(&next_pct(&two(), &as_exec(&two()), i64::MAX, model).expect("narrow"));
    }
}

#[test]
fn next_pct_refuses_a_result_that_is_mostly_a_gap() {
    // The task ahead ends at 0 or 10; the deadline 5 drops this task half the time, and when
    // it runs it takes 2^40 ticks: mass at 10 and at 2^40, a dense gap of 8 TiB between.
    let prev =
        Pmf::new(0, [0.5].into_iter().chain([0.0; 9]).chain([0.5]).collect()).expect("valid");
    let far = Pmf::point(1 << 40);
    assert!(matches!(
        next_pct(&prev, &as_exec(&far), 5, DropModel::Pending),
        Err(PmfError::TooWide { span, .. }) if span == 1 << 40
    ));
    // Under `All` the late part is gathered at the deadline; no gap.
    let all = next_pct(&prev, &as_exec(&far), 5, DropModel::All).expect("narrow");
    assert_eq!((all.min(), all.max()), (5, 10));
    // A gap of up to `MAX_SPAN` ticks is held.
    let near = Pmf::point(1 << 20);
    let p = next_pct(&prev, &as_exec(&near), 5, DropModel::Pending).expect("within MAX_SPAN");
    assert_eq!((p.min(), p.max(), p.impulses()), (10, 1 << 20, 2));
}

#[test]
fn executing_pct_at_the_end_of_time() {
    for model in [DropModel::None, DropModel::Pending, DropModel::All] {
        in_range(&executing_pct(
            &as_exec(&two()),
            0,
            i64::MAX,
            i64::MAX,
            model,
        ));
        in_range(&executing_pct(
            &as_exec(&two()),
            i64::MAX,
            i64::MAX,
            i64::MIN,
            model,
        ));
        in_range(&executing_pct(&as_exec(&two()), i64::MIN, 0, 0, model));
    }
}

#[test]
fn from_samples_rejects_times_beyond_the_range() {
    for w in [1, 2, 1 << 20, 1 << 40, 1 << 50, i64::MAX] {
        for v in [BinValue::Upper, BinValue::Lower, BinValue::Centre] {
            assert!(
                matches!(
                    from_samples(&[3.7e19], w, v),
                    Err(PmfError::TimeOutOfRange(_))
                ),
                "w = {w}, {v:?}"
            );
        }
    }
}

#[test]
fn from_samples_rejects_negative_times() {
    for v in [BinValue::Upper, BinValue::Lower, BinValue::Centre] {
        assert!(matches!(
            from_samples(&[-5.0], 1, v),
            Err(PmfError::InvalidSampleTime { index: 0, .. })
        ));
        assert!(matches!(
            from_samples(&[2.0, -0.5], 2, v),
            Err(PmfError::InvalidSampleTime { index: 1, .. })
        ));
    }
}

#[test]
fn total_variation_of_distant_point_masses_is_one() {
    let (a, b) = (Pmf::point(0), Pmf::point(1_000_000_000_000_000_000));
    assert_eq!(a.total_variation(&b), 1.0);
    assert_eq!(b.total_variation(&a), 1.0);
}

#[test]
fn total_variation_is_at_most_one() {
    // Disjoint supports whose masses, in bin order, sum to 2 + 4.4e-16: half of that was
    // above 1.
    let a = Pmf::new(
        0,
        vec![
            0.23729207118485005,
            0.01735296825410267,
            0.2774144915063952,
            0.1277927385938183,
            0.3401477304608338,
        ],
    )
    .expect("valid");
    let b = Pmf::new(
        10,
        vec![0.2786835843195571, 0.5505675401724858, 0.1707488755079572],
    )
    .expect("valid");
    assert_eq!(a.total_variation(&b), 1.0);
    assert_eq!(b.total_variation(&a), 1.0);
}

#[test]
fn queries_far_from_a_negative_support() {
    let p = Pmf::point(-5);
    assert_eq!(p.mass_at(i64::MAX), 0.0);
    assert_eq!(p.mass_at(i64::MIN), 0.0);
    assert_eq!(as_exec(&p).expected_min(i64::MAX), -5.0);
    let t = TailCdf::new(&p);
    assert_eq!(t.at(i64::MAX), 1.0);
    assert_eq!(t.at(i64::MIN), 0.0);
}

#[test]
fn the_default_tail_is_a_machine_free_at_zero() {
    // A PET of 1 or 2 ticks behind a machine free at 0: done before 2 half the time.
    let pet = Pmf::new(1, vec![0.5, 0.5]).expect("valid");
    let (d, idle) = (TailCdf::default(), TailCdf::idle(0));
    assert_eq!(d, idle);
    assert_eq!(d.append_success(&as_exec(&pet), 2), 0.5);
    assert!(d.append_success(&as_exec(&pet), 2) <= d.append_success_bound(&as_exec(&pet), 2));
}

#[test]
fn append_queries_at_the_ends_of_time() {
    let pet = two();
    for tail in [
        TailCdf::idle(0),
        TailCdf::idle(i64::MAX),
        TailCdf::idle(i64::MIN),
    ] {
        for d in [i64::MIN, -1, 0, i64::MAX] {
            let s = tail.append_success(&as_exec(&pet), d);
            let b = tail.append_success_bound(&as_exec(&pet), d);
            assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&b));
        }
    }
}

mod full_range {
    //! Every public entry point on arbitrary `i64` ticks, arbitrary `f64` parameters and
    //! arbitrary masses: a valid result (a PMF in the tick range, a probability in [0, 1]) or
    //! a typed error, never a panic. `cargo test` builds with overflow checks on.

    use crate::as_exec;
    use pmf::kaplan_meier::{KaplanMeier, Sample};
    use pmf::transform::{product, scale_time};
    use pmf::{
        BinValue, DropModel, Executing, MAX_TICK, MIN_TICK, Pending, Pmf, PmfError, TailCdf,
        drop_probability, evaluate_queue, evaluate_queue_trimmed, executing_pct, from_samples,
        next_pct, success_probability,
    };
    use proptest::prelude::*;

    /// Any tick, with the ends of `i64` and of the tick range, and small ticks, drawn often.
    fn tick() -> impl Strategy<Value = i64> {
        prop_oneof![
            4 => any::<i64>(),
            1 => prop::sample::select(vec![
                i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, MIN_TICK, MIN_TICK - 1,
                MIN_TICK + 1, MAX_TICK, MAX_TICK - 1, MAX_TICK + 1, 0, -1, 1,
            ]),
            2 => -200i64..200,
            1 => (MAX_TICK - 100)..=(MAX_TICK + 100),
            1 => (MIN_TICK - 100)..=(MIN_TICK + 100),
        ]
    }

    /// Any `f64`, with the special values drawn often.
    fn real() -> impl Strategy<Value = f64> {
        prop_oneof![
            3 => any::<f64>(),
            1 => prop::sample::select(vec![
                f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0,
                f64::MIN_POSITIVE, 4.6e18, 3.7e19, -3.7e19, 1e300,
            ]),
            3 => -10.0f64..300.0,
        ]
    }

    /// Masses of any kind: negative, NaN, infinite, zero, or valid.
    fn masses() -> impl Strategy<Value = Vec<f64>> {
        prop_oneof![
            prop::collection::vec(real(), 0..12),
            prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..30),
        ]
    }

    /// A valid PMF anywhere in the tick range, its ends included: weights at 0, then moved
    /// by any shift (a shift beyond the range gathers the mass at its end).
    fn pmf() -> impl Strategy<Value = Pmf> {
        (
            prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..30),
            tick(),
            1usize..4,
        )
            .prop_map(|(mut w, dt, grid)| {
                w[0] = w[0].max(0.01);
                let mut spread = vec![0.0; (w.len() - 1) * grid + 1];
                for (k, &m) in w.iter().enumerate() {
                    spread[k * grid] = m;
                }
                Pmf::from_weights(0, spread)
                    .expect("valid weights")
                    .shift(dt)
            })
    }

    fn model() -> impl Strategy<Value = DropModel> {
        prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All])
    }

    fn valid(p: &Pmf) -> Result<(), TestCaseError> {
        prop_assert!(
            p.check_invariants().is_ok(),
            "{:?}: {:?}",
            p.check_invariants(),
            p
        );
        prop_assert!(p.min() >= MIN_TICK && p.max() <= MAX_TICK, "{:?}", p);
        Ok(())
    }

    fn probability(x: f64) -> Result<(), TestCaseError> {
        prop_assert!((0.0..=1.0).contains(&x), "{}", x);
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn constructors(
            offset in tick(),
            masses in masses(),
            ticks in prop::collection::vec(tick(), 0..12),
            samples in prop::collection::vec(real(), 0..12),
            width in tick(),
            resolution in real(),
            censored in prop::collection::vec(any::<bool>(), 12),
        ) {
            for p in [
                Pmf::new(offset, masses.clone()),
                Pmf::from_weights(offset, masses.clone()),
                Pmf::new_checked(offset, masses.clone()).map(|n| n.pmf),
            ]
            .into_iter()
            .flatten()
            {
                valid(&p)?;
                prop_assert!(p.min() >= 0);
            }
            let pairs: Vec<(i64, f64)> = ticks.iter().copied().zip(masses.iter().copied()).collect();
            if let Ok(n) = Pmf::from_pairs(pairs.clone()) {
                valid(&n.pmf)?;
            }
            if let Ok(p) = Pmf::from_weighted_pairs(pairs) {
                valid(&p)?;
            }
            valid(&Pmf::point(offset))?;
            for v in [BinValue::Upper, BinValue::Lower, BinValue::Centre] {
                if let Ok(p) = from_samples(&samples, width, v) {
                    valid(&p)?;
                    prop_assert!(p.min() >= 0);
                }
            }
            let obs: Vec<Sample> = samples
                .iter()
                .zip(&censored)
                .map(|(&time, &censored)| Sample { time, censored })
                .collect();
            if let Ok(km) = KaplanMeier::new(&obs) {
                let _ = (km.mean(), km.variance(), km.survival(resolution), km.cdf(resolution));
                if let Ok(p) = km.to_pmf(resolution) {
                    valid(&p)?;
                }
            }
        }

        #[test]
        fn queries(p in pmf(), t in tick(), x in real(), n in any::<usize>()) {
            valid(&p)?;
            let _ = (p.mean(), p.variance(), p.std_dev(), p.skewness(), p.sample_skewness(n));
            probability(p.bounded_skewness().abs())?;
            probability(p.cdf_tick(t))?;
            probability(p.prob_before(t))?;
            probability(p.mass_at(t))?;
            probability(success_probability(&p, t))?;
            let (c, s) = (p.cdf(x), p.sf(x));
            prop_assert!(x.is_nan() || ((0.0..=1.0).contains(&c) && (0.0..=1.0).contains(&s)));
            match p.quantile(x) {
                Ok(q) => prop_assert!(q >= p.min() && q <= p.max()),
                Err(_) => prop_assert!(!(0.0..=1.0).contains(&x)),
            }
            let ep = as_exec(&p);
            prop_assert_eq!(ep.quantile(x).ok(), p.quantile(x).ok());
            let e = ep.expected_min(t);
            prop_assert!(e.is_finite());
            prop_assert!(p.impulses() >= 1 && p.iter().count() == p.impulses());
            let _ = (ep.stride(), ep.segments(), ep.nonzero_bins(), ep.mass_below_bin(n));
        }

        #[test]
        fn operations(a in pmf(), b in pmf(), t in tick(), x in real(), model in model()) {
            valid(&a.shift(t))?;
            let mut moved = a.clone();
            moved.shift_in_place(t);
            valid(&moved)?;
            valid(&a.convolve(&b))?;
            valid(&a.condition_after(t))?;
            valid(&a.gather_at(t))?;
            valid(&a.at_least(t))?;
            valid(&a.trim_tails(x))?;
            let mut trimmed = a.clone();
            trimmed.trim_tv(x);
            valid(&trimmed)?;
            // Half the sum of two sets of masses that each sum to 1 within rounding: capped.
            probability(a.total_variation(&b))?;
            match next_pct(&a, &as_exec(&b), t, model) {
                Ok(p) => valid(&p)?,
                Err(e) => prop_assert!(matches!(e, PmfError::TooWide { .. }), "{}", e),
            }
            probability(drop_probability(Some(&a), &b, t, model))?;
            if let Ok(p) = scale_time(&a, x) {
                valid(&p)?;
            }
            if let Ok(p) = product(&a, &b, x) {
                valid(&p)?;
            }
        }

        #[test]
        fn queues(
            pet in pmf(),
            other in pmf(),
            start in tick(),
            now in tick(),
            deadlines in prop::collection::vec(tick(), 1..5),
            eps in real(),
            model in model(),
        ) {
            valid(&executing_pct(&as_exec(&pet), start, now, deadlines[0], model))?;
            let executing = Executing { pet: &as_exec(&pet), start, deadline: deadlines[0] };
            let other = as_exec(&other);
            let pending: Vec<Pending<'_>> = deadlines
                .iter()
                .map(|&deadline| Pending { pet: &other, deadline })
                .collect();
            for ex in [Some(executing), None] {
                for queue in [
                    evaluate_queue(now, ex, &pending, model),
                    evaluate_queue_trimmed(now, ex, &pending, model, eps),
                ] {
                    let positions = match queue {
                        Ok(positions) => positions,
                        Err(e) => {
                            prop_assert!(matches!(e, PmfError::TooWide { .. }), "{}", e);
                            continue;
                        }
                    };
                    for pos in &positions {
                        valid(&pos.pct)?;
                        probability(pos.success)?;
                        probability(pos.dropped)?;
                    }
                }
            }
        }

        #[test]
        fn tail_cdf(tail in pmf(), pet in pmf(), t in tick(), x in real()) {
            let mut cdf = TailCdf::idle(t);
            prop_assert!(cdf.min() >= MIN_TICK && cdf.max() <= MAX_TICK);
            for c in [TailCdf::new(&tail), TailCdf::default(), cdf.clone()] {
                probability(c.at(t))?;
                probability(c.append_success(&as_exec(&pet), t))?;
                probability(c.append_success_bound(&as_exec(&pet), t))?;
                prop_assert!(c.append_success(&as_exec(&pet), t) <= c.append_success_bound(&as_exec(&pet), t) + 1e-12);
                if let Some(q) = c.first_reaching(x) {
                    prop_assert!(q >= c.min());
                }
                let _ = (c.mean(), c.append_expected_completion(x));
            }
            cdf.rebuild(&tail);
            prop_assert_eq!(cdf, TailCdf::new(&tail));
        }
    }
}
