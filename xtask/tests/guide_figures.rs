//! The concept figures of the user guide are what `cargo xtask guide-figures` draws.

use std::path::Path;
use std::process::Command;

#[test]
fn the_guide_figures_are_what_the_code_draws() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["guide-figures", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/guide/src/figures");
    let mut n = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let drawn = std::fs::read_to_string(&path).unwrap();
        let kept = std::fs::read_to_string(committed.join(name)).unwrap_or_default();
        assert!(
            drawn == kept,
            "docs/guide/src/figures/{} is out of date: regenerate it with `cargo xtask guide-figures`",
            name.to_string_lossy()
        );
        assert!(drawn.starts_with("<svg") && drawn.contains("</svg>"));
        n += 1;
    }
    assert_eq!(n, 3);
}
