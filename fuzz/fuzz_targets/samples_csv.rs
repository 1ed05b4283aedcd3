//! The CSV of measured execution times (the first byte picks the bin width, 1-8), then the
//! PET's means and an `.etc` write-read round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workload::io::{format_etc, parse_etc, parse_samples_csv};

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let bin_width = i64::from(first % 8) + 1;
    let text = String::from_utf8_lossy(rest);
    let Ok(pet) = parse_samples_csv(&text, "fuzz.csv", bin_width) else {
        return;
    };
    assert_eq!(pet.type_names().len(), pet.n_types());
    assert_eq!(pet.machine_names().len(), pet.n_machines());
    for t in 0..pet.n_types() {
        for m in 0..pet.n_machines() {
            let p = pet.pmf(t, m);
            assert!(p.min() >= 0 && p.mean().is_finite());
        }
    }
    assert!(pet.avg_all().is_finite());
    let (again, _) = parse_etc(&format_etc(&pet), "fuzz-roundtrip.etc")
        .unwrap_or_else(|e| panic!("format_etc output rejected: {e}"));
    assert_eq!(again.n_types(), pet.n_types());
});
