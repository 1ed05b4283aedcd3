//! The command line on hostile inputs. Every file of `tests/malformed/` is given to
//! `prunesim run` the way a user would: a PET with `--pet`, arrival trials with `--workload`,
//! an experiment TOML as the argument (which may point at a PET file or a samples CSV). Each
//! malformed input must exit with a non-zero status and an error on stderr that names the
//! file, the line (when the format has lines), the field, and what was expected. The repairs
//! the readers document (PET masses within 1% of 1 renormalised, a `.dat` arrival that lost
//! its leading characters restored) must be accepted, with a warning.
//!
//! Every case runs one trial of a small experiment (`valid_small.toml`: 20 tasks) or fails
//! before simulating, so the whole file takes a few seconds.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A file of the corpus.
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/malformed")
        .join(name)
}

/// Runs `prunesim run ARGS --trials 1`, the corpus' file names resolved. Warnings are on
/// (the binary's default) and without colour, so stderr can be searched.
fn run(args: &[&str]) -> Output {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains('.') && !a.starts_with('-') {
                corpus(a).display().to_string()
            } else {
                (*a).to_owned()
            }
        })
        .collect();
    Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .arg("run")
        .args(&args)
        .args(["--trials", "1", "--jobs", "1"])
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .output()
        .expect("the prunesim binary runs")
}

/// How to give a malformed file to the CLI.
#[derive(Clone, Copy, Debug)]
enum Via {
    /// `prunesim run valid_small.toml --pet FILE`.
    Pet,
    /// `prunesim run valid_small.toml --workload FILE`.
    Workload,
    /// `prunesim run FILE` (a TOML experiment, possibly naming a PET or samples file).
    Experiment,
}

/// One malformed input and what its error must say.
struct Case {
    /// The corpus file handed to the CLI.
    file: &'static str,
    via: Via,
    /// The file the error is about (the given file, or the PET file a TOML names).
    names: &'static str,
    /// The 1-based line, for errors about one line.
    line: Option<usize>,
    /// Text that must appear: the field, and what was expected.
    says: &'static [&'static str],
}

const fn case(
    file: &'static str,
    via: Via,
    line: Option<usize>,
    says: &'static [&'static str],
) -> Case {
    Case {
        file,
        via,
        names: file,
        line,
        says,
    }
}

