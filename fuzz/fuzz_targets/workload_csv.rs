//! The CSV workload reader, with and without task type names, then the checks a simulator
//! makes (task types against a PET, the tick grid) and a write-read round trip.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use model::TaskSpec;
use workload::Pet;
use workload::io::{format_workload_csv, parse_workload_csv, parse_workload_csv_with_names};

fn pet() -> &'static Pet {
    static PET: OnceLock<Pet> = OnceLock::new();
    PET.get_or_init(|| Pet::default_pet(1))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(trial) = parse_workload_csv_with_names(&text, "fuzz.csv", pet().type_names()) {
        pet()
            .check_tasks(&trial.tasks)
            .unwrap_or_else(|e| panic!("a task type resolved by name is unknown: {e}"));
    }
    let Ok(trial) = parse_workload_csv(&text, "fuzz.csv") else {
        return;
    };
    for (i, t) in trial.tasks.iter().enumerate() {
        assert!(t.arrival.is_finite() && t.arrival >= 0.0);
        assert!(t.deadline.is_finite() && t.arrival <= t.deadline);
        let spec = TaskSpec::from_real(i, t);
        assert!(spec.arrival <= spec.deadline);
    }
    assert!(trial.tasks.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let _ = pet().check_tasks(&trial.tasks);
    let again = parse_workload_csv(&format_workload_csv(&trial), "fuzz-roundtrip.csv")
        .unwrap_or_else(|e| panic!("format_workload_csv output rejected: {e}"));
    assert_eq!(again.tasks, trial.tasks);
});
