//! Generated PET families: the requested means, copies, consistency, homogeneity, bounded
//! tails, the TOML form and its errors.

use workload::family::{MAX_CELLS, MAX_DISTINCT_CELLS, family_defaults};
use workload::{
    CellFamily, Consistency, Modes, Pet, PetFamily, PetSource, WorkloadConfig, WorkloadError,
};

/// How far the mean over the cells of (PMF mean / cell mean) may be from 1: 500 samples per
/// cell (a standard error of 4% per cell at a coefficient of variation of 0.9, 0.4% over the
/// 96 cells), the upper-edge bins (about +1 tick on a mean of 100, +1%) and the clipping
/// (below 0.3% at these parameters).
const MEAN_TOLERANCE: f64 = 0.04;

fn families() -> Vec<CellFamily> {
    vec![
        CellFamily::Gamma,
        CellFamily::Lognormal { sigma: 0.5 },
        CellFamily::Lognormal { sigma: 1.0 },
        CellFamily::Pareto { alpha: 2.5 },
        CellFamily::Pareto { alpha: 4.0 },
        CellFamily::Bimodal {
            fast_share: 0.8,
            slow_ratio: 5.0,
            modes: Modes::Gamma,
        },
        CellFamily::Bimodal {
            fast_share: 0.5,
            slow_ratio: 10.0,
            modes: Modes::Lognormal { sigma: 0.3 },
        },
    ]
}

#[test]
fn each_family_has_the_requested_cell_means() {
    for family in families() {
        let f = PetFamily::new(family);
        let means = f.cell_means(11).unwrap();
        let pet = f.generate(11).unwrap();
        assert_eq!((pet.n_types(), pet.n_machines()), (12, 8));
        let ratios: Vec<f64> = means
            .indexed_iter()
            .map(|((i, j), e)| pet.mean(i, j) / e)
            .collect();
        let ratio = ratios.iter().sum::<f64>() / ratios.len() as f64;
        assert!(
            (ratio - 1.0).abs() < MEAN_TOLERANCE,
            "{family:?}: PMF means / cell means = {ratio}"
        );
        // The task means scatter around `mean` (task_cv = 0.5 over 12 types: a standard
        // error of 14%, and the machine cv on top).
        let avg = means.iter().sum::<f64>() / means.len() as f64;
        assert!((avg / family_defaults::MEAN - 1.0).abs() < 0.5, "{avg}");
        // Every PMF lies on the bin grid, within the cap.
        for ((i, j), p) in pet.pmfs().indexed_iter() {
            assert_eq!(p.min() % 2, 0);
            assert!(p.min() >= 2);
            assert!(
                p.max() as f64 <= f.cap * means[[i, j]] + 2.0,
                "{family:?} ({i}, {j}): {} beyond the cap",
                p.max()
            );
        }
    }
}

#[test]
fn a_bimodal_cell_has_two_modes_with_their_shares() {
    let f = PetFamily {
        machine_cv: 0.0,
        task_cv: 0.0,
        ..PetFamily::new(CellFamily::Bimodal {
            fast_share: 0.3,
            slow_ratio: 8.0,
            modes: Modes::Lognormal { sigma: 0.1 },
        })
    };
    let pet = f.generate(5).unwrap();
    // Fast mode mean 100 / (0.3 + 0.7 * 8) = 16.9, slow 135.6: nothing in between.
    for t in 0..pet.n_types() {
        let p = pet.pmf(t, 0);
        let fast = p.cdf(60.0);
        assert!((fast - 0.3).abs() < 0.08, "type {t}: fast share {fast}");
        assert!(p.cdf(90.0) - fast < 0.01);
    }
}

#[test]
fn copies_are_identical_columns_named_by_type() {
    let f = PetFamily {
        machine_types: 3,
        copies: 3,
        ..PetFamily::new(CellFamily::Lognormal { sigma: 1.0 })
    };
    let pet = f.generate(2).unwrap();
    assert_eq!(pet.n_machines(), 9);
    assert_eq!(
        pet.machine_names(),
        [
            "A.1", "A.2", "A.3", "B.1", "B.2", "B.3", "C.1", "C.2", "C.3"
        ]
    );
    for t in 0..pet.n_types() {
        for j in 0..3 {
            for c in 1..3 {
                assert_eq!(pet.pmfs()[[t, 3 * j]], pet.pmfs()[[t, 3 * j + c]]);
            }
        }
        assert_ne!(pet.pmfs()[[t, 0]], pet.pmfs()[[t, 3]]);
    }
    let canonical: Vec<usize> = (0..9).map(|m| pet.canonical(m)).collect();
    assert_eq!(canonical, [0, 0, 0, 3, 3, 3, 6, 6, 6]);
    // The copies do not change the distinct types: 3 x 1 is the first column of each.
    let one = PetFamily { copies: 1, ..f }.generate(2).unwrap();
    for t in 0..pet.n_types() {
        for j in 0..3 {
            assert_eq!(one.pmfs()[[t, j]], pet.pmfs()[[t, 3 * j]]);
        }
    }
}

