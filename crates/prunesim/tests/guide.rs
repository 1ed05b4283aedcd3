//! Every example of the user guide (`docs/guide/`) runs: its TOML files are parsed and run by
//! this `prunesim`, its shell commands are executed, its expected outputs are compared, and
//! its Rust code is the workspace's own compiled files.
//!
//! A fenced block's info string is its language followed by words that say what to do with
//! it (mdBook and GitHub highlight by the first word only):
//!
//! | block | what the test does |
//! |---|---|
//! | ` ```toml experiment ` | writes it to a file and runs `prunesim run FILE` |
//! | ` ```toml sweep ` | writes it and runs `prunesim sweep FILE --out DIR` |
//! | ` ```toml fragment ` | merges its tables into a small experiment and runs that |
//! | ` ```sh ` | runs each line (every one a `prunesim` command) in the chapter's folder |
//! | ` ```text output ` | compares it with the standard output of the command just before |
//! | ` ```text stderr ` | each line is a warning the command just before prints (without its timestamp) |
//! | ` ```rust ` | checks that it is only `{{#include}}`s of the workspace's `.rs` files |
//! | any block with `file=NAME` | writes it to `NAME` in the chapter's folder first |
//! | `fails` | the run must fail (an example of an error) |
//! | `norun` | nothing: a command for another machine (a cluster, a clone of a data set) or a long run |
//!
//! Every `toml` and `sh` block says one of these. A chapter's blocks run in order in one
//! temporary folder, where `experiments/` is the repository's.
//!
//! **Size.** Every command runs as the guide writes it, at its documented trials and with the
//! clairvoyant bracket, with this test's `prunesim` (the workspace's crates build at
//! `opt-level = 1` in the dev profile, which keeps that to about a minute on 2 cores). A
//! warning a command prints on standard error (a logged `WARN` or `ERROR`, a `warning:` or
//! `note:` line) fails the test unless a `text stderr` block after the command shows it.
//! Python blocks run in the Python package's tests (`python/tests/test_guide.py`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn src() -> PathBuf {
    root().join("docs/guide/src")
}

/// The chapters of SUMMARY.md, in order.
fn chapters() -> Vec<PathBuf> {
    let summary = std::fs::read_to_string(src().join("SUMMARY.md")).unwrap();
    summary
        .split("](")
        .skip(1)
        .map(|rest| src().join(&rest[..rest.find(')').unwrap()]))
        .collect()
}

