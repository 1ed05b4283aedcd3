//! A corpus of small malformed inputs, each checked for the right error, line and field.
//! No input may panic.

use workload::WorkloadError;
use workload::io::{parse_dat, parse_etc, parse_samples_csv, parse_workload_csv};

/// What an error must look like.
#[derive(Debug)]
enum Expect {
    /// A field error at this line and field.
    Field(usize, &'static str),
    /// A syntax error at this line.
    Syntax(usize),
    /// A missing block (task type, machine).
    Missing(&'static str, &'static str),
    /// A duplicate block at this line.
    Duplicate(usize),
    /// A block whose masses are not a PMF, header at this line.
    Pmf(usize),
    /// A task after its deadline at this line.
    Late(usize),
    /// An invalid argument (bin width).
    Spec(&'static str),
}

fn check(case: &str, result: Result<(), WorkloadError>, expect: &Expect) {
    let err = match result {
        Ok(()) => panic!("{case}: accepted, expected {expect:?}"),
        Err(e) => e,
    };
    let msg = err.to_string();
    let ok = match (expect, &err) {
        (Expect::Field(l, f), WorkloadError::Field { line, field, .. }) => line == l && field == f,
        (Expect::Syntax(l), WorkloadError::Syntax { line, .. }) => line == l,
        (
            Expect::Missing(t, m),
            WorkloadError::MissingBlock {
                task_type, machine, ..
            },
        ) => task_type == t && machine == m,
        (Expect::Duplicate(l), WorkloadError::DuplicateBlock { line, .. }) => line == l,
        (Expect::Pmf(l), WorkloadError::InvalidPmf { line, .. }) => line == l,
        (Expect::Late(l), WorkloadError::ArrivalAfterDeadline { line, .. }) => line == l,
        (Expect::Spec(f), WorkloadError::InvalidSpec { field, .. }) => field == f,
        _ => false,
    };
    assert!(ok, "{case}: expected {expect:?}, got {err:?} ({msg})");
    assert!(
        msg.contains("bad.") || matches!(err, WorkloadError::InvalidSpec { .. }),
        "{case}: message lacks the file name: {msg}"
    );
    eprintln!("{case}: {msg}");
}

const ETC_OK_HEAD: &str = "machineCount=1;taskCount=1;\nmachine=0;task=0;\n";

#[test]
fn malformed_etc_files_are_rejected_with_file_line_and_field() {
    let cases: &[(&str, &str, Expect)] = &[
        ("empty", "", Expect::Syntax(1)),
        ("blank lines only", "\n\n  \n", Expect::Syntax(1)),
        ("no header", "machine=0;task=0;\n2 1\n", Expect::Syntax(1)),
        ("data before header", "2 1\n", Expect::Syntax(1)),
        (
            "header typo",
            "machineCount=1;tasks=1;\n",
            Expect::Syntax(1),
        ),
        ("header missing key", "machineCount=1;\n", Expect::Syntax(1)),
        (
            "header key twice",
            "machineCount=1;machineCount=2;taskCount=1;\n",
            Expect::Syntax(1),
        ),
        (
            "zero machines",
            "machineCount=0;taskCount=1;\n",
            Expect::Field(1, "machineCount"),
        ),
        (
            "count not a number",
            "machineCount=eight;taskCount=1;\n",
            Expect::Field(1, "machineCount"),
        ),
        (
            "pair without =",
            "machineCount=1;taskCount;\n",
            Expect::Syntax(1),
        ),
        (
            "data before block",
            "machineCount=1;taskCount=1;\n2 1\n",
            Expect::Syntax(2),
        ),
        (
            "machine out of range",
            "machineCount=1;taskCount=1;\nmachine=1;task=0;\n2 1\n",
            Expect::Field(2, "machine"),
        ),
        (
            "task out of range",
            "machineCount=1;taskCount=1;\nmachine=0;task=3;\n2 1\n",
            Expect::Field(2, "task"),
        ),
        (
            "negative machine",
            "machineCount=1;taskCount=1;\nmachine=-1;task=0;\n",
            Expect::Field(2, "machine"),
        ),
        (
            "probability not a number",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 abc\n",
            Expect::Field(3, "probability"),
        ),
        (
            "negative probability",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 -0.5\n",
            Expect::Field(3, "probability"),
        ),
        (
            "nan probability",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 NaN\n",
            Expect::Field(3, "probability"),
        ),
        (
            "infinite probability",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 inf\n",
            Expect::Field(3, "probability"),
        ),
        (
            "decimal time",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2.5 1\n",
            Expect::Field(3, "time"),
        ),
        (
            "negative time",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n-2 1\n",
            Expect::Field(3, "time"),
        ),
        (
            "huge time",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n99999999999999999999 1\n",
            Expect::Field(3, "time"),
        ),
        (
            "one field",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2\n",
            Expect::Syntax(3),
        ),
        (
            "three fields",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 0.5 0.5\n",
            Expect::Syntax(3),
        ),
        (
            "masses sum to 0.9",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 0.9\n",
            Expect::Pmf(2),
        ),
        (
            "masses sum to 1.5",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 0.75\n4 0.75\n",
            Expect::Pmf(2),
        ),
        (
            "all zero",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n2 0\n",
            Expect::Pmf(2),
        ),
        (
            "empty block",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n",
            Expect::Pmf(2),
        ),
        (
            "an execution time beyond 2^26 ticks",
            "machineCount=1;taskCount=1;\nmachine=0;task=0;\n0 0.5\n999999999999 0.5\n",
            Expect::Field(4, "time"),
        ),
        (
            "missing block",
            "machineCount=2;taskCount=2;\nmachine=0;task=0;\n2 1\nmachine=1;task=0;\n2 1\nmachine=0;task=1;\n2 1\n",
            Expect::Missing("1", "1"),
        ),
        (
            "duplicate block",
            "machineCount=1;taskCount=2;\nmachine=0;task=0;\n2 1\nmachine=0;task=1;\n2 1\nmachine=0;task=0;\n2 1\n",
            Expect::Duplicate(6),
        ),
        (
            "crlf line numbers",
            "machineCount=1;taskCount=1;\r\nmachine=0;task=0;\r\n2\t0.5 \r\n4\tx \r\n",
            Expect::Field(4, "probability"),
        ),
        (
            "lone cr line numbers",
            "machineCount=1;taskCount=1;\rmachine=0;task=0;\r2 zz\r",
            Expect::Field(3, "probability"),
        ),
    ];
    for (case, text, expect) in cases {
        check(case, parse_etc(text, "bad.etc").map(|_| ()), expect);
    }
    // The example of the issue, word for word.
    let err = parse_etc(&format!("{ETC_OK_HEAD}2 abc\n"), "classes_2.etc").expect_err("bad");
    assert_eq!(
        err.to_string(),
        "classes_2.etc:3: field 'probability': expected a non-negative number, found \"abc\""
    );
    assert_eq!(err.line(), Some(3));
    assert_eq!(err.field_name(), Some("probability"));
}

#[test]
fn tolerated_etc_quirks_are_accepted() {
    // CRLF, tabs, trailing spaces, blank lines, blocks in any order, a total of 0.997.
    let text = "machineCount=2;taskCount=1;\r\n\r\nmachine=1;task=0;\r\n4\t0.997 \r\nmachine=0;task=0;\r\n2\t0.5 \r\n2\t0.5 \r\n";
    let (pet, report) = parse_etc(text, "ok.etc").expect("tolerated");
    assert_eq!(pet.pmf(0, 0).min(), 2);
    assert_eq!(pet.pmf(0, 1).mass_at(4), 1.0);
    assert_eq!(report.renormalised(1e-9).count(), 1);
    assert_eq!(report.blocks[1].input_total, 0.997);
    assert_eq!(report.blocks[1].line, 3);
}

#[test]
fn malformed_dat_files_are_rejected_with_file_line_and_field() {
    let cases: &[(&str, &str, Expect)] = &[
        ("empty", "", Expect::Syntax(1)),
        ("no header", "1.0 0 100.0;\n", Expect::Syntax(1)),
        (
            "header not a number",
            "taskCount=many;\n",
            Expect::Field(1, "taskCount"),
        ),
        (
            "count too high",
            "taskCount=2;\n1.0 0 100.0;\n",
            Expect::Syntax(1),
        ),
        (
            "count too low",
            "taskCount=0;\n1.0 0 100.0;\n",
            Expect::Syntax(1),
        ),
        (
            "two fields",
            "taskCount=1;\n1.0 100.0;\n",
            Expect::Syntax(2),
        ),
        (
            "four fields",
            "taskCount=1;\n1.0 0 100.0 5;\n",
            Expect::Syntax(2),
        ),
        (
            "arrival not a number",
            "taskCount=1;\nabc 0 100.0;\n",
            Expect::Field(2, "arrival"),
        ),
        (
            "arrival nan",
            "taskCount=1;\nnan 0 100.0;\n",
            Expect::Field(2, "arrival"),
        ),
        (
            "arrival negative",
            "taskCount=1;\n-1 0 100.0;\n",
            Expect::Field(2, "arrival"),
        ),
        (
            "type negative",
            "taskCount=1;\n1.0 -1 100.0;\n",
            Expect::Field(2, "task_type"),
        ),
        (
            "type decimal",
            "taskCount=1;\n1.0 1.5 100.0;\n",
            Expect::Field(2, "task_type"),
        ),
        (
            "deadline infinite",
            "taskCount=1;\n1.0 0 inf;\n",
            Expect::Field(2, "deadline"),
        ),
        (
            "deadline missing number",
            "taskCount=1;\n1.0 0 ;;\n",
            Expect::Field(2, "deadline"),
        ),
        (
            "arrival after deadline",
            "taskCount=2;\n1.0 0 100.0;\n\n200.5 1 150.0;\n",
            Expect::Late(4),
        ),
        (
            "crlf",
            "taskCount=1;\r\n1.0 0 x;\r\n",
            Expect::Field(2, "deadline"),
        ),
    ];
    for (case, text, expect) in cases {
        check(case, parse_dat(text, "bad.dat").map(|_| ()), expect);
    }
}

#[test]
fn dat_quirks_are_tolerated_and_inconsistent_lines_reported() {
    // Leading-dot decimals, missing semicolons, CRLF, unsorted lines, a truncated arrival.
    let text = "taskCount=5;\r\n45 0 176.88;\r\n4.55 0 179.98 \r\n.87 0 176.30;\r\n9.00 0 184.43;\r\n3.00 0 178.43;\r\n";
    let (trial, report) = parse_dat(text, "ok.dat").expect("tolerated");
    let arrivals: Vec<f64> = trial.tasks.iter().map(|t| t.arrival).collect();
    assert_eq!(arrivals, [0.87, 1.45, 3.0, 4.55, 9.0]);
    assert_eq!(report.anomalies.len(), 1);
    assert_eq!(report.anomalies[0].line, 2);
    assert_eq!(report.anomalies[0].repaired_arrival, Some(1.45));
    assert_eq!(report.out_of_order_as_read, 4);
    assert_eq!(report.out_of_order, 2);
    // An inconsistent arrival that is not a truncation is reported and kept.
    let text = "taskCount=4;\n1.00 0 176.43;\n2.00 0 177.43;\n3.00 0 178.43;\n50.00 0 180.00;\n";
    let (trial, report) = parse_dat(text, "ok.dat").expect("tolerated");
    assert_eq!(report.anomalies.len(), 1);
    assert_eq!(report.anomalies[0].repaired_arrival, None);
    assert_eq!(trial.tasks[3].arrival, 50.0);
}

#[test]
fn malformed_csv_files_are_rejected_with_file_line_and_field() {
    let samples: &[(&str, &str, Expect)] = &[
        ("no header", "0,0,5\n", Expect::Syntax(1)),
        (
            "header lacks a column",
            "task_type,machine\n0,0\n",
            Expect::Syntax(1),
        ),
        (
            "unknown column",
            "task_type,machine,execution_time,x\n0,0,5,1\n",
            Expect::Syntax(1),
        ),
        (
            "column twice",
            "task_type,machine,machine\n0,0,5\n",
            Expect::Syntax(1),
        ),
        ("empty", "", Expect::Syntax(1)),
        (
            "header only",
            "task_type,machine,execution_time\n",
            Expect::Syntax(1),
        ),
        (
            "time not a number",
            "task_type,machine,execution_time\n0,0,5\n0,0,fast\n",
            Expect::Field(3, "execution_time"),
        ),
        (
            "time negative",
            "task_type,machine,execution_time\n0,0,-5\n",
            Expect::Field(2, "execution_time"),
        ),
        (
            "empty machine",
            "task_type,machine,execution_time\n0,,5\n",
            Expect::Field(2, "machine"),
        ),
        (
            "short row",
            "task_type,machine,execution_time\n0,0,5\n0,0\n",
            Expect::Syntax(3),
        ),
        (
            "missing pair",
            "task_type,machine,execution_time\na,x,5\na,y,5\nb,x,5\n",
            Expect::Missing("b", "y"),
        ),
        (
            "missing index",
            "task_type,machine,execution_time\n0,0,5\n2,0,5\n",
            Expect::Missing("1", "0"),
        ),
        (
            "huge index",
            "task_type,machine,execution_time\n0,0,5\n18446744073709551614,0,5\n",
            Expect::Missing("1", "0"),
        ),
        (
            "time too large",
            "task_type,machine,execution_time\n0,0,5\n0,0,1e300\n",
            Expect::Field(3, "execution_time"),
        ),
        (
            "an execution time beyond 2^26 ticks",
            "task_type,machine,execution_time\n0,0,0\n0,0,1e8\n",
            Expect::Field(3, "execution_time"),
        ),
    ];
    for (case, text, expect) in samples {
        check(
            case,
            parse_samples_csv(text, "bad.csv", 2).map(|_| ()),
            expect,
        );
    }
    check(
        "bin width 0",
        parse_samples_csv("task_type,machine,execution_time\n0,0,5\n", "bad.csv", 0).map(|_| ()),
        &Expect::Spec("bin_width"),
    );
    let workloads: &[(&str, &str, Expect)] = &[
        ("no header", "1,0,100\n", Expect::Syntax(1)),
        (
            "arrival not a number",
            "arrival,task_type,deadline\nsoon,0,100\n",
            Expect::Field(2, "arrival"),
        ),
        (
            "type is a name",
            "arrival,task_type,deadline\n1,encode,100\n",
            Expect::Field(2, "task_type"),
        ),
        (
            "deadline not a number",
            "arrival,task_type,deadline\n1,0,never\n",
            Expect::Field(2, "deadline"),
        ),
        (
            "arrival after deadline",
            "arrival,task_type,deadline\n1,0,100\n300,0,100\n",
            Expect::Late(3),
        ),
        (
            "long row",
            "arrival,task_type,deadline\n1,0,100,4\n",
            Expect::Syntax(2),
        ),
    ];
    for (case, text, expect) in workloads {
        check(
            case,
            parse_workload_csv(text, "bad.csv").map(|_| ()),
            expect,
        );
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap fuzz pass: mutate valid inputs byte by byte; the readers must return, not panic.
    let seeds = [
        "machineCount=2;taskCount=1;\nmachine=0;task=0;\n2\t0.5\n4\t0.5\nmachine=1;task=0;\n6\t1\n",
        "taskCount=2;\n1.5 0 100.25;\n2.5 1 101.5;\n",
        "task_type,machine,execution_time\na,x,5\n",
        "arrival,task_type,deadline\n1,0,100\n",
    ];
    let junk = [
        b'0', b'9', b'.', b'-', b';', b'=', b'\n', b'\r', b' ', b'e', b',', b'"',
    ];
    for seed in seeds {
        let bytes = seed.as_bytes();
        for i in 0..bytes.len() {
            for &j in &junk {
                let mut b = bytes.to_vec();
                b[i] = j;
                let text = String::from_utf8_lossy(&b);
                let _ = parse_etc(&text, "f.etc");
                let _ = parse_dat(&text, "f.dat");
                let _ = parse_samples_csv(&text, "f.csv", 2);
                let _ = parse_workload_csv(&text, "f.csv");
            }
        }
    }
}

/// An execution time beyond the limit names the limit that applies, 2^26 ticks (it said "at
/// most 2^52", the tick range, for a time beyond that).
#[test]
fn a_samples_time_beyond_the_limit_states_the_real_limit() {
    for time in ["1e300", "1e20", "1e8"] {
        let text = format!("task_type,machine,execution_time\n0,0,5\n0,0,{time}\n");
        let err = workload::io::parse_samples_csv(&text, "big.csv", 1)
            .expect_err("beyond 2^26 ticks")
            .to_string();
        assert!(
            err.contains("big.csv:3") && err.contains("at most 67108864 (2^26 ticks)"),
            "{time}: {err}"
        );
        assert!(!err.contains("2^52"), "{time}: {err}");
    }
}
