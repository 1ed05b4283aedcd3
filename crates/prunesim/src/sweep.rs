//! `prunesim sweep FILE...`: runs sweep files through the sweep engine ([`runner::sweep`]) with
//! progress bars, prints each sweep's table when it is done, and writes, submits and collects
//! Slurm job arrays. `cargo xtask reproduce-figure` runs the same code on the files of its
//! catalogue.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use runner::sweep::{self, Mode, Monitor, SweepFile, slurm};

/// The options of a sweep run.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SweepOptions {
    /// Output folder.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Worker threads (0 = all cores; more than the cores are capped); results are identical
    /// for any value.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Trials per point (default: each sweep file's).
    #[arg(long)]
    pub trials: Option<u64>,
    /// The memory the sweeps may need, e.g. `8GiB` or `500MB` (default: half of this
    /// machine's memory); sweeps with a point, or points together, estimated above it are
    /// refused before any point runs.
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<bytesize::ByteSize>,
    /// Run the simulator sweeps on this PET (.etc) instead of the generated default.
    #[arg(long)]
    pub pet: Option<PathBuf>,
    /// Run the simulator sweeps on the arrival trials in this folder (`arr<R>k_<T>.dat`),
    /// instead of generated ones.
    #[arg(long)]
    pub workloads: Option<PathBuf>,
    /// The length of one tick in the unit of the measured times of samples CSVs and workload
    /// CSVs, for every point of the simulator sweeps (replacing `workload.tick`), as
    /// `prunesim run --tick`.
    #[arg(long, value_name = "LENGTH")]
    pub tick: Option<f64>,
    /// Recompute every point, ignoring the saved point files of an earlier run.
    #[arg(long, conflicts_with = "collect")]
    pub fresh: bool,
    /// Compute only shard S of `--shards N` (the points whose index is S mod N) and save their
    /// point files, writing nothing else: what each task of a Slurm job array runs.
    #[arg(long, value_name = "S", requires = "shards", conflicts_with_all = ["slurm", "collect"])]
    pub shard: Option<usize>,
    /// The number of shards of the sweeps (for `--shard`, `--slurm`, `--collect`).
    #[arg(long, value_name = "N")]
    pub shards: Option<usize>,
    /// Write a Slurm job-array script, `OUT/<name>.sbatch`, whose task S runs `--shard S`.
    #[arg(long, conflicts_with = "collect")]
    pub slurm: bool,
    /// Slurm partition of the job array (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// Slurm time limit of each array task, e.g. 01:00:00 (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub time: Option<String>,
    /// Submit the script with `sbatch` once written (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    /// The prunesim binary the array tasks run (with `--slurm`).
    #[arg(long, requires = "slurm")]
    pub binary: Option<PathBuf>,
    /// Render the sweeps from the saved point files only (after a sharded run); lists the
    /// missing points and the shards to resubmit, and computes nothing.
    #[arg(long)]
    pub collect: bool,
}

impl SweepOptions {
    /// The engine's options.
    pub fn engine(&self) -> Result<sweep::Options> {
        let mode = match self.shard {
            Some(shard) => {
                let shards = self.shards.unwrap_or(1);
                if shards == 0 || shard >= shards {
                    bail!(
                        "--shard {shard} --shards {shards}: the shard must be below the number of shards"
                    );
                }
                Mode::Shard { shard, shards }
            }
            None if self.collect => Mode::Collect,
            None => Mode::Full,
        };
        Ok(sweep::Options {
            out: self.out.clone(),
            jobs: self.jobs,
            trials: self.trials,
            pet: self.pet.clone(),
            workloads: self.workloads.clone(),
            tick: self.tick,
            fresh: self.fresh,
            mode,
            max_memory: self.max_memory.map(|b| b.as_u64()),
        })
    }
}

/// Who runs the sweeps: how the Slurm script and the messages name them.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The name of the sweeps: the stem of the Slurm script (`OUT/<name>.sbatch`).
    pub name: String,
    /// The command that runs the same sweeps, without options (e.g. `prunesim sweep
    /// experiments/paper-7.toml`); the collect command is it plus `--collect`.
    pub command: String,
    /// The binary the array tasks run when `--binary` is not given.
    pub default_binary: PathBuf,
}

impl Caller {
    /// `prunesim sweep FILE...`: the sweeps are named after the only file's id (`sweeps` for
    /// several), and the array tasks run this binary.
    pub fn prunesim(files: &[PathBuf], sweeps: &[SweepFile]) -> Result<Self> {
        let name = match sweeps {
            [one] => one.id().to_owned(),
            _ => "sweeps".to_owned(),
        };
        let mut command = "prunesim sweep".to_owned();
        for f in files {
            command.push(' ');
            command.push_str(&slurm::quote(&f.display().to_string())?);
        }
        Ok(Caller {
            name,
            command,
            default_binary: std::env::current_exe().context("finding this binary")?,
        })
    }
}

/// Loads sweep files; two files of the same id are an error (their outputs would collide).
pub fn load(files: &[PathBuf]) -> Result<Vec<SweepFile>> {
    SweepFile::load_all(files).context("reading the sweep files")
}

