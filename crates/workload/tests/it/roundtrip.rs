//! Writer/reader round trips on generated PETs and trials (property tests).

use ndarray::Array2;
use pmf::BinValue;
use proptest::prelude::*;
use workload::io::{
    ArrivalRepair, DatOptions, format_dat, format_etc, format_workload_csv, parse_dat_with,
    parse_etc, parse_samples_csv, parse_workload_csv, parse_workload_csv_with_names,
};
use workload::{Pet, Pmf, Task, Trial};

use crate::common::tol;

/// A valid execution-time PMF: 1 to 12 weighted bins on a grid of `step` from `start`.
fn pmf_strategy() -> impl Strategy<Value = Pmf> {
    (
        0i64..500,
        1i64..4,
        prop::collection::vec(0.01f64..1.0, 1..12),
    )
        .prop_map(|(start, step, weights)| {
            Pmf::from_weighted_pairs(
                weights
                    .iter()
                    .enumerate()
                    .map(|(k, &w)| (start + step * k as i64, w)),
            )
            .expect("positive weights make a PMF")
        })
}

fn pet_strategy() -> impl Strategy<Value = Pet> {
    (1usize..5, 1usize..5)
        .prop_flat_map(|(t, m)| {
            prop::collection::vec(pmf_strategy(), t * m).prop_map(move |v| (t, m, v))
        })
        .prop_map(|(t, m, v)| {
            let names = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect();
            Pet::new(
                Array2::from_shape_vec((t, m), v).expect("shape"),
                names("t", t),
                names("m", m),
            )
            .expect("a valid PET")
        })
}

/// Tasks with arrival <= deadline, any real times.
fn trial_strategy() -> impl Strategy<Value = Trial> {
    prop::collection::vec((0usize..20, 0.0f64..1e6, 0.0f64..1e4), 0..60).prop_map(|v| {
        Trial::new(
            v.into_iter()
                .map(|(task_type, arrival, slack)| Task {
                    task_type,
                    arrival,
                    deadline: arrival + slack,
                })
                .collect(),
        )
    })
}

proptest! {
    #[test]
    fn etc_round_trip_keeps_every_pmf(pet in pet_strategy()) {
        let (back, report) = parse_etc(&format_etc(&pet), "p.etc").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back.pmfs().dim(), pet.pmfs().dim());
        for ((idx, a), b) in pet.pmfs().indexed_iter().zip(back.pmfs().iter()) {
            prop_assert_eq!((a.min(), a.max()), (b.min(), b.max()), "support of {:?}", idx);
            for (x, y) in a.masses().iter().zip(b.masses()) {
                prop_assert!((x - y).abs() <= tol::ROUND_TRIP_MASS, "{:?}: {} vs {}", idx, x, y);
            }
        }
        let (lo, hi) = report.total_range();
        prop_assert!((lo - 1.0).abs() < 1e-9 && (hi - 1.0).abs() < 1e-9);
    }

    #[test]
    fn dat_round_trip_is_exact(trial in trial_strategy()) {
        // Random slacks are inconsistent on purpose: keep every arrival as written.
        let options = DatOptions { repair: ArrivalRepair::None, ..DatOptions::default() };
        let (back, _) = parse_dat_with(&format_dat(&trial), "p.dat", &options).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, trial);
    }

    #[test]
    fn workload_csv_round_trip_is_exact(trial in trial_strategy()) {
        let text = format_workload_csv(&trial);
        let back = parse_workload_csv(&text, "p.csv").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &trial);
        let names: Vec<String> = (0..20).map(|i| format!("type{i}")).collect();
        let named = parse_workload_csv_with_names(&text, "p.csv", &names).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(named, trial);
    }

    #[test]
    fn samples_csv_gives_the_histogram_of_each_pair(
        samples in prop::collection::vec(prop::collection::vec(0.0f64..300.0, 1..40), 6),
        width in 1i64..5,
    ) {
        // Two task types (named) x three machines (named), listed in a shuffled-looking order.
        let types = ["encode", "decode"];
        let machines = ["cpu", "gpu", "fpga"];
        let mut text = String::from("machine,execution_time,task_type\n");
        for k in (0..6).rev() {
            for x in &samples[k] {
                text.push_str(&format!("{},{x},{}\n", machines[k % 3], types[k / 3]));
            }
        }
        let pet = parse_samples_csv(&text, "s.csv", width).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Indices follow first appearance: decode (k = 5, 4, 3) comes first, fpga first.
        prop_assert_eq!(pet.type_names(), ["decode", "encode"]);
        prop_assert_eq!(pet.machine_names(), ["fpga", "gpu", "cpu"]);
        for k in 0..6 {
            let t = 1 - k / 3;
            let m = 2 - k % 3;
            let expected = workload_pmf(&samples[k], width);
            prop_assert_eq!(pet.pmf(t, m), &expected, "pair {}", k);
        }
    }
}

fn workload_pmf(samples: &[f64], width: i64) -> Pmf {
    pmf::from_samples(samples, width, BinValue::Upper).expect("valid samples")
}

#[test]
fn samples_csv_with_integer_identifiers_uses_them_as_indices() {
    let text = "task_type,machine,execution_time\n1,0,10\n0,1,3\n0,0,4\n1,1,7.5\n";
    let pet = parse_samples_csv(text, "s.csv", 2).expect("valid");
    assert_eq!(pet.type_names(), ["0", "1"]);
    assert_eq!(pet.pmf(1, 0), &Pmf::point(10));
    assert_eq!(pet.pmf(0, 1), &Pmf::point(4));
    assert_eq!(pet.pmf(1, 1), &Pmf::point(8));
}

#[test]
fn workload_csv_accepts_type_names_with_a_pet() {
    let pet = Pet::default_pet(1);
    let text = "task_type,deadline,arrival\nt3,200,10\n0,100,5\n";
    let trial = parse_workload_csv_with_names(text, "w.csv", pet.type_names()).expect("valid");
    assert_eq!(
        trial.tasks[0],
        Task {
            task_type: 0,
            arrival: 5.0,
            deadline: 100.0
        }
    );
    assert_eq!(trial.tasks[1].task_type, 3);
    assert!(pet.check_tasks(&trial.tasks).is_ok());
    let bad = parse_workload_csv("arrival,task_type,deadline\n1,12,5\n", "w.csv").expect("parses");
    assert!(pet.check_tasks(&bad.tasks).is_err());
}

#[test]
fn files_round_trip_through_the_file_writers() {
    let dir = crate::common::scratch("files");
    let pet = Pet::default_pet(4);
    let trial = workload::generate_trial(&pet, &workload::ArrivalSpec::paper(19_000.0), 4, 0);
    workload::io::write_etc(dir.join("p.etc"), &pet).expect("writes");
    workload::io::write_dat(dir.join("t.dat"), &trial).expect("writes");
    workload::io::write_workload_csv(dir.join("t.csv"), &trial).expect("writes");
    let (back, _) = workload::io::read_etc(dir.join("p.etc")).expect("reads");
    assert_eq!(back.n_types(), 12);
    assert!((back.avg_all() - pet.avg_all()).abs() < 1e-9);
    assert_eq!(
        workload::io::read_dat(dir.join("t.dat")).expect("reads").0,
        trial
    );
    assert_eq!(
        workload::io::read_workload_csv(dir.join("t.csv")).expect("reads"),
        trial
    );
    match workload::io::read_etc(dir.join("absent.etc")) {
        Err(e @ workload::WorkloadError::Io { .. }) => {
            assert!(e.to_string().contains("absent.etc"))
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
