//! Hand-computed examples: JPDC-2016 figs. 2-4 (deadline 7), and one case per model.
//!
//! JPDC-2016 gives the shapes of its figures, not their numbers; the masses below follow
//! the figures' layout (the task ahead completes at 5..=9 with its own deadline 9, the new
//! task has deadline 7) and every expected value was worked out by hand in the comments.

use crate::as_exec;
use pmf::{
    AUTO_BINS, BinValue, DropModel, Executing, Pending, Pmf, PmfError, TailCdf, auto_bin_width,
    drop_probability, evaluate_queue, executing_pct, from_samples, next_pct, success_probability,
};

use crate::check::{assert_pmf_eq, check_pmf, pmf};

const EPS: f64 = 1e-12;

/// PCT of task i-1 (fig. 3b): impulses at 5, 6, 7, 8, 9.
fn prev() -> Pmf {
    pmf(&[(5, 0.1), (6, 0.2), (7, 0.3), (8, 0.2), (9, 0.2)])
}

/// PET of task i (fig. 3a): 1, 2 or 3 ticks.
fn pet() -> Pmf {
    pmf(&[(1, 0.5), (2, 0.3), (3, 0.2)])
}

#[test]
fn jpdc_fig3_pending_tasks_dropped() {
    // Step 1 (fig. 3c): impulses 5 and 6 (< 7) convolved with the PET:
    //   from 5 (0.1): 6:0.05 7:0.03 8:0.02;  from 6 (0.2): 7:0.10 8:0.06 9:0.04
    //   -> 6:0.05 7:0.13 8:0.08 9:0.04
    // Step 2 (fig. 3d): impulses 7, 8, 9 of task i-1 pass through (task i dropped):
    //   -> 6:0.05 7:0.43 8:0.28 9:0.24
    let got = next_pct(&prev(), &as_exec(&pet()), 7, DropModel::Pending).unwrap();
    check_pmf(&got);
    assert_pmf_eq(
        &got,
        &pmf(&[(6, 0.05), (7, 0.43), (8, 0.28), (9, 0.24)]),
        EPS,
    );
    assert!((success_probability(&got, 7) - 0.05).abs() < EPS);
    // Dropped when task i-1 completes at or after 7: 0.3 + 0.2 + 0.2.
    assert!((drop_probability(Some(&prev()), &got, 7, DropModel::Pending) - 0.7).abs() < EPS);
}

#[test]
fn jpdc_fig4_executing_task_dropped_too() {
    // Fig. 4a: the convolved part's mass at or after 7 (0.13 + 0.08 + 0.04 = 0.25) is
    // gathered at 7 -> 6:0.05 7:0.25. Fig. 4b: plus the pass-through 7:0.3 8:0.2 9:0.2.
    let got = next_pct(&prev(), &as_exec(&pet()), 7, DropModel::All).unwrap();
    check_pmf(&got);
    assert_pmf_eq(&got, &pmf(&[(6, 0.05), (7, 0.55), (8, 0.2), (9, 0.2)]), EPS);
    assert!((success_probability(&got, 7) - 0.05).abs() < EPS);
    assert!((drop_probability(Some(&prev()), &got, 7, DropModel::All) - 0.95).abs() < EPS);
}

#[test]
fn no_dropping_is_plain_convolution() {
    // Every pair (a, b) contributes prev(a) * pet(b) at a + b:
    // 6:.05 7:.13 8:.23 9:.23 10:.22 11:.10 12:.04
    let got = next_pct(&prev(), &as_exec(&pet()), 7, DropModel::None).unwrap();
    check_pmf(&got);
    let want = pmf(&[
        (6, 0.05),
        (7, 0.13),
        (8, 0.23),
        (9, 0.23),
        (10, 0.22),
        (11, 0.10),
        (12, 0.04),
    ]);
    assert_pmf_eq(&got, &want, EPS);
    assert_pmf_eq(&prev().convolve(&pet()), &want, EPS);
    assert_eq!(
        drop_probability(Some(&prev()), &got, 7, DropModel::None),
        0.0
    );
}

