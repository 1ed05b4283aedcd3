//! The configuration reference against the parsers: the same keys, allowed words that are
//! the parsers' own, examples that parse, defaults that change nothing, and the guide's page
//! equal to the generated text.

use std::collections::BTreeSet;

use runner::config_reference::{FileKind, TABLES, Table, markdown};
use runner::sweep::{CuttingSpec, MoldableSpec, SweepFile, SweepKind};
use runner::{ExperimentConfig, FigureSpec, Series, SystemConfig, XAxis};
use serde_aux::serde_introspection::serde_introspect;

const EXPERIMENT: &str =
    "[workload]\nrate = 9000\nseed = 1\ntasks = 250\n[mapper]\nname = \"MM\"\n";
const SWEEP: &str = "id = \"t\"\ntitle = \"T\"\nseed = 1\n[base]\nworkload = { rate = 9000, seed = 0, tasks = 250 }\nmapper = { name = \"MM\" }\n[x]\nlabel = \"rate\"\nvalues = [9000]\nset = [\"workload.rate\"]\n[[series]]\nlabel = \"MM\"\n";
const CUTTING: &str =
    "kind = \"cutting\"\nid = \"c\"\ntitle = \"C\"\ntable = \"table5\"\ntrials = 2\nseed = 1\n";
const MOLDABLE: &str =
    "kind = \"moldable\"\nid = \"m\"\ntitle = \"M\"\nfigure = 5\ntrials = 2\nseed = 1\n";

/// The keys each table's parser accepts, read from its `Deserialize` implementation (the
/// `pet` forms from the list the hand-written parser checks against).
fn accepted(t: &Table) -> Vec<&'static str> {
    match (t.file, t.path) {
        (FileKind::Experiment, "") => serde_introspect::<ExperimentConfig>().to_vec(),
        (FileKind::Experiment, "workload") => {
            serde_introspect::<workload::WorkloadConfig>().to_vec()
        }
        (FileKind::Experiment, "workload.pet") => workload::PET_KEYS.to_vec(),
        (FileKind::Experiment, "workload.burst") => {
            serde_introspect::<workload::BurstParams>().to_vec()
        }
        (FileKind::Experiment, "system") => serde_introspect::<SystemConfig>().to_vec(),
        (FileKind::Experiment, "mapper") => {
            serde_introspect::<heuristics::HeuristicConfig>().to_vec()
        }
        (FileKind::Experiment, "pruner") => serde_introspect::<pruner::PrunerTable>().to_vec(),
        (FileKind::Experiment, "staging") => serde_introspect::<workload::StagingConfig>().to_vec(),
        (FileKind::Experiment, "belief") => {
            serde_introspect::<runner::belief::BeliefConfig>().to_vec()
        }
        (FileKind::Experiment, "drift") => {
            serde_introspect::<runner::belief::DriftConfig>().to_vec()
        }
        (FileKind::Experiment, "rollout") => {
            serde_introspect::<runner::rollout::RolloutConfig>().to_vec()
        }
        (FileKind::Sweep, "published") => {
            serde_introspect::<runner::sweep::PublishedValue>().to_vec()
        }
        (FileKind::Sweep, "") => serde_introspect::<FigureSpec>().to_vec(),
        (FileKind::Sweep, "x") => serde_introspect::<XAxis>().to_vec(),
        (FileKind::Sweep, "series") => serde_introspect::<Series>().to_vec(),
        (FileKind::Cutting, "") => serde_introspect::<CuttingSpec>().to_vec(),
        (FileKind::Moldable, "") => serde_introspect::<MoldableSpec>().to_vec(),
        (file, path) => panic!("no parser known for the table {file:?} '{path}'"),
    }
}

