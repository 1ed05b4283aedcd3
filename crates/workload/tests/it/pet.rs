//! The PET: the default (thesis 3.4.1), homogeneous and selected-machine PETs, validation.

use ndarray::Array2;
use workload::{PUBLISHED_MEANS, Pet, Pmf, WorkloadError};

#[test]
fn default_pet_is_deterministic_per_seed() {
    assert_eq!(Pet::default_pet(7), Pet::default_pet(7));
    assert_ne!(Pet::default_pet(7), Pet::default_pet(8));
}

#[test]
fn default_pet_has_the_papers_shape_grid_and_valid_pmfs() {
    let pet = Pet::default_pet(3);
    assert_eq!((pet.n_types(), pet.n_machines()), (12, 8));
    assert_eq!(pet.type_names()[11], "t11");
    assert_eq!(pet.machine_names()[7], "m7");
    for ((t, m), p) in pet.pmfs().indexed_iter() {
        p.check_invariants()
            .unwrap_or_else(|e| panic!("({t}, {m}): {e}"));
        // Upper-edge bins of width 2: every time is a positive even number.
        assert!(p.min() >= 2, "({t}, {m}) starts at {}", p.min());
        assert!(
            p.iter().all(|(tick, _)| tick % 2 == 0),
            "({t}, {m}) off the 2-unit grid"
        );
        assert_eq!(pet.mean(t, m), pet.etc()[[t, m]]);
        assert_eq!(pet.mean(t, m), p.mean());
        assert_eq!(pet.variance(t, m).to_bits(), p.variance().to_bits());
        assert!(pet.variance(t, m) > 0.0);
    }
}

#[test]
fn default_pet_means_are_close_to_the_published_means() {
    // 500 gamma samples with shape >= 1 have a mean within 5 standard errors (sd / sqrt(500)
    // <= mean / sqrt(500)) of the true mean; the upper-edge histogram adds up to 2 units.
    let mut worst: f64 = 0.0;
    for seed in [1, 2, 3] {
        let pet = Pet::default_pet(seed);
        for t in 0..12 {
            for m in 0..8 {
                let published = PUBLISHED_MEANS[t][m];
                let err = pet.mean(t, m) - published;
                worst = worst.max((err / published).abs());
                assert!(
                    err.abs() <= 5.0 * published / 500f64.sqrt() + 2.0,
                    "seed {seed} ({t}, {m}): {} vs {published}",
                    pet.mean(t, m)
                );
            }
        }
        let published_all = 94.72;
        eprintln!(
            "default PET seed {seed}: avg_all {:.2} (published {published_all}), slack of type 0 {:.2} (paper 175.43)",
            pet.avg_all(),
            pet.slack(0, 1.0)
        );
        assert!((pet.avg_all() / published_all - 1.0).abs() < 0.03);
    }
    eprintln!("largest relative error of a default-PET mean: {worst:.3}");
}

#[test]
fn avg_type_and_avg_all_follow_their_definitions() {
    let pet = Pet::default_pet(5);
    let mut total = 0.0;
    for t in 0..pet.n_types() {
        let avg: f64 = (0..pet.n_machines()).map(|m| pet.mean(t, m)).sum::<f64>() / 8.0;
        assert!((pet.avg_type(t) - avg).abs() < 1e-9);
        assert_eq!(pet.slack(t, 2.0), pet.avg_type(t) + 2.0 * pet.avg_all());
        total += avg;
    }
    assert!((pet.avg_all() - total / 12.0).abs() < 1e-9);
}

#[test]
fn homogeneous_pet_copies_the_source_machine_everywhere() {
    let pet = Pet::default_pet(1);
    for source in [0, 5] {
        let h = pet.homogeneous(source);
        assert_eq!((h.n_types(), h.n_machines()), (12, 8));
        for t in 0..12 {
            for m in 0..8 {
                assert_eq!(h.pmf(t, m), pet.pmf(t, source));
            }
            assert!((h.avg_type(t) - pet.mean(t, source)).abs() < 1e-9);
        }
        assert_eq!(h.machine_names()[0], format!("m{source}"));
        assert_eq!(h.machine_names()[3], format!("m{source}#3"));
    }
}

#[test]
fn select_machines_builds_large_systems_from_columns() {
    let pet = Pet::default_pet(1);
    let columns: Vec<usize> = (0..1024).map(|j| j % 8).collect();
    let big = pet.select_machines(&columns);
    assert_eq!((big.n_types(), big.n_machines()), (12, 1024));
    assert_eq!(big.pmf(4, 1023), pet.pmf(4, 7));
    assert_eq!(big.machine_names()[9], "m1#1");
    // Equal numbers of each machine keep the averages.
    assert!((big.avg_all() - pet.avg_all()).abs() < 1e-9);
    let two = pet.select_machines(&[5, 2]);
    assert_eq!(two.pmf(0, 0), pet.pmf(0, 5));
    assert_eq!(two.machine_names(), ["m5", "m2"]);
}

