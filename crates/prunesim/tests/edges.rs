//! Trust at the edges, through the command line: what a run writes goes only into regular
//! files with the umask's mode; `prunesim report` reads its inputs as `run` does; a run folder
//! holds one run; names and input streams cannot drive the terminal or the memory.
//!
//! Every FIFO, device and symlink is made inside a temporary folder. Each command runs under
//! `ulimit -v` of 2 GiB and a time limit, so an input that grows without bound or hangs ends as
//! a failure of the test, not of the machine.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The address space the binary may use in these tests (2 GiB of virtual memory).
const ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;

/// Runs `prunesim ARGS` in `dir` under `umask`, `ulimit -v` and a time limit, with `stdin`.
fn prunesim_with(args: &[&str], dir: &Path, umask: &str, stdin: Stdio) -> (Output, Duration) {
    let script =
        format!("umask {umask}; ulimit -v {ADDRESS_SPACE_KIB}; exec timeout -k 5 30 \"$0\" \"$@\"");
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_prunesim"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .env_remove(workload::io::MAX_INPUT_ENV)
        .stdin(stdin)
        .output()
        .expect("sh runs");
    (out, start.elapsed())
}

/// Runs `prunesim ARGS` in `dir` under `umask 022`.
fn prunesim(args: &[&str], dir: &Path) -> Output {
    prunesim_with(args, dir, "022", Stdio::null()).0
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", stderr(o));
}

/// Checks a refused command: exit 1 (not an abort, a kill or a timeout), each of `says` in
/// the message, within ten seconds.
fn refused(args: &[&str], dir: &Path, says: &[&str]) -> String {
    let (out, took) = prunesim_with(args, dir, "022", Stdio::null());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    for s in says {
        assert!(err.contains(s), "{args:?}: no {s:?} in {err}");
    }
    assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    err
}

/// A small experiment (20 tasks a trial) named `name`, written to `dir/<file>`.
fn experiment(dir: &Path, file: &str, name: &str) -> String {
    std::fs::write(
        dir.join(file),
        format!(
            "name = \"{name}\"\n[workload]\nrate = 34000\nseed = 1\ntasks = 20\n\n[system]\nskip_first = 0\nskip_last = 0\n\n[mapper]\nname = \"PAM\"\n"
        ),
    )
    .unwrap();
    file.to_owned()
}

/// A traced run of `trials` trials of the small experiment into `dir/run`.
fn traced_run(dir: &Path, trials: &str) -> PathBuf {
    let f = experiment(dir, "small.toml", "small");
    ok(&prunesim(
        &[
            "run",
            &f,
            "--trials",
            trials,
            "--trace",
            "--no-bound",
            "--jobs",
            "1",
            "--out",
            "run",
        ],
        dir,
    ));
    dir.join("run")
}

fn mkfifo(path: &Path) -> bool {
    let made = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped a FIFO case: mkfifo {} failed", path.display());
    }
    made
}

/// A character device (`major`, `minor`) made at `path` (root only).
fn mknod(path: &Path, major: &str, minor: &str) -> bool {
    let made = Command::new("mknod")
        .arg(path)
        .args(["c", major, minor])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!(
            "skipped a device case: mknod {} failed (not root, or not allowed here)",
            path.display()
        );
    }
    made
}

