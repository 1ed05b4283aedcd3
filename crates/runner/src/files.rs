//! Output files written atomically: a temporary file in the target's folder, flushed to disk,
//! then renamed over the target. An interrupted or failed write (a full disk, a kill) leaves
//! the old file or the new one, never a truncated one. A temporary is removed on every error
//! path; one left by a killed process is removed by the next run that writes to the folder
//! ([`clean_temporaries`]). The temporaries are this program's own (`.prunesim-<random>.tmp`):
//! no other file is ever removed as one, whatever its name.
//!
//! Only regular files are written: a path that holds a folder, a FIFO, a device or a socket
//! is refused ([`RunError::NotAnOutput`]) and left as it is; a symlink to a regular file is
//! followed (the file it resolves to is replaced, the link stays), a symlink to anything else
//! or to nothing is refused. A new file gets the mode the umask leaves of `0o666` (`0o644`
//! under `umask 022`), as a file created by any other program; a replaced file keeps its
//! mode.

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

/// Where an output given as `path` is written: `path` when nothing or a regular file is
/// there, the file a symlink resolves to when that is a regular file; with the permissions of
/// the file it replaces. Anything else is refused, naming `path` and what it is.
pub fn output_target(path: &Path) -> Result<(PathBuf, Option<std::fs::Permissions>), RunError> {
    let here = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((path.to_path_buf(), None));
        }
        Err(e) => return Err(io_error(path, &e)),
    };
    let refused = |kind: String| RunError::NotAnOutput {
        path: path.to_path_buf(),
        kind,
    };
    if !here.file_type().is_symlink() {
        if !here.is_file() {
            return Err(refused(workload::io::file_kind(&here).to_owned()));
        }
        return Ok((path.to_path_buf(), Some(here.permissions())));
    }
    let there = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refused("a symlink to nothing".to_owned()));
        }
        // A loop of symlinks, a folder on the way that cannot be searched.
        Err(e) => return Err(refused(format!("a symlink that does not resolve ({e})"))),
    };
    if !there.is_file() {
        return Err(refused(format!(
            "a symlink to {}",
            workload::io::file_kind(&there)
        )));
    }
    let resolved = std::fs::canonicalize(path).map_err(|e| io_error(path, &e))?;
    Ok((resolved, Some(there.permissions())))
}

/// A temporary beside `target` with the mode an output gets: `keep` (the replaced file's), or
/// what the umask leaves of `0o666`.
fn temporary(
    target: &Path,
    keep: Option<std::fs::Permissions>,
) -> Result<tempfile::NamedTempFile, RunError> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(PREFIX).suffix(SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // The mode a file created by open(2) gets: the umask applies to it.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir).map_err(|e| io_error(dir, &e))?;
    if let Some(mut keep) = keep {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            keep = std::fs::Permissions::from_mode(keep.mode() & 0o777);
        }
        tmp.as_file()
            .set_permissions(keep)
            .map_err(|e| io_error(target, &e))?;
    }
    Ok(tmp)
}

/// Writes `path` atomically with what `write` writes.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), RunError> {
    let (target, keep) = output_target(path)?;
    let mut tmp = temporary(&target, keep)?;
    // On error the temporary is dropped, which removes it.
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        write(&mut w).map_err(|e| io_error(path, &e))?;
        w.flush().map_err(|e| io_error(path, &e))?;
    }
    tmp.as_file().sync_all().map_err(|e| io_error(path, &e))?;
    tmp.persist(&target).map_err(|e| io_error(path, &e.error))?;
    Ok(())
}

/// Checks an input as every reader does: a regular file (a symlink to one is followed) of at
/// most [`workload::io::max_input_bytes`]; returns its size.
pub fn check_input(path: &Path) -> Result<u64, RunError> {
    Ok(workload::io::check_input_file(
        path,
        workload::io::max_input_bytes(),
    )?)
}

