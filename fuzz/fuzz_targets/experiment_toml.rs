//! The experiment TOML (`ExperimentConfig::from_toml_str`, which validates), then what a run
//! does before its trials: variant resolution, the heuristic and pruner built, prices per
//! machine, and a serialise-parse round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pruner::ProbabilisticPruner;
use runner::ExperimentConfig;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(config) = ExperimentConfig::from_toml_str(&text, "fuzz.toml", None) else {
        return;
    };
    config.validate().expect("from_toml_str validated");
    let (h, p) = config.resolved();
    heuristics::build(&h, config.system.drop_model)
        .unwrap_or_else(|e| panic!("validated heuristic does not build: {e}"));
    ProbabilisticPruner::new(p, 12)
        .unwrap_or_else(|e| panic!("validated pruner does not build: {e}"));
    let prices = config.system.prices_for(8);
    assert_eq!(prices.len(), 8);
    let _ = config.system.counting();
    let written = toml::to_string(&config)
        .unwrap_or_else(|e| panic!("a parsed experiment does not serialise: {e}"));
    let again = ExperimentConfig::from_toml_str(&written, "fuzz-roundtrip.toml", None)
        .unwrap_or_else(|e| panic!("serialised experiment rejected: {e}\n{written}"));
    assert_eq!(again.mapper, config.mapper);
});