fn file_type(path: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(path).unwrap().file_type()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn report_output_is_never_written_over_a_device_a_fifo_or_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    traced_run(d, "1");
    let mut targets = vec![];
    std::fs::create_dir(d.join("folder")).unwrap();
    targets.push(("folder", "a folder"));
    if mkfifo(&d.join("fifo")) {
        targets.push(("fifo", "a FIFO"));
    }
    // A device like /dev/null (1, 3), made here: what `--output /dev/null` replaced.
    if mknod(&d.join("null"), "1", "3") {
        targets.push(("null", "a character device"));
        std::os::unix::fs::symlink("null", d.join("to-null")).unwrap();
        targets.push(("to-null", "a symlink to a character device"));
    }
    for (target, kind) in targets {
        let before = file_type(&d.join(target));
        refused(
            &["report", "run", "--output", target],
            d,
            &[target, kind, "not a regular file"],
        );
        assert_eq!(file_type(&d.join(target)), before, "{target} was replaced");
    }
    // A symlink to a regular file: the file gets the report, the link stays.
    std::fs::write(d.join("real.html"), "old").unwrap();
    std::os::unix::fs::symlink("real.html", d.join("link.html")).unwrap();
    ok(&prunesim(&["report", "run", "--output", "link.html"], d));
    assert!(file_type(&d.join("link.html")).is_symlink());
    let html = std::fs::read_to_string(d.join("real.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{}", &html[..40]);
}

#[test]
fn outputs_get_the_umask_mode_and_replaced_files_keep_theirs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let f = experiment(d, "small.toml", "small");
    let args = [
        "run",
        &f,
        "--trials",
        "1",
        "--report",
        "--timelines",
        "--no-bound",
        "--jobs",
        "1",
        "--out",
        "run",
    ];
    let outputs = [
        "run/trials.csv",
        "run/summary.json",
        "run/manifest.json",
        "run/experiment.toml",
        "run/report.html",
        "run/trace/tasks-0.csv",
        "run/trace/events-0.csv",
        "run/trace/timeline-0.svg",
        "run/trace/timeline-0.png",
    ];
    for (umask, expected) in [("022", 0o644), ("027", 0o640)] {
        let _ = std::fs::remove_dir_all(d.join("run"));
        let (out, _) = prunesim_with(&args, d, umask, Stdio::null());
        ok(&out);
        for o in outputs {
            assert_eq!(mode(&d.join(o)), expected, "{o} under umask {umask}");
        }
    }
    // Run again under umask 022: a file whose mode was set keeps it.
    std::fs::set_permissions(d.join("run/summary.json"), PermissionsExt::from_mode(0o600)).unwrap();
    ok(&prunesim(&args, d));
    assert_eq!(mode(&d.join("run/summary.json")), 0o600);
    assert_eq!(mode(&d.join("run/trials.csv")), 0o640);
}

#[test]
fn report_reads_its_inputs_as_run_does() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let run = traced_run(d, "2");
    let summary = std::fs::read(run.join("summary.json")).unwrap();
    let tasks = std::fs::read_to_string(run.join("trace/tasks-0.csv")).unwrap();
    let restore = || {
        std::fs::write(run.join("summary.json"), &summary).unwrap();
        let _ = std::fs::remove_file(run.join("trace/tasks-0.csv"));
        std::fs::write(run.join("trace/tasks-0.csv"), &tasks).unwrap();
    };
    ok(&prunesim(&["report", "run"], d));
    // summary.json a FIFO (it hung) or a device like /dev/zero (it grew to 22 GB).
    let s = run.join("summary.json");
    std::fs::remove_file(&s).unwrap();
    if mkfifo(&s) {
        refused(
            &["report", "run"],
            d,
            &["summary.json", "not a regular file (a FIFO)"],
        );
        std::fs::remove_file(&s).unwrap();
    }
    if mknod(&s, "1", "5") {
        refused(
            &["report", "run"],
            d,
            &["summary.json", "not a regular file (a character device)"],
        );
        std::fs::remove_file(&s).unwrap();
    }
    restore();
    // A task trace a FIFO or a device.
    let t = run.join("trace/tasks-0.csv");
    std::fs::remove_file(&t).unwrap();
    if mkfifo(&t) {
        refused(
            &["report", "run"],
            d,
            &["tasks-0.csv", "not a regular file (a FIFO)"],
        );
        std::fs::remove_file(&t).unwrap();
    }
    if mknod(&t, "1", "5") {
        refused(
            &["report", "run"],
            d,
            &["tasks-0.csv", "a character device"],
        );
        std::fs::remove_file(&t).unwrap();
    }
    restore();
    // A task on machine 10^8 (a name was allocated per machine: 3 GB).
    let mut r = csv::Reader::from_reader(tasks.as_bytes());
    let header = r.headers().unwrap().clone();
    let machine = header.iter().position(|h| h == "machine").unwrap();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).unwrap();
    let mut edited = false;
    for rec in r.records() {
        let rec = rec.unwrap();
        let mut fields: Vec<String> = rec.iter().map(str::to_owned).collect();
        if !edited && !fields[machine].is_empty() {
            fields[machine] = "100000000".into();
            edited = true;
        }
        w.write_record(&fields).unwrap();
    }
    assert!(edited);
    std::fs::write(&t, w.into_inner().unwrap()).unwrap();
    refused(
        &["report", "run"],
        d,
        &["tasks-0.csv", "machine 100000000", "the run has"],
    );
    restore();
    // The trace folder a loop of symlinks, or a file: an error, not "0 traced trials".
    let trace = run.join("trace");
    std::fs::rename(&trace, run.join("trace.kept")).unwrap();
    std::os::unix::fs::symlink("trace", &trace).unwrap();
    refused(&["report", "run"], d, &["trace", "cannot list the traces"]);
    std::fs::remove_file(&trace).unwrap();
    std::fs::write(&trace, "not a folder").unwrap();
    refused(&["report", "run"], d, &["trace", "cannot list the traces"]);
    std::fs::remove_file(&trace).unwrap();
    std::fs::rename(run.join("trace.kept"), &trace).unwrap();
    let out = prunesim(&["report", "run"], d);
    ok(&out);
    assert!(stderr(&out).contains("2 traced trials"), "{}", stderr(&out));
}