#[test]
fn jpdc_fig2_executing_task_conditioned_on_now() {
    // Execution time 1..=5, started at 3 -> completion 4..=8. At now = 6 the task has not
    // completed, so ticks 4, 5, 6 are impossible: 7:0.2/0.4 = 0.5, 8:0.5.
    let exec = pmf(&[(1, 0.1), (2, 0.2), (3, 0.3), (4, 0.2), (5, 0.2)]);
    let got = executing_pct(&as_exec(&exec), 3, 6, 100, DropModel::Pending);
    check_pmf(&got);
    assert_pmf_eq(&got, &pmf(&[(7, 0.5), (8, 0.5)]), EPS);
    // Model (d) with the executing task droppable and deadline 8: mass at >= 8 gathered at 8.
    let got = executing_pct(&as_exec(&exec), 3, 5, 8, DropModel::All);
    // After conditioning on > 5: 6:0.3/0.7 7:0.2/0.7 8:0.2/0.7 -> gathered at 8 (no mass past).
    assert_pmf_eq(
        &got,
        &pmf(&[(6, 3.0 / 7.0), (7, 2.0 / 7.0), (8, 2.0 / 7.0)]),
        EPS,
    );
    let got = executing_pct(&as_exec(&exec), 3, 5, 7, DropModel::All);
    assert_pmf_eq(&got, &pmf(&[(6, 3.0 / 7.0), (7, 4.0 / 7.0)]), EPS);
    assert!((success_probability(&got, 7) - 3.0 / 7.0).abs() < EPS);
}

#[test]
fn executing_past_its_support_ends_next_tick() {
    let exec = pmf(&[(1, 0.5), (2, 0.5)]);
    let got = executing_pct(&as_exec(&exec), 0, 10, 100, DropModel::All);
    assert_eq!(got, Pmf::point(11));
}

#[test]
fn shortest_execution_overshooting_the_deadline_is_gathered_at_it() {
    // prev at 5 (< 7) but the PET's minimum is 4: 9 > 7, so all of it is dropped at 7.
    let prev = pmf(&[(5, 0.5), (9, 0.5)]);
    let pet = pmf(&[(4, 1.0)]);
    let got = next_pct(&prev, &as_exec(&pet), 7, DropModel::All).unwrap();
    assert_pmf_eq(&got, &pmf(&[(7, 0.5), (9, 0.5)]), EPS);
    let got = next_pct(&prev, &as_exec(&pet), 7, DropModel::Pending).unwrap();
    assert_pmf_eq(&got, &pmf(&[(9, 1.0)]), EPS);
}

#[test]
fn queue_of_three_by_hand() {
    // Machine idle at now = 0; two pending tasks of 2 or 4 ticks (1/2 each).
    let e = pmf(&[(2, 0.5), (4, 0.5)]);
    let q = [
        Pending {
            pet: &as_exec(&e),
            deadline: 5,
        },
        Pending {
            pet: &as_exec(&e),
            deadline: 7,
        },
    ];
    let all = evaluate_queue(0, None, &q, DropModel::All).unwrap();
    // Task 1 completes at 2 or 4, both before 5: success 1.
    assert!((all[0].success - 1.0).abs() < EPS);
    // Task 2: 2+2=4, 2+4=6, 4+2=6, 4+4=8 -> success P(<7) = 3/4; the 8 is gathered at 7.
    assert!((all[1].success - 0.75).abs() < EPS);
    assert_pmf_eq(&all[1].pct, &pmf(&[(4, 0.25), (6, 0.5), (7, 0.25)]), EPS);
    // With an executing task started at 0 with the same PET, at now = 1, deadline 3:
    // completion 2 or 4 -> gathered at 3 under model (c).
    let ex = Executing {
        pet: &as_exec(&e),
        start: 0,
        deadline: 3,
    };
    let q = [Pending {
        pet: &as_exec(&e),
        deadline: 6,
    }];
    let all = evaluate_queue(1, Some(ex), &q, DropModel::All).unwrap();
    assert_pmf_eq(&all[0].pct, &pmf(&[(2, 0.5), (3, 0.5)]), EPS);
    assert!((all[0].success - 0.5).abs() < EPS);
    // Next: 2+2=4 (ok), 2+4=6 (dropped at 6), 3+2=5 (ok), 3+4=7 (dropped at 6) -> 0.5.
    assert!((all[1].success - 0.5).abs() < EPS);
    let none = evaluate_queue(1, Some(ex), &q, DropModel::None).unwrap();
    // No dropping: 4 (ok), 6 (not < 6), 6, 8 -> 0.25.
    assert!((none[1].success - 0.25).abs() < EPS);
}