/// Runs `files` (already loaded as `sweeps`) as `options` say: computes and renders them, one
/// shard of them, writes (and submits) a Slurm script, or collects them.
pub fn run(
    files: &[PathBuf],
    sweeps: &[SweepFile],
    options: &SweepOptions,
    caller: &Caller,
) -> Result<()> {
    let engine = options.engine()?;
    // No output may replace an input: a sweep file, the PET.
    sweep::check_inputs(
        files,
        sweeps,
        &engine,
        &[slurm::script_path(&engine.out, &caller.name)],
    )?;
    if options.slurm {
        return write_slurm(files, &engine, options, caller);
    }
    let bars = Bars::new();
    let report = sweep::run(sweeps, &engine, &bars)?;
    if engine.mode != Mode::Collect || report.missing() == 0 {
        return Ok(());
    }
    for s in report.sweeps.iter().filter(|s| !s.missing.is_empty()) {
        let labels: Vec<String> = s.missing.iter().map(|i| format!("{i:04}")).collect();
        eprintln!(
            "{}: {} point file(s) missing in {}: {}",
            s.id,
            s.missing.len(),
            s.points_dir.display(),
            labels.join(" ")
        );
    }
    let script = slurm::script_path(&options.out, &caller.name);
    match slurm::shards_of(&options.out, &caller.name, options.shards)? {
        Some(n) => {
            let list: Vec<String> = report
                .missing_shards(n)
                .iter()
                .map(ToString::to_string)
                .collect();
            eprintln!("missing shards ({} of {n}): {}", list.len(), list.join(","));
            eprintln!(
                "resubmit them alone: sbatch --array={} {}",
                list.join(","),
                script.display()
            );
        }
        None => eprintln!(
            "no --shards given and no {} to read it from: cannot name the shards",
            script.display()
        ),
    }
    bail!(
        "{} point file(s) missing: nothing rendered for the incomplete sweeps",
        report.missing()
    )
}

/// Writes the job-array script, and submits it with `--submit`.
fn write_slurm(
    files: &[PathBuf],
    engine: &sweep::Options,
    options: &SweepOptions,
    caller: &Caller,
) -> Result<()> {
    let cwd = std::env::current_dir()?;
    let binary = match &options.binary {
        Some(b) => cwd.join(b),
        None => caller.default_binary.clone(),
    };
    let mut collect = format!(
        "{} --collect --out {}",
        caller.command,
        slurm::quote(&options.out.display().to_string())?
    );
    for w in slurm::pass_on(engine) {
        collect.push(' ');
        collect.push_str(&slurm::quote(&w)?);
    }
    let settings = slurm::Slurm {
        shards: options.shards.unwrap_or(1),
        partition: options.partition.clone(),
        time: options.time.clone(),
    };
    let text = slurm::script(
        &caller.name,
        files,
        engine,
        &settings,
        &cwd,
        &binary,
        &collect,
    )?;
    let path = slurm::script_path(&options.out, &caller.name);
    // A script of that name that is not one prunesim wrote is the user's.
    if std::fs::symlink_metadata(&path).is_ok() {
        let ours = runner::files::read_input(&path)
            .is_ok_and(|t| t.lines().any(|l| l.starts_with(slurm::SHARDS_MARKER)));
        if !ours {
            bail!(
                "{} is not a job-array script prunesim wrote, and prunesim never writes over a file it did not write: move it, or give another --out",
                path.display()
            );
        }
    }
    let logs = options.out.join("slurm-logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    runner::files::write_atomic(&path, text.as_bytes())?;
    println!("wrote {}", path.display());
    if !binary.exists() {
        let msg = format!(
            "{} does not exist: build it first (cargo build --release -p prunesim, or cargo install --path crates/prunesim), or give --binary",
            binary.display()
        );
        if options.submit {
            bail!(msg);
        }
        eprintln!("warning: {msg}");
    }
    if options.submit {
        let o = Command::new("sbatch")
            .arg("--parsable")
            .arg(&path)
            .output()
            .context("running sbatch (is Slurm installed?)")?;
        if !o.status.success() {
            bail!(
                "sbatch {} failed: {}",
                path.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
        }
        let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
        println!("submitted job array {id}");
    } else {
        println!("submit it with: sbatch {}", path.display());
    }
    println!("when it is done: {collect}");
    Ok(())
}

/// The release `prunesim` of the workspace: `$CARGO_TARGET_DIR/release/prunesim`, by default
/// under `target/` of the workspace at `root`.
pub fn workspace_binary(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target.join("release").join("prunesim")
}

/// Progress bars on stderr (hidden when it is not a terminal), one per sweep, and each
/// sweep's table on stdout when it is done.
pub struct Bars {
    multi: MultiProgress,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl Bars {
    /// Bars drawn on stderr when it is a terminal.
    pub fn new() -> Self {
        let multi = if std::io::stderr().is_terminal() {
            MultiProgress::new()
        } else {
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
        };
        Bars {
            multi,
            bars: Mutex::new(HashMap::new()),
        }
    }

    fn bar(&self, id: &str) -> Option<ProgressBar> {
        self.bars.lock().ok()?.get(id).cloned()
    }
}

impl Default for Bars {
    fn default() -> Self {
        Self::new()
    }
}

impl Monitor for Bars {
    fn started(&self, id: &str, runs: u64) {
        let bar = self.multi.add(ProgressBar::new(runs));
        bar.set_style(
            ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} runs {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(id.to_owned());
        if let Ok(mut bars) = self.bars.lock() {
            bars.insert(id.to_owned(), bar);
        }
    }

    fn advanced(&self, id: &str, runs: u64) {
        if let Some(bar) = self.bar(id) {
            bar.inc(runs);
        }
    }

    fn finished(&self, id: &str, text: &str, seconds: f64) {
        let bar = self.bars.lock().ok().and_then(|mut b| b.remove(id));
        if let Some(bar) = bar {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
        self.multi.suspend(|| {
            print!("{}", crate::escape_controls(text));
            eprintln!("{}: {seconds:.1} s", crate::escape_controls(id));
        });
    }
}