/// The trace files in `run/trace`, sorted.
fn trace_files(run: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(run.join("trace"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn summary_experiment(run: &Path) -> String {
    let text = std::fs::read_to_string(run.join("summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["experiment"].as_str().unwrap().to_owned()
}

#[test]
fn a_run_folder_holds_one_run_and_nothing_stale_reaches_a_report() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let run = traced_run(d, "4");
    ok(&prunesim(&["report", "run"], d));
    std::fs::write(run.join("notes.txt"), "mine").unwrap();
    std::fs::write(run.join("trace/mine.csv"), "mine").unwrap();
    let other = experiment(d, "other.toml", "other");
    let into_run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            other.as_str(),
            "--no-bound",
            "--jobs",
            "1",
            "--out",
            "run",
        ];
        args.extend_from_slice(extra);
        args.iter()
            .map(|s| (*s).to_owned())
            .collect::<Vec<String>>()
    };
    let args = into_run(&["--trials", "2"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Another experiment into a traced run's folder: refused, nothing touched.
    let before = trace_files(&run);
    refused(
        &args,
        d,
        &[
            "--out run",
            "another configuration",
            "experiment \"small\"",
            "--force",
        ],
    );
    assert_eq!(summary_experiment(&run), "small");
    assert_eq!(trace_files(&run), before);
    // With --force, untraced: the old run's files go, the user's stay.
    let mut forced = args.clone();
    forced.push("--force");
    ok(&prunesim(&forced, d));
    assert_eq!(summary_experiment(&run), "other");
    assert_eq!(trace_files(&run), ["mine.csv"]);
    assert!(!run.join("report.html").exists());
    assert_eq!(
        std::fs::read_to_string(run.join("notes.txt")).unwrap(),
        "mine"
    );
    // The same configuration again (tracing is no part of it): traced with the timelines,
    // then without them: no figure of the earlier run stays.
    let timelines = into_run(&["--trials", "2", "--trace", "--timelines"]);
    ok(&prunesim(
        &timelines.iter().map(String::as_str).collect::<Vec<_>>(),
        d,
    ));
    assert_eq!(trace_files(&run).len(), 1 + 2 * 4);
    let two = into_run(&["--trials", "2", "--trace"]);
    ok(&prunesim(
        &two.iter().map(String::as_str).collect::<Vec<_>>(),
        d,
    ));
    let mut expected = vec!["mine.csv".to_owned()];
    for k in 0..2 {
        for f in ["events-{k}.csv", "tasks-{k}.csv"] {
            expected.push(f.replace("{k}", &k.to_string()));
        }
    }
    expected.sort();
    assert_eq!(trace_files(&run), expected);
    // Fewer trials of the same configuration (each trial's result depends on its own
    // streams only): the traces of the trials beyond go.
    let one = into_run(&["--trials", "1", "--trace"]);
    ok(&prunesim(&strs(&one), d));
    assert_eq!(
        trace_files(&run),
        ["events-0.csv", "mine.csv", "tasks-0.csv"]
    );
    ok(&prunesim(&strs(&two), d));
    assert_eq!(trace_files(&run), expected);
    let out = prunesim(&["report", "run"], d);
    ok(&out);
    assert!(
        stderr(&out).contains("(2 traced trials"),
        "{}",
        stderr(&out)
    );
    // A trace file copied in from elsewhere, beyond the summary's trials, is left out.
    std::fs::copy(run.join("trace/tasks-0.csv"), run.join("trace/tasks-7.csv")).unwrap();
    let out = prunesim(&["report", "run"], d);
    ok(&out);
    let err = stderr(&out);
    assert!(err.contains("left out the traces of trials [7]"), "{err}");
    assert!(err.contains("(2 traced trials"), "{err}");
    // A rerun into its own folder is the same experiment.
    ok(&prunesim(&["rerun", "run", "--out", "run"], d));
}

/// An experiment name or a machine name with a control character is refused when the
/// experiment is checked, before a trial runs or a file is written (a NUL in a machine name
/// failed in the PNG renderer after the results were written); what is printed of it is
/// escaped.
#[test]
fn names_with_control_characters_are_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    experiment(d, "escape.toml", "red\\u001b[31m alert");
    let err = refused(
        &["run", "escape.toml", "--trace", "--no-bound", "--out", "o1"],
        d,
        &[
            "name: expected a name without control characters",
            "\\u{1b}[31m",
        ],
    );
    assert!(
        !err.contains('\u{1b}'),
        "a raw escape reached the terminal: {err:?}"
    );
    assert!(!d.join("o1").exists());
    std::fs::write(
        d.join("nul.csv"),
        "task_type,machine,execution_time\n0,m\u{0}1,5\n0,m\u{0}1,7\n1,m\u{0}1,9\n1,m\u{0}1,4\n",
    )
    .unwrap();
    let err = refused(
        &[
            "run",
            "--pet",
            "nul.csv",
            "--trials",
            "1",
            "--trace",
            "--no-bound",
            "--out",
            "o2",
        ],
        d,
        &["machine 0", "control character"],
    );
    assert!(!err.contains('\u{0}'), "{err:?}");
    assert!(!d.join("o2/summary.json").exists());
}

/// `prunesim run -` reading an endless stream of NULs (`/dev/zero`, made here as a device when
/// allowed, else a file of zeros) is refused at once; the input cap has an override.
#[test]
fn standard_input_and_the_input_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let zero = d.join("zero");
    if !mknod(&zero, "1", "5") {
        std::fs::write(&zero, vec![0u8; 4 << 20]).unwrap();
    }
    let (out, took) = prunesim_with(
        &["run", "-"],
        d,
        "022",
        Stdio::from(std::fs::File::open(&zero).unwrap()),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("standard input: a NUL byte at byte 0"),
        "{err}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    // PRUNESIM_MAX_INPUT_BYTES sets the cap of every input; anything but a number is refused.
    let f = experiment(d, "small.toml", "small");
    let with_cap = |cap: &str, args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_prunesim"))
            .args(args)
            .current_dir(d)
            .env(workload::io::MAX_INPUT_ENV, cap)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = with_cap("100", &["run", &f, "--trials", "1", "--no-bound"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("more than the 100 bytes an input file may hold"),
        "{}",
        stderr(&out)
    );
    let out = with_cap("lots", &["run", &f, "--trials", "1", "--no-bound"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("PRUNESIM_MAX_INPUT_BYTES"),
        "{}",
        stderr(&out)
    );
    ok(&with_cap(
        "100000",
        &["run", &f, "--trials", "1", "--no-bound"],
    ));
}

/// The bytes of every file under `dir` (relative path -> bytes), symlinks as their target.
fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let t = e.file_type().unwrap();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if t.is_dir() {
                stack.push(p);
            } else if t.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                files.insert(rel, target.into_os_string().into_encoded_bytes());
            } else {
                files.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

/// `run experiment.toml --out .`, an input named like an output (`trials.csv` as the PET,
/// `manifest.json` as the experiment): refused naming both, nothing written (the user's
/// experiment was replaced by the experiment as it ran); into a run folder, the message
/// points to `prunesim rerun`.
#[test]
fn an_output_never_replaces_an_input_of_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    experiment(d, "experiment.toml", "mine");
    let mut text = std::fs::read_to_string(d.join("experiment.toml")).unwrap();
    text.insert_str(0, "# my notes on this experiment\n");
    std::fs::write(d.join("experiment.toml"), &text).unwrap();
    let before = tree(d);
    refused(
        &["run", "experiment.toml", "--no-bound", "--out", "."],
        d,
        &[
            "would replace the experiment experiment.toml",
            "nothing was written",
        ],
    );
    assert_eq!(tree(d), before);
    // Through a symlinked folder too.
    std::os::unix::fs::symlink(".", d.join("here")).unwrap();
    refused(
        &["run", "experiment.toml", "--no-bound", "--out", "here"],
        d,
        &["would replace the experiment"],
    );
    assert_eq!(
        std::fs::read_to_string(d.join("experiment.toml")).unwrap(),
        text
    );
    // A measured PET named trials.csv.
    let samples =
        "task_type,machine,execution_time\nA,m1,3\nA,m1,4\nA,m2,6\nB,m1,5\nB,m2,2\nB,m2,3\n";
    std::fs::write(d.join("trials.csv"), samples).unwrap();
    refused(
        &["run", "--pet", "trials.csv", "--no-bound", "--out", "."],
        d,
        &["would replace the PET", "trials.csv"],
    );
    assert_eq!(
        std::fs::read_to_string(d.join("trials.csv")).unwrap(),
        samples
    );
    // An experiment named manifest.json.
    std::fs::copy(d.join("experiment.toml"), d.join("manifest.json")).unwrap();
    refused(
        &["run", "manifest.json", "--no-bound", "--out", "."],
        d,
        &["would replace the experiment manifest.json"],
    );
    assert_eq!(
        std::fs::read_to_string(d.join("manifest.json")).unwrap(),
        text
    );
    // A run folder's own experiment: `rerun` is the way.
    ok(&prunesim(
        &["run", "experiment.toml", "--no-bound", "--out", "r"],
        d,
    ));
    let run = tree(&d.join("r"));
    refused(
        &["run", "r/experiment.toml", "--no-bound", "--out", "r"],
        d,
        &["would replace the experiment", "prunesim rerun r"],
    );
    assert_eq!(tree(&d.join("r")), run);
}

/// A file an output would take that no run manifest names is the user's: refused naming it,
/// with --force too, and left as it is (a foreign `trials.csv`; `summary.json` a symlink to
/// `/dev/null`, which was removed by --force; `experiment.toml` a symlink to `/dev/zero`,
/// refused only after three outputs were written). Files named like numbered temporaries
/// (`backup.tmp2024`) are never removed as temporaries.
#[test]
fn a_run_never_writes_over_or_removes_a_file_it_did_not_write() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let f = experiment(d, "small.toml", "small");
    let run_into = |out: &str, force: bool| {
        let mut args = vec!["run", f.as_str(), "--no-bound", "--jobs", "1", "--out", out];
        if force {
            args.push("--force");
        }
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let refused_into = |out: &str, says: &[&str]| {
        for force in [false, true] {
            let args = run_into(out, force);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            refused(&args, d, says);
        }
    };
    std::fs::create_dir(d.join("o1")).unwrap();
    std::fs::write(d.join("o1/trials.csv"), "mine\n").unwrap();
    let before = tree(&d.join("o1"));
    refused_into(
        "o1",
        &[
            "o1/trials.csv is not a file of a prunesim run",
            "never writes over",
        ],
    );
    assert_eq!(tree(&d.join("o1")), before);
    std::fs::create_dir(d.join("o2")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("o2/summary.json")).unwrap();
    refused_into("o2", &["o2/summary.json"]);
    assert_eq!(
        tree(&d.join("o2")),
        [(PathBuf::from("summary.json"), b"/dev/null".to_vec())].into()
    );
    std::fs::create_dir(d.join("o3")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("o3/experiment.toml")).unwrap();
    refused_into("o3", &["o3/experiment.toml"]);
    assert_eq!(
        tree(&d.join("o3")).len(),
        1,
        "outputs were written beside the link"
    );
    // The run's own summary.json, made a symlink to a device afterwards: refused before
    // anything is written, naming it (the error named manifest.json).
    ok(&prunesim(
        &run_into("o4", false)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        d,
    ));
    std::fs::remove_file(d.join("o4/summary.json")).unwrap();
    std::os::unix::fs::symlink("/dev/null", d.join("o4/summary.json")).unwrap();
    let before = tree(&d.join("o4"));
    let args = run_into("o4", false);
    let err = refused(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        d,
        &["o4/summary.json", "a symlink to a character device"],
    );
    assert!(!err.contains("manifest.json"), "{err}");
    assert_eq!(tree(&d.join("o4")), before);
    // Files named like numbered temporaries, older than any temporary of a killed run.
    std::fs::create_dir(d.join("o5")).unwrap();
    let users = ["backup.tmp2024", "data.tmp1", "results.tmp2"];
    let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    for u in users {
        let p = d.join("o5").join(u);
        std::fs::write(&p, u).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    ok(&prunesim(
        &run_into("o5", false)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        d,
    ));
    std::fs::write(
        d.join("s.toml"),
        "kind = \"cutting\"\nid = \"t5\"\ntitle = \"T\"\ntable = \"table5\"\ntrials = 2\nseed = 1\n",
    )
    .unwrap();
    ok(&prunesim(
        &["sweep", "s.toml", "--out", "o5", "--jobs", "1"],
        d,
    ));
    for u in users {
        assert_eq!(std::fs::read_to_string(d.join("o5").join(u)).unwrap(), u);
    }
    // A sweep's outputs, and its job-array script, of names a user's files have.
    for (mine, args) in [
        (
            "t5.csv",
            vec!["sweep", "s.toml", "--out", "o6", "--jobs", "1"],
        ),
        (
            "timings.csv",
            vec!["sweep", "s.toml", "--out", "o7", "--jobs", "1"],
        ),
        (
            "t5.sbatch",
            vec!["sweep", "s.toml", "--out", "o8", "--slurm"],
        ),
    ] {
        let out = d.join(args[3]);
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join(mine), "mine\n").unwrap();
        refused(
            &args,
            d,
            &[mine, "never writes over a file it did not write"],
        );
        assert_eq!(
            tree(&out),
            [(PathBuf::from(mine), b"mine\n".to_vec())].into()
        );
    }
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The text of `run/summary.json`.
fn summary(run: &Path) -> String {
    std::fs::read_to_string(run.join("summary.json")).unwrap()
}

/// Two experiments of one name, the same file with another seed, an edited file: another
/// configuration, refused unless --force (the second run silently replaced the first).
#[test]
fn a_run_folder_holds_the_run_of_one_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let small = |rate: u32, seed: u32, heuristic: &str| {
        format!(
            "name = \"same\"\n[workload]\nrate = {rate}\nseed = {seed}\ntasks = 20\n\n[system]\nskip_first = 0\nskip_last = 0\n\n[mapper]\nname = \"{heuristic}\"\n"
        )
    };
    std::fs::write(d.join("a.toml"), small(19000, 3, "PAM")).unwrap();
    std::fs::write(d.join("b.toml"), small(34000, 2, "MM")).unwrap();
    let run = |file: &str, extra: &[&str]| {
        let mut v = vec!["run", file, "--no-bound", "--jobs", "1", "--out", "r"];
        v.extend_from_slice(extra);
        v.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    ok(&prunesim(&strs(&run("a.toml", &[])), d));
    let first = tree(&d.join("r"));
    for (file, extra, differ) in [
        (
            "b.toml",
            vec![],
            "they differ in seed, workload.pet_seed, workload.rate, workload.seed, mapper.name, 6 more",
        ),
        (
            "a.toml",
            vec!["--seed", "42"],
            "they differ in seed, workload.pet_seed, workload.seed, pet)",
        ),
    ] {
        refused(
            &strs(&run(file, &extra)),
            d,
            &[
                "another configuration",
                "experiment \"same\"",
                differ,
                "--force",
            ],
        );
        assert_eq!(tree(&d.join("r")), first);
    }
    std::fs::write(
        d.join("a.toml"),
        small(19000, 3, "PAM").replace("tasks = 20", "tasks = 21"),
    )
    .unwrap();
    refused(&strs(&run("a.toml", &[])), d, &["another configuration"]);
    assert_eq!(tree(&d.join("r")), first);
    std::fs::write(d.join("a.toml"), small(19000, 3, "PAM")).unwrap();
    ok(&prunesim(&strs(&run("a.toml", &[])), d));
    assert_eq!(
        summary(&d.join("r")),
        String::from_utf8(first[Path::new("summary.json")].clone()).unwrap()
    );
    ok(&prunesim(&strs(&run("b.toml", &["--force"])), d));
    assert!(
        summary(&d.join("r")).contains("\"MM\""),
        "{}",
        summary(&d.join("r"))
    );
}

/// The staging folders (`.prunesim-<random>.run`) in `dir`.
fn staging_folders(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && p.to_string_lossy().ends_with(".run"))
        .collect()
}

/// A run stopped part-way (SIGINT, SIGKILL) leaves its folder as it was: an interrupted traced
/// run left seed-99 traces beside a seed-3 summary, and `report` drew them. While a run
/// writes a folder, a second process writing it is refused. A folder whose manifest says the
/// run did not finish is refused by `report` and `rerun`, naming why.
#[test]
fn an_interrupted_run_leaves_the_folder_as_it_was_and_a_busy_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let f = experiment(d, "small.toml", "small");
    let seed3 = [
        "run",
        &f,
        "--seed",
        "3",
        "--no-bound",
        "--jobs",
        "1",
        "--out",
        "r",
    ];
    ok(&prunesim(&seed3, d));
    ok(&prunesim(&["report", "r"], d));
    let before = tree(&d.join("r"));
    std::fs::write(
        d.join("long.toml"),
        "name = \"long\"\n[workload]\nrate = 34000\nhorizon = 100000000\nseed = 1\ntasks = 1000000\n\n[mapper]\nname = \"PAM\"\n",
    )
    .unwrap();
    for signal in ["-INT", "-KILL"] {
        let left = staging_folders(&d.join("r"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_prunesim"))
            .args([
                "run",
                "long.toml",
                "--seed",
                "99",
                "--trace",
                "--no-bound",
                "--trials",
                "1",
                "--jobs",
                "1",
                "--out",
                "r",
                "--force",
            ])
            .current_dir(d)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Until the run writes its traces in a staging folder of its own.
        let started = Instant::now();
        loop {
            let staging = staging_folders(&d.join("r"));
            if staging
                .iter()
                .any(|s| !left.contains(s) && s.join("trace").is_dir())
            {
                break;
            }
            assert!(
                child.try_wait().unwrap().is_none(),
                "the long run ended first: {:?}",
                child.wait_with_output().map(|o| stderr(&o))
            );
            assert!(started.elapsed() < Duration::from_secs(60), "never staged");
            std::thread::sleep(Duration::from_millis(5));
        }
        refused(
            &["run", &f, "--seed", "3", "--no-bound", "--out", "r"],
            d,
            &["another prunesim process is writing this folder"],
        );
        std::thread::sleep(Duration::from_millis(100));
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        assert!(
            !out.status.success(),
            "the long run finished: {}",
            stderr(&out)
        );
        // The folder as it was, but for the killed run's staging folder.
        let mut now = tree(&d.join("r"));
        now.retain(|p, _| !p.to_string_lossy().starts_with(".prunesim-"));
        assert!(
            now == before,
            "after {signal}: {:?}, before {:?}",
            now.keys(),
            before.keys()
        );
        ok(&prunesim(&["report", "r"], d));
    }
    // The next run into the folder removes what the killed runs left.
    ok(&prunesim(&seed3, d));
    assert!(staging_folders(&d.join("r")).is_empty());
    assert!(
        tree(&d.join("r"))
            .keys()
            .all(|p| !p.to_string_lossy().contains(".prunesim-")),
        "{:?}",
        tree(&d.join("r")).keys()
    );
    assert!(trace_files(&d.join("r")).is_empty());
    // A run killed while its files were moved into place leaves its manifest saying so.
    let manifest = d.join("r/manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\"complete\": true"), "{text}");
    std::fs::write(
        &manifest,
        text.replace("\"complete\": true", "\"complete\": false"),
    )
    .unwrap();
    for cmd in [vec!["report", "r"], vec!["rerun", "r"]] {
        refused(&cmd, d, &["did not finish", "complete = false"]);
    }
    ok(&prunesim(&seed3, d));
    ok(&prunesim(&["report", "r"], d));
}