/// Reads an input as every reader does ([`workload::io::read_text`]: [`check_input`], then
/// at most the cap, as UTF-8).
pub fn read_input(path: &Path) -> Result<String, RunError> {
    Ok(workload::io::read_text(path)?)
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
    target: PathBuf,
    file: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `path` (refused when something other than a regular file is there, as
    /// [`write_atomic_with`]).
    pub fn create(path: &Path) -> Result<Self, RunError> {
        let (target, keep) = output_target(path)?;
        let tmp = temporary(&target, keep)?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            target,
            file: std::io::BufWriter::with_capacity(1 << 16, tmp),
        })
    }

    /// The target's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes what was written to disk and renames it over the target.
    pub fn commit(self) -> Result<(), RunError> {
        let (path, target) = (self.path, self.target);
        let tmp = self
            .file
            .into_inner()
            .map_err(|e| io_error(&path, e.error()))?;
        tmp.as_file().sync_all().map_err(|e| io_error(&path, &e))?;
        tmp.persist(&target)
            .map_err(|e| io_error(&path, &e.error))?;
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

/// Locks the folder `dir` for this process: a second process that tries is refused, naming
/// the folder. The lock is advisory (`flock(2)` on the folder), released when the returned
/// file is dropped or the process ends; `None` where the file system has no locks (a
/// warning says so) or off Unix.
pub fn lock_folder(dir: &Path) -> Result<Option<std::fs::File>, RunError> {
    #[cfg(unix)]
    {
        use rustix::fs::{FlockOperation, flock};
        let f = std::fs::File::open(dir).map_err(|e| io_error(dir, &e))?;
        match flock(&f, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(f)),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => Err(RunError::Input(format!(
                "{}: another prunesim process is writing this folder; wait for it to end, or give another folder",
                dir.display()
            ))),
            Err(e) => {
                tracing::warn!(folder = %dir.display(), "the folder could not be locked: {e}");
                Ok(None)
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(None)
    }
}

/// Where an output at `path` is written, canonically (symlinks resolved): the file a
/// symlink resolves to, or the canonical folder it is in joined with its name; `None` when
/// its folder does not exist. Equal to an input's [`std::fs::canonicalize`] when writing it
/// would replace that input.
pub fn canonical_output(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
}

/// The first output of `outputs` that would replace one of `inputs` (compared after
/// symlinks): the output and the input's index; `None` when none would.
pub fn find_clash<'a>(inputs: &[&Path], outputs: &'a [PathBuf]) -> Option<(&'a Path, usize)> {
    let inputs: Vec<(usize, PathBuf)> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, std::fs::canonicalize(p).ok()?)))
        .collect();
    outputs.iter().find_map(|out| {
        let target = canonical_output(out)?;
        let (i, _) = inputs.iter().find(|(_, c)| *c == target)?;
        Some((out.as_path(), *i))
    })
}

/// Refuses outputs that would replace inputs ([`find_clash`]): each of `inputs` is what it
/// is and its path; a clash names both.
pub fn check_clashes(inputs: &[(&str, &Path)], outputs: &[PathBuf]) -> Result<(), RunError> {
    let paths: Vec<&Path> = inputs.iter().map(|(_, p)| *p).collect();
    match find_clash(&paths, outputs) {
        None => Ok(()),
        Some((out, i)) => Err(RunError::Input(format!(
            "the output {} would replace {} {} (the same file); nothing was written: give another output folder",
            out.display(),
            inputs[i].0,
            inputs[i].1.display()
        ))),
    }
}

/// The longest name [`check_name`] accepts.
pub const MAX_NAME_LEN: usize = 100;

