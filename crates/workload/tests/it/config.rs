//! The TOML workload description: defaults, every PET form, validation and error positions.

use workload::io::BinWidth;
use workload::{Pattern, PatternName, PetSource, WorkloadConfig, WorkloadError};

use crate::common::scratch;

const EXAMPLE: &str = r#"
[workload]
pet = "default"
pattern = "constant"
rate = 34000
tasks = 800
trials = 30
beta = 1.0
seed = 42
horizon = 88200
"#;

#[test]
fn the_documented_example_parses_with_its_values() {
    let c = WorkloadConfig::from_toml_str(EXAMPLE, "example.toml").expect("valid");
    assert_eq!(c.pet, PetSource::Default);
    assert_eq!(c.pattern, PatternName::Constant);
    assert_eq!(
        (c.rate, c.tasks, c.trials, c.beta, c.seed),
        (Some(34_000.0), 800, 30, 1.0, 42)
    );
    assert_eq!(c.horizon, 88_200.0);
    assert_eq!(c.pet_seed(), 42);
    let pet = c.pet().expect("the default PET");
    let spec = c.arrival_spec(&pet).unwrap();
    assert_eq!(spec.count_variance_ratio, 0.1);
    let trials = c.generate(&pet).unwrap();
    assert_eq!(trials.len(), 30);
    assert_eq!(trials[7], c.trial(&pet, 7).unwrap());
}

#[test]
fn defaults_fill_everything_but_rate_and_seed() {
    let c = WorkloadConfig::from_toml_str("[workload]\nrate = 19000\nseed = 1\n", "min.toml")
        .expect("valid");
    assert_eq!(
        (c.tasks, c.trials, c.beta, c.horizon),
        (800, 30, 1.0, 88_200.0)
    );
    assert_eq!(c.pet, PetSource::Default);
    assert!(matches!(
        WorkloadConfig::from_toml_str("[workload]\nrate = 1\n", "m.toml"),
        Err(WorkloadError::Toml { .. })
    ));
    let e = WorkloadConfig::from_toml_str("[workload]\nseed = 1\n", "m.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("workload.rate") && e.contains("load") && e.contains("none of them"),
        "{e}"
    );
}

#[test]
fn the_rate_is_given_one_way_with_its_unit() {
    let parse = |body: &str| {
        WorkloadConfig::from_toml_str(&format!("[workload]\nseed = 1\n{body}"), "r.toml")
            .map_err(|e| e.to_string())
    };
    let c = parse("load = 1.5\nunit = \"ms\"").unwrap();
    assert_eq!((c.rate, c.load, c.unit_name()), (None, Some(1.5), "ms"));
    assert_eq!(
        parse("arrival_rate = 0.2").unwrap().units_name(),
        "time units"
    );
    for (body, named) in [
        ("rate = 100\nload = 1", "rate and load"),
        ("load = 1\narrival_rate = 2", "load and arrival_rate"),
        ("load = 0", "workload.load"),
        ("load = -1", "workload.load"),
        ("arrival_rate = nan", "workload.arrival_rate"),
        ("load = 1\nunit = \"\"", "workload.unit"),
        ("load = 1\nunit = \"a\\u0007b\"", "workload.unit"),
    ] {
        let e = parse(body).unwrap_err();
        assert!(e.contains(named), "{body}: {e}");
    }
    // Written back as given: the rate's one key, the unit, nothing at its default.
    let c = parse("load = 1.25\nunit = \"s\"").unwrap();
    let back = toml::to_string(&c).unwrap();
    assert!(
        back.contains("load = 1.25") && back.contains("unit = \"s\""),
        "{back}"
    );
    assert!(!back.contains("rate") && !back.contains("burst"), "{back}");
    assert_eq!(
        WorkloadConfig::from_toml_str(&format!("[workload]\n{back}"), "b").unwrap(),
        c
    );
}