#[test]
fn consistent_rows_are_sorted_in_means_and_pmfs() {
    for family in families() {
        let f = PetFamily {
            consistency: Consistency::Consistent,
            copies: 2,
            ..PetFamily::new(family)
        };
        let means = f.cell_means(3).unwrap();
        let pet = f.generate(3).unwrap();
        for i in 0..f.types {
            for j in 1..f.machine_types {
                assert!(means[[i, j - 1]] <= means[[i, j]]);
            }
            for m in 1..pet.n_machines() {
                assert!(
                    pet.mean(i, m - 1) <= pet.mean(i, m),
                    "{family:?}: row {i} not sorted at {m}"
                );
            }
        }
        // Partially consistent: the even columns sorted, the odd ones as drawn.
        let p = PetFamily {
            consistency: Consistency::Partially,
            copies: 1,
            ..f
        };
        let pm = p.cell_means(3).unwrap();
        let pp = p.generate(3).unwrap();
        let inconsistent = PetFamily {
            consistency: Consistency::Inconsistent,
            ..p.clone()
        }
        .cell_means(3)
        .unwrap();
        for i in 0..p.types {
            for j in (2..p.machine_types).step_by(2) {
                assert!(pm[[i, j - 2]] <= pm[[i, j]]);
                assert!(pp.mean(i, j - 2) <= pp.mean(i, j));
            }
            for j in (1..p.machine_types).step_by(2) {
                assert_eq!(pm[[i, j]], inconsistent[[i, j]]);
            }
        }
    }
}

#[test]
fn machine_cv_zero_is_a_homogeneous_system() {
    for family in families() {
        let f = PetFamily {
            machine_cv: 0.0,
            ..PetFamily::new(family)
        };
        let pet = f.generate(9).unwrap();
        for m in 0..pet.n_machines() {
            assert_eq!(pet.canonical(m), 0, "{family:?}");
        }
        // task_cv = 0 too: every cell mean is `mean`.
        let flat = PetFamily { task_cv: 0.0, ..f };
        assert!(flat.cell_means(9).unwrap().iter().all(|&e| e == 100.0));
    }
}

#[test]
fn generation_is_deterministic_and_seeded() {
    for family in families() {
        let f = PetFamily::new(family);
        assert_eq!(f.generate(4).unwrap(), f.generate(4).unwrap());
        assert_ne!(f.generate(4).unwrap(), f.generate(5).unwrap());
    }
}

#[test]
fn heavy_tails_are_clipped_at_the_cap() {
    let f = PetFamily {
        cap: 5.0,
        ..PetFamily::new(CellFamily::Pareto { alpha: 1.05 })
    };
    let means = f.cell_means(1).unwrap();
    let pet = f.generate(1).unwrap();
    let mut at_cap = 0;
    for ((i, j), p) in pet.pmfs().indexed_iter() {
        let cap = 5.0 * means[[i, j]];
        assert!(p.max() as f64 <= cap + 2.0);
        at_cap += usize::from(p.max() as f64 > cap - 2.0);
    }
    // alpha = 1.05: P(X > 5 e) = (0.048 / 5)^1.05 ~ 0.8%, so most cells reach the cap.
    assert!(at_cap > 48, "{at_cap}");
}

fn config(pet: &str) -> Result<WorkloadConfig, WorkloadError> {
    WorkloadConfig::from_toml_str(
        &format!("[workload]\npet = {pet}\nrate = 1000\nseed = 3\n"),
        "family.toml",
    )
}