/// Checks a name a user writes that becomes a file name (a sweep's `id`, the stem of its
/// outputs): one path component of 1 to [`MAX_NAME_LEN`] ASCII letters, digits, `-`, `_` and
/// `.`, starting with a letter, a digit or `_` (so never `.`, `..`, a hidden file, a path or an
/// option). The error says what is wrong.
pub fn check_name(name: &str) -> Result<(), String> {
    let shown = name.escape_debug();
    if name.is_empty() {
        return Err("an empty name: give 1 to 100 letters, digits, '-', '_' or '.'".to_owned());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "\"{shown}\" is {} bytes long: a name is at most {MAX_NAME_LEN}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        let why = if matches!(c, '/' | '\\') {
            "a name is one file name, not a path".to_owned()
        } else {
            "a name holds only ASCII letters, digits, '-', '_' and '.'".to_owned()
        };
        return Err(format!("\"{shown}\" holds {:?}: {why}", c));
    }
    if name.starts_with(['.', '-']) {
        return Err(format!(
            "\"{shown}\" starts with {:?}: a name starts with a letter, a digit or '_'",
            &name[..1]
        ));
    }
    Ok(())
}

/// `#[serde(deserialize_with)]` for a field that becomes a file name ([`check_name`]): a bad
/// one is an error at its line of the file.
pub fn deserialize_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(d)?;
    check_name(&name).map_err(serde::de::Error::custom)?;
    Ok(name)
}

/// Whether `name` is one of this program's temporaries: `.prunesim-<random>.tmp`.
pub fn is_temporary(name: &str) -> bool {
    name.len() > PREFIX.len() + SUFFIX.len() && name.starts_with(PREFIX) && name.ends_with(SUFFIX)
}

/// Removes the temporaries a killed run left in `dir` (this program's own,
/// `.prunesim-<random>.tmp`, older than [`STALE_AFTER`]); returns them. Any other file is
/// kept, whatever its name.
pub fn clean_temporaries(dir: &Path) -> Vec<PathBuf> {
    clean(dir, is_temporary, STALE_AFTER)
}

/// [`clean_temporaries`] whatever their age, in a folder this process holds the lock of
/// ([`lock_folder`]): no other process writes there, so every temporary is a killed run's.
pub fn clean_temporaries_locked(dir: &Path) -> Vec<PathBuf> {
    clean(dir, is_temporary, Duration::ZERO)
}

