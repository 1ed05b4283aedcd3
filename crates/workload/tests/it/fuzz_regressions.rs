//! Problems found while writing the fuzz targets of `fuzz/` (see its README), kept as
//! regression tests: each once hung, ran out of memory, or broke a promise the readers make.

use workload::io::{
    DatOptions, MAX_PET_TICKS, parse_dat, parse_dat_with, parse_etc, parse_samples_csv,
};
use workload::{WorkloadConfig, WorkloadError};

/// `machineCount=5;taskCount=1;` and five blocks `0 0.5` / `67108863 0.499`: 223 bytes.
fn five_widest_blocks() -> String {
    let mut s = String::from("machineCount=5;taskCount=1;\n");
    for m in 0..5 {
        s.push_str(&format!("machine={m};task=0;\n0 0.5\n67108863 0.499\n"));
    }
    s
}

/// The `etc` target on this hand-made input: every block alone fits a PMF (2^26 ticks), but
/// five of them made the reader allocate, renormalise and scan 2.5 GB (libFuzzer:
/// out-of-memory at 2,081 MB). The blocks of a PET now share one budget, checked before any
/// is built.
#[test]
fn etc_blocks_together_may_not_exceed_the_pet_budget() {
    let text = five_widest_blocks();
    assert!(text.len() < 300);
    let err = parse_etc(&text, "wide.etc").expect_err("2^26 ticks times five");
    let msg = err.to_string();
    assert!(
        matches!(err, WorkloadError::Syntax { line: 5, .. }),
        "the second block's header: {err:?}"
    );
    assert!(
        msg.contains("wide.etc:5") && msg.contains(&format!("at most {MAX_PET_TICKS} ticks")),
        "{msg}"
    );
}

#[test]
fn samples_blocks_together_may_not_exceed_the_pet_budget() {
    let text = "task_type,machine,execution_time\n\
                0,0,0\n0,0,67108000\n0,1,0\n0,1,67108000\n";
    let err = parse_samples_csv(text, "wide.csv", 1).expect_err("two blocks of 2^26 ticks");
    let msg = err.to_string();
    assert!(
        matches!(err, WorkloadError::Syntax { line: 4, .. }),
        "{err:?}"
    );
    assert!(
        msg.contains("wide.csv:4") && msg.contains("machine 1"),
        "{msg}"
    );
}

/// The `workload_toml` target on this hand-made input (libFuzzer: timeout): a validated
/// bursty configuration whose durations are tiny against the horizon (here so tiny that `start + duration == start`) made
/// `generate_trial` loop forever. Such durations are now rejected, naming the field.
#[test]
fn burst_durations_tiny_against_the_horizon_are_rejected() {
    let text = "[workload]\nrate = 1\nseed = 1\npattern = \"bursty\"\n\
                [workload.burst]\nbaseline_duration = [1e-300, 1e-300]\n\
                baseline_factor = [0.0, 0.0]\nburst_duration = [1e-300, 1e-300]\n\
                burst_factor = [0.0, 0.0]\n";
    let err = WorkloadConfig::from_toml_str(text, "hang.toml").expect_err("a hang");
    assert_eq!(
        err.field_name(),
        Some("workload.burst.baseline_duration"),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("hang.toml") && msg.contains("horizon / 1,000,000"),
        "{msg}"
    );
    // The paper's durations stay valid, and so do durations just at the limit.
    let ok = "[workload]\nrate = 1\nseed = 1\npattern = \"bursty\"\nhorizon = 1e6\n\
              [workload.burst]\nbaseline_duration = [1.0, 1.0]\nburst_duration = [1.0, 2.0]\n";
    WorkloadConfig::from_toml_str(ok, "ok.toml").expect("a million intervals of 1 unit");
}

/// What the `dat` target asserts, broken by hand: the `.dat` repair tries the implied arrival
/// and 0.01 either side (for rounding); with a type slack of 0 the `+0.01` candidate lies
/// after the deadline, and was taken: the trial then held a task arriving after its deadline,
/// which no reader may return.
#[test]
fn dat_repair_never_moves_an_arrival_past_its_deadline() {
    let text = "taskCount=4;\n5 0 5;\n6 0 6;\n7 0 7;\n1.84 0 11.83;\n";
    let (trial, report) = parse_dat(text, "repair.dat").expect("the file is readable");
    for t in &trial.tasks {
        assert!(t.arrival <= t.deadline, "{t:?} arrives after its deadline");
    }
    assert_eq!(report.anomalies.len(), 1, "{report:?}");
    assert_eq!(report.anomalies[0].line, 5);
    assert_eq!(
        report.anomalies[0].repaired_arrival, None,
        "11.84 is a suffix match but after the deadline 11.83"
    );
}

#[test]
fn dat_task_types_beyond_the_pet_name_the_line_and_field() {
    let text = "taskCount=2;\n1.5 0 180;\n2.5 12 300;\n";
    let options = DatOptions {
        task_types: Some(12),
        ..DatOptions::default()
    };
    let err = parse_dat_with(text, "types.dat", &options).expect_err("type 12 of 12 types");
    assert!(
        matches!(
            &err,
            WorkloadError::Field {
                line: 3,
                field: "task_type",
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("types.dat:3") && msg.contains("below 12"),
        "{msg}"
    );
    // Without the option every index is read.
    assert!(parse_dat(text, "types.dat").is_ok());
}

#[test]
fn dat_arrival_after_deadline_names_the_deadline_field_and_what_was_expected() {
    let err = parse_dat("taskCount=1;\n10 0 5;\n", "late.dat").expect_err("late");
    let msg = err.to_string();
    assert!(
        msg.contains("late.dat:2")
            && msg.contains("field 'deadline'")
            && msg.contains("expected a deadline at or after the arrival 10"),
        "{msg}"
    );
}
