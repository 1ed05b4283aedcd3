//! Measured times in real units: a tick length for samples CSVs and workload CSVs, and the
//! automatic bin width of a PET built from samples.

use pmf::{AUTO_BINS, BinValue, Pmf};
use workload::WorkloadError;
use workload::io::{
    BinWidth, SamplesOptions, parse_samples_csv_options, parse_workload_csv,
    parse_workload_csv_with_tick,
};

/// 1,000 measured times spanning 3 to 3,000: half around 40 (between 3 and 80), half around
/// 2,500 (between 2,000 and 3,000), spread by a deterministic low-discrepancy sequence.
fn bimodal_times() -> Vec<f64> {
    let n = 1000;
    let mut xs: Vec<f64> = (0..n)
        .map(|i| {
            // The golden-ratio sequence in [0, 1), squared to skew each mode to the left.
            let u = (f64::from(i) * 0.618_033_988_749_895).fract();
            if i % 2 == 0 {
                3.0 + 77.0 * u * u
            } else {
                2000.0 + 1000.0 * u * u
            }
        })
        .collect();
    xs[0] = 3.0;
    xs[1] = 3000.0;
    xs
}

fn csv(times: &[f64], scale: f64) -> String {
    let mut text = String::from("task_type,machine,execution_time\n");
    for x in times {
        text.push_str(&format!("encode,gpu,{}\n", x * scale));
    }
    text
}

/// The empirical quantile as [`Pmf::quantile`] reads it: the smallest sample `x` with
/// `#{samples <= x} >= u n`.
fn empirical_quantile(sorted: &[f64], u: f64) -> f64 {
    let k = (u * sorted.len() as f64).ceil() as usize;
    sorted[k.max(1) - 1]
}

fn auto(tick: f64) -> SamplesOptions {
    SamplesOptions {
        tick,
        ..SamplesOptions::default()
    }
}

/// Checks that `pmf` keeps the shape of `times` (in ticks) on bins of `w` ticks with upper-edge
/// values: every time moves up by less than `w`, so the mean and every quantile are within
/// `[0, w)` above the samples' (plus a rounding allowance), and the two modes keep their mass.
fn assert_keeps_shape(pmf: &Pmf, times: &[f64], w: f64) {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len() as f64;
    let mean = sorted.iter().sum::<f64>() / n;
    let d = pmf.mean() - mean;
    assert!((-1e-9..w).contains(&d), "mean {} vs {mean}", pmf.mean());
    // u away from multiples of 1/n, so float sums of the masses decide nothing.
    for u in [
        0.0105, 0.1005, 0.2505, 0.4995, 0.5005, 0.7505, 0.9005, 0.9905,
    ] {
        let q = pmf.quantile(u).expect("u in [0, 1]") as f64;
        let e = empirical_quantile(&sorted, u);
        assert!(
            (-1e-9..w + 1e-9).contains(&(q - e)),
            "quantile {u}: {q} vs the samples' {e} (bins of {w})"
        );
    }
    // Bimodal: half the mass below 100, none in the valley, half above 2,000.
    assert!((pmf.cdf(100.0) - 0.5).abs() < 1e-9, "{}", pmf.cdf(100.0));
    assert!((pmf.cdf(1990.0) - 0.5).abs() < 1e-9, "{}", pmf.cdf(1990.0));
    // Each mode keeps its shape too: skewed left, so its lower half is narrower.
    let low_median = pmf.quantile(0.25).expect("valid") as f64;
    assert!(low_median < 3.0 + 77.0 * 0.25 + w, "{low_median}");
}

#[test]
fn auto_bin_width_keeps_the_shape_of_times_spanning_3_to_3000() {
    let times = bimodal_times();
    let pet = parse_samples_csv_options(&csv(&times, 1.0), "times.csv", &auto(1.0))
        .expect("valid samples");
    let p = pet.pmf(0, 0);
    // ceil((3000 - 3) / 200) = 15 ticks.
    let w = pmf::auto_bin_width(&times);
    assert_eq!(w, 15);
    for (t, _) in p.iter() {
        assert_eq!(t % w, 0, "upper edges on the 15-tick grid");
    }
    assert!(p.impulses() <= AUTO_BINS as usize + 1);
    assert_eq!((p.min(), p.max()), (15, 3000));
    assert_keeps_shape(p, &times, w as f64);
    // The same histogram as the explicit width.
    let explicit = SamplesOptions {
        bin_width: BinWidth::Ticks(15),
        ..auto(1.0)
    };
    let same = parse_samples_csv_options(&csv(&times, 1.0), "times.csv", &explicit).unwrap();
    assert_eq!(same.pmf(0, 0), p);
}

