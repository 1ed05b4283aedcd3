//! `reproduce-figure <id|all>` and `list-figures`: the figure catalogue. Every sweep file in
//! `experiments/` (`scale.toml`, the performance study, aside) is a figure of the thesis, the
//! HCW 2019 paper or JPDC-2016, and `all` runs them; the files in its subfolders
//! (`experiments/related/`: Gao, Robert, Vivien's cutting tables and Hansen et al.'s moldable
//! figures; `experiments/sensitivity/`) run by id. The sweeps run through the same code as
//! `prunesim sweep` ([`prunesim::sweep`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use prunesim::sweep::{Caller, SweepOptions};

/// Arguments of `reproduce-figure`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// A figure id (the name of a sweep file in experiments/ or one of its subfolders,
    /// without `.toml`), or `all` (the files of experiments/ itself).
    pub id: String,
    /// Folder of the sweep files.
    #[arg(long, default_value = "experiments")]
    pub experiments: PathBuf,
    #[command(flatten)]
    pub options: SweepOptions,
}

/// The files of the catalogue's figures in `dir` itself (not its subfolders), by id.
fn top_level(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "toml"))
        // The scale study of `perf` lives beside the figures but is not one.
        .filter(|p| p.file_stem().is_none_or(|s| s != crate::perf::SCALE_ID))
        .collect();
    files.sort();
    Ok(files)
}

/// The subfolders of `dir`, by name.
fn subfolders(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// The sweep files `id` stands for: every top-level figure for `all`, else `DIR/<id>.toml` or
/// `DIR/<sub>/<id>.toml`.
pub(crate) fn files(dir: &Path, id: &str) -> Result<Vec<PathBuf>> {
    if id == "all" {
        return top_level(dir);
    }
    let name = format!("{id}.toml");
    let candidates =
        std::iter::once(dir.join(&name)).chain(subfolders(dir)?.into_iter().map(|d| d.join(&name)));
    for path in candidates {
        if path.is_file() {
            return Ok(vec![path]);
        }
    }
    bail!(
        "no figure '{id}': no {name} in {} or its subfolders (see `cargo xtask list-figures`)",
        dir.display()
    )
}

/// Lists the figures: the top-level ones (`all`), then each subfolder's.
pub(crate) fn list(dir: &Path) -> Result<()> {
    let mut groups = vec![(None, top_level(dir)?)];
    for sub in subfolders(dir)? {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&sub)
            .with_context(|| format!("reading {}", sub.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        groups.push((Some(sub), files));
    }
    for (sub, files) in groups {
        if let Some(sub) = sub {
            println!("\n{} (by id, not in `all`):", sub.display());
        }
        for f in files {
            let sweep = runner::SweepFile::load(&f)?;
            println!("{:<20} {}", sweep.id(), sweep.title());
        }
    }
    Ok(())
}

/// Runs `reproduce-figure`.
pub(crate) fn run(args: &Args) -> Result<()> {
    let files = files(&args.experiments, &args.id)?;
    let sweeps = prunesim::sweep::load(&files)?;
    let mut command = format!("cargo xtask reproduce-figure {}", args.id);
    if args.experiments != Path::new("experiments") {
        command.push_str(&format!(" --experiments {}", args.experiments.display()));
    }
    let caller = Caller {
        name: args.id.clone(),
        command,
        default_binary: prunesim::sweep::workspace_binary(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        ),
    };
    prunesim::sweep::run(&files, &sweeps, &args.options, &caller)
}
