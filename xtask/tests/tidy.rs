//! Tidy checks run by `cargo test`: the docs and comments state how things are (no history of
//! the work, papers named by their works), and the architecture's invariants hold (threads only
//! in the binaries and the runner, no unseeded randomness anywhere). Each check names the file
//! and line it objects to.

use std::path::{Path, PathBuf};

/// The repository's root (the parent of `xtask`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Every text file of the repository with one of `extensions`, outside build output, VCS data,
/// hidden folders and installed packages.
fn files(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let skipped = name.starts_with('.')
                || matches!(
                    name,
                    "target" | "node_modules" | "results" | "venv" | "book" | "__pycache__"
                );
            if !skipped {
                files(&path, extensions, out);
            }
        } else if extensions
            .iter()
            .any(|x| path.extension().is_some_and(|e| e == *x))
        {
            out.push(path);
        }
    }
}

/// The words after which a number narrates the history of the work rather than the product
/// (a word of this list, then a number: what a diary of the work would say).
const HISTORY_WORDS: [&str; 4] = ["session", "stop", "issue", "round"];

/// Whether `line` narrates history: one of [`HISTORY_WORDS`] followed by a number (`#` allowed),
/// or a paper named by its file number in the seeds folder ("seed 004").
fn narrates_history(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '#'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        let number = pair[1].trim_start_matches('#');
        let numeric = !number.is_empty() && number.chars().all(|c| c.is_ascii_digit());
        if numeric && HISTORY_WORDS.contains(&pair[0]) {
            return Some(format!("\"{} {}\"", pair[0], pair[1]));
        }
        if numeric && pair[0].starts_with("seed") && pair[1].starts_with("00") {
            return Some(format!(
                "\"{} {}\" (name the work instead)",
                pair[0], pair[1]
            ));
        }
    }
    None
}

/// Whether a line of a doc dates the work: a git revision (7 to 12 or 40 hex digits with a
/// letter and a digit, standing alone) or a calendar date (`YYYY-MM-DD`).
fn dates_the_work(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if !bytes[start].is_ascii_alphanumeric() {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        let word = &line[start..end];
        // A word inside a file name, a path, a checksum or a flag is not a revision.
        let joined = |i: usize| matches!(bytes.get(i), Some(b'-' | b'.' | b'_' | b'/' | b'='));
        let alone = (start == 0 || !joined(start - 1)) && !joined(end);
        let hex = word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let mixed = word.bytes().any(|b| b.is_ascii_digit())
            && word.bytes().any(|b| b.is_ascii_lowercase());
        if alone && hex && mixed && (matches!(word.len(), 7..=12) || word.len() == 40) {
            return Some(format!("revision \"{word}\""));
        }
        start = end;
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    for (i, _) in line.match_indices('-') {
        let (before, after) = (&line[..i], &line[i + 1..]);
        let year = before.get(before.len().saturating_sub(4)..).unwrap_or("");
        if before.len() >= 4
            && digits(year)
            && year.starts_with("20")
            && after.len() >= 5
            && digits(&after[..2])
            && after.as_bytes()[2] == b'-'
            && digits(&after[3..5])
        {
            return Some(format!("date \"{year}-{}\"", &after[..5]));
        }
    }
    None
}

/// Whether a code comment states a measurement (a time or an instruction count, with a word
/// that says it was measured): such figures go stale beside the code and belong in
/// docs/performance.md.
fn states_a_measurement(comment: &str) -> bool {
    let lower = comment.to_lowercase();
    let measured = [
        "callgrind",
        "criterion",
        "about",
        "~",
        "->",
        "took",
        "takes",
        "median",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | ':'))
        .filter(|w| !w.is_empty())
        .collect();
    let amount = words.windows(2).any(|p| {
        let number = p[0].trim_start_matches(['~', '<', '>', '=']);
        let numeric = number.chars().next().is_some_and(|c| c.is_ascii_digit())
            && number.chars().all(|c| c.is_ascii_digit() || c == '.');
        numeric
            && (matches!(p[1], "µs" | "us" | "ms" | "ns" | "m" | "g" | "k")
                || p[1].starts_with("instructions"))
    });
    measured && amount
}

