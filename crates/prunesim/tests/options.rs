//! Every option means what it says, and every result says what it is: the command line as a
//! user drives it, one test per option that was once silently ignored or changed other
//! settings, and the outputs that describe a run (title, names, pruner, machines, manifest).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn prunesim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(args)
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .env_remove("NO_COLOR")
        .output()
        .expect("the prunesim binary runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn failed(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "expected a failure: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&ok(out)).expect("the summary is JSON")
}

/// A small experiment (300 tasks at 34k, 50 + 50 uncounted) with `extra` TOML appended.
fn experiment(dir: &Path, name: &str, mapper: &str, extra: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "[workload]\nrate = 34000\nseed = 5\ntasks = 300\n\
             [system]\nskip_first = 50\nskip_last = 50\n{extra}\n[mapper]\n{mapper}\n"
        ),
    )
    .unwrap();
    path
}

fn metric(v: &Value, name: &str) -> f64 {
    v["metrics"][name]["mean"].as_f64().unwrap()
}

#[test]
fn heuristic_option_changes_the_name_and_keeps_the_mapper_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // phase1 = "free_machines" with MM in the file, then --heuristic MSD ...
    let mm = experiment(
        d,
        "mm.toml",
        "name = \"MM\"\nphase1 = \"free_machines\"",
        "",
    );
    let via_flag = json(&prunesim(
        &[
            "run",
            mm.to_str().unwrap(),
            "--heuristic",
            "MSD",
            "--json",
            "--trials",
            "2",
            "--no-bound",
        ],
        d,
    ));
    // ... is MSD named in the file with the same table.
    let msd = experiment(
        d,
        "msd.toml",
        "name = \"MSD\"\nphase1 = \"free_machines\"",
        "",
    );
    let in_file = json(&prunesim(
        &[
            "run",
            msd.to_str().unwrap(),
            "--json",
            "--trials",
            "2",
            "--no-bound",
        ],
        d,
    ));
    assert_eq!(via_flag["metrics"], in_file["metrics"]);
    assert_eq!(via_flag["mapper"]["phase1"], "free_machines");
    // A kept key that does not apply to the new heuristic is an error naming it.
    let moc = experiment(d, "moc.toml", "name = \"MOC\"\nalpha = 0.3", "");
    let err = failed(&prunesim(
        &[
            "run",
            moc.to_str().unwrap(),
            "--heuristic",
            "MM",
            "--trials",
            "1",
        ],
        d,
    ));
    assert!(
        err.contains("alpha") && err.contains("MM") && err.contains("--heuristic MM"),
        "{err}"
    );
}

#[test]
fn mapper_options_that_do_not_apply_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (mapper, field) in [
        ("name = \"MM\"\nk = 0.5", "k"),
        ("name = \"PAM\"\nalpha = 0.3", "alpha"),
        ("name = \"MCT\"\nphase1 = \"free_machines\"", "phase1"),
        ("name = \"KPB\"\nepsilon = 0.1", "epsilon"),
    ] {
        let f = experiment(d, "e.toml", mapper, "");
        let err = failed(&prunesim(&["run", f.to_str().unwrap(), "--trials", "1"], d));
        assert!(
            err.contains(&format!("[mapper] {field} does not apply")),
            "{err}"
        );
    }
    // A queue-size limit with an immediate-mode heuristic.
    let f = experiment(d, "e.toml", "name = \"MCT\"", "queue_size = 4\n");
    let err = failed(&prunesim(&["run", f.to_str().unwrap(), "--trials", "1"], d));
    assert!(
        err.contains("system.queue_size = 4 does not apply to MCT"),
        "{err}"
    );
    // "unbounded" is what immediate mode does, so it may be written.
    let f = experiment(
        d,
        "e.toml",
        "name = \"MCT\"",
        "queue_size = \"unbounded\"\n",
    );
    ok(&prunesim(
        &["run", f.to_str().unwrap(), "--trials", "1", "--no-bound"],
        d,
    ));
}

#[test]
fn immediate_heuristics_defer_into_a_pool_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |name: &str| {
        let f = experiment(d, "e.toml", &format!("name = \"{name}\""), "");
        json(&prunesim(
            &[
                "run",
                f.to_str().unwrap(),
                "--json",
                "--trials",
                "2",
                "--no-bound",
            ],
            d,
        ))
    };
    let (mct, d_, drop, p) = (run("MCT"), run("MCT-D"), run("MCT-Drop"), run("MCT-P"));
    assert_eq!(metric(&mct, "deferrals"), 0.0);
    assert!(metric(&d_, "deferrals") > 0.0, "MCT-D never deferred");
    assert_eq!(metric(&drop, "deferrals"), 0.0);
    assert!(metric(&p, "deferrals") > 0.0, "MCT-P never deferred");
    // MCT-P is not MCT-Drop any more.
    assert_ne!(p["metrics"], drop["metrics"]);
    assert_eq!(p["heuristic"], "MCT-P");
    assert_eq!(p["mapper"]["name"], "MCT");
}

