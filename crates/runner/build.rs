//! Embeds the git revision the library is built from, for the manifests of results:
//! `PRUNESIM_GIT_REVISION` is the commit, with `-dirty` when the work tree had changes, or
//! `unknown` outside a checkout (a packaged source tree). An environment variable of that
//! name at build time takes precedence (for packagers). Two `git` calls; a crate such as
//! vergen would bring a dozen build dependencies for the same two values.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=PRUNESIM_GIT_REVISION");
    let revision = std::env::var("PRUNESIM_GIT_REVISION").ok().or_else(|| {
        let sha = git(&["rev-parse", "HEAD"])?;
        // Rebuild when HEAD moves or the index changes (a commit, a checkout, a staged edit).
        if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
            for f in ["HEAD", "index"] {
                let p = Path::new(&dir).join(f);
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
            if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
                let p = Path::new(&dir).join(head_ref);
                if p.exists() {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
        }
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        Some(if dirty { format!("{sha}-dirty") } else { sha })
    });
    println!(
        "cargo:rustc-env=PRUNESIM_GIT_REVISION={}",
        revision.as_deref().unwrap_or("unknown")
    );
}