#[test]
fn history_check_recognises_what_it_must() {
    // Built from parts, so that this file reads as no history to a plain text search.
    let said = |word: &str, rest: &str| format!("as {word} {rest}");
    assert!(narrates_history(&said("Session", "4 measured")).is_some());
    assert!(narrates_history(&said("issue", "#12 asked")).is_some());
    assert!(narrates_history(&format!("the cutting tables ({}-004)", "seed")).is_some());
    assert!(narrates_history(&said("stop", "3 found")).is_some());
    assert!(narrates_history("a session of 4 trials").is_none());
    assert!(narrates_history("the seed 2019 of the paper").is_none());
    assert!(narrates_history("stops at 30 trials").is_none());
    let rev = ["1ef8", "fdf"].concat();
    assert!(dates_the_work(&format!("Since {rev} the search")).is_some());
    assert!(dates_the_work(&format!("as of {}-11-28", 2026)).is_some());
    assert!(dates_the_work("the file 0000-f7a56f52f48ddb2b.toml").is_none());
    assert!(dates_the_work("a PET of 12 types, seed 2019").is_none());
    assert!(dates_the_work("deadline 12.5-13.0").is_none());
    assert!(states_a_measurement(&format!(
        "(callgrind: 170 M -> {} M instructions)",
        184
    )));
    assert!(states_a_measurement("about 25 ms on an 800-task trial"));
    assert!(!states_a_measurement(
        "looks every 50 ms whether it finished"
    ));
    assert!(!states_a_measurement("about 40 tasks per machine"));
}