#[test]
fn a_partial_pruner_table_turns_on_only_what_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = experiment(
        d,
        "e.toml",
        "name = \"MM\"",
        "[pruner]\ndrop_threshold = 0.5\n",
    );
    let s = json(&prunesim(
        &[
            "run",
            f.to_str().unwrap(),
            "--json",
            "--trials",
            "2",
            "--no-bound",
        ],
        d,
    ));
    let p = &s["pruner"];
    assert_eq!(p["drop_threshold"], 0.5);
    assert_eq!(p["defer_threshold"], "off");
    assert_eq!(p["toggle"], 0.0);
    assert_eq!(p["lambda"], 1.0);
    assert_eq!(p["schmitt"], false);
    assert_eq!(
        metric(&s, "deferrals"),
        0.0,
        "deferring is off unless the table says so"
    );
    assert_eq!(s["heuristic"], "MM");
    // A preset, overridden key by key.
    let f = experiment(
        d,
        "e.toml",
        "name = \"PAM\"",
        "[pruner]\npreset = \"paper\"\ndrop_threshold = 0.25\n",
    );
    let s = json(&prunesim(
        &[
            "run",
            f.to_str().unwrap(),
            "--json",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
    ));
    assert_eq!(s["pruner"]["drop_threshold"], 0.25);
    assert_eq!(s["pruner"]["defer_threshold"], 0.9);
    assert_eq!(s["pruner"]["schmitt"], true);
    // The table prints the resolved pruner.
    let out = ok(&prunesim(
        &["run", f.to_str().unwrap(), "--trials", "1", "--no-bound"],
        d,
    ));
    assert!(
        out.contains("pruner     drop at <= 0.25, toggle 1, lambda 0.9, Schmitt trigger"),
        "{out}"
    );
    // A toggle without dropping would gate nothing.
    let f = experiment(d, "e.toml", "name = \"PAM\"", "[pruner]\ntoggle = 2\n");
    let err = failed(&prunesim(&["run", f.to_str().unwrap(), "--trials", "1"], d));
    assert!(err.contains("'toggle' has no effect"), "{err}");
}

#[test]
fn the_seed_option_is_the_seed_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let five = experiment(d, "five.toml", "name = \"MM\"", "");
    let nine = std::fs::read_to_string(&five)
        .unwrap()
        .replace("seed = 5", "seed = 9");
    std::fs::write(d.join("nine.toml"), nine).unwrap();
    let via_flag = json(&prunesim(
        &[
            "run",
            five.to_str().unwrap(),
            "--seed",
            "9",
            "--json",
            "--trials",
            "2",
            "--no-bound",
        ],
        d,
    ));
    let in_file = json(&prunesim(
        &["run", "nine.toml", "--json", "--trials", "2", "--no-bound"],
        d,
    ));
    assert_eq!(via_flag["metrics"], in_file["metrics"]);
    assert_eq!(via_flag["pet"]["sha256"], in_file["pet"]["sha256"]);
    assert_eq!(via_flag["pet_seed"], 9);
    // A file without a seed takes the option's; without either, the error names the key.
    let unseeded = std::fs::read_to_string(&five)
        .unwrap()
        .replace("seed = 5\n", "");
    std::fs::write(d.join("unseeded.toml"), unseeded).unwrap();
    let filled = json(&prunesim(
        &[
            "run",
            "unseeded.toml",
            "--seed",
            "9",
            "--json",
            "--trials",
            "2",
            "--no-bound",
        ],
        d,
    ));
    assert_eq!(filled["metrics"], in_file["metrics"]);
    assert_eq!(filled["seed"], 9);
    let err = failed(&prunesim(&["run", "unseeded.toml", "--trials", "1"], d));
    assert!(
        err.contains("unseeded.toml:")
            && err.contains(
                ": [workload] seed is missing: give it in the file, or as `prunesim run --seed N`"
            ),
        "{err}"
    );
}