#[test]
fn fast_query_matches_hand_value() {
    let t = TailCdf::new(&prev());
    assert!((t.append_success(&as_exec(&pet()), 7) - 0.05).abs() < EPS);
    // Deadline 9: prev 5 + {1,2,3} all < 9 -> 0.1; prev 6 + {1,2} -> 0.2*0.8; prev 7 + 1 ->
    // 0.3*0.5: 0.1 + 0.16 + 0.15 = 0.41.
    assert!((t.append_success(&as_exec(&pet()), 9) - 0.41).abs() < EPS);
    assert_eq!(t.append_success(&as_exec(&pet()), 6), 0.0);
    assert!((t.append_success(&as_exec(&pet()), 100) - 1.0).abs() < EPS);
    let idle = TailCdf::idle(10);
    assert!((idle.append_success(&as_exec(&pet()), 13) - 0.8).abs() < EPS);
    assert!((idle.append_expected_completion(pet().mean()) - 11.7).abs() < EPS);
}

#[test]
fn segment_bound_by_hand() {
    // A 3-bin PET has one bin per run: the bound is the exact chance.
    let t = TailCdf::new(&prev());
    assert!((t.append_success_bound(&as_exec(&pet()), 9) - 0.41).abs() < EPS);
    // A 16-bin PET (1..=16, 1/16 each) in 8 runs of 2 bins {1,2}, {3,4}, ...: run j starts at
    // 2j+1 with mass 1/8. Behind an idle machine at 0, deadline 6: exact P(E < 6) = 5/16;
    // bound = 1/8 * (F(5-1) + F(5-3) + F(5-5)) = 3/8 (runs starting at 1, 3, 5 see F = 1).
    let wide = pmf(&(1..=16).map(|k| (k, 1.0 / 16.0)).collect::<Vec<_>>());
    assert_eq!(as_exec(&wide).segments().len(), 8);
    let idle = TailCdf::idle(0);
    assert!((idle.append_success(&as_exec(&wide), 6) - 5.0 / 16.0).abs() < EPS);
    assert!((idle.append_success_bound(&as_exec(&wide), 6) - 3.0 / 8.0).abs() < EPS);
}

#[test]
fn expected_min_by_hand() {
    // X in {1: 0.5, 2: 0.3, 3: 0.2}: E[min(X, 2)] = 0.5 * 1 + 0.5 * 2 = 1.5; at 3 and beyond,
    // the mean 1.7; at or below the first tick, x itself.
    let p = as_exec(&pmf(&[(1, 0.5), (2, 0.3), (3, 0.2)]));
    assert!((p.expected_min(2) - 1.5).abs() < EPS);
    assert!((p.expected_min(3) - 1.7).abs() < EPS);
    assert!((p.expected_min(50) - 1.7).abs() < EPS);
    assert_eq!(p.expected_min(1), 1.0);
    assert_eq!(p.expected_min(-4), -4.0);
    // A 2-tick grid: {4: 0.5, 6: 0.5}; E[min(X, 5)] = 0.5 * 4 + 0.5 * 5 = 4.5.
    let g = as_exec(&pmf(&[(4, 0.5), (6, 0.5)]));
    assert!((g.expected_min(5) - 4.5).abs() < EPS);
    assert!((g.expected_min(6) - 5.0).abs() < EPS);
}