/// The words an enumerated key's parser accepts.
fn variants(t: &Table, key: &str) -> Option<Vec<&'static str>> {
    Some(match (t.file, t.path, key) {
        (FileKind::Experiment, "workload", "pattern") => {
            serde_introspect::<workload::PatternName>().to_vec()
        }
        (FileKind::Experiment, "system", "drop_model") => {
            serde_introspect::<pmf::DropModel>().to_vec()
        }
        (FileKind::Experiment, "mapper", "phase1") => {
            serde_introspect::<heuristics::Phase1Scope>().to_vec()
        }
        (FileKind::Experiment, "pruner", "preset") => serde_introspect::<pruner::Preset>().to_vec(),
        (FileKind::Experiment, "pruner", "fairness_mode") => {
            serde_introspect::<pruner::FairnessMode>().to_vec()
        }
        (FileKind::Experiment, "pruner", "fairness_relief") => {
            serde_introspect::<pruner::ReliefScope>().to_vec()
        }
        (FileKind::Experiment, "belief", "source") => {
            serde_introspect::<runner::belief::BeliefSource>().to_vec()
        }
        (FileKind::Experiment, "belief", "prior") => {
            serde_introspect::<runner::belief::PriorKind>().to_vec()
        }
        (FileKind::Experiment, "belief", "censoring") => {
            serde_introspect::<learn::Censoring>().to_vec()
        }
        (FileKind::Experiment, "belief", "tail") => serde_introspect::<learn::Tail>().to_vec(),
        (FileKind::Sweep, "", "kind") => serde_introspect::<SweepKind>().to_vec(),
        (FileKind::Sweep, "", "chart") => serde_introspect::<runner::Chart>().to_vec(),
        (FileKind::Cutting, "", "table") => serde_introspect::<cutting::GaoTable>().to_vec(),
        (FileKind::Experiment, "workload.pet", "family") => workload::family::FAMILY_NAMES.to_vec(),
        (FileKind::Experiment, "workload.pet", "consistency") => {
            workload::family::CONSISTENCY_NAMES.to_vec()
        }
        (FileKind::Experiment, "workload.pet", "modes") => workload::family::MODE_NAMES.to_vec(),
        _ => return None,
    })
}

/// The quoted words of a text.
fn quoted(text: &str) -> BTreeSet<&str> {
    text.split('"').skip(1).step_by(2).collect()
}

fn base(file: FileKind) -> toml::Table {
    let text = match file {
        FileKind::Experiment => EXPERIMENT,
        FileKind::Sweep => SWEEP,
        FileKind::Cutting => CUTTING,
        FileKind::Moldable => MOLDABLE,
    };
    toml::from_str(text).unwrap()
}

/// Merges `from` into `into`: tables key by key, any other value replaced.
fn merge(into: &mut toml::Table, from: toml::Table) {
    // The rate is given one way at a time: an example of one replaces the base's.
    const RATE_KEYS: [&str; 3] = ["rate", "load", "arrival_rate"];
    if let Some(k) = from.keys().find(|k| RATE_KEYS.contains(&k.as_str())) {
        for other in RATE_KEYS.iter().filter(|o| *o != k) {
            into.remove(*other);
        }
    }
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(toml::Value::Table(a)), toml::Value::Table(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// The table at a dotted path of a file (created empty when absent; for `series`, `drift`
/// and `published`, their first entry).
fn at<'a>(file: &'a mut toml::Table, path: &str) -> &'a mut toml::Table {
    if path.is_empty() {
        return file;
    }
    if matches!(path, "series" | "drift" | "published") {
        // An array of tables: its first entry (created empty when absent).
        let array = file
            .entry(path)
            .or_insert_with(|| toml::Value::Array(Vec::new()))
            .as_array_mut()
            .unwrap();
        if array.is_empty() {
            array.push(toml::Value::Table(toml::Table::new()));
        }
        return array[0].as_table_mut().unwrap();
    }
    if path == "workload.pet" {
        // The inline-table forms are written whole, as `pet = { ... }` in `[workload]`.
        return at(file, "workload");
    }
    let mut t = file;
    for part in path.split('.') {
        t = t
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .unwrap();
    }
    t
}

/// Parses a file of a kind with its own parser; the error as text.
fn parse(file: FileKind, doc: &toml::Table) -> Result<Box<dyn std::fmt::Debug>, String> {
    let text = toml::to_string(doc).unwrap();
    let parsed: Result<Box<dyn std::fmt::Debug>, runner::RunError> = match file {
        FileKind::Experiment => {
            ExperimentConfig::from_toml_str(&text, "example.toml", None).map(|c| Box::new(c) as _)
        }
        _ => SweepFile::from_toml_str(&text, "example.toml").map(|s| Box::new(s) as _),
    };
    parsed.map_err(|e| format!("{e}\n{text}"))
}

#[test]
fn every_table_lists_exactly_the_keys_its_parser_accepts() {
    for t in TABLES {
        let documented: BTreeSet<&str> = t.keys.iter().map(|k| k.key).collect();
        assert_eq!(
            documented.len(),
            t.keys.len(),
            "{}: a key twice",
            t.heading()
        );
        let accepted: BTreeSet<&str> = accepted(t).into_iter().collect();
        assert_eq!(
            documented,
            accepted,
            "{}: the reference (left) and the parser (right) differ",
            t.heading()
        );
    }
    // Every table of every file is in the reference.
    let tables: BTreeSet<(String, &str)> = TABLES
        .iter()
        .map(|t| (format!("{:?}", t.file), t.path))
        .collect();
    assert_eq!(tables.len(), 17);
}