fn point_matrix(types: usize, machines: usize) -> Array2<Pmf> {
    Array2::from_shape_fn((types, machines), |(t, m)| Pmf::point((t + m + 1) as i64))
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

#[test]
fn pet_new_rejects_inconsistent_shapes_and_negative_times() {
    let ok = Pet::new(point_matrix(2, 3), names("t", 2), names("m", 3)).expect("valid");
    assert_eq!(ok.mean(1, 2), 4.0);
    let cases = [
        Pet::new(point_matrix(2, 3), names("t", 3), names("m", 3)),
        Pet::new(point_matrix(2, 3), names("t", 2), names("m", 2)),
        Pet::new(point_matrix(0, 3), names("t", 0), names("m", 3)),
        Pet::new(
            Array2::from_elem((1, 1), Pmf::point(-1)),
            names("t", 1),
            names("m", 1),
        ),
    ];
    for (i, case) in cases.into_iter().enumerate() {
        match case {
            Err(WorkloadError::InvalidPet(msg)) => eprintln!("case {i}: {msg}"),
            other => panic!("case {i}: expected InvalidPet, got {other:?}"),
        }
    }
}

#[test]
fn from_means_rejects_bad_means_and_bin_widths() {
    let good = Array2::from_elem((2, 2), 50.0);
    assert!(Pet::from_means(&good, 2, 1).is_ok());
    assert!(Pet::from_means(&good, 0, 1).is_err());
    let bad = Array2::from_shape_vec((1, 2), vec![50.0, f64::NAN]).expect("shape");
    assert!(matches!(
        Pet::from_means(&bad, 2, 1),
        Err(WorkloadError::InvalidPet(_))
    ));
    assert!(Pet::from_means(&Array2::from_elem((1, 1), -3.0), 2, 1).is_err());
}

#[test]
fn copies_of_a_machine_share_one_column_on_the_hot_path() {
    let pet = Pet::default_pet(3);
    // Columns 2, 0, 2, 5, 0: machines 2 and 4 are copies of machines 0 and 1 of the new PET.
    let sel = pet.select_machines(&[2, 0, 2, 5, 0]);
    for t in 0..sel.n_types() {
        for m in 0..sel.n_machines() {
            // The same values as the matrix...
            assert_eq!(sel.exec_pmf(t, m), &sel.pmfs()[[t, m]]);
        }
        // ...and, for copies, the same object as the first copy.
        assert!(std::ptr::eq(sel.pmf(t, 2), sel.pmf(t, 0)));
        assert!(std::ptr::eq(sel.pmf(t, 4), sel.pmf(t, 1)));
        assert!(!std::ptr::eq(sel.pmf(t, 3), sel.pmf(t, 0)));
    }
    // Distinct machines answer from their own column.
    for m in 0..pet.n_machines() {
        assert!(std::ptr::eq(pet.exec_pmf(0, m), &pet.pmfs()[[0, m]]));
    }
}

#[test]
fn setting_a_whole_group_of_copies_keeps_it_a_group() {
    use ndarray::Array2;
    use pmf::Pmf;
    let a = Pmf::new(2, vec![0.5, 0.5]).unwrap();
    let b = Pmf::new(5, vec![1.0]).unwrap();
    // Machines 0 and 2 are copies, 1 is not.
    let pmfs = Array2::from_shape_fn((1, 3), |(_, m)| if m == 1 { b.clone() } else { a.clone() });
    let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let mut pet = workload::Pet::new(pmfs, names("t", 1), names("m", 3)).unwrap();
    assert_eq!((pet.canonical(0), pet.canonical(2)), (0, 0));
    let c = Pmf::new(3, vec![0.25, 0.75]).unwrap();
    pet.set_pmf_copies(0, &[0, 2], c.clone()).unwrap();
    assert_eq!(
        (pet.canonical(0), pet.canonical(1), pet.canonical(2)),
        (0, 1, 0)
    );
    assert_eq!(pet.pmf(0, 2), &c);
    assert!((pet.mean(0, 0) - c.mean()).abs() < 1e-12);
    // The same reads as setting each machine alone (which may leave the copies apart:
    // `canonical` shares reads, it is not required to find every copy).
    let mut each = pet.clone();
    let d = Pmf::new(4, vec![1.0]).unwrap();
    pet.set_pmf_copies(0, &[0, 2], d.clone()).unwrap();
    each.set_pmf(0, 0, d.clone()).unwrap();
    each.set_pmf(0, 2, d).unwrap();
    for m in 0..3 {
        assert_eq!(pet.pmf(0, m), each.pmf(0, m));
        assert_eq!(pet.mean(0, m), each.mean(0, m));
    }
    assert_eq!(pet.avg_all(), each.avg_all());
    // Part of a group: machine by machine, the group splits.
    pet.set_pmf_copies(0, &[2], c).unwrap();
    assert_eq!(pet.canonical(2), 2);
    assert!(
        pet.set_pmf_copies(5, &[0], Pmf::point(1)).is_err(),
        "a task type outside"
    );
    assert!(
        pet.set_pmf_copies(0, &[7], Pmf::point(1)).is_err(),
        "a machine outside"
    );
}