#[test]
fn every_pet_form_parses() {
    let cases = [
        ("\"default\"", PetSource::Default),
        ("\"homogeneous\"", PetSource::Homogeneous { machine: 0 }),
        ("{ homogeneous = 3 }", PetSource::Homogeneous { machine: 3 }),
        (
            "{ etc = \"x/classes_2.etc\" }",
            PetSource::Etc("x/classes_2.etc".into()),
        ),
        (
            "{ samples = \"times.csv\", bin_width = 4 }",
            PetSource::Samples {
                path: "times.csv".into(),
                bin_width: BinWidth::Ticks(4),
                bin_value: pmf::BinValue::Upper,
            },
        ),
        (
            "{ samples = \"times.csv\" }",
            PetSource::Samples {
                path: "times.csv".into(),
                bin_width: BinWidth::Auto,
                bin_value: pmf::BinValue::Upper,
            },
        ),
        (
            "{ samples = \"times.csv\", bin_width = \"auto\", bin_value = \"lower\" }",
            PetSource::Samples {
                path: "times.csv".into(),
                bin_width: BinWidth::Auto,
                bin_value: pmf::BinValue::Lower,
            },
        ),
        (
            "{ samples = \"times.csv\", bin_width = 4, bin_value = \"centre\" }",
            PetSource::Samples {
                path: "times.csv".into(),
                bin_width: BinWidth::Ticks(4),
                bin_value: pmf::BinValue::Centre,
            },
        ),
    ];
    for (text, expected) in cases {
        let doc = format!("[workload]\npet = {text}\nrate = 1000\nseed = 1\n");
        let c = WorkloadConfig::from_toml_str(&doc, "pet.toml")
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(c.pet, expected);
        // Serialising gives back the same configuration.
        let back = toml::to_string(&c).expect("serialises");
        let again: WorkloadConfig = toml::from_str(&back).expect("parses back");
        assert_eq!(again, c, "{back}");
    }
    let c = WorkloadConfig::from_toml_str(
        "[workload]\npet = { homogeneous = 2 }\nrate = 1000\nseed = 1\n",
        "h.toml",
    )
    .expect("valid");
    let pet = c.pet().expect("builds");
    assert_eq!(pet.pmf(3, 7), pet.pmf(3, 2));
}

#[test]
fn bursty_pattern_takes_the_burst_table() {
    let doc = "[workload]\npattern = \"bursty\"\nrate = 1000\nseed = 1\n\n[workload.burst]\nburst_factor = [2.0, 3.0]\n";
    let c = WorkloadConfig::from_toml_str(doc, "b.toml").expect("valid");
    match c.arrival_spec(&c.pet().unwrap()).unwrap().pattern {
        Pattern::Bursty(b) => {
            assert_eq!(b.burst_factor, [2.0, 3.0]);
            assert_eq!(b.baseline_duration, [180.0, 300.0]);
        }
        Pattern::Constant => panic!("expected bursty"),
    }
}