#[test]
fn docs_and_comments_state_how_things_are_not_their_history() {
    let root = root();
    let mut paths = Vec::new();
    files(&root, &["md", "rs", "toml", "sh", "py", "pyi"], &mut paths);
    paths.push(root.join(".ci/run"));
    let this = Path::new(file!()).file_name().expect("a file name");
    let mut found = Vec::new();
    for path in paths {
        if path.file_name() == Some(this) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let doc = path.extension().is_some_and(|e| e == "md");
        // Comments of the libraries' and binaries' sources (tests, benches and examples
        // measure, and may say what they measure).
        let source = path.extension().is_some_and(|e| e == "rs")
            && path.components().any(|c| c.as_os_str() == "src");
        for (i, line) in text.lines().enumerate() {
            let shown = || {
                path.strip_prefix(&root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
            };
            if let Some(what) = narrates_history(line) {
                found.push(format!("{}:{}: {what}", shown(), i + 1));
            }
            if doc {
                if let Some(what) = dates_the_work(line) {
                    found.push(format!("{}:{}: {what}", shown(), i + 1));
                }
            }
            if source {
                if let Some((_, comment)) = line.split_once("//") {
                    if states_a_measurement(comment) {
                        found.push(format!(
                            "{}:{}: a measurement in a comment (put it in docs/performance.md)",
                            shown(),
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "docs and comments state how things are, and history belongs in git (no revision \
         hashes or dates in docs, no measurements in code comments); name papers by their \
         works:\n{}",
        found.join("\n")
    );
}

/// The crates that may start threads: the binaries, the runner that runs trials in parallel,
/// and the examples.
const THREADED: [&str; 2] = ["prunesim", "runner"];

#[test]
fn library_crates_are_single_threaded_and_take_their_randomness_as_arguments() {
    let root = root();
    let mut found = Vec::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/ is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    assert!(crates.len() > 5, "found the library crates: {crates:?}");
    for dir in &crates {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a crate folder's name");
        let mut sources = Vec::new();
        files(&dir.join("src"), &["rs"], &mut sources);
        if !THREADED.contains(&name) {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("a manifest");
            for (i, line) in manifest.lines().enumerate() {
                if line.trim_start().starts_with("rayon") {
                    found.push(format!(
                        "crates/{name}/Cargo.toml:{}: a library crate depends on rayon",
                        i + 1
                    ));
                }
            }
            for path in &sources {
                let text = std::fs::read_to_string(path).expect("a source file");
                for (i, line) in text.lines().enumerate() {
                    for what in ["thread::spawn", "thread::scope", "rayon::"] {
                        if line.contains(what) {
                            found.push(format!(
                                "{}:{}: {what} in a library crate",
                                path.strip_prefix(&root).unwrap_or(path).display(),
                                i + 1
                            ));
                        }
                    }
                }
            }
        }
        for path in &sources {
            let text = std::fs::read_to_string(path).expect("a source file");
            for (i, line) in text.lines().enumerate() {
                for what in [
                    "thread_rng",
                    "rand::rng()",
                    "from_entropy",
                    "from_os_rng",
                    "StdRng",
                    "SmallRng",
                ] {
                    if line.contains(what) {
                        found.push(format!(
                            "{}:{}: {what}: results draw from a named, seeded stream",
                            path.strip_prefix(&root).unwrap_or(path).display(),
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "threads live only in {THREADED:?} (and xtask); every stream is seeded and passed \
         explicitly (docs/ARCHITECTURE.md, invariants):\n{}",
        found.join("\n")
    );
}

/// The longest a non-test source file may be, in lines (before its test module, [`source_end`]).
const MAX_FILE_LINES: usize = 900;
/// The longest a function may be, in lines, without a reason stated in its doc.
const MAX_FN_LINES: usize = 120;
/// The words that state, in a function's doc, why it is longer than [`MAX_FN_LINES`].
const LONG_REASON: &str = "One function because";

/// The line (0-based) where the source `lines` end and their inline test module begins: a
/// `#[cfg(test)]` whose item is a `mod` with a body (other attributes between them allowed);
/// the number of lines when there is none. A `#[cfg(test)]` on any other item (a function, an
/// import) does not end the source: it is counted with it.
fn source_end(lines: &[&str]) -> usize {
    (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| !l.starts_with("#[") && !l.starts_with("//"))
                    .is_some_and(|item| {
                        let item = item.strip_prefix("pub(crate) ").unwrap_or(item);
                        let item = item.strip_prefix("pub ").unwrap_or(item);
                        item.starts_with("mod ") && item.ends_with('{')
                    })
        })
        .unwrap_or(lines.len())
}

/// The functions of `text` (its lines before its test module, [`source_end`]) longer than [`MAX_FN_LINES`]
/// whose doc states no reason: their first line (1-based), name and length. A function
/// starts at a line `fn name` (after any `pub`, `const`, `unsafe`) and ends at the first
/// line after its opening `{` that is a `}` at the same indentation.
fn long_functions_without_a_reason(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = source_end(&lines);
    let mut found = Vec::new();
    let mut i = 0;
    while i < end {
        let line = lines[i];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let mut rest = trimmed;
        for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "unsafe "] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest);
        }
        let Some(after) = rest.strip_prefix("fn ") else {
            i += 1;
            continue;
        };
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = (i..end).find(|&j| {
            let l = lines[j].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            break;
        };
        if lines[open].trim_end().ends_with(';') {
            i = open + 1;
            continue;
        }
        let close = (open + 1..end)
            .find(|&j| {
                let l = lines[j];
                l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}')
            })
            .unwrap_or(end - 1);
        let length = close - i + 1;
        if length > MAX_FN_LINES {
            let doc = lines[..i]
                .iter()
                .rev()
                .take_while(|l| {
                    let l = l.trim_start();
                    l.starts_with("///") || l.starts_with("#[")
                })
                .any(|l| l.to_lowercase().contains(&LONG_REASON.to_lowercase()));
            if !doc {
                found.push((i + 1, name, length));
            }
        }
        i = close + 1;
    }
    found
}

#[test]
fn the_length_check_finds_a_long_function_and_reads_its_reason() {
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES);
    let long = format!("/// Sums.\nfn long() {{\n{body}}}\n\nfn short() {{\n}}\n");
    assert_eq!(
        long_functions_without_a_reason(&long),
        [(2, "long".to_owned(), MAX_FN_LINES + 2)]
    );
    let reasoned = format!(
        "/// Sums.\n///\n/// {LONG_REASON} it must.\n{}",
        &long[10..]
    );
    assert!(long_functions_without_a_reason(&reasoned).is_empty());
    let in_tests = format!("#[cfg(test)]\nmod tests {{\n{long}}}\n");
    assert!(long_functions_without_a_reason(&in_tests).is_empty());
    // A single test item does not end the source: the long function after it is found.
    let after_a_test_item = format!("#[cfg(test)]\nfn helper() {{\n}}\n\n{long}");
    assert_eq!(
        long_functions_without_a_reason(&after_a_test_item),
        [(6, "long".to_owned(), MAX_FN_LINES + 2)]
    );
    let lines = [
        "fn a() {}",
        "#[cfg(test)]",
        "use x::y;",
        "#[cfg(test)]",
        "#[allow(dead_code)]",
        "mod tests {",
        "}",
    ];
    assert_eq!(source_end(&lines), 3);
}

#[test]
fn no_source_file_over_900_lines_and_no_long_function_without_a_reason() {
    let root = root();
    let mut sources = Vec::new();
    for dir in ["crates", "xtask/src", "python/src", "examples"] {
        files(&root.join(dir), &["rs"], &mut sources);
    }
    // Test modules (`tests.rs`, `tests/`), benchmarks and fuzz targets are not checked.
    sources.retain(|p| {
        p.file_name().is_none_or(|n| n != "tests.rs")
            && !p
                .components()
                .any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "benches" | "fuzz")))
    });
    assert!(sources.len() > 50, "found the sources: {}", sources.len());
    let mut found = Vec::new();
    for path in &sources {
        let text = std::fs::read_to_string(path).expect("a source file");
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let lines = source_end(&text.lines().collect::<Vec<_>>());
        if lines > MAX_FILE_LINES {
            found.push(format!(
                "{shown}: {lines} lines outside its tests (at most {MAX_FILE_LINES})"
            ));
        }
        for (line, name, length) in long_functions_without_a_reason(&text) {
            found.push(format!(
                "{shown}:{line}: fn {name} is {length} lines (at most {MAX_FN_LINES}, or a doc line saying \"{LONG_REASON} ...\")"
            ));
        }
    }
    assert!(
        found.is_empty(),
        "one concept per module, rooms that stay small:\n{}",
        found.join("\n")
    );
}
