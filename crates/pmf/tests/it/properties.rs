//! Property tests of the PMF invariants (proptest). Generators only make valid PMFs; each
//! failure message says which law broke.

use crate::as_exec;
use pmf::{
    BinValue, DropModel, Executing, Pending, Pmf, TailCdf, auto_bin_width, evaluate_queue,
    evaluate_queue_trimmed, executing_pct, executing_pct_in, from_samples, next_pct, next_pct_in,
};
use proptest::prelude::*;

use crate::check::{assert_pmf_eq, check_pmf};

/// A valid PMF: offset in [-20, 60] (negative offsets by a shift: the constructors take times
/// from 0), 1..=len bins, interior zeros allowed, ends non-zero.
fn arb_pmf(max_len: usize) -> impl Strategy<Value = Pmf> {
    (
        -20i64..60,
        prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..=max_len),
    )
        .prop_map(|(offset, mut w)| {
            w[0] = w[0].max(0.01);
            let n = w.len();
            w[n - 1] = w[n - 1].max(0.01);
            Pmf::from_weights(0, w)
                .expect("generator makes valid weights")
                .shift(offset)
        })
}

/// A valid PMF on a grid of step 2 or 3 (the paper's PETs lie on a 2-unit grid): `arb_pmf`'s
/// bins spread out with zeros between them.
fn arb_grid_pmf(max_len: usize) -> impl Strategy<Value = Pmf> {
    (arb_pmf(max_len), 2usize..4).prop_map(|(p, step)| {
        let mut w = vec![0.0; (p.masses().len() - 1) * step + 1];
        for (k, &m) in p.masses().iter().enumerate() {
            w[k * step] = m;
        }
        Pmf::from_weights(0, w)
            .expect("spread weights stay valid")
            .shift(p.min())
    })
}

/// A valid execution-time PMF: positive times only.
fn arb_pet(max_len: usize) -> impl Strategy<Value = Pmf> {
    (arb_pmf(max_len), 1i64..30).prop_map(|(p, lo)| p.shift(lo - p.min()))
}

