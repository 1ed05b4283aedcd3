//! `prunesim new-policy NAME`: a new cargo crate, outside any checkout, whose program is the
//! whole `prunesim` command line with a heuristic and a pruning rule of its own registered
//! beside the built-in ones (the user guide's "Write your own heuristic").
//!
//! The crate's Rust sources are `examples/own-policy/src/` of this repository, embedded as they
//! are: the example in the workspace and every generated crate run the same code. Its
//! `Cargo.toml` and `README.md` are `templates/policy/` of this crate, with the crate's name
//! and where prunesim's crates come from filled in: a checkout by path (by default the one
//! this `prunesim` was built from), or a git repository.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The generated crate's `src/main.rs`: examples/own-policy's.
pub const MAIN_RS: &str = include_str!("../../../examples/own-policy/src/main.rs");
/// The generated crate's `src/heuristic.rs`: examples/own-policy's.
pub const HEURISTIC_RS: &str = include_str!("../../../examples/own-policy/src/heuristic.rs");
/// The generated crate's `src/pruner.rs`: examples/own-policy's.
pub const PRUNER_RS: &str = include_str!("../../../examples/own-policy/src/pruner.rs");
const CARGO_TOML: &str = include_str!("../templates/policy/Cargo.toml.in");
const README: &str = include_str!("../templates/policy/README.md.in");

/// prunesim's crates the generated crate depends on.
pub const DEPENDENCIES: [&str; 4] = ["heuristics", "model", "pruner", "prunesim"];

/// prunesim's crates the generated crate depends on, directly or not: none can be its name
/// (cargo refuses two packages of one name and version from paths).
pub const ALL_DEPENDENCIES: [&str; 15] = [
    "bound",
    "cutting",
    "figures",
    "heuristics",
    "learn",
    "live",
    "model",
    "moldable",
    "pmf",
    "pruner",
    "prunesim",
    "report",
    "runner",
    "system",
    "workload",
];

/// Rust's strict keywords as of the 2024 edition (the generated crate's): cargo refuses them
/// as package names, and a program cannot be named by one.
pub const STRICT_KEYWORDS: [&str; 38] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];

/// Rust's reserved keywords as of the 2024 edition (`gen` since 2024, `try` since 2018),
/// refused as [`STRICT_KEYWORDS`] are.
pub const RESERVED_KEYWORDS: [&str; 14] = [
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// The names of cargo's own folders in a build directory: cargo refuses them as a program's
/// name.
const CARGO_FOLDERS: [&str; 4] = ["build", "deps", "examples", "incremental"];

/// The crates of Rust's standard library (cargo warns about them; a crate of that name
/// shadows them).
const STANDARD_CRATES: [&str; 5] = ["alloc", "core", "proc_macro", "std", "test"];

/// Whether `name` is a device name of Windows (`con`, `nul`, `com1`, ..., in any case), where
/// cargo refuses it: no file or folder can have it.
fn windows_device(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["con", "prn", "aux", "nul"].contains(&n.as_str())
        || ["com", "lpt"].iter().any(|p| {
            n.strip_prefix(p)
                .is_some_and(|d| d.len() == 1 && matches!(d.as_bytes()[0], b'1'..=b'9'))
        })
}

/// Where the generated crate gets prunesim's crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A checkout of the repository (its root folder), by path.
    Path(PathBuf),
    /// A git repository, by URL.
    Git(String),
}

/// What can go wrong writing a new crate. Nothing is written when any but [`Error::Io`]
/// occurs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The name cannot name a cargo package and its program.
    #[error("{name:?} cannot name a crate: {reason}; nothing was written")]
    Name {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The folder exists and holds something: nothing in it is replaced.
    #[error(
        "{}: the folder exists and is not empty; give a new or an empty folder (nothing was written)",
        path.display()
    )]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// The path exists and is not a folder.
    #[error("{}: exists and is not a folder (nothing was written)", path.display())]
    NotAFolder {
        /// The path.
        path: PathBuf,
    },
    /// The folder given as prunesim's checkout does not hold prunesim's workspace.
    #[error(
        "{}: not a checkout of prunesim (no {missing}); give --prunesim-path DIR, the root folder of a checkout, or --git URL",
        path.display()
    )]
    NoCheckout {
        /// The folder.
        path: PathBuf,
        /// The file it lacks.
        missing: String,
    },
    /// A path that cannot be written into `Cargo.toml` (not UTF-8).
    #[error("{}: not valid UTF-8, so Cargo.toml cannot name it", path.display())]
    NotUtf8 {
        /// The path.
        path: PathBuf,
    },
    /// Reading or writing a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The root of the checkout this crate was built from (where its workspace `Cargo.toml` was).