/// Runs every case and reports all failures at once, each with the CLI's stderr.
fn check_all(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let out = match c.via {
            Via::Pet => run(&["valid_small.toml", "--pet", c.file]),
            Via::Workload => run(&["valid_small.toml", "--workload", c.file]),
            Via::Experiment => run(&[c.file]),
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut wrong = Vec::new();
        if out.status.success() {
            wrong.push("exited with status 0".to_owned());
        }
        if stderr.contains("panicked") {
            wrong.push("panicked".to_owned());
        }
        if !stderr.contains("error: ") {
            wrong.push("no `error: ` line".to_owned());
        }
        let place = match c.line {
            Some(l) => format!("{}:{l}", c.names),
            None => c.names.to_owned(),
        };
        if !stderr.contains(&place) {
            wrong.push(format!("does not name {place}"));
        }
        for s in c.says {
            if !stderr.contains(s) {
                wrong.push(format!("does not say {s:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{} ({:?}): {}\n  stderr: {}",
                c.file,
                c.via,
                wrong.join("; "),
                stderr.trim()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn the_small_experiment_of_the_corpus_runs() {
    let out = run(&["valid_small.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("robustness"));
}

#[test]
fn malformed_pet_files_name_file_line_field_and_expectation() {
    use Via::Pet;
    check_all(&[
        case(
            "etc_probability_not_a_number.etc",
            Pet,
            Some(4),
            &[
                "field 'probability'",
                "expected a non-negative number",
                "\"abc\"",
            ],
        ),
        case(
            "etc_probability_negative.etc",
            Pet,
            Some(4),
            &[
                "field 'probability'",
                "expected a non-negative number",
                "\"-0.25\"",
            ],
        ),
        case(
            "etc_probability_nan.etc",
            Pet,
            Some(3),
            &[
                "field 'probability'",
                "expected a non-negative number",
                "\"NaN\"",
            ],
        ),
        case(
            "etc_probability_infinite.etc",
            Pet,
            Some(3),
            &[
                "field 'probability'",
                "expected a non-negative number",
                "\"inf\"",
            ],
        ),
        case(
            "etc_probabilities_all_zero.etc",
            Pet,
            Some(2),
            &[
                "block of task type 0 on machine 0",
                "probabilities summing to 1",
                "all probabilities are zero",
            ],
        ),
        case(
            "etc_probabilities_sum_0_9.etc",
            Pet,
            Some(2),
            &["probabilities summing to 1 within 1%", "sum to 0.9"],
        ),
        case(
            "etc_empty_block.etc",
            Pet,
            Some(2),
            &["block of task type 0 on machine 0", "the PMF is empty"],
        ),
        case(
            "etc_probabilities_too_wide.etc",
            Pet,
            Some(5),
            &[
                "block of task type 0 on machine 1",
                "expected at most 67108864 ticks over all blocks",
            ],
        ),
        case(
            "etc_time_negative.etc",
            Pet,
            Some(3),
            &[
                "field 'time'",
                "expected a non-negative integer number of time units",
            ],
        ),
        case(
            "etc_three_fields.etc",
            Pet,
            Some(3),
            &["expected `time probability`, found 3 fields"],
        ),
        case(
            "etc_missing_block.etc",
            Pet,
            None,
            &["no execution-time PMF for task type 0 on machine 1"],
        ),
        case(
            "etc_zero_machines.etc",
            Pet,
            Some(1),
            &[
                "field 'machineCount'",
                "expected a positive integer",
                "\"0\"",
            ],
        ),
        case(
            "etc_machine_out_of_range.etc",
            Pet,
            Some(2),
            &[
                "field 'machine'",
                "expected a machine index below machineCount=1",
            ],
        ),
        case(
            "etc_duplicate_block.etc",
            Pet,
            Some(4),
            &["task type 0 on machine 0", "already given at line 2"],
        ),
        case(
            "etc_no_header.etc",
            Pet,
            Some(1),
            &["expected the header `machineCount=M;taskCount=T;`"],
        ),
    ]);
}

#[test]
fn malformed_arrival_files_name_file_line_field_and_expectation() {
    use Via::Workload;
    check_all(&[
        case(
            "dat_deadline_before_arrival.dat",
            Workload,
            Some(3),
            &[
                "field 'deadline'",
                "expected a deadline at or after the arrival 10",
                "found 5",
            ],
        ),
        case(
            "dat_unknown_task_type.dat",
            Workload,
            Some(3),
            &[
                "field 'task_type'",
                "expected a task type index below 12",
                "\"12\"",
            ],
        ),
        case(
            "dat_task_count_mismatch.dat",
            Workload,
            Some(1),
            &["taskCount=3 but the file has 2 task lines"],
        ),
        case(
            "dat_arrival_not_a_number.dat",
            Workload,
            Some(2),
            &["field 'arrival'", "expected a number", "\"1,5\""],
        ),
        case(
            "dat_arrival_negative.dat",
            Workload,
            Some(2),
            &["field 'arrival'", "expected a non-negative number"],
        ),
        case(
            "dat_two_fields.dat",
            Workload,
            Some(2),
            &["expected `arrival task_type deadline;`, found 2 fields"],
        ),
        case(
            "dat_task_type_negative.dat",
            Workload,
            Some(2),
            &["field 'task_type'", "expected a non-negative integer"],
        ),
        case(
            "dat_deadline_infinite.dat",
            Workload,
            Some(2),
            &["field 'deadline'", "expected a number", "\"inf\""],
        ),
        case(
            "dat_no_header.dat",
            Workload,
            Some(1),
            &["expected the header `taskCount=N;`"],
        ),
    ]);
}

#[test]
fn malformed_workload_csv_files_name_file_line_field_and_expectation() {
    use Via::Workload;
    check_all(&[
        case(
            "workload_deadline_not_a_number.csv",
            Workload,
            Some(3),
            &["field 'deadline'", "expected a number", "\"abc\""],
        ),
        case(
            "workload_deadline_before_arrival.csv",
            Workload,
            Some(3),
            &[
                "field 'deadline'",
                "expected a deadline at or after the arrival 20",
            ],
        ),
        case(
            "workload_unknown_task_type.csv",
            Workload,
            Some(3),
            &[
                "field 'task_type'",
                "expected a task type index below 12 or a task type name",
            ],
        ),
        case(
            "workload_missing_column.csv",
            Workload,
            Some(1),
            &[
                "the header lacks column 'deadline'",
                "expected a header naming arrival, task_type, deadline",
            ],
        ),
        case(
            "workload_short_row.csv",
            Workload,
            Some(3),
            &["expected 3 fields like the header, found 2"],
        ),
        case(
            "workload_arrival_negative.csv",
            Workload,
            Some(2),
            &["field 'arrival'", "expected a non-negative number"],
        ),
    ]);
}

#[test]
fn malformed_samples_csv_files_name_file_line_field_and_expectation() {
    use Via::Experiment;
    let through = |file, names, line, says| Case {
        file,
        via: Experiment,
        names,
        line,
        says,
    };
    check_all(&[
        through(
            "toml_samples_time_negative.toml",
            "samples_time_negative.csv",
            Some(3),
            &[
                "field 'execution_time'",
                "expected a non-negative number",
                "\"-3\"",
            ],
        ),
        through(
            "toml_samples_time_nan.toml",
            "samples_time_nan.csv",
            Some(3),
            &[
                "field 'execution_time'",
                "expected a non-negative number",
                "\"NaN\"",
            ],
        ),
        through(
            "toml_samples_missing_pair.toml",
            "samples_missing_pair.csv",
            None,
            &["no execution-time PMF for task type 1 on machine 1"],
        ),
        through(
            "toml_etc_zero_machines.toml",
            "etc_zero_machines.etc",
            Some(1),
            &["field 'machineCount'", "expected a positive integer"],
        ),
        through(
            "toml_etc_missing_block.toml",
            "etc_missing_block.etc",
            None,
            &["no execution-time PMF for task type 0 on machine 1"],
        ),
        through(
            "toml_etc_file_absent.toml",
            "no_such_file.etc",
            None,
            &["No such file"],
        ),
    ]);
}

#[test]
fn malformed_experiment_files_name_file_line_field_and_expectation() {
    use Via::Experiment;
    check_all(&[
        case("toml_syntax_error.toml", Experiment, Some(2), &["string"]),
        case(
            "toml_key_twice.toml",
            Experiment,
            Some(5),
            &["duplicate key"],
        ),
        case(
            "toml_unknown_field.toml",
            Experiment,
            Some(7),
            &[
                "unknown field `queue_sise`",
                "expected one of",
                "`queue_size`",
            ],
        ),
        case(
            "toml_queue_size_zero.toml",
            Experiment,
            None,
            &["system.queue_size", "must be at least 1"],
        ),
        case(
            "toml_queue_size_negative.toml",
            Experiment,
            Some(7),
            &["queue_size", "expected a number of tasks >= 1", "found -1"],
        ),
        case(
            "toml_lambda_above_one.toml",
            Experiment,
            None,
            &["'lambda' = 1.5", "outside [0, 1]"],
        ),
        case(
            "toml_drop_threshold_negative.toml",
            Experiment,
            None,
            &["'drop_threshold' = -0.1", "outside [0, 1]"],
        ),
        case(
            "toml_defer_threshold_nan.toml",
            Experiment,
            None,
            &["'defer_threshold' = NaN", "outside [0, 1]"],
        ),
        case(
            "toml_toggle_negative.toml",
            Experiment,
            None,
            &["'toggle' = -1", "outside [0, inf) or \"never\""],
        ),
        case(
            "toml_rate_negative.toml",
            Experiment,
            None,
            &[
                "field 'workload.rate'",
                "expected a finite positive number",
                "found -5",
            ],
        ),
        case(
            "toml_rate_infinite.toml",
            Experiment,
            None,
            &[
                "field 'workload.rate'",
                "expected a finite positive number",
                "found inf",
            ],
        ),
        case(
            "toml_trials_zero.toml",
            Experiment,
            None,
            &["field 'workload.trials'", "expected at least 1"],
        ),
        case(
            "toml_tasks_zero.toml",
            Experiment,
            None,
            &["field 'workload.tasks'", "expected at least 1"],
        ),
        case(
            "toml_burst_duration_zero.toml",
            Experiment,
            None,
            &["field 'workload.burst.burst_duration'", "0 < low <= high"],
        ),
        case(
            "toml_homogeneous_machine_out_of_range.toml",
            Experiment,
            None,
            &[
                "field 'workload.pet.homogeneous'",
                "expected a machine index below 8",
                "found 99",
            ],
        ),
        case(
            "toml_bin_width_zero.toml",
            Experiment,
            Some(5),
            &["pet.bin_width", "expected a positive integer"],
        ),
        case(
            "toml_unknown_pet.toml",
            Experiment,
            Some(5),
            &["unknown PET \"uniform\"", "expected \"default\""],
        ),
        case(
            "toml_missing_mapper.toml",
            Experiment,
            None,
            &["missing field `mapper`"],
        ),
        case("toml_unknown_heuristic.toml", Experiment, None, &["XYZ"]),
        case(
            "toml_price_negative.toml",
            Experiment,
            None,
            &["system.prices", "must be finite and >= 0", "-0.2"],
        ),
        case(
            "toml_hour_zero.toml",
            Experiment,
            None,
            &["system.hour", "must be positive"],
        ),
    ]);
}

#[test]
fn pet_masses_within_one_percent_of_one_are_renormalised_with_a_warning() {
    let out = run(&["repaired_etc_renormalised.toml"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("WARN") && stderr.contains("renormalised PET blocks"),
        "no warning: {stderr}"
    );
    assert!(
        stderr.contains("etc_probabilities_sum_0_996.etc"),
        "{stderr}"
    );
}

/// A repaired arrival is one counted line on standard error, not a warning per file; the
/// repair itself is listed at debug level.
#[test]
fn a_truncated_first_arrival_is_restored_and_counted() {
    let out = run(&[
        "valid_small.toml",
        "--workload",
        "repaired_dat_truncated_first_arrival.dat",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("WARN"), "a warning per repair: {stderr}");
    assert!(
        stderr.contains("note: of 1 workload files, 1 had arrivals repaired (1 arrivals"),
        "no count of the repair: {stderr}"
    );
    let debug = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["run", "--trials", "1", "--jobs", "1", "--no-bound"])
        .arg(corpus("valid_small.toml"))
        .arg("--workload")
        .arg(corpus("repaired_dat_truncated_first_arrival.dat"))
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&debug.stderr);
    assert!(
        stderr.contains("differs from its type's slack: arrival repaired")
            && stderr.contains("repaired=Some(1.45)"),
        "the repair is not listed at debug level: {stderr}"
    );
}

#[test]
fn an_unknown_heuristic_on_the_command_line_is_named() {
    let out = run(&["valid_small.toml", "--heuristic", "NOPE"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--heuristic") && stderr.contains("NOPE"),
        "{stderr}"
    );
}

#[test]
fn pct_epsilon_is_labelled_and_checked() {
    let out = run(&["valid_small.toml", "--pct-epsilon", "1e-4", "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\"pct_epsilon\": 0.0001"), "{stdout}");
    let out = run(&["valid_small.toml", "--pct-epsilon", "1e-4"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("approximate: PCT tails trimmed at epsilon = 1e-4"),
        "{stdout}"
    );
    let exact = run(&["valid_small.toml", "--pct-epsilon", "0"]);
    assert!(!String::from_utf8_lossy(&exact.stdout).contains("approximate"));
    let out = run(&["valid_small.toml", "--pct-epsilon", "-1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--pct-epsilon") && stderr.contains("pct_epsilon"),
        "{stderr}"
    );
}

/// The help a user of the installed binary reads points at chapters of the user guide, never
/// at files of the repository, which the binary's user may not have.
#[test]
fn the_help_points_at_the_guide_not_at_repository_files() {
    for sub in [
        &[][..],
        &["run"],
        &["rerun"],
        &["report"],
        &["sweep"],
        &["new-policy"],
        &["metrics"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
            .args(sub)
            .arg("--help")
            .output()
            .unwrap();
        assert!(out.status.success(), "{sub:?}");
        let help = String::from_utf8_lossy(&out.stdout);
        for line in help.lines() {
            assert!(
                !line.contains("docs/") && !line.contains(".md"),
                "prunesim {} --help names a repository file: {line}",
                sub.join(" ")
            );
        }
    }
}