fn clean(dir: &Path, ours: impl Fn(&str) -> bool, stale_after: Duration) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_str().is_some_and(&ours) {
            continue;
        }
        // Only regular files: a folder or a link of that name is not a temporary of ours.
        let Ok(meta) = e.path().symlink_metadata() else {
            continue;
        };
        let old = meta.is_file()
            && meta
                .modified()
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age >= stale_after);
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

    /// The process's umask, from `/proc/self/status` (Linux).
    #[cfg(unix)]
    fn umask() -> Option<u32> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("Umask:"))?;
        u32::from_str_radix(line["Umask:".len()..].trim(), 8).ok()
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn outputs_get_the_umask_mode_and_a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let Some(umask) = umask() else {
            eprintln!("skipped: no Umask line in /proc/self/status to compare with");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("summary.json");
        write_atomic(&new, b"x").unwrap();
        assert_eq!(mode(&new), 0o666 & !umask, "umask {umask:o}");
        let streamed = dir.path().join("tasks-0.csv");
        AtomicFile::create(&streamed).unwrap().commit().unwrap();
        assert_eq!(mode(&streamed), 0o666 & !umask, "umask {umask:o}");
        // A replaced file keeps its mode, narrower or wider than the umask's.
        for keep in [0o600, 0o664, 0o640] {
            std::fs::set_permissions(&new, std::fs::Permissions::from_mode(keep)).unwrap();
            write_atomic(&new, b"y").unwrap();
            assert_eq!(mode(&new), keep);
            std::fs::set_permissions(&streamed, std::fs::Permissions::from_mode(keep)).unwrap();
            AtomicFile::create(&streamed).unwrap().commit().unwrap();
            assert_eq!(mode(&streamed), keep);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_to_a_regular_file_is_followed_and_stays_a_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("real.html");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("report.html");
        std::os::unix::fs::symlink("real.html", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        assert_eq!(mode(&file), 0o640);
        let mut f = AtomicFile::create(&link).unwrap();
        f.write_all(b"streamed").unwrap();
        f.commit().unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&file).unwrap(), b"streamed");
        assert!(temporaries(dir.path()).is_empty());
    }

    /// Every output write refuses `path` naming it and `kind`, and leaves it as it was.
    #[cfg(unix)]
    fn refused(path: &Path, kind: &str) {
        let what = |p: &Path| std::fs::symlink_metadata(p).unwrap().file_type();
        let before = what(path);
        let err = write_atomic(path, b"x").unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(err, RunError::NotAnOutput { .. }),
            "{}: {message}",
            path.display()
        );
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains(kind), "{message} does not say {kind:?}");
        let err = AtomicFile::create(path).err().expect("refused");
        assert!(err.to_string().contains(kind), "{err}");
        assert_eq!(what(path), before, "{} was replaced", path.display());
        assert!(temporaries(path.parent().unwrap()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn outputs_are_never_written_over_anything_but_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let folder = d.join("folder");
        std::fs::create_dir(&folder).unwrap();
        refused(&folder, "a folder");
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            refused(&fifo, "a FIFO");
            let to_fifo = d.join("to-fifo");
            std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
            refused(&to_fifo, "a symlink to a FIFO");
        } else {
            eprintln!("skipped the FIFO: mkfifo failed");
        }
        let socket = d.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        refused(&socket, "a socket");
        // A character device like /dev/null (1, 3), made in the temporary folder.
        let device = d.join("null");
        let made = std::process::Command::new("mknod")
            .arg(&device)
            .args(["c", "1", "3"])
            .stderr(std::process::Stdio::null())
            .status();
        if made.is_ok_and(|s| s.success()) {
            refused(&device, "a character device");
            let to_device = d.join("to-null");
            std::os::unix::fs::symlink(&device, &to_device).unwrap();
            refused(&to_device, "a symlink to a character device");
        } else {
            eprintln!("skipped the character device: mknod failed (not root, or not allowed here)");
        }
        let dangling = d.join("dangling");
        std::os::unix::fs::symlink("missing", &dangling).unwrap();
        refused(&dangling, "a symlink to nothing");
        let (a, b) = (d.join("loop-a"), d.join("loop-b"));
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        refused(&a, "a symlink that does not resolve");
    }

    #[test]
    fn stale_temporaries_are_cleaned_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = d.join(".prunesim-abc.tmp");
        let legacy = d.join("0001-00ff.tmp4242");
        let fresh = d.join(".prunesim-def.tmp");
        // A user's files named like numbered temporaries are never ours.
        let users = [
            "notes.txt",
            "backup.tmp2024",
            "data.tmp1",
            "results.tmp2",
            ".prunesim-.tmp",
        ]
        .map(|n| d.join(n));
        for p in [&old, &legacy, &fresh].into_iter().chain(&users) {
            std::fs::write(p, "x").unwrap();
        }
        let long_ago = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        for p in [&old, &legacy].into_iter().chain(&users) {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        // Only this program's temporaries, whatever the folder: a point file's temporary of
        // earlier versions (`<stem>.tmp<pid>`) is named like any user's file.
        assert_eq!(clean_temporaries(d), vec![old]);
        assert!(fresh.exists() && legacy.exists());
        for u in &users {
            assert!(u.exists(), "{} was removed", u.display());
        }
    }

    #[test]
    fn a_name_is_one_plain_file_name() {
        for good in [
            "fig4",
            "my-sweep",
            "hansen_5",
            "a.b",
            "_x",
            "9",
            &"a".repeat(100),
        ] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        for (bad, says) in [
            ("", "empty"),
            (".", "starts with"),
            ("..", "starts with"),
            (".hidden", "starts with"),
            ("-x", "starts with"),
            ("/some/where/victim", "not a path"),
            ("../../escaped", "not a path"),
            ("a\\b", "not a path"),
            ("a b", "only ASCII"),
            ("caf\u{e9}", "only ASCII"),
            ("a\u{1b}[31m", "only ASCII"),
            (&"a".repeat(101), "at most 100"),
        ] {
            let e = check_name(bad).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }
}
