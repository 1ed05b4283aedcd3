//! What a run reads besides its experiment file: the `--pet` file's kind, the `--workload`
//! trial files (and what their readers repaired), and an experiment on standard input.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use runner::{ExperimentConfig, RunError};
use workload::PetSource;

use super::RunArgs;

/// Expands a file, a folder (its files) or a glob into paths in natural order.
pub(crate) fn expand_files(pattern: &str) -> Result<Vec<PathBuf>> {
    let path = Path::new(pattern);
    let mut v: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(path)
            .with_context(|| format!("reading folder {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect()
    } else if path.exists() {
        workload::io::check_input_file(path, workload::io::max_input_bytes())
            .with_context(|| format!("--workload {pattern}"))?;
        vec![path.to_path_buf()]
    } else {
        glob::glob(pattern)
            .with_context(|| format!("--workload '{pattern}' is not a valid glob"))?
            .filter_map(std::result::Result::ok)
            .filter(|p| p.is_file())
            .collect()
    };
    alphanumeric_sort::sort_path_slice(&mut v);
    if v.is_empty() {
        bail!("--workload '{pattern}': no file matches (nothing to run)");
    }
    Ok(v)
}

/// What reading the trial files repaired, for the report at the end of a run.
#[derive(Debug, Default)]
pub(crate) struct Repairs {
    pub(crate) files: usize,
    pub(crate) repaired_arrivals: usize,
    pub(crate) files_with_repairs: usize,
    pub(crate) out_of_order: usize,
}

/// Reads the trial files; a task type the PET lacks is an error naming the file and line.
/// The times of a workload CSV are `tick`s of the experiment's (`workload.tick`).
pub(crate) fn read_trials(
    paths: &[PathBuf],
    pet: &workload::Pet,
    tick: f64,
    repairs: &mut Repairs,
) -> Result<Vec<workload::Trial>, RunError> {
    let mut trials = Vec::new();
    for p in paths {
        let is_csv = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let trial = if is_csv {
            workload::io::read_workload_csv_with_tick(p, Some(pet.type_names()), tick)?
        } else {
            let options = workload::io::DatOptions {
                task_types: Some(pet.n_types()),
                ..workload::io::DatOptions::default()
            };
            let (t, report) = workload::io::read_dat_with(p, &options)?;
            let repaired = report.repaired().count();
            repairs.repaired_arrivals += repaired;
            repairs.files_with_repairs += usize::from(repaired > 0);
            repairs.out_of_order += report.out_of_order;
            tracing::info!(file = %p.display(), ?report, "read trial");
            t
        };
        repairs.files += 1;
        trials.push(trial);
    }
    Ok(trials)
}

/// The PET source a `--pet` file stands for: a samples CSV by its extension or header, else
/// an `.etc` file.
/// `--tick auto`: the tick [`workload::WorkloadConfig::resolve_tick`] chooses from the PET's
/// samples CSV. Errors: a PET that is not a samples CSV (its times are ticks already), an
/// unreadable file.
pub(crate) fn auto_tick(workload: &mut workload::WorkloadConfig) -> Result<()> {
    let chosen = workload.resolve_tick().map_err(|e| match e {
        workload::WorkloadError::InvalidConfig { .. } => anyhow::anyhow!(
            "--tick auto chooses the tick from a samples CSV's times; this PET's times are ticks already (give --pet times.csv, or a length)"
        ),
        e => anyhow::Error::new(e).context("--tick auto"),
    })?;
    if let Some(chosen) = chosen {
        tracing::info!(
            tick = chosen.tick,
            shortest_mean = chosen.shortest_mean,
            task_type = %chosen.cell.0,
            machine = %chosen.cell.1,
            "--tick auto: a hundredth of the shortest cell mean"
        );
    }
    Ok(())
}

pub(crate) fn pet_source(args: &RunArgs, path: &Path) -> Result<PetSource> {
    workload::io::check_input_file(path, workload::io::max_input_bytes())
        .with_context(|| format!("--pet {}", path.display()))?;
    let head = {
        use std::io::Read;
        let mut buf = [0u8; 256];
        let n = std::fs::File::open(path)
            .and_then(|mut f| f.read(&mut buf))
            .with_context(|| format!("--pet {}", path.display()))?;
        String::from_utf8_lossy(&buf[..n]).into_owned()
    };
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
        || head.trim_start().starts_with("task_type");
    if is_csv {
        let bin_width = match args.bin_width {
            None => workload::io::BinWidth::Auto,
            Some(w) if w > 0 => workload::io::BinWidth::Ticks(w),
            Some(w) => {
                bail!("--bin-width: expected a positive number of ticks, found {w}")
            }
        };
        Ok(PetSource::Samples {
            path: path.to_path_buf(),
            bin_width,
            bin_value: args.bin_value.into(),
        })
    } else {
        if args.bin_width.is_some() {
            bail!(
                "--bin-width applies to a CSV of measured execution times, and {} is an .etc file",
                path.display()
            );
        }
        Ok(PetSource::Etc(path.to_path_buf()))
    }
}

/// `prunesim run -`: the experiment TOML from standard input (at most
/// [`workload::io::max_input_bytes`]); relative paths in it resolve against the current folder.
pub(crate) fn read_stdin_experiment(seed: Option<u64>) -> Result<ExperimentConfig> {
    let text = read_stdin_text(
        &mut std::io::stdin().lock(),
        workload::io::max_input_bytes(),
    )?;
    let mut config = ExperimentConfig::from_toml_str_seeded(&text, "<stdin>", None, seed)?;
    if config.name == "experiment" {
        config.name = "stdin".into();
    }
    Ok(config)
}

/// Reads TOML text from `input`, at most `max` bytes: refused at the first NUL byte (TOML holds
/// none; `/dev/zero` is all NULs) and as soon as more than `max` bytes came, without reading
/// further.
pub(crate) fn read_stdin_text(input: &mut impl std::io::Read, max: u64) -> Result<String> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e).context("reading the experiment from standard input"),
        };
        if let Some(at) = chunk[..n].iter().position(|&b| b == 0) {
            bail!(
                "standard input: a NUL byte at byte {}: an experiment is TOML text, which holds none",
                bytes.len() + at
            );
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > max {
            bail!(
                "standard input: more than the {max} bytes an input may hold (set {} to allow more)",
                workload::io::MAX_INPUT_ENV
            );
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "standard input: not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// What the `.dat` readers repaired, said at the end of every run that read files.
pub(crate) fn report_repairs(r: &Repairs) {
    if r.repaired_arrivals > 0 || r.out_of_order > 0 {
        eprintln!(
            "note: of {} workload files, {} had arrivals repaired ({} arrivals that lost leading characters, e.g. \"45\" read as 1.45, restored from their deadline and type slack); {} tasks were out of arrival order and sorted (RUST_LOG=debug lists the repairs)",
            r.files, r.files_with_repairs, r.repaired_arrivals, r.out_of_order
        );
    }
}

#[cfg(test)]
mod tests {
    use super::read_stdin_text;

    /// Standard input that never ends, of one byte repeated, counting what was read.
    struct Endless {
        byte: u8,
        read: u64,
    }

    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(self.byte);
            self.read += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn standard_input_is_refused_at_its_first_nul_and_at_the_cap() {
        // /dev/zero: refused in the first chunk (1 GiB was buffered first).
        let mut zeros = Endless { byte: 0, read: 0 };
        let e = read_stdin_text(&mut zeros, 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a NUL byte at byte 0"), "{e}");
        assert!(zeros.read <= 1 << 16, "read {} bytes", zeros.read);
        // Endless text: refused as soon as the cap is passed.
        let mut text = Endless {
            byte: b'#',
            read: 0,
        };
        let e = read_stdin_text(&mut text, 1 << 20).unwrap_err().to_string();
        assert!(e.contains("more than the 1048576 bytes"), "{e}");
        assert!(e.contains("PRUNESIM_MAX_INPUT_BYTES"), "{e}");
        assert!(
            text.read <= (1 << 20) + (1 << 16),
            "read {} bytes",
            text.read
        );
        let mut toml: &[u8] = b"name = \"x\"\n";
        assert_eq!(read_stdin_text(&mut toml, 100).unwrap(), "name = \"x\"\n");
    }
}