#[test]
fn drawn_machines_are_printed_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = experiment(d, "e.toml", "name = \"MM\"", "");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("tasks = 300", "tasks = 300\nmachines = 20");
    std::fs::write(&f, text).unwrap();
    let out = ok(&prunesim(
        &["run", "e.toml", "--trials", "1", "--no-bound", "--out", "o"],
        d,
    ));
    assert!(
        out.contains("20 machines (") && out.contains("drawn with pet_seed 5"),
        "{out}"
    );
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("o/summary.json")).unwrap()).unwrap();
    let copies: u64 = s["pet"]["machine_origins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["copies"].as_u64().unwrap())
        .sum();
    assert_eq!(copies, 20);
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("o/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["machines"].as_array().unwrap().len(), 20);
}

#[test]
fn variant_names_survive_into_the_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["MM-P", "PAMF", "MOCA"] {
        let s = json(&prunesim(
            &[
                "run",
                "--trials",
                "1",
                "--json",
                "--no-bound",
                "--heuristic",
                name,
            ],
            d,
        ));
        assert_eq!(s["heuristic"], name);
        assert_eq!(
            s["experiment"],
            format!("built-in experiment with --heuristic {name}")
        );
    }
    let s = json(&prunesim(
        &[
            "run",
            "--trials",
            "1",
            "--json",
            "--no-bound",
            "--heuristic",
            "MOCA",
        ],
        d,
    ));
    assert_eq!(s["mapper"]["name"], "MOC");
    assert_eq!(
        s["mapper"]["alpha"], 0.5,
        "MOCA culls at the drop threshold"
    );
    let s = json(&prunesim(
        &[
            "run",
            "--trials",
            "1",
            "--json",
            "--no-bound",
            "--heuristic",
            "PAMF",
        ],
        d,
    ));
    assert_eq!(s["pruner"]["fairness"], 0.05);
    // The built-in title only when the built-in experiment runs as it is.
    let s = json(&prunesim(
        &[
            "run",
            "--trials",
            "1",
            "--json",
            "--no-bound",
            "--seed",
            "3",
        ],
        d,
    ));
    assert_eq!(s["experiment"], "paper headline: PAM at 34k");
    // A file without a name is titled by its file name.
    experiment(d, "my-study.toml", "name = \"MM\"", "");
    let s = json(&prunesim(
        &[
            "run",
            "my-study.toml",
            "--trials",
            "1",
            "--json",
            "--no-bound",
        ],
        d,
    ));
    assert_eq!(s["experiment"], "my-study");
}

#[test]
fn zero_work_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let err = failed(&prunesim(&["run", "--trials", "0"], d));
    assert!(err.contains("0 trials"), "{err}");
    std::fs::create_dir(d.join("empty")).unwrap();
    let err = failed(&prunesim(&["run", "--workload", "empty"], d));
    assert!(err.contains("no file matches"), "{err}");
    let err = failed(&prunesim(&["run", "--workload", "nothing_*.dat"], d));
    assert!(err.contains("no file matches"), "{err}");
    let f = experiment(d, "e.toml", "name = \"MM\"", "");
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("skip_first = 50", "skip_first = 250");
    std::fs::write(&f, text).unwrap();
    let err = failed(&prunesim(&["run", "e.toml", "--trials", "1"], d));
    assert!(err.contains("leaves none to count"), "{err}");
}

#[test]
fn one_trial_has_no_interval_and_intervals_stay_in_range() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = json(&prunesim(
        &["run", "--trials", "1", "--json", "--no-bound"],
        d,
    ));
    assert!(s["metrics"]["robustness"]["ci95_low"].is_null());
    let out = ok(&prunesim(&["run", "--trials", "1", "--no-bound"], d));
    assert!(out.contains("n/a (one trial)"), "{out}");
    // Counts read as counts.
    assert!(
        out.lines()
            .any(|l| l.starts_with("counted") && l.contains(" 600 ")),
        "{out}"
    );
    let s = json(&prunesim(
        &["run", "--trials", "3", "--json", "--no-bound"],
        d,
    ));
    for (name, e) in s["metrics"].as_object().unwrap() {
        let lo = e["ci95_low"].as_f64().unwrap_or(0.0);
        assert!(lo >= 0.0, "{name}: {lo}");
        if name == "robustness" {
            assert!(e["ci95_high"].as_f64().unwrap() <= 100.0);
        }
        assert!(
            s["metrics_doc"][name]["definition"].is_string(),
            "{name} has no definition"
        );
    }
}

