//! The `[workload]` TOML, then what a run does next: the arrival spec, a serialise-parse
//! round trip, and (for the generated PETs) a short trial. The trial is capped at 50 tasks so
//! an input cannot ask for a long but legitimate run; anything still slow is a finding.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use workload::{Pet, PetSource, WorkloadConfig, try_generate_trial};

#[derive(Serialize)]
struct File<'a> {
    workload: &'a WorkloadConfig,
}

fn pet() -> &'static Pet {
    static PET: OnceLock<Pet> = OnceLock::new();
    PET.get_or_init(|| Pet::default_pet(1))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(config) = WorkloadConfig::from_toml_str(&text, "fuzz.toml") else {
        return;
    };
    config.validate().expect("from_toml_str validated");
    let _ = config.pet_seed();
    let written = toml::to_string(&File { workload: &config })
        .unwrap_or_else(|e| panic!("a parsed configuration does not serialise: {e}"));
    let again = WorkloadConfig::from_toml_str(&written, "fuzz-roundtrip.toml")
        .unwrap_or_else(|e| panic!("serialised configuration rejected: {e}\n{written}"));
    assert_eq!(again.pet, config.pet);
    let mut spec = config.arrival_spec();
    spec.tasks = spec.tasks.min(50);
    match config.pet {
        PetSource::Default | PetSource::Homogeneous { .. } => {
            let trial = try_generate_trial(pet(), &spec, config.seed, 0)
                .unwrap_or_else(|e| panic!("a validated spec is rejected: {e}"));
            assert!(trial.tasks.len() <= 50);
            for t in &trial.tasks {
                assert!(t.arrival.is_finite() && t.deadline.is_finite());
            }
        }
        _ => {}
    }
});
