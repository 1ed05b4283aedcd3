//! The `.dat` arrival-trial reader (both repair policies), then what a simulator does with a
//! trial: the invariants the reader promises, the task types checked against a PET, the tasks
//! put on the tick grid, and a write-read round trip.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use model::TaskSpec;
use workload::Pet;
use workload::io::{ArrivalRepair, DatOptions, format_dat, parse_dat, parse_dat_with};

fn pet() -> &'static Pet {
    static PET: OnceLock<Pet> = OnceLock::new();
    PET.get_or_init(|| Pet::default_pet(1))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let none = DatOptions {
        repair: ArrivalRepair::None,
        ..DatOptions::default()
    };
    let _ = parse_dat_with(&text, "fuzz.dat", &none);
    // As the CLI reads it: task types checked against the PET, line by line.
    if let Ok((trial, _)) = parse_dat_with(
        &text,
        "fuzz.dat",
        &DatOptions {
            task_types: Some(pet().n_types()),
            ..DatOptions::default()
        },
    ) {
        pet()
            .check_tasks(&trial.tasks)
            .unwrap_or_else(|e| panic!("a task type passed the reader's check: {e}"));
    }
    let Ok((trial, report)) = parse_dat(&text, "fuzz.dat") else {
        return;
    };
    assert_eq!(trial.tasks.len(), report.task_count);
    for (i, t) in trial.tasks.iter().enumerate() {
        assert!(t.arrival.is_finite() && t.deadline.is_finite());
        assert!(t.arrival >= 0.0, "task {i}: negative arrival {}", t.arrival);
        assert!(
            t.arrival <= t.deadline,
            "task {i}: arrival {} after deadline {} (report {report:?})",
            t.arrival,
            t.deadline
        );
        let spec = TaskSpec::from_real(i, t);
        assert!(spec.arrival <= spec.deadline);
    }
    assert!(trial.tasks.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    let _ = pet().check_tasks(&trial.tasks);
    let _ = trial.span();
    let (again, _) = parse_dat_with(&format_dat(&trial), "fuzz-roundtrip.dat", &none)
        .unwrap_or_else(|e| panic!("format_dat output rejected: {e}"));
    assert_eq!(again.tasks, trial.tasks);
});
