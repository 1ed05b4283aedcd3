//! Every figure file parses and validates; a smoke run of one figure writes its files.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `experiments/scale.toml` is `cargo xtask perf`'s scale study, not a figure.
fn is_scale_study(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "scale.toml")
}

#[test]
fn every_experiment_file_parses_and_validates() {
    let dir = root().join("experiments");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") && !is_scale_study(&path) {
            let spec = runner::FigureSpec::load(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                path.file_stem().unwrap().to_string_lossy(),
                spec.id,
                "file name and id differ"
            );
            let points = spec.points(Some(2)).unwrap();
            assert!(!points.is_empty(), "{} has no point", spec.id);
            n += 1;
        }
    }
    assert!(n >= 22, "only {n} figure files");
}

#[test]
fn a_smoke_run_writes_the_csv_the_trials_and_the_plots() {
    let out = std::env::temp_dir().join(format!("prunesim-smoke-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args([
            "reproduce-figure",
            "thesis-4.4",
            "--trials",
            "2",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let csv = std::fs::read_to_string(out.join("thesis-4.4.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), "x,series,mean,ci95_low,ci95_high,n");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(
        rows.len(),
        6,
        "one row per series, plus the two sides of the clairvoyant optimum"
    );
    assert!(rows[4].starts_with("19k,optimum_upper,"));
    assert!(rows[5].starts_with("19k,optimum_lower,"));
    let trials = std::fs::read_to_string(out.join("thesis-4.4.trials.csv")).unwrap();
    assert!(trials.starts_with("x,series,trial,metric,value"));
    assert_eq!(trials.lines().count(), 1 + 6 * 2);
    let svg = std::fs::read_to_string(out.join("thesis-4.4.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("PUM"));
    // The PNG (rendered on the background thread, waited for before the command returns)
    // decodes to the SVG's size, and the chart is drawn on it: not a blank white page.
    let png = std::fs::File::open(out.join("thesis-4.4.png")).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(png))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (960, 600));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let inked = pixels[..info.buffer_size()]
        .chunks_exact(4)
        .filter(|p| p[..3] != [255, 255, 255])
        .count();
    assert!(inked > 1_000, "{inked} non-white pixels");
    let manifest = std::fs::read_to_string(out.join("thesis-4.4.manifest.json")).unwrap();
    assert!(manifest.contains("git_revision") && manifest.contains("\"seed\": 404"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn a_killed_sweep_resumes_to_the_same_output() {
    let base = std::env::temp_dir().join(format!("prunesim-kill-{}", std::process::id()));
    let (killed, whole) = (base.join("killed"), base.join("whole"));
    let run = |out: &Path| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_xtask"));
        c.current_dir(root())
            .args([
                "reproduce-figure",
                "thesis-4.3",
                "--trials",
                "2",
                "--jobs",
                "1",
                "--out",
            ])
            .arg(out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        c
    };
    // Start a sweep and kill the process once some, but not all, points are saved.
    let mut child = run(&killed).spawn().unwrap();
    let points = killed.join("thesis-4.3.points");
    let saved = |dir: &Path| {
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
                    .count()
            })
            .unwrap_or(0)
    };
    let start = std::time::Instant::now();
    while saved(&points) < 2 && start.elapsed().as_secs() < 300 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let finished_early = child.try_wait().unwrap().is_some();
    child.kill().ok();
    child.wait().unwrap();
    let partial = saved(&points);
    assert!(partial >= 1, "no point was saved before the kill");
    assert!(!killed.join("thesis-4.3.csv").exists() || finished_early);
    // Resume, and run the whole sweep elsewhere without interruption.
    assert!(run(&killed).status().unwrap().success());
    assert!(run(&whole).status().unwrap().success());
    for f in ["thesis-4.3.csv", "thesis-4.3.trials.csv"] {
        let a = std::fs::read(killed.join(f)).unwrap();
        let b = std::fs::read(whole.join(f)).unwrap();
        assert_eq!(
            a, b,
            "{f} differs after resuming (killed with {partial} of 7 points saved)"
        );
    }
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn every_experiment_is_deterministic_across_threads_and_trial_order() {
    // 2 trials of 150 tasks for every series of every experiment: the same seed gives
    // bit-identical metrics whether the trials run on one thread, on two, or in reverse order.
    let dir = root().join("experiments");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") || is_scale_study(&path) {
            continue;
        }
        let spec = runner::FigureSpec::load(&path).unwrap();
        let mut seen = std::collections::HashSet::new();
        // Every series of every experiment, at its first x value.
        for point in spec.points(Some(2)).unwrap() {
            if !seen.insert(point.series_index) {
                continue;
            }
            let mut cfg = point.config.clone();
            cfg.workload.tasks = 150;
            cfg.system.skip_first = 25;
            cfg.system.skip_last = 25;
            let p = runner::Prepared::new(cfg, None, runner::TrialSource::Generated, Some(2), None)
                .unwrap();
            let metrics = |jobs| {
                let runs = p.run(runner::RunOptions::default().jobs(jobs)).unwrap();
                runs.into_iter().map(|r| r.metrics).collect::<Vec<_>>()
            };
            let (one, two) = (metrics(1), metrics(2));
            let mut rev: Vec<_> = (0..2).rev().map(|k| p.run_trial(k).unwrap().1).collect();
            rev.reverse();
            // Debug output compares floats bit for bit (and NaN equal to NaN).
            let (a, b, c) = (format!("{one:?}"), format!("{two:?}"), format!("{rev:?}"));
            let at = format!("{} {} x={}", spec.id, point.series, point.x_label);
            assert_eq!(a, b, "{at}: 1 vs 2 threads");
            assert_eq!(a, c, "{at}: trial order");
        }
    }
}

/// The clairvoyant bracket holds on the trials of every figure that draws it: its lower side
/// (a feasible schedule) is at most its upper side, and in the paper-7 setting no heuristic
/// beats the lower side on any trial. Two trials of 300 tasks per point, first and last 25 not
/// counted, at every x value.
#[test]
fn the_bracket_holds_on_every_figure_that_draws_it() {
    // The catalogue's figures, and the learning figures (a wrong or learned belief, a
    // drifting truth: the bracket reads the truth and its drift, never the belief).
    let dirs = [root().join("experiments"), root().join("experiments/learn")];
    let paths: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .collect();
    for path in paths {
        if path.extension().is_none_or(|e| e != "toml") || is_scale_study(&path) {
            continue;
        }
        let spec = runner::FigureSpec::load(&path).unwrap();
        if !spec.bound {
            continue;
        }
        let mut best_by_trial: std::collections::HashMap<(usize, usize), usize> =
            std::collections::HashMap::new();
        let mut lower_by_trial = std::collections::HashMap::new();
        for point in spec.points(Some(2)).unwrap() {
            let mut cfg = point.config.clone();
            cfg.workload.tasks = cfg.workload.tasks.min(300);
            // A drift keeps happening inside the shortened trial (learn-drift's task 2,000).
            for d in &mut cfg.drift {
                d.at_task = d.at_task.map(|k| k.min(150));
            }
            cfg.system.skip_first = 25;
            cfg.system.skip_last = 25;
            let mut p =
                runner::Prepared::new(cfg, None, runner::TrialSource::Generated, Some(2), None)
                    .unwrap();
            p.with_bound = true;
            let runs = p.run(runner::RunOptions::default()).unwrap();
            for (k, m) in runs.iter().map(|r| &r.metrics).enumerate() {
                let (lower, upper) = (m.lower_on_time.unwrap(), m.upper_on_time.unwrap());
                assert!(
                    lower <= upper,
                    "{} {} x={} trial {k}: L {lower} > U {upper}",
                    spec.id,
                    point.series,
                    point.x_label
                );
                assert!(
                    m.on_time <= upper,
                    "{} {}: above the bound",
                    spec.id,
                    point.series
                );
                let best = best_by_trial.entry((point.x_index, k)).or_default();
                *best = (*best).max(m.on_time);
                lower_by_trial.insert((point.x_index, k), lower);
            }
        }
        if spec.id == "paper-7" {
            for (key, best) in &best_by_trial {
                assert!(
                    lower_by_trial[key] >= *best,
                    "paper-7 at {key:?}: the best heuristic ({best}) beats the bracket's lower side, optimum_lower ({})",
                    lower_by_trial[key]
                );
            }
        }
    }
}

/// A point file that was cut, edited or is not a point file is never reused (its SHA-256
/// checksum line does not match, or is missing): the resumed sweep recomputes it (with a warning) and writes what a fresh run writes; stale
/// temporaries of a killed run are removed.
#[test]
fn a_truncated_or_edited_point_file_is_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .current_dir(root())
            .args([
                "reproduce-figure",
                "thesis-4.4",
                "--trials",
                "3",
                "--jobs",
                "2",
                "--out",
            ])
            .arg(out)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let fresh = std::fs::read(out.join("thesis-4.4.csv")).unwrap();
    let points = out.join("thesis-4.4.points");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&points)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 3);
    // Cut the trials of one file to two of three; change a value's key in another; write
    // garbage in a third. And leave a killed run's temporary behind.
    let cut = std::fs::read_to_string(&files[0]).unwrap();
    let first_trial_end = cut.find("[[trials]]").unwrap();
    let second = cut[first_trial_end + 1..].find("[[trials]]").unwrap() + first_trial_end + 1;
    let third = cut[second + 1..].find("[[trials]]").unwrap() + second + 1;
    std::fs::write(&files[0], &cut[..third]).unwrap();
    let edited = std::fs::read_to_string(&files[1])
        .unwrap()
        .replacen("seed", "sead", 1);
    std::fs::write(&files[1], edited).unwrap();
    std::fs::write(&files[2], "not a point file").unwrap();
    let stale = points.join(".prunesim-killed.tmp");
    std::fs::write(&stale, "half").unwrap();
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let o = run();
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    // The cut and the edited file fail their checksum; the garbage has none.
    assert_eq!(
        stderr.matches("does not match its checksum").count(),
        2,
        "{stderr}"
    );
    assert!(stderr.contains("has no checksum line"), "{stderr}");
    assert_eq!(std::fs::read(out.join("thesis-4.4.csv")).unwrap(), fresh);
    assert!(!stale.exists(), "the stale temporary is still there");
    let leftovers: Vec<_> = std::fs::read_dir(&points)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn extra_metrics_are_columns_of_the_csv_and_rows_of_the_trials() {
    let base = std::env::temp_dir().join(format!("prunesim-extra-{}", std::process::id()));
    let (dir, out) = (base.join("experiments"), base.join("out"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("extra.toml"),
        "id = \"extra\"\ntitle = \"t\"\nmetric = \"robustness\"\nlabel_metric = \"type_variance\"\n\
         extra_metrics = [\"type_variance\", \"worst_type_on_time\"]\ntrials = 2\nseed = 1\n\
         [base]\nworkload = { rate = 19000, seed = 0, tasks = 300 }\nmapper = { name = \"PAM\" }\n\
         [x]\nlabel = \"r\"\nvalues = [19000, 34000]\nlabels = [\"19k\", \"34k\"]\nset = [\"workload.rate\"]\n\
         [[series]]\nlabel = \"PAM\"\n[[series]]\nlabel = \"PAMF\"\nset = { \"mapper.name\" = \"PAMF\" }\n",
    )
    .unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args(["reproduce-figure", "extra", "--jobs", "2", "--experiments"])
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let csv = std::fs::read_to_string(out.join("extra.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "x,series,mean,ci95_low,ci95_high,n,type_variance,type_variance_ci95_low,type_variance_ci95_high,worst_type_on_time,worst_type_on_time_ci95_low,worst_type_on_time_ci95_high"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 4, "one row per rate and series");
    for row in &rows {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), 12, "{row}");
        assert!(cells[6..].iter().all(|c| c.parse::<f64>().is_ok()), "{row}");
    }
    // Each trial: robustness, type_variance (the label metric, once), worst_type_on_time.
    let trials = std::fs::read_to_string(out.join("extra.trials.csv")).unwrap();
    assert_eq!(trials.lines().count(), 1 + 4 * 2 * 3);
    assert!(trials.contains(",worst_type_on_time,"));
    std::fs::remove_dir_all(&base).ok();
}