#[test]
fn times_in_seconds_on_a_millisecond_tick_keep_their_shape() {
    let times = bimodal_times();
    // The same times written in seconds (0.003 to 3), read with one tick = 0.001 s.
    let pet = parse_samples_csv_options(&csv(&times, 0.001), "seconds.csv", &auto(0.001))
        .expect("valid samples");
    let p = pet.pmf(0, 0);
    // x * 0.001 / 0.001 may differ from x in the last bit, which can move a time sitting on
    // a bin edge to the next bin: one more bin width of allowance.
    assert_keeps_shape(p, &times, 30.0);
    assert!(p.impulses() <= AUTO_BINS as usize + 1);
    // Read as ticks (the default tick of 1), the same file collapses to three ticks.
    let coarse = parse_samples_csv_options(&csv(&times, 0.001), "seconds.csv", &auto(1.0))
        .expect("valid samples");
    assert_eq!((coarse.pmf(0, 0).min(), coarse.pmf(0, 0).max()), (1, 3));
}

#[test]
fn auto_width_is_per_pair_and_one_tick_for_narrow_pairs() {
    let text = "task_type,machine,execution_time\n\
                a,m,3\na,m,7\na,m,12\n\
                b,m,100\nb,m,2100\nb,m,4100\n";
    let pet = parse_samples_csv_options(text, "p.csv", &SamplesOptions::default()).unwrap();
    // Range 9 <= 200: one tick, the samples as they are (upper edges of 1-tick bins).
    assert_eq!(
        pet.pmf(0, 0),
        &Pmf::from_weighted_pairs([(3, 1.0), (7, 1.0), (12, 1.0)]).unwrap()
    );
    // Range 4,000: 20-tick bins; 2,100 and 4,100 are edges, 100 too.
    assert_eq!(
        pet.pmf(1, 0),
        &Pmf::from_weighted_pairs([(100, 1.0), (2100, 1.0), (4100, 1.0)]).unwrap()
    );
    // The bin value still applies: lower edges of 20-tick bins.
    let lower = SamplesOptions {
        bin_value: BinValue::Lower,
        ..SamplesOptions::default()
    };
    let text = "task_type,machine,execution_time\nb,m,110\nb,m,4110\n";
    let pet = parse_samples_csv_options(text, "p.csv", &lower).unwrap();
    assert_eq!(
        pet.pmf(0, 0),
        &Pmf::from_weighted_pairs([(100, 1.0), (4100, 1.0)]).unwrap()
    );
}

#[test]
fn a_workload_csv_is_read_on_the_same_tick() {
    let text = "arrival,task_type,deadline\n0.5,0,1.25\n0.25,1,2\n";
    let trial = parse_workload_csv_with_tick(text, "w.csv", None, 0.25).expect("valid");
    let times: Vec<(f64, usize, f64)> = trial
        .tasks
        .iter()
        .map(|t| (t.arrival, t.task_type, t.deadline))
        .collect();
    assert_eq!(times, [(1.0, 1, 8.0), (2.0, 0, 5.0)]);
    // A tick of 1 reads the times as they are.
    assert_eq!(
        parse_workload_csv_with_tick(text, "w.csv", None, 1.0).unwrap(),
        parse_workload_csv(text, "w.csv").unwrap()
    );
}

#[test]
fn bad_ticks_and_times_beyond_the_tick_range_name_file_line_and_field() {
    for tick in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = parse_samples_csv_options(
            "task_type,machine,execution_time\n0,0,5\n",
            "s.csv",
            &auto(tick),
        )
        .expect_err("a bad tick");
        assert_eq!(err.field_name(), Some("tick"), "{err}");
        let err = parse_workload_csv_with_tick(
            "arrival,task_type,deadline\n0,0,5\n",
            "w.csv",
            None,
            tick,
        )
        .expect_err("a bad tick");
        assert_eq!(err.field_name(), Some("tick"), "{err}");
    }
    // 5 time units of a 1e-12 tick are 5e12 ticks: beyond the longest execution time.
    let err = parse_samples_csv_options(
        "task_type,machine,execution_time\n0,0,0\n0,0,5\n",
        "s.csv",
        &auto(1e-12),
    )
    .expect_err("too long");
    match &err {
        WorkloadError::Field {
            file, line, field, ..
        } => assert_eq!(
            (file.as_str(), *line, *field),
            ("s.csv", 3, "execution_time")
        ),
        other => panic!("expected a field error, got {other:?}"),
    }
    // 10 time units of a 1e-300 tick are beyond the tick range.
    let err = parse_workload_csv_with_tick(
        "arrival,task_type,deadline\n0,0,5\n10,0,20\n",
        "w.csv",
        None,
        1e-300,
    )
    .expect_err("too late");
    match &err {
        WorkloadError::Field {
            file, line, field, ..
        } => assert_eq!((file.as_str(), *line, *field), ("w.csv", 2, "deadline")),
        other => panic!("expected a field error, got {other:?}"),
    }
}