#[test]
fn statistics_by_hand() {
    let p = pmf(&[(1, 0.5), (2, 0.3), (3, 0.2)]);
    assert!((p.mean() - 1.7).abs() < EPS);
    // E[X^2] = 0.5 + 1.2 + 1.8 = 3.5; var = 3.5 - 2.89 = 0.61
    assert!((p.variance() - 0.61).abs() < 1e-12);
    // m3 = 0.5*(-0.7)^3 + 0.3*(0.3)^3 + 0.2*(1.3)^3 = -0.1715 + 0.0081 + 0.4394 = 0.276
    let g1 = 0.276 / 0.61f64.powf(1.5);
    assert!((p.skewness() - g1).abs() < 1e-12);
    // eq. (6) with N = 3 impulses: sqrt(3*2)/1 * g1, then clamped to 1.
    assert!((p.sample_skewness(3) - 6f64.sqrt() * g1).abs() < 1e-12);
    assert_eq!(p.bounded_skewness(), 1.0);
    let left = pmf(&[(1, 0.2), (2, 0.3), (3, 0.5)]);
    assert_eq!(left.bounded_skewness(), -1.0);
    assert_eq!(Pmf::point(4).skewness(), 0.0);
    // Quantiles: cdf 0.5, 0.8, 1.0
    assert_eq!(p.quantile(0.0).unwrap(), 1);
    assert_eq!(p.quantile(0.5).unwrap(), 1);
    assert_eq!(p.quantile(0.5000001).unwrap(), 2);
    assert_eq!(p.quantile(0.8).unwrap(), 2);
    assert_eq!(p.quantile(0.95).unwrap(), 3);
    assert_eq!(p.quantile(1.0).unwrap(), 3);
    assert!(p.quantile(1.5).is_err());
    // Real-time CDF: P(X <= 2.9) = P(X <= 2) = 0.8; sf is its complement.
    assert!((p.cdf(2.9) - 0.8).abs() < EPS);
    assert!((p.sf(2.9) - 0.2).abs() < EPS);
    assert_eq!(p.cdf(0.99), 0.0);
    assert_eq!(p.cdf(3.0), 1.0);
}