#[test]
fn bad_configurations_name_the_line_or_field() {
    let toml_errors = [
        (
            "unknown field",
            "[workload]\nrate = 1\nseed = 1\nrat = 5\n",
            4,
        ),
        (
            "unknown table",
            "[workload]\nrate = 1\nseed = 1\n[other]\n",
            0,
        ),
        ("wrong type", "[workload]\nrate = \"fast\"\nseed = 1\n", 2),
        ("negative seed", "[workload]\nrate = 1\nseed = -1\n", 3),
        (
            "unknown pet",
            "[workload]\npet = \"fancy\"\nrate = 1\nseed = 1\n",
            2,
        ),
        (
            "pet table typo",
            "[workload]\npet = { etcc = \"a\" }\nrate = 1\nseed = 1\n",
            2,
        ),
        (
            "samples with a width word",
            "[workload]\npet = { samples = \"a\", bin_width = \"fine\" }\nrate = 1\nseed = 1\n",
            2,
        ),
        (
            "zero bin width",
            "[workload]\npet = { samples = \"a\", bin_width = 0 }\nrate = 1\nseed = 1\n",
            2,
        ),
        (
            "unknown pattern",
            "[workload]\npattern = \"wavy\"\nrate = 1\nseed = 1\n",
            2,
        ),
        (
            "burst typo",
            "[workload]\nrate = 1\nseed = 1\n[workload.burst]\nburst_factr = [1.0, 2.0]\n",
            5,
        ),
        ("not toml", "[workload\n", 1),
    ];
    for (case, doc, line) in toml_errors {
        match WorkloadConfig::from_toml_str(doc, "bad.toml") {
            Err(e @ WorkloadError::Toml { .. }) => {
                eprintln!("{case}: {e}");
                if line > 0 {
                    assert_eq!(e.line(), Some(line), "{case}: {e}");
                }
            }
            other => panic!("{case}: expected a TOML error, got {other:?}"),
        }
    }
    let invalid = [
        ("rate = 0", "workload.rate"),
        ("rate = -5", "workload.rate"),
        ("rate = nan", "workload.rate"),
        ("rate = 1\ntasks = 0", "workload.tasks"),
        ("rate = 1\ntrials = 0", "workload.trials"),
        ("rate = 1\nbeta = -0.5", "workload.beta"),
        ("rate = 1\nbeta = inf", "workload.beta"),
        ("rate = 1\nhorizon = 0", "workload.horizon"),
        ("rate = 1\ntick = 0", "workload.tick"),
        ("rate = 1\ntick = -0.001", "workload.tick"),
        ("rate = 1\ntick = inf", "workload.tick"),
        (
            "rate = 1\ncount_variance_ratio = -1",
            "workload.count_variance_ratio",
        ),
        (
            "rate = 1\npattern = \"bursty\"\nburst = { burst_duration = [0.0, 10.0] }",
            "workload.burst.burst_duration",
        ),
    ];
    for (body, field) in invalid {
        let doc = format!("[workload]\nseed = 1\n{body}\n");
        match WorkloadConfig::from_toml_str(&doc, "bad.toml") {
            Err(e @ WorkloadError::InvalidConfig { .. }) => {
                eprintln!("{body}: {e}");
                assert_eq!(e.field_name(), Some(field), "{e}");
                assert!(e.to_string().starts_with("bad.toml: field"), "{e}");
            }
            other => panic!("{body}: expected InvalidConfig, got {other:?}"),
        }
    }
    // A homogeneous machine beyond the default PET is caught when the PET is built.
    let c = WorkloadConfig::from_toml_str(
        "[workload]\npet = { homogeneous = 8 }\nrate = 1\nseed = 1\n",
        "h.toml",
    )
    .expect("parses");
    assert!(matches!(c.pet(), Err(WorkloadError::InvalidConfig { .. })));
}