#[test]
fn a_samples_csv_is_a_pet_with_its_bin_convention() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut csv = String::from("task_type,machine,execution_time\n");
    for t in 0..2 {
        for m in 0..2 {
            for k in 0..20 {
                csv.push_str(&format!("{t},{m},{}\n", 20 + 5 * t + 7 * m + k % 9));
            }
        }
    }
    std::fs::write(d.join("times.csv"), csv).unwrap();
    let f = experiment(d, "e.toml", "name = \"MM\"", "");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "e.toml",
            "--pet",
            "times.csv",
            "--json",
            "--trials",
            "1",
            "--no-bound",
        ];
        args.extend_from_slice(extra);
        json(&prunesim(&args, d))
    };
    // Without --bin-width, each pair's width is automatic: its times span 8 ticks, so 1 tick,
    // the same PET as --bin-width 1; --tick 0.5 reads the times as twice as many ticks.
    let auto = run(&[]);
    assert_eq!(
        auto["pet"]["sha256"],
        run(&["--bin-width", "1"])["pet"]["sha256"]
    );
    let half = run(&["--tick", "0.5"]);
    assert_ne!(auto["pet"]["sha256"], half["pet"]["sha256"]);
    assert!(half["experiment"].as_str().unwrap().contains("--tick 0.5"));
    let err = failed(&prunesim(
        &["run", "e.toml", "--pet", "times.csv", "--tick", "0"],
        d,
    ));
    assert!(err.contains("--tick") && err.contains("positive"), "{err}");
    let upper = json(&prunesim(
        &[
            "run",
            f.to_str().unwrap(),
            "--pet",
            "times.csv",
            "--bin-width",
            "4",
            "--json",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
    ));
    let centre = json(&prunesim(
        &[
            "run",
            "e.toml",
            "--pet",
            "times.csv",
            "--bin-width",
            "4",
            "--bin-value",
            "centre",
            "--json",
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
    ));
    assert_eq!(upper["pet"]["machines"], 2);
    assert_eq!(upper["pet"]["task_types"], 2);
    assert_ne!(upper["pet"]["sha256"], centre["pet"]["sha256"]);
    assert!(
        upper["experiment"]
            .as_str()
            .unwrap()
            .contains("--pet times.csv")
    );
}

/// The `times.csv` of the own-system tutorial, as the guide gives it.
fn tutorial_times_csv() -> String {
    let md = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/src/tutorials/own-system.md"),
    )
    .unwrap();
    let start = md
        .find("```csv file=times.csv\n")
        .expect("the tutorial's CSV");
    let body = &md[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_owned()
}

#[test]
fn only_times_that_look_like_seconds_read_as_ticks_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d, "e.toml", "name = \"MM\"", "");
    std::fs::write(d.join("ms.csv"), tutorial_times_csv()).unwrap();
    let mut seconds = String::from("task_type,machine,execution_time\n");
    for t in 0..2 {
        for m in 0..2 {
            for k in 0..10 {
                let x = 0.2 + 0.15 * f64::from(t + m) + 0.1 * f64::from(k);
                seconds.push_str(&format!("{t},{m},{x:.2}\n"));
            }
        }
    }
    std::fs::write(d.join("s.csv"), seconds).unwrap();
    let warnings = |pet: &str, extra: &[&str]| {
        let mut args = vec!["run", "e.toml", "--pet", pet, "--trials", "1", "--no-bound"];
        args.extend_from_slice(extra);
        let out = prunesim(&args, d);
        ok(&out);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The tutorial's milliseconds with fractions are many ticks each: no warning.
    let ms = warnings("ms.csv", &[]);
    assert!(!ms.contains("Times in seconds?"), "{ms}");
    // Fractions of a second read as ticks become 0, 1 or 2 ticks: the warning, whose advice
    // (a tick of 0.001) then silences it.
    let s = warnings("s.csv", &[]);
    assert!(s.contains("Times in seconds?"), "{s}");
    assert!(
        s.contains("0.001 reads seconds on a millisecond grid"),
        "{s}"
    );
    let fixed = warnings("s.csv", &["--tick", "0.001"]);
    assert!(!fixed.contains("Times in seconds?"), "{fixed}");
}

/// The offered load of a run's header line ("offered load L (...").
fn offered_load(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("workload"))
        .expect("a workload line");
    let after = &line[line.find("offered load ").expect(line) + "offered load ".len()..];
    after
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .expect(line)
}