#[test]
fn constructors_reject_bad_input_with_typed_errors() {
    assert_eq!(Pmf::new(0, vec![]), Err(PmfError::Empty));
    assert_eq!(Pmf::new(0, vec![0.0, 0.0]), Err(PmfError::ZeroTotal));
    assert!(matches!(
        Pmf::new(0, vec![0.5, -0.1, 0.6]),
        Err(PmfError::Negative { index: 1, .. })
    ));
    assert!(matches!(
        Pmf::new(0, vec![0.5, f64::NAN]),
        Err(PmfError::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        Pmf::new(0, vec![0.5, f64::INFINITY]),
        Err(PmfError::NonFinite { index: 1, .. })
    ));
    assert!(matches!(
        Pmf::new(0, vec![0.5, 0.4]),
        Err(PmfError::NotNormalised { .. })
    ));
    assert!(matches!(
        Pmf::from_pairs([(0, 0.5), (i64::MAX, 0.5)]),
        Err(PmfError::TooWide { .. })
    ));
}

#[test]
fn near_one_input_is_renormalised_and_reported() {
    // The paper's PET blocks sum to 0.996-0.999.
    let n = Pmf::from_pairs([(2, 0.499), (4, 0.499)]).unwrap();
    assert!((n.input_total - 0.998).abs() < 1e-12);
    assert!((n.deviation() - 0.002).abs() < 1e-12);
    assert!((n.pmf.mass_at(2) - 0.5).abs() < EPS);
    // True times are kept: the 2-tick grid has a zero bin at 3.
    assert_eq!(n.pmf.mass_at(3), 0.0);
    assert_eq!(
        (n.pmf.min(), n.pmf.max(), n.pmf.len(), n.pmf.impulses()),
        (2, 4, 3, 2)
    );
}

#[test]
fn zero_bins_at_the_ends_are_trimmed() {
    let p = Pmf::new(10, vec![0.0, 0.0, 0.4, 0.0, 0.6, 0.0]).unwrap();
    assert_eq!((p.min(), p.max()), (12, 14));
    assert_eq!(p.masses(), &[0.4, 0.0, 0.6]);
}

#[test]
fn histogram_of_samples_on_two_unit_bins() {
    // Upper edges: 0.5 -> 2, 2.0 -> 2, 2.1 -> 4, 3.9 -> 4, 7 -> 8.
    let p = from_samples(&[0.5, 2.0, 2.1, 3.9, 7.0], 2, BinValue::Upper).unwrap();
    assert_pmf_eq(&p, &pmf(&[(2, 0.4), (4, 0.4), (8, 0.2)]), EPS);
    let p = from_samples(&[0.5, 2.0, 2.1, 3.9, 7.0], 2, BinValue::Lower).unwrap();
    assert_pmf_eq(&p, &pmf(&[(0, 0.2), (2, 0.6), (6, 0.2)]), EPS);
    let p = from_samples(&[0.5, 2.0, 2.1, 3.9, 7.0], 2, BinValue::Centre).unwrap();
    assert_pmf_eq(&p, &pmf(&[(1, 0.2), (3, 0.6), (7, 0.2)]), EPS);
    assert_eq!(
        from_samples(&[1.0], 0, BinValue::Upper),
        Err(PmfError::InvalidBinWidth(0))
    );
    assert_eq!(from_samples(&[], 2, BinValue::Upper), Err(PmfError::Empty));
    assert!(from_samples(&[f64::NAN], 2, BinValue::Upper).is_err());
}

#[test]
fn auto_bin_width_by_hand() {
    assert_eq!(AUTO_BINS, 200);
    // Range 3..3000: ceil(2997 / 200) = ceil(14.985) = 15 ticks.
    assert_eq!(auto_bin_width(&[3.0, 10.0, 3000.0]), 15);
    // Range exactly 200 ticks fits one-tick bins; 200.5 needs two.
    assert_eq!(auto_bin_width(&[5.0, 205.0]), 1);
    assert_eq!(auto_bin_width(&[5.0, 205.5]), 2);
    // Range 0.003 ticks (a time measured in seconds on a 1-tick grid): one tick.
    assert_eq!(auto_bin_width(&[0.003, 0.006]), 1);
    // One sample, no samples, only non-finite samples: one tick.
    assert_eq!(auto_bin_width(&[42.0]), 1);
    assert_eq!(auto_bin_width(&[]), 1);
    assert_eq!(auto_bin_width(&[f64::NAN, f64::INFINITY]), 1);
    // Range 1,000: ceil(1000 / 200) = 5; upper edges 5, 505 and 1005 on the 5-tick grid.
    let p = from_samples(
        &[5.0, 503.0, 1005.0],
        auto_bin_width(&[5.0, 503.0, 1005.0]),
        BinValue::Upper,
    )
    .unwrap();
    assert_pmf_eq(
        &p,
        &pmf(&[(5, 1.0 / 3.0), (505, 1.0 / 3.0), (1005, 1.0 / 3.0)]),
        EPS,
    );
}

#[test]
fn gather_and_trim_by_hand() {
    let p = pmf(&[(1, 0.001), (2, 0.5), (3, 0.498), (9, 0.001)]);
    let g = p.gather_at(3);
    assert_pmf_eq(&g, &pmf(&[(1, 0.001), (2, 0.5), (3, 0.499)]), EPS);
    let t = p.trim_tails(0.001);
    assert_pmf_eq(&t, &pmf(&[(2, 0.501), (3, 0.499)]), EPS);
    assert_eq!(p.trim_tails(0.0), p);
}

#[test]
fn trim_tv_cuts_half_eps_from_each_tail_by_hand() {
    // Masses in 32nds (exact in binary): 10: 1/64, 11: 1/64, 12: 17/32, 13: 12/32,
    // 14: 1/32, 15: 1/32. At eps = 1/16 each tail may lose 1/32: the lower tail loses bins
    // 10 and 11 (1/64 + 1/64 = 1/32) onto 12, the upper one bin 15 (1/32) onto 14; bin 14
    // too would exceed the half budget.
    let p = pmf(&[
        (10, 1.0 / 64.0),
        (11, 1.0 / 64.0),
        (12, 17.0 / 32.0),
        (13, 12.0 / 32.0),
        (14, 1.0 / 32.0),
        (15, 1.0 / 32.0),
    ]);
    let mut t = p.clone();
    t.trim_tv(1.0 / 16.0);
    check_pmf(&t);
    assert_eq!(t.min(), 12);
    assert_eq!(t.masses(), &[18.0 / 32.0, 12.0 / 32.0, 2.0 / 32.0]);
    // Its total-variation distance from the input is eps: 1/32 moved on each side.
    let tv: f64 = (10..=15)
        .map(|x| (t.mass_at(x) - p.mass_at(x)).abs())
        .sum::<f64>()
        / 2.0;
    assert_eq!(tv, 1.0 / 16.0);
    // `trim_tails` spends the whole eps on each side (bins 14 and 15 go): distance 2 eps.
    assert_eq!(
        p.trim_tails(1.0 / 16.0).masses(),
        &[18.0 / 32.0, 14.0 / 32.0]
    );
    // eps = 0 (or NaN) changes nothing, bit for bit; a point mass stays.
    for eps in [0.0, f64::NAN] {
        let mut same = p.clone();
        same.trim_tv(eps);
        assert_eq!(same, p);
    }
    let mut point = Pmf::point(3);
    point.trim_tv(0.09);
    assert_eq!(point, Pmf::point(3));
}

#[test]
fn staging_moves_mass_below_the_ready_tick_up_to_it() {
    // prev = 5:0.1 6:0.2 7:0.3 8:0.2 9:0.2; data ready at 7: the task starts at max(C, 7),
    // so 5, 6 and 7 gather at 7 (0.1 + 0.2 + 0.3 = 0.6), 8 and 9 stay.
    let got = prev().at_least(7);
    check_pmf(&got);
    assert_pmf_eq(&got, &pmf(&[(7, 0.6), (8, 0.2), (9, 0.2)]), EPS);
    // Ready before the support: unchanged; at or after its end: a point at the ready tick.
    assert_eq!(prev().at_least(5), prev());
    assert_eq!(prev().at_least(-3), prev());
    assert_eq!(prev().at_least(9), Pmf::point(9));
    assert_eq!(prev().at_least(12), Pmf::point(12));
    // Then the PET: the completion of a task whose data arrive at 7 behind prev, no drops:
    //   7 (0.6) + 1..3 -> 8:0.30 9:0.18 10:0.12; 8 (0.2) -> 9:0.10 10:0.06 11:0.04;
    //   9 (0.2) -> 10:0.10 11:0.06 12:0.04  => 8:0.30 9:0.28 10:0.28 11:0.10 12:0.04
    let c = next_pct(&got, &as_exec(&pet()), 100, DropModel::None).unwrap();
    assert_pmf_eq(
        &c,
        &pmf(&[(8, 0.30), (9, 0.28), (10, 0.28), (11, 0.10), (12, 0.04)]),
        EPS,
    );
}

#[test]
fn total_variation_by_hand() {
    // {0: 1} vs {0: 0.5, 2: 0.5}: half of |1 - 0.5| + |0 - 0.5| = 0.5; symmetric; 0 to itself.
    let a = Pmf::point(0);
    let b = Pmf::new(0, vec![0.5, 0.0, 0.5]).unwrap();
    assert_eq!(a.total_variation(&b), 0.5);
    assert_eq!(b.total_variation(&a), 0.5);
    assert_eq!(b.total_variation(&b), 0.0);
    // Disjoint supports: 1.
    assert_eq!(a.total_variation(&Pmf::point(5)), 1.0);
}
