//! Theorem 1 on estimates (section 5's toy example), the Kaplan-Meier fast path, and ORACLE's
//! thresholds against table 3.

use cutting::distributions::{Distribution, PAPER_DELTA, table2, table2_as_run};
use cutting::threshold::{
    KmPoints, empirical_estimate, optimal_continuous, optimal_discrete, survival_estimate,
};
use cutting::yield_::BimodalExp;
use pmf::kaplan_meier::{KaplanMeier, Sample};
use proptest::prelude::*;

use crate::prec::EXACT;

fn toy() -> Vec<Sample> {
    vec![
        Sample::censored(4.0),
        Sample::completed(5.0),
        Sample::censored(15.0),
        Sample::completed(16.0),
    ]
}

#[test]
fn toy_example_empirical_says_5_kaplan_meier_says_16() {
    let emp = empirical_estimate(&[16.0, 5.0]).unwrap();
    let best = optimal_discrete(&emp).unwrap().unwrap();
    assert_eq!(best.threshold, 5.0);
    assert!((best.yield_ - 0.1).abs() < EXACT);
    let km = survival_estimate(&toy()).unwrap();
    let best = optimal_discrete(&km).unwrap().unwrap();
    assert_eq!(best.threshold, 16.0);
    assert!((best.yield_ - 3.0 / 37.0).abs() < EXACT);
}

#[test]
fn no_completion_means_no_threshold() {
    assert_eq!(optimal_discrete(&[]).unwrap(), None);
    let km = survival_estimate(&[Sample::censored(1.0)]).unwrap();
    assert_eq!(optimal_discrete(&km).unwrap(), None);
    assert!(empirical_estimate(&[1.0, f64::NAN]).is_err());
    assert!(optimal_discrete(&[(1.0, 2.0)]).is_err());
}

#[test]
fn fast_kaplan_meier_on_the_toy_example() {
    let fast = KmPoints::from_sorted(&[5.0, 16.0], &[(4.0, 1), (15.0, 1)]);
    assert_eq!(fast.points.len(), 2);
    assert!((fast.points[0].1 - 1.0 / 3.0).abs() < EXACT);
    assert!((fast.points[1].1 - 2.0 / 3.0).abs() < EXACT);
    assert_eq!((fast.remainder, fast.last), (0.0, 16.0));
    let (m, s) = fast.mean_sd();
    assert!((m - 37.0 / 3.0).abs() < EXACT && (s * s - 242.0 / 9.0).abs() < 1e-9);
}

#[test]
fn oracle_matches_table_3() {
    // Table 3 (thresholds printed with 3 decimals; infinite for the first eight).
    let published = [
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        f64::INFINITY,
        1.842,
        0.300,
        0.290,
        0.180,
        0.110,
        0.090,
    ];
    for (d, want) in table2_as_run().iter().zip(published) {
        let o = optimal_continuous(&d.dist, PAPER_DELTA).unwrap();
        if want.is_infinite() {
            assert!(o.threshold.is_infinite(), "{}: {:?}", d.label, o);
            assert!((o.yield_ - 1.0 / (PAPER_DELTA + d.dist.mean())).abs() < EXACT);
        } else {
            // 3 printed decimals, and our search is accurate to about 1e-3 relative.
            assert!(
                (o.threshold - want).abs() < 0.0025,
                "{}: {} vs {}",
                d.label,
                o.threshold,
                want
            );
        }
    }
    // As printed, gamma(1/3, scale 3) would have its optimum at 0.084, not 0.110.
    let printed = table2()[12];
    let o = optimal_continuous(&printed.dist, PAPER_DELTA).unwrap();
    assert!((o.threshold - 0.0844).abs() < 0.001, "{o:?}");
}

#[test]
fn oracle_agrees_with_theorem_2() {
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0 / 1.9,
        mu: 10.0,
        delta: PAPER_DELTA,
    };
    let t = b.theorem2().unwrap();
    let d = Distribution::DoubleExp {
        lambda1: 10.0,
        lambda2: 1.0 / 1.9,
    };
    let o = optimal_continuous(&d, PAPER_DELTA).unwrap();
    assert!((o.threshold - t.threshold).abs() < 1e-4, "{o:?} vs {t:?}");
    assert!((o.yield_ - t.yield_).abs() < 1e-7);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The simulation's one-pass Kaplan-Meier equals the pmf crate's estimator.
    #[test]
    fn fast_kaplan_meier_equals_the_reference(
        deaths in prop::collection::vec(0u32..40, 0..40),
        censored in prop::collection::vec((0u32..40, 1usize..4), 0..10),
    ) {
        prop_assume!(!deaths.is_empty() || !censored.is_empty());
        // Integer-valued times make ties between deaths and censoring frequent.
        let mut d: Vec<f64> = deaths.iter().map(|&x| f64::from(x) / 4.0).collect();
        d.sort_by(f64::total_cmp);
        let mut c: Vec<(f64, usize)> = censored.iter().map(|&(x, k)| (f64::from(x) / 4.0, k)).collect();
        c.sort_by(|a, b| a.0.total_cmp(&b.0));
        let fast = KmPoints::from_sorted(&d, &c);
        let mut samples: Vec<Sample> = d.iter().map(|&t| Sample::completed(t)).collect();
        for &(t, k) in &c {
            samples.extend(std::iter::repeat_n(Sample::censored(t), k));
        }
        let km = KaplanMeier::new(&samples).unwrap();
        let reference: Vec<(f64, f64)> = km.completions().collect();
        prop_assert_eq!(fast.points.len(), reference.len());
        for (a, b) in fast.points.iter().zip(&reference) {
            prop_assert!(a.0 == b.0 && (a.1 - b.1).abs() < 1e-12, "{:?} vs {:?}", a, b);
        }
        prop_assert!((fast.remainder - km.remainder()).abs() < 1e-12);
        prop_assert_eq!(fast.last, km.last_time());
        let (m, s) = fast.mean_sd();
        prop_assert!((m - km.mean()).abs() < 1e-9, "mean {} vs {}", m, km.mean());
        prop_assert!((s - km.std_dev()).abs() < 1e-9, "sd {} vs {}", s, km.std_dev());
    }

    /// Theorem 1: the best support point beats every other threshold.
    #[test]
    fn discrete_optimum_beats_every_threshold(
        pts in prop::collection::vec((0.01f64..10.0, 0.01f64..1.0), 1..20),
        probe in 0.0f64..12.0,
    ) {
        let total: f64 = pts.iter().map(|p| p.1).sum();
        let pts: Vec<(f64, f64)> = pts.iter().map(|&(w, p)| (w, p / total)).collect();
        let best = optimal_discrete(&pts).unwrap().unwrap();
        let y = cutting::yield_::discrete(&pts, probe).unwrap();
        prop_assert!(y <= best.yield_ + 1e-12, "Y({}) = {} > optimum {:?}", probe, y, best);
    }
}
