//! What the tests that run cargo themselves share.

use std::path::PathBuf;

/// The running test's target folder: `CARGO_TARGET_DIR`, else the one its binary is in
/// (`<target>/debug/deps/<test>-<hash>`), so that cargo run by a test reuses what the
/// test's own build compiled.
pub(crate) fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}
