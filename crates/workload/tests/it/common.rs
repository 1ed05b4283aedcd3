//! Helpers shared by the test modules: where the paper's data lives, named tolerances.

use std::path::{Path, PathBuf};

/// Named tolerances (one place, after statrs' `prec`).
pub(crate) mod tol {
    /// The paper's files write times with two decimals: a deadline minus an arrival is off
    /// the exact slack by at most half a hundredth, plus the published means' own rounding.
    pub(crate) const FILE_SLACK: f64 = 0.011;
    /// Two PMFs read from text written by us agree to this (shortest round-trip decimals,
    /// then a renormalisation that may move the last bit).
    pub(crate) const ROUND_TRIP_MASS: f64 = 1e-12;
    /// Number of standard deviations allowed in statistical checks.
    pub(crate) const SIGMAS: f64 = 5.0;
}

/// The folder of the paper's data (`shared/data/hcw19` beside the workspace), or `None` with
/// a message saying why the calling test skips.
pub(crate) fn hcw19(test: &str) -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Resolve symbolic links so a workspace reached through one still finds shared/.
    let manifest = manifest
        .canonicalize()
        .unwrap_or_else(|_| manifest.to_path_buf());
    let dir = manifest.join("../../../shared/data/hcw19");
    if dir.join("classes_2.etc").is_file() && dir.join("workloads").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "{test}: skipped: the paper's data folder {} is absent (it is not shipped with prunesim)",
            dir.display()
        );
        None
    }
}

/// Every `.dat` file of the data folder, sorted by rate label then trial number.
pub(crate) fn dat_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("workloads"))
        .expect("the workloads folder is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort_by_key(|p| {
        let stem = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let (label, n) = stem.split_once('_').unwrap_or((&stem, "0"));
        (label.to_owned(), n.parse::<u32>().unwrap_or(0))
    });
    files
}

/// The rate label of a `.dat` file name (`arr34k_1.dat` gives 34,000).
pub(crate) fn rate_of(path: &Path) -> f64 {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let digits: String = name
        .trim_start_matches("arr")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<f64>().expect("a rate label") * 1000.0
}

/// A scratch folder for tests that write files, unique to the test.
pub(crate) fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("workload-it-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary folder is writable");
    dir
}

/// Mean of a slice.
pub(crate) fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}