#[test]
fn the_tick_changes_the_grid_not_the_load_and_a_collapsing_cell_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Three task types on three machines, times in seconds from 0.6 to 3.4: 40 samples each.
    let mut csv = String::from("task_type,machine,execution_time\n");
    let means = [[0.8, 2.5, 1.6], [3.0, 1.1, 2.0], [1.9, 1.4, 0.7]];
    for (t, row) in means.iter().enumerate() {
        for (m, mean) in row.iter().enumerate() {
            for k in 0..40 {
                let x = mean * (0.8 + 0.01 * f64::from(k));
                csv.push_str(&format!("{t},{m},{x:.3}\n"));
            }
        }
    }
    std::fs::write(d.join("s.csv"), csv).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--pet",
            "s.csv",
            "--unit",
            "s",
            "--heuristic",
            "MM",
            "--no-bound",
            "--json",
            "--trials",
            "6",
        ];
        args.extend_from_slice(extra);
        let json_out = prunesim(&args, d);
        ok(&json_out);
        args.retain(|a| *a != "--json");
        let table = prunesim(&args, d);
        let stdout = ok(&table);
        (metric(&json(&json_out), "robustness"), stdout)
    };
    // A hundredfold finer grid: the same load, the same result within the noise.
    let mut loads = Vec::new();
    let mut results = Vec::new();
    for tick in ["0.01", "0.001"] {
        for load in [&["--load", "0.7"][..], &["--load", "1.5"][..]] {
            let mut extra = vec!["--tick", tick];
            extra.extend_from_slice(load);
            let (robustness, stdout) = run(&extra);
            assert!(stdout.contains("tasks per s"), "{stdout}");
            loads.push(offered_load(&stdout));
            results.push(robustness);
        }
    }
    assert_eq!(&loads[..2], &[0.7, 1.5]);
    assert_eq!(&loads[2..], &[0.7, 1.5]);
    for i in 0..2 {
        assert!(
            (results[i] - results[i + 2]).abs() < 3.0,
            "ticks of 0.01 and 0.001 s: {results:?}"
        );
    }
    // Underloaded nearly everything is on time; overloaded at most about 1 / 1.5.
    assert!(results[0] > 90.0 && results[1] < 75.0, "{results:?}");
    // The paper's rate label, whatever the tick, is the same load too.
    let (_, coarse) = run(&["--tick", "0.01"]);
    let (_, fine) = run(&["--tick", "0.001"]);
    assert!(
        (offered_load(&coarse) - offered_load(&fine)).abs() < 0.01,
        "{coarse}\n{fine}"
    );

    // One cell of sub-second times among long ones, on a grid of whole seconds: named, with
    // the tick that keeps it.
    let mut one = String::from("task_type,machine,execution_time\n");
    for (t, m, mean) in [
        ("a", "x", 0.85),
        ("a", "y", 120.0),
        ("b", "x", 110.0),
        ("b", "y", 130.0),
    ] {
        for k in 0..30 {
            let x = mean * (0.7 + 0.02 * f64::from(k));
            one.push_str(&format!("{t},{m},{x:.3}\n"));
        }
    }
    std::fs::write(d.join("one.csv"), one).unwrap();
    let out = prunesim(
        &["run", "--pet", "one.csv", "--trials", "1", "--no-bound"],
        d,
    );
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(a, x): measured mean"), "{stderr}");
    assert!(stderr.contains("--tick to 0.005"), "{stderr}");
    assert!(!stderr.contains("(a, y)"), "{stderr}");
    let fixed = prunesim(
        &[
            "run",
            "--pet",
            "one.csv",
            "--trials",
            "1",
            "--no-bound",
            "--tick",
            "0.005",
        ],
        d,
    );
    ok(&fixed);
    let stderr = String::from_utf8_lossy(&fixed.stderr);
    assert!(!stderr.contains("measured mean"), "{stderr}");
    // `--tick auto` chooses that tick (a hundredth of the shortest cell's mean, 0.85 s,
    // rounded down to 0.005), the header and the run folder say it, and no cell collapses.
    let auto = prunesim(
        &[
            "run",
            "--pet",
            "one.csv",
            "--trials",
            "1",
            "--no-bound",
            "--tick",
            "auto",
            "--out",
            "o",
        ],
        d,
    );
    let stdout = ok(&auto);
    assert!(stdout.contains("; tick 0.005 time units"), "{stdout}");
    assert!(!String::from_utf8_lossy(&auto.stderr).contains("measured mean"));
    let kept = std::fs::read_to_string(d.join("o/experiment.toml")).unwrap();
    assert!(kept.contains("tick = 0.005"), "{kept}");
    // Only a samples CSV's times choose a tick.
    let e = failed(&prunesim(&["run", "--trials", "1", "--tick", "auto"], d));
    assert!(
        e.contains("--tick auto chooses the tick from a samples CSV"),
        "{e}"
    );
    let e = failed(&prunesim(&["run", "--trials", "1", "--tick=-1"], d));
    assert!(e.contains("a positive length or `auto`"), "{e}");
}

