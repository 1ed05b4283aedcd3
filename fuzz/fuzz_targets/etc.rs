//! The `.etc` PET reader, then what a caller does with the PET: the means, the deadline
//! averages, and a write-read round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workload::io::{format_etc, parse_etc};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok((pet, report)) = parse_etc(&text, "fuzz.etc") else {
        return;
    };
    assert_eq!(report.blocks.len(), pet.n_types() * pet.n_machines());
    let _ = report.total_range();
    let _ = report.renormalised(1e-9).count();
    for t in 0..pet.n_types() {
        assert!(pet.avg_type(t).is_finite(), "avg_type({t}) not finite");
        for m in 0..pet.n_machines() {
            assert!(pet.mean(t, m) >= 0.0, "negative mean");
        }
    }
    assert!(pet.avg_all().is_finite());
    // What we write, we read back.
    let again = parse_etc(&format_etc(&pet), "fuzz-roundtrip.etc");
    let (again, _) = again.unwrap_or_else(|e| panic!("format_etc output rejected: {e}"));
    assert_eq!(again.n_types(), pet.n_types());
    assert_eq!(again.n_machines(), pet.n_machines());
});