pub fn built_from() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `dir` as an absolute path, when it is the root of a prunesim checkout: its `Cargo.toml`
/// declares a workspace and it holds the crates the generated crate depends on.
pub fn checkout(dir: &Path) -> Result<PathBuf, Error> {
    let no = |missing: &str| Error::NoCheckout {
        path: dir.to_path_buf(),
        missing: missing.to_owned(),
    };
    let root = dir.canonicalize().map_err(|_| no("such folder"))?;
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).map_err(|_| no("Cargo.toml"))?;
    if !manifest.lines().any(|l| l.trim() == "[workspace]") {
        return Err(no("[workspace] in Cargo.toml"));
    }
    for krate in DEPENDENCIES {
        let path = format!("crates/{krate}/Cargo.toml");
        let text = std::fs::read_to_string(root.join(&path)).map_err(|_| no(&path))?;
        if !text
            .lines()
            .any(|l| l.trim() == format!("name = \"{krate}\""))
        {
            return Err(no(&format!("package {krate} in {path}")));
        }
    }
    Ok(root)
}

/// Checks `name` as a cargo package name that is also its program's: ASCII letters, digits,
/// `-` and `_`, starting with a letter, at most 64 of them; no Rust keyword
/// ([`STRICT_KEYWORDS`], [`RESERVED_KEYWORDS`]), none of the crates it depends on
/// ([`ALL_DEPENDENCIES`]) or of Rust's standard library, no folder name of cargo's build
/// directory and no Windows device name: nothing cargo would refuse, or build into something
/// other than the program.
pub fn check_name(name: &str) -> Result<(), Error> {
    let fail = |reason| {
        Err(Error::Name {
            name: name.to_owned(),
            reason,
        })
    };
    const CHARACTERS: &str = "(letters, digits, '-' and '_', starting with a letter)";
    if name.is_empty() {
        return fail(format!("it is empty {CHARACTERS}"));
    }
    if name.len() > 64 {
        return fail("it is longer than 64 characters".into());
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return fail(format!("it does not start with a letter {CHARACTERS}"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return fail(format!(
            "it holds a character other than a letter, a digit, '-' or '_' {CHARACTERS}"
        ));
    }
    let ident = name.replace('-', "_");
    if STRICT_KEYWORDS.contains(&name) || RESERVED_KEYWORDS.contains(&name) {
        return fail(
            "it is a Rust keyword (strict or reserved, 2024 edition), which cargo refuses as a \
             package name"
                .into(),
        );
    }
    if ALL_DEPENDENCIES.contains(&ident.as_str()) {
        return fail(
            "it is the name of one of prunesim's crates, which the new crate depends on \
             (directly or not)"
                .into(),
        );
    }
    if STANDARD_CRATES.contains(&ident.as_str()) {
        return fail("it is the name of a crate of Rust's standard library".into());
    }
    if CARGO_FOLDERS.contains(&name) {
        return fail(
            "it is the name of a folder of cargo's build directory, which cargo refuses as a \
             program's name"
                .into(),
        );
    }
    if windows_device(name) {
        return fail(
            "it is a device name on Windows, where cargo refuses it (no file can be named so)"
                .into(),
        );
    }
    Ok(())
}

/// What follows a dependency's source in the generated `Cargo.toml`: the command line's
/// features are the crate's own (`png`, on by default; `--no-default-features` builds
/// without the figures' PNG rendering).
fn features_of(krate: &str) -> &'static str {
    if krate == "prunesim" {
        ", default-features = false"
    } else {
        ""
    }
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn path_str(path: &Path) -> Result<&str, Error> {
    path.to_str().ok_or_else(|| Error::NotUtf8 {
        path: path.to_path_buf(),
    })
}

/// The files of the new crate: its relative path and its text.
pub fn files(name: &str, source: &Source) -> Result<Vec<(&'static str, String)>, Error> {
    check_name(name)?;
    let mut dependencies = String::new();
    let source_text = match source {
        Source::Path(root) => {
            for krate in DEPENDENCIES {
                let path = root.join("crates").join(krate);
                dependencies.push_str(&format!(
                    "{krate} = {{ path = {}{} }}\n",
                    quoted(path_str(&path)?),
                    features_of(krate)
                ));
            }
            format!(
                "Its `Cargo.toml` depends on prunesim's crates by path, in the checkout at\n`{}`. \
                 Keep that folder, or change the paths (to another checkout, or to\n\
                 `git = \"URL\"` of the repository).",
                path_str(root)?
            )
        }
        Source::Git(url) => {
            for krate in DEPENDENCIES {
                dependencies.push_str(&format!(
                    "{krate} = {{ git = {}{} }}\n",
                    quoted(url),
                    features_of(krate)
                ));
            }
            format!(
                "Its `Cargo.toml` depends on prunesim's crates from the git repository\n`{url}`; \
                 add `rev = \"...\"` to each to pin a revision."
            )
        }
    };
    let cargo = CARGO_TOML
        .replace("{{name}}", name)
        .replace("{{dependencies}}\n", &dependencies);
    let readme = README
        .replace("{{name}}", name)
        .replace("{{source}}", &source_text);
    Ok(vec![
        ("Cargo.toml", cargo),
        ("README.md", readme),
        ("src/main.rs", MAIN_RS.to_owned()),
        ("src/heuristic.rs", HEURISTIC_RS.to_owned()),
        ("src/pruner.rs", PRUNER_RS.to_owned()),
    ])
}

/// Writes the crate `name` into `dir`, which must not exist or be empty; with a
/// [`Source::Path`], the checkout's `Cargo.lock` too (the versions it was tested with).
/// Returns the files written. No file is ever replaced: a file that appears meanwhile is
/// an error.
pub fn write(name: &str, dir: &Path, source: &Source) -> Result<Vec<PathBuf>, Error> {
    let mut files = files(name, source)?;
    if let Source::Path(root) = source {
        let lock = root.join("Cargo.lock");
        match std::fs::read_to_string(&lock) {
            Ok(text) => files.push(("Cargo.lock", text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&lock)(e)),
        }
    }
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => {
            return Err(Error::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        Ok(_) => {
            if std::fs::read_dir(dir).map_err(io(dir))?.next().is_some() {
                return Err(Error::NotEmpty {
                    path: dir.to_path_buf(),
                });
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(dir)(e)),
    }
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(io(&src))?;
    let mut written = Vec::new();
    for (rel, text) in files {
        let path = dir.join(rel);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io(&path))?;
        f.write_all(text.as_bytes()).map_err(io(&path))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_name_a_crate_are_refused() {
        for bad in [
            "", "1st", "-x", "a b", "a/b", "émile", "runner", "model", "test",
        ] {
            assert!(
                matches!(check_name(bad), Err(Error::Name { .. })),
                "{bad:?}"
            );
        }
        for good in ["my-policy", "mine", "msp_edf2"] {
            check_name(good).unwrap();
        }
    }

    #[test]
    fn keywords_cargo_folders_and_windows_devices_are_refused_and_said_to_be() {
        let why = |name: &str| match check_name(name) {
            Err(e @ Error::Name { .. }) => e.to_string(),
            other => panic!("{name:?}: {other:?}"),
        };
        for k in STRICT_KEYWORDS.iter().chain(&RESERVED_KEYWORDS) {
            let e = why(k);
            assert!(
                e.contains(&format!("{k:?}")) && e.contains("Rust keyword"),
                "{e}"
            );
        }
        for k in [
            "fn", "self", "Self", "crate", "super", "async", "gen", "try", "dyn",
        ] {
            assert!(
                STRICT_KEYWORDS.contains(&k) || RESERVED_KEYWORDS.contains(&k),
                "{k}"
            );
        }
        assert!(why("build").contains("build directory"));
        assert!(why("std").contains("standard library"));
        assert!(why("proc-macro").contains("standard library"));
        assert!(why("pmf").contains("prunesim's crates"));
        assert!(why("COM1").contains("Windows"));
        assert!(why("nul").contains("Windows"));
        // Words that merely look like them are names.
        for good in [
            "self2",
            "fn-policy",
            "union",
            "raw",
            "com0",
            "con1",
            "builder",
            "self_",
        ] {
            check_name(good).unwrap();
        }
    }

    /// Every package of the workspace the generated crate depends on, directly or not, by the
    /// checkout's `Cargo.lock`: [`ALL_DEPENDENCIES`] must name them all.
    #[test]
    fn every_crate_of_the_workspace_the_new_crate_depends_on_is_refused() {
        let lock: toml::Table =
            toml::from_str(&std::fs::read_to_string(built_from().join("Cargo.lock")).unwrap())
                .unwrap();
        let packages = lock["package"].as_array().unwrap();
        let find = |name: &str| {
            packages
                .iter()
                .find(|p| p["name"].as_str() == Some(name))
                .unwrap()
        };
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&str> = DEPENDENCIES.to_vec();
        while let Some(name) = stack.pop() {
            let p = find(name);
            // A package of a registry or a git repository is not one of the workspace's.
            if p.get("source").is_some() || !seen.insert(name) {
                continue;
            }
            for d in p
                .get("dependencies")
                .and_then(|d| d.as_array())
                .into_iter()
                .flatten()
            {
                stack.push(d.as_str().unwrap().split(' ').next().unwrap());
            }
        }
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), ALL_DEPENDENCIES);
    }

    #[test]
    fn the_checkout_this_was_built_from_is_one_and_others_are_refused() {
        let root = checkout(&built_from()).unwrap();
        assert!(root.join("examples/own-policy").is_dir());
        let empty = tempfile::tempdir().unwrap();
        let e = checkout(empty.path()).unwrap_err();
        assert!(matches!(e, Error::NoCheckout { .. }), "{e}");
        assert!(e.to_string().contains("--prunesim-path"), "{e}");
        let e = checkout(&root.join("crates")).unwrap_err().to_string();
        assert!(e.contains("no Cargo.toml"), "{e}");
    }

    #[test]
    fn the_manifest_names_the_crate_and_its_sources_by_path_or_git() {
        let root = checkout(&built_from()).unwrap();
        let files = files("mine", &Source::Path(root.clone())).unwrap();
        let cargo: toml::Table = files[0].1.parse().unwrap();
        assert_eq!(cargo["package"]["name"].as_str(), Some("mine"));
        assert!(cargo["workspace"].is_table());
        for krate in DEPENDENCIES {
            let path = cargo["dependencies"][krate]["path"].as_str().unwrap();
            assert_eq!(Path::new(path), root.join("crates").join(krate));
        }
        let files = files_git();
        let cargo: toml::Table = files[0].1.parse().unwrap();
        assert_eq!(
            cargo["dependencies"]["prunesim"]["git"].as_str(),
            Some("https://example.org/a \"b\".git")
        );
        assert!(!files[1].1.contains("{{"), "{}", files[1].1);
    }

    fn files_git() -> Vec<(&'static str, String)> {
        files(
            "mine",
            &Source::Git("https://example.org/a \"b\".git".into()),
        )
        .unwrap()
    }

    #[test]
    fn a_folder_that_holds_anything_is_left_as_it_is() {
        let root = checkout(&built_from()).unwrap();
        let source = Source::Path(root);
        let tmp = tempfile::tempdir().unwrap();
        let full = tmp.path().join("full");
        std::fs::create_dir(&full).unwrap();
        std::fs::write(full.join("notes.txt"), "mine").unwrap();
        let e = write("mine", &full, &source).unwrap_err();
        assert!(
            matches!(&e, Error::NotEmpty { path } if path == &full),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
        let file = full.join("notes.txt");
        let e = write("mine", &file, &source).unwrap_err();
        assert!(matches!(e, Error::NotAFolder { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
        // An empty folder, or none, is written.
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let written = write("mine", &empty, &source).unwrap();
        assert!(written.contains(&empty.join("Cargo.lock")));
        let again = write("mine", &empty, &source).unwrap_err();
        assert!(matches!(again, Error::NotEmpty { .. }), "{again}");
    }

    #[test]
    fn the_sources_are_the_examples_own() {
        let root = built_from().join("examples/own-policy/src");
        for (file, text) in [
            ("main.rs", MAIN_RS),
            ("heuristic.rs", HEURISTIC_RS),
            ("pruner.rs", PRUNER_RS),
        ] {
            assert_eq!(std::fs::read_to_string(root.join(file)).unwrap(), text);
        }
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            names.len(),
            3,
            "{names:?}: a new source file belongs in the template"
        );
    }
}