#[test]
fn tasks_beyond_the_horizon_are_capped_visibly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 300 tasks at 34k arrive well within the horizon: no warning, 300 tasks a trial.
    experiment(d, "e.toml", "name = \"MM\"", "");
    let args = ["--trials", "2", "--no-bound"];
    let out = prunesim(&[&["run", "e.toml"][..], &args].concat(), d);
    assert!(ok(&out).contains("  trials     2 of 300 tasks (seed 5"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("workload.tasks"), "{stderr}");
    // At rate 600 about 600 tasks arrive over the horizon, not the 5000 asked: the warning
    // says how many each trial simulates, and the table and the summary say so too.
    let text = std::fs::read_to_string(d.join("e.toml"))
        .unwrap()
        .replace("rate = 34000", "rate = 600")
        .replace("tasks = 300", "tasks = 5000");
    std::fs::write(d.join("few.toml"), text).unwrap();
    let summary = json(&prunesim(
        &[&["run", "few.toml", "--json"][..], &args].concat(),
        d,
    ));
    let (fewest, most) = (
        summary["tasks_per_trial"]["fewest"].as_u64().unwrap(),
        summary["tasks_per_trial"]["most"].as_u64().unwrap(),
    );
    assert!(300 < fewest && fewest < most && most < 1000, "{summary}");
    let out = prunesim(&[&["run", "few.toml"][..], &args].concat(), d);
    assert!(
        ok(&out).contains(&format!(
            "  trials     2 of {fewest} to {most} tasks (seed 5"
        )),
        "{}",
        ok(&out)
    );
    assert!(
        ok(&out).contains(&format!(
            "{fewest} to {most} tasks per trial (workload.tasks = 5000 capped: the horizon ends first)"
        )),
        "{}",
        ok(&out)
    );
    assert_eq!(summary["workload"]["tasks"], 5000);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "workload.tasks = 5000, but {fewest} to {most} tasks arrive within the horizon"
        )),
        "{stderr}"
    );
}

/// Two runs that differ only in what the scheduler believed have different headers and
/// summaries: the workload, the belief, the drift and the program are stated.
#[test]
fn the_header_and_summary_state_the_whole_experiment() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    experiment(d, "e.toml", "name = \"PAM\"", "");
    let base = std::fs::read_to_string(d.join("e.toml")).unwrap();
    let learned = format!(
        "{base}\n[belief]\nsource = \"learned\"\nprior = \"scaled\"\nscale = 0.5\n\n[[drift]]\nat_task = 100\nmachine = 1\nscale = 2.0\n"
    );
    let fixed = format!("{base}\n[belief]\nsource = \"fixed\"\nprior = \"scaled\"\nscale = 0.5\n");
    std::fs::write(d.join("learned.toml"), learned).unwrap();
    std::fs::write(d.join("fixed.toml"), fixed).unwrap();
    let args = ["--trials", "1", "--no-bound"];
    let header = |file: &str| {
        let out = prunesim(&[&["run", file][..], &args].concat(), d);
        ok(&out)
            .lines()
            .take_while(|l| !l.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let (l, f) = (header("learned.toml"), header("fixed.toml"));
    let line = |h: &[String], key: &str| {
        h.iter()
            .find(|l| l.starts_with(&format!("  {key:<10} ")))
            .cloned()
            .unwrap_or_else(|| panic!("no {key} line in {h:#?}"))
    };
    assert!(
        line(&l, "belief").contains("source = \"learned\""),
        "{l:#?}"
    );
    assert!(line(&f, "belief").contains("source = \"fixed\""), "{f:#?}");
    assert!(
        line(&l, "drift").contains("1 change: { at_task = 100"),
        "{l:#?}"
    );
    assert!(!f.iter().any(|x| x.starts_with("  drift")), "{f:#?}");
    assert!(
        line(&l, "workload").contains("offered load 3.24 (0.3855 tasks per time unit")
            && line(&l, "workload").contains("rate 34000 per 88200 time units"),
        "{l:#?}"
    );
    assert!(
        line(&l, "program").contains(env!("CARGO_PKG_VERSION")),
        "{l:#?}"
    );
    let summary = json(&prunesim(
        &[&["run", "learned.toml", "--json"][..], &args].concat(),
        d,
    ));
    assert_eq!(summary["belief"]["source"], "learned");
    assert_eq!(summary["drift"][0]["at_task"], 100);
    assert_eq!(summary["workload"]["rate"], 34000.0);
    assert_eq!(summary["workload"]["seed"], 5);
    assert_eq!(summary["version"], env!("CARGO_PKG_VERSION"));
    assert!(summary["git_revision"].is_string());
    let fixed = json(&prunesim(
        &[&["run", "fixed.toml", "--json"][..], &args].concat(),
        d,
    ));
    assert!(fixed.get("drift").is_none(), "{fixed}");
}

#[test]
fn dat_repairs_are_reported_without_logging() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args([
            "run",
            "valid_small.toml",
            "--workload",
            "repaired_dat_truncated_first_arrival.dat",
            "--no-bound",
        ])
        .current_dir(&corpus)
        .env("RUST_LOG", "off")
        .output()
        .unwrap();
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 had arrivals repaired (1 arrivals"),
        "{stderr}"
    );
}