#[test]
fn every_enumerated_key_lists_exactly_the_words_its_parser_accepts() {
    let mut checked = 0;
    for t in TABLES {
        for k in t.keys {
            if let Some(words) = variants(t, k.key) {
                let words: BTreeSet<&str> = words.into_iter().collect();
                // The words come first; what follows a `;` is a condition.
                let listed = k.allowed.split(';').next().unwrap_or_default();
                assert_eq!(quoted(listed), words, "{} {}", t.heading(), k.key);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 16);
}

#[test]
fn every_key_has_an_example_that_parses() {
    for t in TABLES {
        for k in t.keys {
            assert!(
                !k.example.is_empty(),
                "{} {}: no example",
                t.heading(),
                k.key
            );
            assert!(
                !k.meaning.is_empty(),
                "{} {}: no meaning",
                t.heading(),
                k.key
            );
            let example: toml::Table = toml::from_str(k.example)
                .unwrap_or_else(|e| panic!("{} {}: {e}", t.heading(), k.key));
            assert!(
                example.contains_key(k.key) || t.path == "workload.pet" || t.path.is_empty(),
                "{} {}: the example does not use the key",
                t.heading(),
                k.key
            );
            if t.path == "workload.pet" {
                let pet = example["pet"].as_table().unwrap();
                assert!(pet.contains_key(k.key), "pet {}: not in its example", k.key);
            }
            let mut doc = base(t.file);
            merge(at(&mut doc, t.path), example);
            if let Err(e) = parse(t.file, &doc) {
                panic!("{} {}: the example does not parse: {e}", t.heading(), k.key);
            }
        }
    }
}

#[test]
fn writing_a_documented_default_changes_nothing() {
    let mut checked = 0;
    for t in TABLES {
        for k in t.keys.iter().filter(|k| !k.default_toml.is_empty()) {
            // The small base file sets some keys (`tasks`): without means without.
            let mut without = base(t.file);
            at(&mut without, t.path).remove(k.key);
            let mut with = without.clone();
            let value: toml::Table =
                toml::from_str(&format!("{} = {}", k.key, k.default_toml)).unwrap();
            merge(at(&mut with, t.path), value);
            let (a, b) = (parse(t.file, &without), parse(t.file, &with));
            assert_eq!(
                format!("{:?}", a.unwrap()),
                format!("{:?}", b.unwrap()),
                "{} {} = {}: not the default",
                t.heading(),
                k.key,
                k.default_toml
            );
            checked += 1;
        }
    }
    assert!(checked >= 35, "{checked}");
}

#[test]
fn a_default_that_is_not_the_parsers_is_caught() {
    // The check above would see a wrong default: `tasks = 801` is not `tasks` left out.
    let without = base(FileKind::Experiment);
    let mut with = without.clone();
    merge(
        at(&mut with, "workload"),
        toml::from_str("tasks = 801").unwrap(),
    );
    assert_ne!(
        format!("{:?}", parse(FileKind::Experiment, &without).unwrap()),
        format!("{:?}", parse(FileKind::Experiment, &with).unwrap())
    );
    // And an undocumented key would be: the parser refuses what no table lists.
    let mut doc = base(FileKind::Experiment);
    merge(
        at(&mut doc, "system"),
        toml::from_str("machines = 3").unwrap(),
    );
    assert!(
        parse(FileKind::Experiment, &doc)
            .unwrap_err()
            .contains("unknown field")
    );
    let mut doc = base(FileKind::Experiment);
    merge(
        at(&mut doc, "workload"),
        toml::from_str("pet = { etc = \"a.etc\", scale = 2 }").unwrap(),
    );
    assert!(
        parse(FileKind::Experiment, &doc)
            .unwrap_err()
            .contains("unknown key 'scale'")
    );
}

#[test]
fn the_configuration_chapter_of_the_guide_is_the_generated_reference() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/guide/src/configuration.md"
    );
    let docs = std::fs::read_to_string(path).unwrap();
    assert!(
        docs == markdown(),
        "docs/guide/src/configuration.md is out of date: regenerate it with `prunesim config-reference > docs/guide/src/configuration.md`"
    );
}