/// A chapter's text with its `{{#include FILE}}` lines replaced by the files.
fn expand(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    for line in text.lines() {
        match line
            .trim()
            .strip_prefix("{{#include ")
            .and_then(|l| l.strip_suffix("}}"))
        {
            Some(file) if !file.contains(':') => {
                out.push_str(&expand(&path.parent().unwrap().join(file.trim())));
            }
            // A Markdown file's anchored part (`file.md:name`: the lines between the
            // `ANCHOR: name` and `ANCHOR_END: name` markers), as mdBook includes it.
            Some(file)
                if file
                    .trim()
                    .split(':')
                    .next()
                    .is_some_and(|f| f.ends_with(".md")) =>
            {
                let (file, name) = file.trim().split_once(':').unwrap();
                let whole = expand(&path.parent().unwrap().join(file));
                let (start, end) = (format!("ANCHOR: {name}"), format!("ANCHOR_END: {name}"));
                let part: Vec<&str> = whole
                    .lines()
                    .skip_while(|l| !l.contains(&start))
                    .skip(1)
                    .take_while(|l| !l.contains(&end))
                    .collect();
                assert!(
                    !part.is_empty(),
                    "{}: no anchor {name} in {file}",
                    path.display()
                );
                out.push_str(&part.join("\n"));
                out.push('\n');
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// A fenced code block: its language, its words, its text.
struct Block {
    lang: String,
    words: Vec<String>,
    text: String,
}

impl Block {
    fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word)
    }

    fn file(&self) -> Option<&str> {
        self.words.iter().find_map(|w| w.strip_prefix("file="))
    }
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let mut words = info
                    .split([' ', ','])
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned);
                open = Some(Block {
                    lang: words.next().unwrap_or_default(),
                    words: words.collect(),
                    text: String::new(),
                });
            }
            Event::Text(t) => {
                if let Some(b) = open.as_mut() {
                    b.text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// An experiment that fragments complete: a small, fast one.
const BASE: &str =
    "[workload]\nrate = 19000\nseed = 1\ntasks = 250\ntrials = 1\n[mapper]\nname = \"PAM\"\n";

fn merge(into: &mut toml::Table, from: toml::Table) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// The logical lines of a shell block: continuations joined, comments and blank lines gone.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = String::new();
    for raw in text.lines() {
        let mut code = String::new();
        let mut quote: Option<char> = None;
        for (i, c) in raw.char_indices() {
            match (quote, c) {
                (None, '#') if i == 0 || raw[..i].ends_with(' ') => break,
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                _ => {}
            }
            code.push(c);
        }
        let code = code.trim_end();
        match code.strip_suffix('\\') {
            Some(head) => line.push_str(head),
            None => {
                line.push_str(code);
                if !line.trim().is_empty() {
                    out.push(line.trim().to_owned());
                }
                line.clear();
            }
        }
    }
    out
}

/// The `prunesim` the guide's commands run with: this test's own build.
fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_prunesim"))
}

struct Chapter {
    name: String,
    dir: tempfile::TempDir,
    last: Option<Output>,
    runs: usize,
    /// The warnings the last command printed on standard error that no `text stderr` block
    /// has shown yet, each with the command.
    unshown: Vec<(String, String)>,
}

/// A line of standard error a user must be shown: a logged warning or error, or a `note:`
/// or `warning:` the program prints (progress, timings and the names of files written are
/// not).
fn is_warning(line: &str) -> bool {
    let line = without_timestamp(line);
    ["WARN ", "ERROR ", "warning:", "note:"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// A log line without its leading timestamp (`2026-01-01T00:00:00.000000Z  WARN ...`).
fn without_timestamp(line: &str) -> &str {
    match line.split_once("Z ") {
        Some((stamp, rest)) if stamp.len() >= 19 && stamp.as_bytes()[4] == b'-' => {
            rest.trim_start()
        }
        _ => line,
    }
}

impl Chapter {
    /// Fails on a warning of the last command that the guide does not show.
    fn check_shown(&mut self) {
        if let Some((line, what)) = self.unshown.first() {
            panic!(
                "{}: {what}: printed on standard error\n  {line}\nwhich the guide does not show: \
                 show it in a ```text stderr block after the command (without its timestamp), \
                 or fix what causes it",
                self.name
            );
        }
    }

    /// A `text stderr` block: each of its lines is a warning the last command printed.
    fn shown(&mut self, text: &str, what: &str) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let before = self.unshown.len();
            self.unshown
                .retain(|(printed, _)| printed.trim_end() != line.trim_end());
            assert!(
                self.unshown.len() < before || self.last_stderr().contains(line.trim_end()),
                "{}: {what}: the guide shows `{line}` on standard error, which the command \
                 before does not print:\n{}",
                self.name,
                self.last_stderr()
            );
        }
    }

    fn last_stderr(&self) -> String {
        self.last
            .as_ref()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .unwrap_or_default()
    }

    fn prunesim(&mut self, args: &[String], fails: bool, what: &str) {
        let out = Command::new(binary())
            .args(args)
            .current_dir(self.dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let show = || {
            format!(
                "{}: {what}\n$ prunesim {}\n--- stdout\n{}--- stderr\n{}",
                self.name,
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        };
        assert_eq!(
            out.status.success(),
            !fails,
            "{}",
            if fails {
                format!("succeeded but the guide says it fails\n{}", show())
            } else {
                show()
            }
        );
        self.check_shown();
        if !fails {
            self.unshown = String::from_utf8_lossy(&out.stderr)
                .lines()
                .filter(|l| is_warning(l))
                .map(|l| {
                    (
                        without_timestamp(l).to_owned(),
                        format!("{what}: {}", args.join(" ")),
                    )
                })
                .collect();
        }
        self.runs += 1;
        self.last = Some(out);
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn run_block(ch: &mut Chapter, i: usize, b: &Block) {
    if let Some(name) = b.file() {
        ch.write(name, &b.text);
    }
    let fails = b.has("fails");
    let what = format!("block {} ({} {})", i + 1, b.lang, b.words.join(" "));
    match b.lang.as_str() {
        "toml" => {
            let kinds = ["experiment", "sweep", "fragment", "norun"];
            let kind = kinds.iter().find(|k| b.has(k)).unwrap_or_else(|| {
                panic!(
                    "{}: {what}: a toml block says experiment, sweep, fragment or norun",
                    ch.name
                )
            });
            let name = b
                .file()
                .map_or_else(|| format!("block-{i}.toml"), str::to_owned);
            match *kind {
                "experiment" => {
                    ch.write(&name, &b.text);
                    ch.prunesim(&["run".into(), name], fails, &what);
                }
                "fragment" => {
                    let mut doc: toml::Table = toml::from_str(BASE).unwrap();
                    let fragment: toml::Table = toml::from_str(&b.text)
                        .unwrap_or_else(|e| panic!("{}: {what}: {e}", ch.name));
                    merge(&mut doc, fragment);
                    ch.write(&name, &toml::to_string(&doc).unwrap());
                    ch.prunesim(&["run".into(), name, "--no-bound".into()], fails, &what);
                }
                "sweep" => {
                    ch.write(&name, &b.text);
                    let args = ["sweep", &name, "--out", &format!("out-{i}")];
                    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
                    ch.prunesim(&args, fails, &what);
                }
                _ => {}
            }
        }
        "sh" | "shell" | "bash" | "console" => {
            if b.has("norun") {
                return;
            }
            for line in commands(&b.text) {
                let words = shlex::split(&line)
                    .unwrap_or_else(|| panic!("{}: {what}: cannot split {line}", ch.name));
                assert_eq!(
                    words.first().map(String::as_str),
                    Some("prunesim"),
                    "{}: {what}: `{line}` is not a prunesim command: mark the block norun, or keep it to prunesim commands",
                    ch.name
                );
                ch.prunesim(&words[1..], fails, &format!("{what}: {line}"));
            }
        }
        "text" if b.has("stderr") => ch.shown(&b.text, &what),
        "text" if b.has("output") => {
            let last = ch
                .last
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {what}: no command before", ch.name));
            let printed = without_revision(&String::from_utf8_lossy(&last.stdout));
            assert_eq!(
                printed.trim_end(),
                b.text.trim_end(),
                "{}: {what}: the output shown differs from what the command prints (left)",
                ch.name
            );
        }
        "rust" => {
            // Checked on the chapter's own text, before includes: see the test below.
        }
        "python" => {}
        _ => {}
    }
}

/// The output with the header's git revision (`  program    prunesim 0.1.0 (<hash>)`) written
/// as `<git revision>`, as the guide shows it: the hash changes with every commit.
fn without_revision(printed: &str) -> String {
    printed
        .lines()
        .map(|l| match l.strip_prefix("  program    ") {
            Some(rest) => match rest.split_once(" (") {
                Some((program, _)) => format!("  program    {program} (<git revision>)"),
                None => l.to_owned(),
            },
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A chapter's warnings must be shown: a samples CSV in seconds read as ticks warns, and a
/// chapter that runs it fails unless a `text stderr` block shows the warning.
#[test]
fn a_warning_the_guide_does_not_show_fails_it() {
    let csv = "```csv file=s.csv\ntask_type,machine,execution_time\na,m,0.2\na,m,0.4\na,n,0.3\na,n,1.5\n```\n\n";
    let run = "```sh\nprunesim run --pet s.csv --trials 1 --no-bound\n```\n";
    let chapter = |text: String| {
        std::panic::catch_unwind(move || {
            let mut ch = Chapter {
                name: "test.md".into(),
                dir: tempfile::tempdir().unwrap(),
                last: None,
                runs: 0,
                unshown: Vec::new(),
            };
            for (i, b) in blocks(&text).iter().enumerate() {
                run_block(&mut ch, i, b);
            }
            ch.check_shown();
        })
    };
    assert!(
        chapter(format!("{csv}{run}")).is_err(),
        "an unshown warning passed"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.csv"),
        "task_type,machine,execution_time\na,m,0.2\na,m,0.4\na,n,0.3\na,n,1.5\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_prunesim"))
        .args(["run", "--pet", "s.csv", "--trials", "1", "--no-bound"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let warning = String::from_utf8_lossy(&out.stderr)
        .lines()
        .find(|l| is_warning(l))
        .map(|l| without_timestamp(l).to_owned())
        .expect("the samples in seconds do not warn");
    let shown = format!("{csv}{run}\n```text stderr\n{warning}\n```\n");
    assert!(chapter(shown).is_ok(), "a shown warning failed");
    // A line shown that the command does not print fails too.
    let wrong = format!("{csv}{run}\n```text stderr\n{warning}\nWARN nothing like this\n```\n");
    assert!(
        chapter(wrong).is_err(),
        "a warning shown but not printed passed"
    );
}

#[test]
fn every_example_of_the_guide_runs() {
    let experiments = root().join("experiments");
    let mut total = 0;
    for path in chapters() {
        let name = path.strip_prefix(src()).unwrap().display().to_string();
        let mut ch = Chapter {
            name,
            dir: tempfile::tempdir().unwrap(),
            last: None,
            runs: 0,
            unshown: Vec::new(),
        };
        #[cfg(unix)]
        std::os::unix::fs::symlink(&experiments, ch.dir.path().join("experiments")).unwrap();
        for (i, b) in blocks(&expand(&path)).iter().enumerate() {
            run_block(&mut ch, i, b);
        }
        ch.check_shown();
        total += ch.runs;
    }
    // The tutorials alone run more than this: a guide whose blocks were all skipped fails.
    assert!(total >= 20, "only {total} commands ran");
}

#[test]
fn rust_blocks_are_the_workspace_own_compiled_files() {
    let mut seen = 0;
    for path in chapters() {
        let text = std::fs::read_to_string(&path).unwrap();
        for b in blocks(&text).iter().filter(|b| b.lang == "rust") {
            for line in b.text.lines().filter(|l| !l.trim().is_empty()) {
                let file = line
                    .trim()
                    .strip_prefix("{{#include ")
                    .and_then(|l| l.strip_suffix("}}"))
                    .unwrap_or_else(|| {
                        panic!(
                            "{}: a rust block holds `{line}`: include a file the workspace compiles instead",
                            path.display()
                        )
                    });
                let file = file.split(':').next().unwrap().trim();
                let full = path.parent().unwrap().join(file);
                assert!(
                    full.extension().is_some_and(|e| e == "rs") && full.is_file(),
                    "{}: {file} is not a Rust file of the workspace",
                    path.display()
                );
                seen += 1;
            }
        }
    }
    assert!(seen >= 2, "{seen}");
}

#[test]
fn the_block_rules_see_what_they_should() {
    let md = "x\n```toml experiment file=a.toml\nk = 1\n```\n```sh\nprunesim run a.toml \\\n  --trials 2  # two\n# a comment\nprunesim list\n```\n";
    let b = blocks(md);
    assert_eq!(b.len(), 2);
    assert_eq!((b[0].lang.as_str(), b[0].file()), ("toml", Some("a.toml")));
    assert!(b[0].has("experiment") && !b[0].has("norun"));
    assert_eq!(
        commands(&b[1].text),
        ["prunesim run a.toml   --trials 2", "prunesim list"]
    );
}