#[test]
fn errors_carry_no_terminal_control_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An escape sequence, a bell and a NUL in a field that the error message quotes.
    std::fs::write(
        d.join("bad.dat"),
        "taskCount=2;\n1 0 300;\n2 \u{1b}[31m0\u{7}\0 400;\n",
    )
    .unwrap();
    let out = prunesim(&["run", "--workload", "bad.dat"], d);
    let err = failed(&out);
    assert!(
        err.contains("bad.dat:3") && err.contains("task_type"),
        "{err}"
    );
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{7}') && !err.contains('\0'),
        "{err:?}"
    );
    assert!(err.contains("\\u{1b}[31m0"), "{err:?}");
    // Logs on a non-terminal stderr have no colour codes (here the warning of times that
    // look like seconds read as ticks).
    std::fs::write(
        d.join("s.csv"),
        "task_type,machine,execution_time\na,m,0.2\na,m,0.4\na,n,0.3\na,n,1.5\n",
    )
    .unwrap();
    let out = prunesim(&["run", "--pet", "s.csv", "--trials", "1", "--no-bound"], d);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("WARN") && !stderr.contains('\u{1b}'),
        "{stderr:?}"
    );
}

#[test]
fn a_run_is_rerun_from_its_manifest_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    // Generated trials, a variant name and a seed override.
    ok(&prunesim(
        &[
            "run",
            "--trials",
            "2",
            "--heuristic",
            "MM-P",
            "--seed",
            "4",
            "--out",
            "a",
        ],
        d,
    ));
    let identical = "identical: every output file reproduced bit for bit\n";
    let rerun = prunesim(&["rerun", "a", "--out", "b"], d);
    ok(&rerun);
    assert!(
        String::from_utf8_lossy(&rerun.stderr).ends_with(identical),
        "{}",
        String::from_utf8_lossy(&rerun.stderr)
    );
    let a = std::fs::read(d.join("a/summary.json")).unwrap();
    let b = std::fs::read(d.join("b/summary.json")).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        std::fs::read(d.join("a/trials.csv")).unwrap(),
        std::fs::read(d.join("b/trials.csv")).unwrap()
    );
    // Without --out the rerun is compared all the same; a changed value is named.
    let rerun = prunesim(&["rerun", "b"], d);
    ok(&rerun);
    assert!(String::from_utf8_lossy(&rerun.stderr).ends_with(identical));
    let csv = std::fs::read_to_string(d.join("b/trials.csv")).unwrap();
    let (header, rows) = csv.split_once('\n').unwrap();
    let values = header.split(',').count() * 3;
    let tampered = rows.replacen("\n1,", "\n1,1", 1);
    assert_ne!(tampered, rows);
    std::fs::write(d.join("b/trials.csv"), format!("{header}\n{tampered}")).unwrap();
    let err = failed(&prunesim(&["rerun", "b"], d));
    assert!(
        err.contains(&format!(
            "not reproduced: trials.csv differs (1 of 3 rows, 1 of {values} values differ)"
        )),
        "{err}"
    );
    // Trials and a PET from files, rerun from another folder.
    let small = corpus.join("valid_small.toml");
    let dat = corpus.join("repaired_dat_truncated_first_arrival.dat");
    ok(&prunesim(
        &[
            "run",
            small.to_str().unwrap(),
            "--workload",
            dat.to_str().unwrap(),
            "--out",
            "c",
        ],
        d,
    ));
    let elsewhere = tempfile::tempdir().unwrap();
    ok(&prunesim(
        &[
            "rerun",
            d.join("c/manifest.json").to_str().unwrap(),
            "--out",
            "e",
        ],
        elsewhere.path(),
    ));
    assert_eq!(
        std::fs::read(d.join("c/summary.json")).unwrap(),
        std::fs::read(elsewhere.path().join("e/summary.json")).unwrap()
    );
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("a/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["version"], env!("CARGO_PKG_VERSION"));
    assert!(m["git_revision"].as_str().is_some_and(|r| !r.is_empty()));
    // The experiment as it ran is itself a runnable experiment.
    let s = json(&prunesim(&["run", "a/experiment.toml", "--json"], d));
    assert_eq!(
        s["metrics"],
        serde_json::from_slice::<Value>(&a).unwrap()["metrics"]
    );
    // A changed input file is refused.
    let copy = d.join("copy.dat");
    std::fs::copy(&dat, &copy).unwrap();
    ok(&prunesim(
        &[
            "run",
            small.to_str().unwrap(),
            "--workload",
            copy.to_str().unwrap(),
            "--out",
            "f",
        ],
        d,
    ));
    let mut text = std::fs::read_to_string(&copy).unwrap();
    text.push('\n');
    std::fs::write(&copy, text).unwrap();
    let err = failed(&prunesim(&["rerun", "f"], d));
    assert!(err.contains("changed since the run"), "{err}");
}

