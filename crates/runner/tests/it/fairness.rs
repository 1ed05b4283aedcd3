//! Fairness across task types: the worst type's on-time rate.

#[test]
fn the_worst_type_is_the_lowest_on_time_rate_of_a_type_with_counted_tasks() {
    use model::Outcome;
    use runner::metrics::Pricing;
    use runner::{Counting, TaskRecord, TrialMetrics, TrialRecord};
    let task = |outcome| TaskRecord {
        outcome,
        machine: None,
        start: None,
        end: 0,
        deferrals: 0,
    };
    // Type 0: 1 of 2 on time; type 1: 2 of 2; type 2: none counted.
    let record = TrialRecord {
        tasks: vec![
            task(Outcome::OnTime),
            task(Outcome::Unmapped),
            task(Outcome::OnTime),
            task(Outcome::OnTime),
        ],
        busy: vec![0],
        wasted: vec![0],
        mapping_events: 0,
        engaged_events: 0,
        span: 0,
        pct_recomputations: 0,
    };
    let m = TrialMetrics::new(
        &record,
        &[0, 0, 1, 1],
        3,
        Counting {
            skip_first: 0,
            skip_last: 0,
        },
        &Pricing {
            per_hour: &[0.0],
            hour: 3600.0,
        },
    );
    assert_eq!(m.worst_type_on_time, 50.0);
    assert_eq!(m.scalar("worst_type_on_time"), Some(50.0));
    // Fractions 0.5 and 1: variance 0.0625, times 100.
    assert_eq!(m.type_variance, 6.25);
}
