//! Output files written atomically: a temporary file in the target's folder, flushed to disk,
//! then renamed over the target. An interrupted or failed write (a full disk, a kill) leaves
//! the old file or the new one, never a truncated one. A temporary is removed on every error
//! path; one left by a killed process is removed by the next run that writes to the folder
//! ([`clean_temporaries`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::RunError;

/// The prefix and suffix of the temporaries.
const PREFIX: &str = ".prunesim-";
const SUFFIX: &str = ".tmp";

/// A temporary older than this was left by a process that was killed: no write takes this
/// long, and a younger one may belong to a run writing to the same folder right now (the
/// shards of a Slurm job array share their points folder).
pub const STALE_AFTER: Duration = Duration::from_secs(300);

fn io_error(path: &Path, e: &std::io::Error) -> RunError {
    RunError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Writes `path` atomically with what `write` writes.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), RunError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(PREFIX)
        .suffix(SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| io_error(dir, &e))?;
    // On error the temporary is dropped, which removes it.
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut w).map_err(|e| io_error(path, &e))?;
        w.flush().map_err(|e| io_error(path, &e))?;
    }
    tmp.as_file().sync_all().map_err(|e| io_error(path, &e))?;
    tmp.persist(path).map_err(|e| io_error(path, &e.error))?;
    Ok(())
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// A file written as it goes and put in place at the end: the bytes go to a temporary in the
/// target's folder, and [`AtomicFile::commit`] flushes it to disk and renames it over the
/// target. Dropped without a commit, the temporary is removed (a killed process leaves one
/// for [`clean_temporaries`]). For outputs too long to hold in memory (a long trial's trace).
pub struct AtomicFile {
    path: PathBuf,
    file: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path`.
    pub fn create(path: &Path) -> Result<Self, RunError> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(PREFIX)
            .suffix(SUFFIX)
            .tempfile_in(dir)
            .map_err(|e| io_error(dir, &e))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            file: std::io::BufWriter::with_capacity(1 << 16, tmp),
        })
    }

    /// The target's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes what was written to disk and renames it over the target.
    pub fn commit(self) -> Result<(), RunError> {
        let path = self.path;
        let tmp = self
            .file
            .into_inner()
            .map_err(|e| io_error(&path, e.error()))?;
        tmp.as_file().sync_all().map_err(|e| io_error(&path, &e))?;
        tmp.persist(&path).map_err(|e| io_error(&path, &e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Removes the temporaries a killed run left in `dir` (older than [`STALE_AFTER`]), including
/// the `<name>.tmp<pid>` files of point files written by earlier versions; returns them.
pub fn clean_temporaries(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ours = (name.starts_with(PREFIX) && name.ends_with(SUFFIX))
            || name
                .rsplit_once(".tmp")
                .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if !ours {
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if old && std::fs::remove_file(e.path()).is_ok() {
            removed.push(e.path());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporaries(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp"))
            .collect()
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("summary.json");
        write_atomic(&target, b"old").unwrap();
        // The disk fills up halfway through the new content.
        let err = write_atomic_with(&target, |w| {
            w.write_all(b"half of the new")?;
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "No space left on device",
            ))
        })
        .unwrap_err();
        assert!(err.to_string().contains("No space left"), "{err}");
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert!(temporaries(dir.path()).is_empty());
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert!(temporaries(dir.path()).is_empty());
    }

    #[test]
    fn a_streamed_file_appears_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("tasks-0.csv");
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"a,b\n1,2\n").unwrap();
        assert!(!target.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"a,b\n1,2\n");
        assert!(temporaries(dir.path()).is_empty());
        // Dropped without a commit: no target, no temporary.
        let other = dir.path().join("events-0.csv");
        let mut f = AtomicFile::create(&other).unwrap();
        f.write_all(b"x").unwrap();
        drop(f);
        assert!(!other.exists());
        assert!(temporaries(dir.path()).is_empty());
    }

    #[test]
    fn stale_temporaries_are_cleaned_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".prunesim-abc.tmp");
        let legacy = dir.path().join("0001-00ff.tmp4242");
        let fresh = dir.path().join(".prunesim-def.tmp");
        let other = dir.path().join("notes.txt");
        for p in [&old, &legacy, &fresh, &other] {
            std::fs::write(p, "x").unwrap();
        }
        let long_ago = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        for p in [&old, &legacy, &other] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        let mut removed = clean_temporaries(dir.path());
        removed.sort();
        let mut expected = vec![old, legacy];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(fresh.exists() && other.exists());
    }
}