#[test]
fn the_optimum_is_bracketed_in_the_table_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = json(&prunesim(&["run", "--trials", "2", "--json"], d));
    let (lower, upper) = (
        s["optimum"]["lower"].as_f64().unwrap(),
        s["optimum"]["upper"].as_f64().unwrap(),
    );
    let robustness = s["robustness_mean"].as_f64().unwrap();
    assert!(
        robustness <= lower && lower <= upper && upper <= 100.0,
        "{s}"
    );
    assert_eq!(metric(&s, "optimum_lower"), lower);
    assert_eq!(metric(&s, "optimum_upper"), upper);
    let out = ok(&prunesim(&["run", "--trials", "2"], d));
    assert!(out.contains("the clairvoyant optimum is in ["), "{out}");
    let s = json(&prunesim(
        &["run", "--trials", "1", "--json", "--no-bound"],
        d,
    ));
    assert!(s.get("optimum").is_none());
}

#[test]
fn the_header_names_the_depth_auto_commits_to() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = |out: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with("heuristic"))
            .unwrap()
            .to_owned()
    };
    let default = experiment(d, "a.toml", "name = \"auto\"", "");
    let out = ok(&prunesim(
        &[
            "run",
            default.to_str().unwrap(),
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
    ));
    assert!(line(&out).contains("depth 2"), "{out}");
    let given = experiment(d, "b.toml", "name = \"auto\"\ndepth = 4", "");
    let out = ok(&prunesim(
        &[
            "run",
            given.to_str().unwrap(),
            "--trials",
            "1",
            "--no-bound",
        ],
        d,
    ));
    assert!(line(&out).contains("depth 4"), "{out}");
    // Other heuristics have no depth.
    let pam = experiment(d, "c.toml", "name = \"PAM\"", "");
    let out = ok(&prunesim(
        &["run", pam.to_str().unwrap(), "--trials", "1", "--no-bound"],
        d,
    ));
    assert!(!line(&out).contains("depth"), "{out}");
}

#[test]
fn the_default_run_prints_a_short_table_and_all_of_it_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let short = ok(&prunesim(
        &["run", "--trials", "2", "--no-bound"],
        dir.path(),
    ));
    let lines = short.lines().count();
    assert!(lines <= 30, "{lines} lines:\n{short}");
    // The headline's published value placed against the bracket, and where the rest is.
    assert!(
        short.contains("the paper reports about 70% on time here"),
        "{short}"
    );
    assert!(short.contains("--all, or `prunesim metrics`"), "{short}");
    assert!(
        !short.contains("\nmeasures:") && !short.contains("n_on_time"),
        "{short}"
    );
    let all = ok(&prunesim(
        &["run", "--trials", "2", "--no-bound", "--all"],
        dir.path(),
    ));
    for name in ["n_on_time", "mapping_events", "cost", "span", "\nmeasures:"] {
        assert!(all.contains(name), "--all lacks {name}:\n{all}");
    }
    // Another experiment than the built-in one has no headline line.
    let other = ok(&prunesim(
        &["run", "--trials", "2", "--no-bound", "--heuristic", "MM"],
        dir.path(),
    ));
    assert!(!other.contains("the paper reports"), "{other}");
}