#[test]
fn the_toml_form_parses_with_its_defaults_and_round_trips() {
    let c = config("{ family = \"gamma\" }").unwrap();
    assert_eq!(c.pet, PetSource::Family(PetFamily::new(CellFamily::Gamma)));
    let cases = [
        "{ family = \"gamma\" }",
        "{ family = \"lognormal\", types = 12, machine_types = 4, copies = 2, mean = 100, task_cv = 0.5, machine_cv = 0.5, consistency = \"inconsistent\", sigma = 1.0, bin_width = 2 }",
        "{ family = \"pareto\", alpha = 1.5, cap = 50, consistency = \"consistent\" }",
        "{ family = \"bimodal\", fast_share = 0.6, slow_ratio = 3, modes = \"lognormal\", sigma = 0.2, consistency = \"partially\" }",
        "{ family = \"bimodal\", machine_cv = 0, task_cv = 0.0, types = 2, machine_types = 1 }",
    ];
    for text in cases {
        let c = config(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut file = toml::Table::new();
        file.insert(
            "workload".into(),
            toml::Value::try_from(&c).expect("serialises"),
        );
        let back = toml::to_string(&file).expect("serialises");
        let again = WorkloadConfig::from_toml_str(&back, "back.toml").expect("parses back");
        assert_eq!(again, c, "{back}");
        let pet: Pet = c.pet().expect("builds");
        assert!(pet.avg_all() > 0.0);
        let PetSource::Family(f) = &c.pet else {
            panic!("{text}: not a family")
        };
        assert_eq!(pet, f.generate(3).unwrap(), "pet_seed is seed");
    }
    let c = config("{ family = \"lognormal\", types = 3, machine_types = 4, copies = 2 }").unwrap();
    let pet = c.pet().unwrap();
    assert_eq!((pet.n_types(), pet.n_machines()), (3, 8));
    assert_eq!(pet.type_names(), ["t0", "t1", "t2"]);
}

#[test]
fn every_listed_word_parses() {
    use workload::family::{CONSISTENCY_NAMES, FAMILY_NAMES, MODE_NAMES};
    for (k, family) in FAMILY_NAMES.iter().enumerate() {
        let c = config(&format!("{{ family = \"{family}\" }}")).unwrap();
        let PetSource::Family(f) = c.pet else {
            panic!("{family}")
        };
        assert_eq!(f.family.name(), *family);
        assert_eq!(FAMILY_NAMES[k], f.family.name());
    }
    for word in CONSISTENCY_NAMES {
        let c = config(&format!(
            "{{ family = \"gamma\", consistency = \"{word}\" }}"
        ))
        .unwrap();
        let PetSource::Family(f) = c.pet else {
            panic!("{word}")
        };
        assert_eq!(f.consistency.name(), word);
    }
    for word in MODE_NAMES {
        config(&format!("{{ family = \"bimodal\", modes = \"{word}\" }}")).unwrap();
    }
}

#[test]
fn errors_name_the_key() {
    let cases: &[(&str, &str)] = &[
        ("{ family = \"weibull\" }", "pet.family"),
        ("{ family = 3 }", "pet.family"),
        ("{ family = \"pareto\", alpha = 1.0 }", "workload.pet.alpha"),
        ("{ family = \"pareto\", alpha = 0.5 }", "workload.pet.alpha"),
        ("{ family = \"gamma\", alpha = 2.0 }", "pet.alpha"),
        ("{ family = \"gamma\", sigma = 2.0 }", "pet.sigma"),
        (
            "{ family = \"lognormal\", fast_share = 0.5 }",
            "pet.fast_share",
        ),
        ("{ family = \"bimodal\", sigma = 0.5 }", "pet.sigma"),
        ("{ family = \"bimodal\", modes = \"pareto\" }", "pet.modes"),
        (
            "{ family = \"bimodal\", fast_share = 1.0 }",
            "workload.pet.fast_share",
        ),
        (
            "{ family = \"bimodal\", slow_ratio = 0.5 }",
            "workload.pet.slow_ratio",
        ),
        (
            "{ family = \"gamma\", task_cv = -0.1 }",
            "workload.pet.task_cv",
        ),
        (
            "{ family = \"gamma\", machine_cv = -1 }",
            "workload.pet.machine_cv",
        ),
        ("{ family = \"gamma\", types = 0 }", "workload.pet.types"),
        ("{ family = \"gamma\", types = -1 }", "pet.types"),
        (
            "{ family = \"gamma\", machine_types = 0 }",
            "workload.pet.machine_types",
        ),
        ("{ family = \"gamma\", copies = 0 }", "workload.pet.copies"),
        (
            "{ family = \"gamma\", types = 1000, machine_types = 1000 }",
            "workload.pet.types",
        ),
        (
            "{ family = \"gamma\", types = 100, machine_types = 100, copies = 100 }",
            "workload.pet.copies",
        ),
        (
            "{ family = \"gamma\", types = 4611686018427387904, machine_types = 4 }",
            "workload.pet.types",
        ),
        ("{ family = \"gamma\", mean = 0 }", "workload.pet.mean"),
        ("{ family = \"gamma\", mean = nan }", "workload.pet.mean"),
        ("{ family = \"gamma\", mean = 1e9 }", "workload.pet.mean"),
        ("{ family = \"gamma\", cap = 1 }", "workload.pet.cap"),
        ("{ family = \"gamma\", bin_width = 0 }", "pet.bin_width"),
        (
            "{ family = \"gamma\", consistency = \"mostly\" }",
            "pet.consistency",
        ),
        ("{ family = \"gamma\", scale = 2 }", "'scale'"),
        ("{ types = 3 }", "without 'family'"),
    ];
    for (text, key) in cases {
        match config(text) {
            Ok(c) => panic!("{text}: accepted as {c:?}"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(key), "{text}: '{msg}' does not name {key}");
            }
        }
    }
    // A family built in code is checked the same way, by the configuration and the generator.
    let f = PetFamily {
        types: MAX_DISTINCT_CELLS + 1,
        machine_types: 1,
        ..PetFamily::new(CellFamily::Gamma)
    };
    assert!(matches!(
        f.generate(1),
        Err(WorkloadError::InvalidConfig { ref field, .. }) if field == "workload.pet.types"
    ));
    let f = PetFamily {
        copies: MAX_CELLS,
        ..PetFamily::new(CellFamily::Gamma)
    };
    assert!(f.validate().is_err());
    let mut c = config("{ family = \"gamma\" }").unwrap();
    c.pet = PetSource::Family(PetFamily::new(CellFamily::Pareto { alpha: 1.0 }));
    assert_eq!(
        c.validate().unwrap_err().field_name(),
        Some("workload.pet.alpha")
    );
}