fn arb_model() -> impl Strategy<Value = DropModel> {
    prop_oneof![
        Just(DropModel::None),
        Just(DropModel::Pending),
        Just(DropModel::All)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_operation_conserves_mass(a in arb_pmf(40), b in arb_pet(40), d in -30i64..200,
                                       now in -30i64..200, dt in -50i64..50, model in arb_model()) {
        check_pmf(&a.convolve(&b));
        check_pmf(&next_pct(&a, &as_exec(&b), d, model).unwrap());
        check_pmf(&executing_pct(&as_exec(&b), a.min(), now, d, model));
        check_pmf(&a.shift(dt));
        check_pmf(&a.condition_after(now));
        check_pmf(&a.gather_at(d));
        check_pmf(&a.trim_tails(0.01));
    }

    /// Building in spare buffers gives the same PCT bit for bit, whatever the buffers held
    /// (NaN) and however long they were, and a chain built on its own recycled buffers too.
    #[test]
    fn next_pct_in_spare_buffers_is_next_pct_bit_for_bit(
        a in prop_oneof![arb_pmf(40), arb_grid_pmf(20)], b in prop_oneof![arb_pet(40), arb_grid_pmf(20)],
        d in -30i64..200, model in arb_model(), lens in prop::collection::vec(0usize..300, 0..4),
    ) {
        let b = b.shift(1 - b.min().min(1));
        let mut spare: Vec<Vec<f64>> = lens.iter().map(|&n| vec![f64::NAN; n]).collect();
        let plain = next_pct(&a, &as_exec(&b), d, model).unwrap();
        let reused = next_pct_in(&a, &as_exec(&b), d, model, &mut spare).unwrap();
        prop_assert_eq!(plain.min(), reused.min());
        prop_assert!(plain.masses().iter().map(|m| m.to_bits()).eq(reused.masses().iter().map(|m| m.to_bits())),
            "{:?} vs {:?}", plain, reused);
        spare.push(reused.into_masses());
        let again = next_pct_in(&plain, &as_exec(&b), d + 7, model, &mut spare).unwrap();
        let fresh = next_pct(&plain, &as_exec(&b), d + 7, model).unwrap();
        prop_assert_eq!(again.min(), fresh.min());
        prop_assert!(again.masses().iter().map(|m| m.to_bits()).eq(fresh.masses().iter().map(|m| m.to_bits())));
    }

    /// The executing PCT and a copy built in spare buffers are the plain ones bit for bit,
    /// whatever the buffers held and however long they were.
    #[test]
    fn executing_pct_in_and_clone_in_spare_buffers_are_bit_for_bit(
        pet in prop_oneof![arb_pmf(40), arb_grid_pmf(20)], start in -20i64..40,
        now in -30i64..120, d in -30i64..200, model in arb_model(),
        lens in prop::collection::vec(0usize..300, 0..10),
    ) {
        let mut spare: Vec<Vec<f64>> = lens.iter().map(|&n| vec![f64::NAN; n]).collect();
        let plain = executing_pct(&as_exec(&pet), start, now, d, model);
        let reused = executing_pct_in(&as_exec(&pet), start, now, d, model, &mut spare);
        prop_assert_eq!(plain.min(), reused.min());
        prop_assert!(plain.masses().iter().map(|m| m.to_bits()).eq(reused.masses().iter().map(|m| m.to_bits())));
        let copy = plain.clone_in(&mut spare);
        prop_assert_eq!(copy.min(), plain.min());
        prop_assert!(copy.masses().iter().map(|m| m.to_bits()).eq(plain.masses().iter().map(|m| m.to_bits())));
        prop_assert!(spare.len() <= lens.len());
    }

    #[test]
    fn convolution_is_commutative_and_associative(a in arb_pmf(30), b in arb_pmf(30), c in arb_pmf(30)) {
        assert_pmf_eq(&a.convolve(&b), &b.convolve(&a), 1e-12);
        assert_pmf_eq(&a.convolve(&b).convolve(&c), &a.convolve(&b.convolve(&c)), 1e-12);
    }

    #[test]
    fn executing_pct_is_shift_condition_gather_bit_for_bit(
        pet in prop_oneof![arb_pmf(40), arb_grid_pmf(20)],
        start in -10i64..30,
        now in -15i64..90,
        deadline in -15i64..120,
        model in prop_oneof![Just(DropModel::None), Just(DropModel::Pending), Just(DropModel::All)],
    ) {
        let fused = executing_pct(&as_exec(&pet), start, now, deadline, model);
        let conditioned = pet.shift(start).condition_after(now);
        let steps = match model {
            DropModel::All => conditioned.gather_at(deadline.max(now + 1)),
            _ => conditioned,
        };
        prop_assert_eq!(fused.min(), steps.min());
        let bits = |p: &Pmf| p.masses().iter().map(|m| m.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&fused), bits(&steps));
    }

    /// `next_pct` under `pending` and `all` is, bit for bit, the direct computation: the part
    /// of `prev` before the deadline convolved with the PET (each bin summed from +0.0 in
    /// increasing index of that part, or of the PET when it is the shorter under `pending`),
    /// under `all` cut at the deadline with the rest gathered
    /// there, added into zeros with the part at or after the deadline, renormalised, and
    /// trimmed of zero ends (whichever buffer the implementation adds into).
    #[test]
    fn next_pct_is_the_direct_computation_bit_for_bit(
        prev in arb_pmf(40),
        pet in prop_oneof![arb_pet(30), arb_pmf(12).prop_map(|p| p.shift(-p.min()))],
        deadline in -25i64..110,
        all in any::<bool>(),
    ) {
        let model = if all { DropModel::All } else { DropModel::Pending };
        let got = next_pct(&prev, &as_exec(&pet), deadline, model).unwrap();
        let pm = prev.masses();
        let split = (deadline - prev.min()).clamp(0, pm.len() as i64) as usize;
        let (lo, hi) = pm.split_at(split);
        if lo.is_empty() {
            prop_assert_eq!(&got, &prev);
            return Ok(());
        }
        let e = pet.masses();
        // The outer input (whose index orders each bin's sum): `prev`'s part, but under
        // `pending` the PET when it is the shorter.
        let (outer, inner) = if !all && lo.len() > e.len() { (e, lo) } else { (lo, e) };
        let mut conv = vec![0.0; lo.len() + e.len() - 1];
        for (i, &a) in outer.iter().enumerate() {
            for (j, &b) in inner.iter().enumerate() {
                if a != 0.0 && b != 0.0 {
                    conv[i + j] += a * b;
                }
            }
        }
        let mut conv_start = prev.min() + pet.min();
        if all {
            let keep = (deadline - conv_start).clamp(0, conv.len() as i64) as usize;
            if keep < conv.len() {
                let lo_total: f64 = lo.iter().sum();
                let before: f64 = conv[..keep].iter().sum();
                let gathered = (lo_total - before).max(0.0);
                if deadline < conv_start {
                    conv = vec![gathered];
                    conv_start = deadline;
                } else {
                    conv.truncate(keep + 1);
                    conv[keep] = gathered;
                }
            }
        }
        let (start, mut out) = if hi.is_empty() {
            (conv_start, conv)
        } else {
            let hi_start = prev.min() + split as i64;
            let start = conv_start.min(hi_start);
            let end = (conv_start + conv.len() as i64 - 1).max(prev.max());
            let mut out = vec![0.0; (end - start + 1) as usize];
            let c0 = (conv_start - start) as usize;
            for (o, &m) in out[c0..].iter_mut().zip(&conv) {
                *o += m;
            }
            let h0 = (hi_start - start) as usize;
            for (o, &m) in out[h0..].iter_mut().zip(hi) {
                *o += m;
            }
            (start, out)
        };
        let total: f64 = out.iter().sum();
        if (total - 1.0).abs() > 1e-12 && total > 0.0 {
            let inv = 1.0 / total;
            out.iter_mut().for_each(|m| *m *= inv);
        }
        let first = out.iter().position(|&m| m > 0.0).unwrap_or(0);
        let last = out.iter().rposition(|&m| m > 0.0).unwrap_or(0);
        prop_assert_eq!(got.min(), start + first as i64);
        let bits = |v: &[f64]| v.iter().map(|m| m.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(got.masses()), bits(&out[first..=last]));
    }

    #[test]
    fn expected_min_is_the_direct_sum(a in arb_pmf(50), x in -5i64..70) {
        let direct: f64 = (a.min()..=a.max()).map(|t| a.mass_at(t) * t.min(x) as f64).sum();
        let a = as_exec(&a);
        prop_assert!((a.expected_min(x) - direct).abs() < 1e-9 * direct.abs().max(1.0),
            "E[min(X, {})] = {} vs {}", x, a.expected_min(x), direct);
    }

    #[test]
    fn mean_and_variance_add_under_convolution(a in arb_pmf(50), b in arb_pmf(50)) {
        let c = a.convolve(&b);
        prop_assert!((c.mean() - a.mean() - b.mean()).abs() < 1e-9, "means do not add");
        prop_assert!((c.variance() - a.variance() - b.variance()).abs() < 1e-8, "variances do not add");
    }

    #[test]
    fn cdf_is_monotone_from_zero_to_one(a in arb_pmf(60)) {
        let mut last = 0.0;
        prop_assert_eq!(a.cdf(a.min() as f64 - 0.5), 0.0);
        for t in a.min() - 2..=a.max() + 2 {
            let f = a.cdf_tick(t);
            prop_assert!(f >= last - 1e-15, "CDF decreases at {}", t);
            prop_assert!((0.0..=1.0).contains(&f));
            prop_assert!((a.cdf(t as f64 + 0.5) - f).abs() < 1e-15, "real-time CDF differs");
            prop_assert!((a.sf(t as f64) - (1.0 - f)).abs() < 1e-9, "sf is not 1 - cdf");
            last = f;
        }
        prop_assert_eq!(a.cdf(a.max() as f64), 1.0);
    }

    #[test]
    fn quantile_inverts_the_cdf(a in arb_pmf(40), u in 0.0f64..=1.0) {
        let q = a.quantile(u).unwrap();
        prop_assert!(a.cdf_tick(q) >= u - 1e-12, "F(q) < u");
        if u > 1e-9 {
            prop_assert!(a.cdf_tick(q - 1) < u + 1e-12, "q is not the smallest");
        }
        prop_assert!(a.mass_at(q) > 0.0, "quantile lands on a zero bin");
    }

    #[test]
    fn success_probability_is_monotone_in_the_deadline(a in arb_pmf(30), e in arb_pet(30),
                                                       d in 0i64..150, model in arb_model()) {
        let tail = TailCdf::new(&a);
        prop_assert!(tail.append_success(&as_exec(&e), d + 1) >= tail.append_success(&as_exec(&e), d) - 1e-12);
        let p0 = next_pct(&a, &as_exec(&e), d, model).unwrap().prob_before(d);
        let p1 = next_pct(&a, &as_exec(&e), d + 1, model).unwrap().prob_before(d + 1);
        prop_assert!(p1 >= p0 - 1e-12, "{} < {}", p1, p0);
    }

    #[test]
    fn segment_bound_never_falls_below_the_chance(a in arb_pmf(40), e in arb_pet(60),
                                                   d in -10i64..200) {
        let t = TailCdf::new(&a);
        let exact = t.append_success(&as_exec(&e), d);
        let bound = t.append_success_bound(&as_exec(&e), d);
        prop_assert!(bound >= exact - 1e-12, "bound {} < exact {}", bound, exact);
        // And it is never looser than the tail half of the old bound, F_T(d - 1 - min E).
        prop_assert!(bound <= t.at(d - 1 - e.min()) + 1e-12);
    }

    #[test]
    fn fast_query_equals_full_computation(a in arb_pmf(40), e in arb_pet(40), d in -10i64..200,
                                          model in arb_model()) {
        let full = next_pct(&a, &as_exec(&e), d, model).unwrap().prob_before(d);
        let fast = TailCdf::new(&a).append_success(&as_exec(&e), d);
        prop_assert!((full - fast).abs() < 1e-12, "fast {} vs full {}", fast, full);
        let mean = TailCdf::new(&a).append_expected_completion(e.mean());
        prop_assert!((mean - a.convolve(&e).mean()).abs() < 1e-9);
    }

    #[test]
    fn dropping_never_delays_a_later_task(pets in prop::collection::vec(arb_pet(12), 1..6),
                                          slack in prop::collection::vec(0i64..40, 6),
                                          exec_pet in arb_pet(12), now in 0i64..10) {
        // Same queue under the three models: success(c) >= success(b) >= success(a).
        let mut deadline = now + 1;
        let mut pending = Vec::new();
        let pets: Vec<_> = pets.iter().map(as_exec).collect();
        for (i, p) in pets.iter().enumerate() {
            deadline += slack[i] + 1;
            pending.push(Pending { pet: p, deadline });
        }
        let ex = Executing { pet: &as_exec(&exec_pet), start: 0, deadline: now + 1 + slack[5] };
        let a = evaluate_queue(now, Some(ex), &pending, DropModel::None).unwrap();
        let b = evaluate_queue(now, Some(ex), &pending, DropModel::Pending).unwrap();
        let c = evaluate_queue(now, Some(ex), &pending, DropModel::All).unwrap();
        for i in 0..a.len() {
            prop_assert!(b[i].success >= a[i].success - 1e-12, "pos {}: b {} < a {}", i, b[i].success, a[i].success);
            prop_assert!(c[i].success >= b[i].success - 1e-12, "pos {}: c {} < b {}", i, c[i].success, b[i].success);
            // The machine is never free later under a more dropping model (first-order
            // stochastic dominance of the PCTs).
            for t in c[i].pct.min() - 1..=a[i].pct.max() + 1 {
                prop_assert!(c[i].pct.cdf_tick(t) >= b[i].pct.cdf_tick(t) - 1e-12);
                prop_assert!(b[i].pct.cdf_tick(t) >= a[i].pct.cdf_tick(t) - 1e-12);
            }
        }
    }

    #[test]
    fn shift_and_conditioning_round_trip(a in arb_pmf(40), dt in -100i64..100, t1 in -30i64..100, t2 in -30i64..100) {
        prop_assert_eq!(&a.shift(dt).shift(-dt), &a);
        prop_assert!((a.shift(dt).mean() - a.mean() - dt as f64).abs() < 1e-9);
        prop_assert_eq!(&a.condition_after(a.min() - 1), &a);
        // Conditioning on X > t1 then X > t2 is conditioning on X > max(t1, t2).
        let (lo, hi) = (t1.min(t2), t1.max(t2));
        assert_pmf_eq(&a.condition_after(lo).condition_after(hi), &a.condition_after(hi), 1e-12);
    }

    #[test]
    fn trimming_moves_the_cdf_by_at_most_eps(a in arb_pmf(60), eps in 0.0f64..0.05) {
        let t = a.trim_tails(eps);
        for x in a.min() - 1..=a.max() + 1 {
            prop_assert!((t.cdf_tick(x) - a.cdf_tick(x)).abs() <= eps + 1e-12);
        }
    }

    #[test]
    fn trim_tv_stays_within_eps(a in arb_pmf(60), eps in 0.0f64..0.1) {
        let mut t = a.clone();
        t.trim_tv(eps);
        check_pmf(&t);
        prop_assert!(t.min() >= a.min() && t.max() <= a.max(), "the support grew");
        prop_assert!(tv(&t, &a) <= eps + 1e-12, "TV {} > eps {}", tv(&t, &a), eps);
    }

    /// The error bound of `pct_epsilon`: along a queue of k = 1..=6 positions (the
    /// executing task, if any, counting as 1) with every PCT trimmed at eps, position k's PCT
    /// is within total variation k * eps of the exact one, and so are its success and drop
    /// probabilities and the append query's success behind the last one (n * eps).
    #[test]
    fn trimmed_chains_stay_within_k_eps(
        pets in prop::collection::vec(arb_pet(30), 1..=6),
        executing in any::<bool>(),
        slack in prop::collection::vec(0i64..80, 7),
        now in 0i64..10,
        start in 0i64..10,
        model in arb_model(),
        eps in prop_oneof![Just(1e-4), Just(1e-3), Just(1e-2), 0.0f64..0.1],
        tail_pet in arb_pet(30),
        tail_slack in 0i64..150,
    ) {
        let pets: Vec<_> = pets.iter().map(as_exec).collect();
        let ex = executing.then(|| Executing {
            pet: &pets[0],
            start: start.min(now),
            deadline: now + 1 + slack[6],
        });
        let first = usize::from(executing);
        let pending: Vec<Pending<'_>> = pets[first..]
            .iter()
            .zip(&slack)
            .map(|(p, &s)| Pending { pet: p, deadline: now + 1 + s })
            .collect();
        let exact = evaluate_queue(now, ex, &pending, model).unwrap();
        let approx = evaluate_queue_trimmed(now, ex, &pending, model, eps).unwrap();
        prop_assert_eq!(exact.len(), pets.len());
        for (i, (e, a)) in exact.iter().zip(&approx).enumerate() {
            let bound = (i + 1) as f64 * eps + 1e-12;
            check_pmf(&a.pct);
            prop_assert!(tv(&a.pct, &e.pct) <= bound, "pos {}: TV {} > {}", i, tv(&a.pct, &e.pct), bound);
            prop_assert!((a.success - e.success).abs() <= bound,
                "pos {}: success {} vs exact {}", i, a.success, e.success);
            prop_assert!((a.dropped - e.dropped).abs() <= bound, "pos {}: drop", i);
        }
        let d = now + 1 + tail_slack;
        let n = exact.len();
        let fast_exact = TailCdf::new(&exact[n - 1].pct).append_success(&as_exec(&tail_pet), d);
        let fast_approx = TailCdf::new(&approx[n - 1].pct).append_success(&as_exec(&tail_pet), d);
        prop_assert!((fast_approx - fast_exact).abs() <= n as f64 * eps + 1e-12,
            "append: {} vs exact {}", fast_approx, fast_exact);
        // eps = 0 is the exact computation, bit for bit.
        prop_assert_eq!(evaluate_queue_trimmed(now, ex, &pending, model, 0.0).unwrap(), exact);
    }

    #[test]
    fn histograms_are_valid(samples in prop::collection::vec(0.0f64..500.0, 1..200), w in 1i64..5) {
        for v in [BinValue::Upper, BinValue::Lower, BinValue::Centre] {
            let p = from_samples(&samples, w, v).unwrap();
            check_pmf(&p);
            for (t, _) in p.iter() {
                prop_assert_eq!(t.rem_euclid(w) , if v == BinValue::Centre { w / 2 } else { 0 });
            }
        }
    }

    #[test]
    fn auto_bin_width_gives_at_most_auto_bins_plus_one_bins(
        samples in prop::collection::vec(0.0f64..2e4, 1..300),
        scale in prop_oneof![Just(1e-3), Just(1.0), Just(10.0)],
    ) {
        let samples: Vec<f64> = samples.iter().map(|x| x * scale).collect();
        let w = auto_bin_width(&samples);
        prop_assert!(w >= 1);
        let (lo, hi) = samples.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        // The smallest width that fits: one tick less would need more bins.
        prop_assert!((hi - lo) / w as f64 <= f64::from(pmf::AUTO_BINS));
        prop_assert!(w == 1 || (hi - lo) / (w - 1) as f64 > f64::from(pmf::AUTO_BINS));
        for v in [BinValue::Upper, BinValue::Lower, BinValue::Centre] {
            let p = from_samples(&samples, w, v).unwrap();
            prop_assert!(p.check_invariants().is_ok());
            let bins = p.iter().filter(|&(_, m)| m > 0.0).count();
            prop_assert!(bins <= pmf::AUTO_BINS as usize + 1, "{} bins of width {}", bins, w);
        }
    }

    #[test]
    fn constructors_never_panic(offset in any::<i64>(), masses in prop::collection::vec(any::<f64>(), 0..20)) {
        let _ = Pmf::new(offset.clamp(-1 << 40, 1 << 40), masses.clone());
        let _ = Pmf::from_weights(0, masses.clone());
        let pairs: Vec<(i64, f64)> = masses.iter().enumerate().map(|(i, &m)| (offset.wrapping_add(i as i64 * 7919), m)).collect();
        let _ = Pmf::from_pairs(pairs);
    }
}

/// Total-variation distance `sup_A |P(A) - Q(A)|`.
fn tv(a: &Pmf, b: &Pmf) -> f64 {
    a.total_variation(b)
}