#[test]
fn load_resolves_relative_paths_against_the_config_folder() {
    let dir = scratch("load");
    let pet = workload::Pet::default_pet(1).select_machines(&[0, 1]);
    workload::io::write_etc(dir.join("two.etc"), &pet).expect("writes");
    std::fs::write(
        dir.join("w.toml"),
        "[workload]\npet = { etc = \"two.etc\" }\nrate = 1000\nseed = 3\n",
    )
    .expect("writes");
    let c = WorkloadConfig::load(dir.join("w.toml")).expect("loads");
    assert_eq!(c.pet, PetSource::Etc(dir.join("two.etc")));
    let read = c.pet().expect("reads the PET");
    assert_eq!(read.n_machines(), 2);
    // A missing file names itself.
    let err = WorkloadConfig::load(dir.join("absent.toml")).expect_err("absent");
    assert!(err.to_string().contains("absent.toml"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn machines_draws_copies_of_the_source_columns_from_the_pet_seed() {
    let with = |extra: &str| {
        WorkloadConfig::from_toml_str(
            &format!("[workload]\nrate = 34000\nseed = 7\n{extra}"),
            "m.toml",
        )
        .expect("valid")
    };
    let source = with("").pet().expect("the default PET");
    let big = with("machines = 1024\n").pet().expect("1,024 machines");
    assert_eq!((big.n_types(), big.n_machines()), (source.n_types(), 1024));
    // Every machine is a copy of a source machine, named after it (`m3`, `m3#1`, ...).
    let mut used = std::collections::BTreeSet::new();
    for (j, name) in big.machine_names().iter().enumerate() {
        let base = name.split('#').next().unwrap();
        let c = source
            .machine_names()
            .iter()
            .position(|n| n == base)
            .unwrap_or_else(|| panic!("machine {j} ({name}) is not a source machine"));
        used.insert(c);
        for t in 0..source.n_types() {
            assert_eq!(
                big.pmfs()[[t, j]],
                source.pmfs()[[t, c]],
                "machine {j}, type {t}"
            );
        }
    }
    assert_eq!(
        used.len(),
        source.n_machines(),
        "1,024 draws miss a machine"
    );
    // The draw depends on the seeds only: the same config gives the same machines, another
    // pet_seed others, and the trial seed alone changes nothing once pet_seed is fixed.
    let again = with("machines = 1024\n").pet().unwrap();
    assert_eq!(again.machine_names(), big.machine_names());
    let other = with("machines = 1024\npet_seed = 8\n").pet().unwrap();
    assert_ne!(other.machine_names(), big.machine_names());
    let fixed = |seed: u64| {
        WorkloadConfig::from_toml_str(
            &format!("[workload]\nrate = 1\nseed = {seed}\npet_seed = 3\nmachines = 5\n"),
            "m.toml",
        )
        .unwrap()
        .pet()
        .unwrap()
    };
    assert_eq!(fixed(1).machine_names(), fixed(2).machine_names());
    assert_eq!(fixed(1).n_machines(), 5);
}

#[test]
fn machines_zero_is_an_error_naming_the_field() {
    let e =
        WorkloadConfig::from_toml_str("[workload]\nrate = 1\nseed = 1\nmachines = 0\n", "z.toml")
            .expect_err("machines = 0 is invalid");
    assert_eq!(e.field_name(), Some("workload.machines"), "{e}");
    assert!(e.to_string().contains("workload.machines"), "{e}");
}

#[test]
fn without_machines_the_configuration_serialises_as_before() {
    let c =
        WorkloadConfig::from_toml_str("[workload]\nrate = 34000\nseed = 1\n", "a.toml").unwrap();
    assert_eq!(c.machines, None);
    assert!(!toml::to_string(&c).unwrap().contains("machines"));
    let m = WorkloadConfig::from_toml_str(
        "[workload]\nrate = 34000\nseed = 1\nmachines = 64\n",
        "b.toml",
    )
    .unwrap();
    let text = toml::to_string(&m).unwrap();
    assert!(text.contains("machines = 64"), "{text}");
    assert_eq!(toml::from_str::<WorkloadConfig>(&text).unwrap(), m);
}

#[test]
fn tick_auto_is_chosen_from_the_samples_once_their_path_is_known() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("task_type,machine,execution_time\n");
    for (t, m, x) in [
        ("a", "x", 0.8),
        ("a", "x", 0.9),
        ("a", "y", 120.0),
        ("b", "x", 31.0),
        ("b", "y", 40.0),
    ] {
        csv.push_str(&format!("{t},{m},{x}\n"));
    }
    std::fs::write(dir.path().join("s.csv"), csv).unwrap();
    let toml = "[workload]\npet = { samples = \"s.csv\" }\ntick = \"auto\"\nload = 1\nseed = 1\n";
    std::fs::write(dir.path().join("w.toml"), toml).unwrap();
    // Relative to the file's folder: a hundredth of the shortest cell mean (0.85), 0.005.
    let c = WorkloadConfig::load(dir.path().join("w.toml")).unwrap();
    assert_eq!(c.tick, 0.005);
    assert!(!c.tick_is_auto());
    assert!(toml::to_string(&c).unwrap().contains("tick = 0.005"));
    // Only a samples CSV's times choose a tick; a NaN is no length; another word is refused.
    for (body, said) in [
        (
            "tick = \"auto\"\nrate = 1000",
            "chooses the tick from a samples CSV",
        ),
        ("tick = nan\nrate = 1000", "positive length or \"auto\""),
        (
            "tick = \"fine\"\nrate = 1000",
            "positive length or \"auto\"",
        ),
    ] {
        let e = WorkloadConfig::from_toml_str(&format!("[workload]\nseed = 1\n{body}\n"), "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(said), "{body}: {e}");
    }
}
