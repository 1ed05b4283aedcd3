//! The configuration reference: every key of every table of an experiment file and of the
//! three kinds of sweep file, with its type, default, unit, allowed values and the papers'
//! name for it. [`markdown`] renders it; the user guide's configuration chapter
//! (`docs/guide/src/configuration.md`) is exactly that text, and `prunesim config-reference`
//! prints it.
//!
//! The reference cannot drift from the parsers: the tests check that each table lists exactly
//! the keys its type accepts (read from the type's `Deserialize` implementation), that every
//! allowed word of an enumerated key is a variant the parser knows and every variant is
//! listed, that each key's example parses in a whole file, and that writing a key's
//! documented default gives the same configuration as leaving the key out.

use std::fmt::Write as _;

mod sweep_keys;

use sweep_keys::{CUTTING, MOLDABLE, PUBLISHED, SERIES, SWEEP, X_AXIS};

/// One key of a table.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The key as written in TOML.
    pub key: &'static str,
    /// Its TOML type.
    pub ty: &'static str,
    /// What a file without the key gets ("required" when it cannot be left out).
    pub default: &'static str,
    /// The unit of a number ("" when it has none).
    pub unit: &'static str,
    /// The values accepted (a range, or the words).
    pub allowed: &'static str,
    /// The papers' name or symbol for it, and where ("" when the papers have none).
    pub paper: &'static str,
    /// What it does.
    pub meaning: &'static str,
    /// TOML lines, set in this key's table, that use the key (with any key it needs); every
    /// example parses (a test checks it).
    pub example: &'static str,
    /// The default as a TOML value when writing it gives the same configuration as leaving
    /// the key out ("" when the key has no such value: required, or a default that depends
    /// on other keys).
    pub default_toml: &'static str,
}

const fn key(key: &'static str, ty: &'static str, default: &'static str) -> Key {
    Key {
        key,
        ty,
        default,
        unit: "",
        allowed: "",
        paper: "",
        meaning: "",
        example: "",
        default_toml: "",
    }
}

impl Key {
    const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }
    const fn allowed(mut self, allowed: &'static str) -> Self {
        self.allowed = allowed;
        self
    }
    const fn paper(mut self, paper: &'static str) -> Self {
        self.paper = paper;
        self
    }
    const fn means(mut self, meaning: &'static str) -> Self {
        self.meaning = meaning;
        self
    }
    const fn example(mut self, example: &'static str) -> Self {
        self.example = example;
        self
    }
    const fn default_toml(mut self, value: &'static str) -> Self {
        self.default_toml = value;
        self
    }
}

/// Which kind of file a table belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// An experiment file (`prunesim run FILE`).
    Experiment,
    /// A sweep file of simulator experiments (`prunesim sweep FILE`, `kind = "experiment"`).
    Sweep,
    /// A sweep file of Gao, Robert, Vivien's cutting tables (`kind = "cutting"`).
    Cutting,
    /// A sweep file of Hansen et al.'s moldable-application figures (`kind = "moldable"`).
    Moldable,
}

/// One table of a file.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// The file it belongs to.
    pub file: FileKind,
    /// Its dotted path in the file ("" for the top level).
    pub path: &'static str,
    /// What it is for.
    pub intro: &'static str,
    /// Its keys, in the order a file usually gives them.
    pub keys: &'static [Key],
}

impl Table {
    /// The heading of the table in the reference.
    pub fn heading(&self) -> String {
        let file = match self.file {
            FileKind::Experiment => "experiment file",
            FileKind::Sweep => "sweep file",
            FileKind::Cutting => "cutting sweep file",
            FileKind::Moldable => "moldable sweep file",
        };
        match self.path {
            "" => format!("{file}: top level"),
            "series" | "drift" | "published" => format!("{file}: `[[{}]]`", self.path),
            "workload.pet" => format!("{file}: `[workload] pet`, the inline-table forms"),
            p => format!("{file}: `[{p}]`"),
        }
    }
}

const EXPERIMENT: &[Key] = &[
    key("name", "string", "the file's name without `.toml`")
        .means("the title of the outputs")
        .example("name = \"my study\""),
    key("trace", "boolean", "false")
        .allowed("true, false")
        .means("write a per-task and a per-event trace of every trial into `OUT/trace/` (needs `--out OUT`); changes no result")
        .example("trace = true")
        .default_toml("false"),
    key("workload", "table", "required")
        .means("the PET and how the trials' arrivals are generated: `[workload]`")
        .example("workload = { rate = 19000, seed = 1 }"),
    key("system", "table", "every key at its default")
        .means("the machines' queues, what is dropped at a deadline, and the measures: `[system]`")
        .example("system = { queue_size = 4 }"),
    key("mapper", "table", "required")
        .means("the mapping heuristic: `[mapper]`")
        .example("mapper = { name = \"MM\" }"),
    key("pruner", "table", "PAM, its variants and the suffixed names: the paper's pruner; a plain base heuristic: none")
        .means("the pruner: `[pruner]`; a table turns on only what it names")
        .example("pruner = { preset = \"thesis\" }"),
    key("staging", "table", "no staging: input data are always ready")
        .paper("input-data staging (Salehi et al., JPDC 2016, sec. 5)")
        .means("input-data staging before a task can start: `[staging]`")
        .example("staging = { rate_gbps = 1.0 }"),
    key("belief", "table", "the oracle: the policies read the truth itself")
        .means("the PET the mapper, the pruner and the oracle read, apart from the PET that draws the execution times: `[belief]`")
        .example("belief = { source = \"fixed\", prior = \"scaled\", scale = 0.5 }"),
    key("drift", "array of tables", "none: the truth never changes")
        .means("changes of the truth (the PET that draws the execution times) during a trial: `[[drift]]`")
        .example("drift = [{ at_task = 100, machine = 1, scale = 2.0 }]"),
    key("rollout", "table", "none: the heuristic maps every event")
        .paper("rollout by policy switching (Bertsekas, Rollout, Policy Iteration, and Distributed Reinforcement Learning, ch. 2; Chang, Givan and Chong 2004)")
        .means("a knowable reference for the simulator: each mapping event is mapped by the policy whose simulated futures hold the most tasks on time: `[rollout]`")
        .example("rollout = { scenarios = 8 }"),
];

const ROLLOUT: &[Key] = &[
    key("policies", "array of strings or inline tables", "[\"MM\", \"MSD\", \"PAM\", \"lookahead\"]")
        .allowed("batch heuristics: a name (`prunesim list`) or a table as `[mapper]` with its parameters; a suffix or variant names a pruner, which the rollout does not switch")
        .means("the heuristics simulated beside `[mapper]` (the base, chosen on a tie); each runs with the trial's pruner in its present state, so \"MM\" is MM with it")
        .example("policies = [\"MM\", { name = \"auto\", depth = 4 }]"),
    key("scenarios", "integer", "4")
        .unit("futures per mapping event")
        .allowed("1 to 10,000")
        .means("the futures drawn at a mapping event where the policies disagree, each met by every policy (common random numbers): execution times from the belief, each executing task's given that it has run so far; arrivals a Poisson stream at the rate of the last `window` arrivals, each a copy of one of them (type and relative deadline)")
        .example("scenarios = 16"),
    key("horizon", "number", "1.0")
        .unit("mean relative deadlines of the last `window` arrivals")
        .allowed("(0, 1000]")
        .means("how far a future runs; its value is the number of tasks on time in it")
        .example("horizon = 2.0"),
    key("every", "integer", "1")
        .unit("mapping events")
        .allowed(">= 1")
        .means("a policy is chosen at every this many mapping events and maps the events until the next choice")
        .example("every = 10"),
    key("window", "integer", "200")
        .unit("arrivals")
        .allowed(">= 2")
        .means("the recent arrivals the futures' rate, task types and relative deadlines are drawn from")
        .example("window = 500"),
];

const WORKLOAD: &[Key] = &[
    key("pet", "string or inline table", "\"default\"")
        .allowed("\"default\", \"homogeneous\", or an inline table (next section): a file, measured times, a matrix of means or a generated family")
        .paper("PET matrix (HCW 2019, III; generated as in VI-A)")
        .means("where the execution-time PMFs come from: `\"default\"` is the built-in 12 task types x 8 machines generated by the thesis' procedure around the paper's means; `\"homogeneous\"` every machine a copy of machine 0 (thesis 5.4)")
        .example("pet = \"homogeneous\"")
        .default_toml("\"default\""),
    key("pattern", "string", "\"constant\"")
        .allowed("\"constant\", \"bursty\"")
        .paper("constant and bursty arrival patterns (JPDC 2016, 7.2)")
        .means("how arrivals are spread over the horizon; bursty intervals come from `[workload.burst]`")
        .example("pattern = \"bursty\"")
        .default_toml("\"constant\""),
    key("burst", "table", "every key at its default")
        .means("the intervals of the bursty pattern: `[workload.burst]`")
        .example("pattern = \"bursty\"\nburst = { burst_factor = [1.5, 2.0] }"),
    key("rate", "number", "one of rate, load, arrival_rate is required")
        .unit("tasks per horizon")
        .allowed("> 0")
        .paper("arrival rate, e.g. 19k, 34k (thesis 3.4.2; HCW 2019, VI-B)")
        .means("the rate label R: R tasks arrive over `horizon` time units (before a bursty pattern's factor, as in JPDC 2016); on the paper's PET 19k is an offered load of about 1.8 and 34k of about 3.3")
        .example("rate = 9000"),
    key("load", "number", "one of rate, load, arrival_rate is required")
        .unit("times the machines' capacity")
        .allowed("> 0, finite")
        .means("the offered load: tasks arrive at `load` times the machines' capacity, the most tasks per time unit they complete with the task types in equal shares, each task taking its mean time, deadlines ignored (an LP over the PET's means); 1 offers as much as the machines can do at best, on average over a bursty pattern's intervals. Every run prints its offered load, whichever way the rate is given (`prunesim run --load`)")
        .example("load = 1.2"),
    key("arrival_rate", "number", "one of rate, load, arrival_rate is required")
        .unit("tasks per time unit")
        .allowed("> 0, finite")
        .means("tasks per time unit, on average over a bursty pattern's intervals (`prunesim run --arrival-rate`)")
        .example("arrival_rate = 0.2"),
    key("unit", "string", "absent: \"time unit\"")
        .allowed("1 to 16 printable characters")
        .means("the name of the time unit: the unit of the times of a samples CSV and a workload CSV, of `horizon`, `arrival_rate` and the burst durations, printed with every time and rate (a label: nothing is converted by it; `prunesim run --unit`)")
        .example("unit = \"ms\""),
    key("tasks", "integer", "800")
        .unit("tasks")
        .allowed(">= 1")
        .means("keep the first `tasks` arrivals of each trial")
        .example("tasks = 300")
        .default_toml("800"),
    key("trials", "integer", "30")
        .unit("trials")
        .allowed(">= 1")
        .means("number of trials, each with its own arrivals and execution times (`prunesim run --trials` overrides it)")
        .example("trials = 5")
        .default_toml("30"),
    key("beta", "number", "1.0")
        .allowed(">= 0")
        .paper("slack coefficient beta, eq. (3.7) of the thesis")
        .means("deadline = arrival + mean time of the task's type + beta x mean time of all types")
        .example("beta = 2.0")
        .default_toml("1.0"),
    key("seed", "integer", "required")
        .allowed("0 to 2^64 - 1")
        .means("master seed: trial k draws from the streams (seed, k, purpose); the same seed gives the same results on any number of threads (`--seed` overrides it, and gives it to a file without one)")
        .example("seed = 7"),
    key("pet_seed", "integer", "`seed`")
        .allowed("0 to 2^64 - 1")
        .means("seed of the generated PET (`\"default\"`, `\"homogeneous\"`, `{ means = ... }`, `{ family = ... }`) and of the `machines` draw")
        .example("pet_seed = 3"),
    key("horizon", "number", "88200")
        .unit("time units")
        .allowed("> 0")
        .means("the time over which `rate` tasks arrive, and after which none arrives; `horizon / tick` ticks, so the tick never changes the load")
        .example("horizon = 44100")
        .default_toml("88200.0"),
    key("tick", "number or \"auto\"", "1.0")
        .unit("the unit of the files' times")
        .allowed("> 0, finite; or \"auto\" with a samples CSV PET")
        .means("how long one tick, the grid of the PMFs, is in time units (the unit of a samples CSV PET's and a workload CSV's times): a time `x` of those files becomes `x / tick` ticks (`tick = 0.001` reads seconds on a millisecond grid; `prunesim run --tick` overrides it). `\"auto\"` (or `--tick auto`) chooses it from a samples CSV: a hundredth of its shortest (task type, machine) cell mean, rounded down to 1, 2 or 5 times a power of ten, so that no time moves by more than 1% of that mean; the run folder's experiment.toml records the length chosen. The horizon and the rates are in time units, so the tick changes the grid's resolution, not the load; a cell of a samples CSV whose PMF's mean moves by more than 10% is a warning naming it and the tick that fixes it")
        .example("tick = 0.001")
        .default_toml("1.0"),
    key("count_variance_ratio", "number", "0.1")
        .allowed(">= 0")
        .paper("variance 10% of the mean (thesis 3.4.2; HCW 2019, VI-B)")
        .means("variance of each task type's count as a fraction of its mean")
        .example("count_variance_ratio = 0.2")
        .default_toml("0.1"),
    key("machines", "integer", "absent: the PET's machines as they are")
        .unit("machines")
        .allowed(">= 1")
        .means("a system of that many machines, each a copy of one of the PET's machines drawn uniformly with replacement (seeded by `pet_seed`, the same for every trial)")
        .example("machines = 16"),
];

const PET: &[Key] = &[
    key("homogeneous", "integer", "-")
        .unit("machine index")
        .allowed("0 to machines - 1")
        .paper("homogeneous system (thesis 5.4)")
        .means("`pet = { homogeneous = 3 }`: the default PET with every machine a copy of machine 3")
        .example("pet = { homogeneous = 2 }"),
    key("etc", "string", "-")
        .unit("path")
        .means("`pet = { etc = \"classes_2.etc\" }`: an `.etc` file of PMFs (the paper's format); a relative path is relative to the experiment file's folder")
        .example("pet = { etc = \"classes_2.etc\" }"),
    key("samples", "string", "-")
        .unit("path")
        .means("`pet = { samples = \"times.csv\", bin_width = 5 }`: a CSV of measured execution times (columns `task_type`, `machine`, `execution_time`), one histogram per (type, machine); relative to the experiment file's folder")
        .example("pet = { samples = \"times.csv\", bin_width = 5 }"),
    key("bin_width", "integer or \"auto\"", "with `samples`: \"auto\"; with `means` or `family`: 2")
        .unit("time units")
        .allowed(">= 1, or \"auto\" (with `samples`)")
        .means("the histogram's bin width, with `samples`, `means` or `family`; with `samples`, \"auto\" gives each (type, machine) pair the smallest whole number of ticks that keeps its samples' range to at most 200 bins")
        .example("pet = { samples = \"times.csv\", bin_width = 2 }"),
    key("bin_value", "string", "\"upper\"")
        .allowed("\"upper\", \"centre\" (or \"center\"), \"lower\"")
        .means("with `samples`: the tick that stands for a bin [k w, (k+1) w): its upper edge (the thesis' reading, no time underestimated), centre or lower edge")
        .example("pet = { samples = \"times.csv\", bin_width = 2, bin_value = \"centre\" }"),
    key("means", "array of arrays of numbers", "-")
        .unit("time units")
        .allowed("> 0, one row per task type, one column per machine")
        .paper("the mean execution times the PET is generated from (HCW 2019, VI-A)")
        .means("`pet = { means = [[10, 20], [30, 15]] }`: Gamma PMFs generated by the thesis' procedure around a matrix of mean times, e.g. an ETC matrix from a paper")
        .example("pet = { means = [[10.0, 20.0], [30.0, 15.0]] }"),
    key("type_names", "array of strings", "t0, t1, ...")
        .means("with `means`: the task types' names, one per row")
        .example("pet = { means = [[10.0, 20.0]], type_names = [\"encode\"] }"),
    key("machine_names", "array of strings", "m0, m1, ...")
        .means("with `means`: the machines' names, one per column")
        .example("pet = { means = [[10.0, 20.0]], machine_names = [\"cpu\", \"gpu\"] }"),
    key("family", "string", "-")
        .allowed("\"gamma\", \"lognormal\", \"pareto\", \"bimodal\"")
        .means("`pet = { family = \"lognormal\", ... }`: a PET generated from the keys below: cell means by the CVB method (Ali et al. 2000), each cell's PMF a histogram of 500 samples of this family around its mean, clipped at `cap` times the mean (from `pet_seed`). \"gamma\": a shape uniform in [1, 20] per cell (the thesis' procedure); \"lognormal\": log-sd `sigma`; \"pareto\": tail index `alpha`; \"bimodal\": a fast and a slow mode (`fast_share`, `slow_ratio`, `modes`). A key of another family is an error naming it")
        .example("pet = { family = \"lognormal\", sigma = 1.0 }"),
    key("types", "integer", "12")
        .unit("task types")
        .allowed(">= 1; types x machine_types <= 16,384")
        .means("with `family`: the task types, named t0, t1, ...")
        .example("pet = { family = \"gamma\", types = 4 }"),
    key("machine_types", "integer", "8")
        .unit("machine types")
        .allowed(">= 1; types x machine_types x copies <= 65,536")
        .means("with `family`: the distinct machine types, named A, B, ..., Z, AA, ... (larger systems: `[workload] machines = N` draws from them)")
        .example("pet = { family = \"gamma\", machine_types = 3 }"),
    key("copies", "integer", "1")
        .unit("machines per type")
        .allowed(">= 1")
        .means("with `family`: each machine type appears as this many identical columns (the same PMFs bit for bit), named A.1, A.2, ...: 3 types x 3 copies against 9 types x 1 copy is this key")
        .example("pet = { family = \"gamma\", machine_types = 3, copies = 3 }"),
    key("mean", "number", "100")
        .unit("time units")
        .allowed("> 0, at most 10,000 bins of `bin_width`")
        .paper("mu_task of the CVB method (Ali et al. 2000)")
        .means("with `family`: the mean of the task means")
        .example("pet = { family = \"gamma\", mean = 50 }"),
    key("task_cv", "number", "0.5")
        .allowed("0 to 10")
        .paper("V_task, task heterogeneity (Ali et al. 2000)")
        .means("with `family`: the coefficient of variation of the task means `q_i ~ Gamma(mean, task_cv)`; 0: every task mean is `mean`")
        .example("pet = { family = \"gamma\", task_cv = 0.1 }"),
    key("machine_cv", "number", "0.5")
        .allowed("0 to 10")
        .paper("V_mach, machine heterogeneity (Ali et al. 2000)")
        .means("with `family`: the coefficient of variation of a task's cell means across machine types, `e_ij ~ Gamma(q_i, machine_cv)`; 0: a homogeneous system (every machine a copy of the first machine type)")
        .example("pet = { family = \"gamma\", machine_cv = 0.0 }"),
    key("consistency", "string", "\"inconsistent\"")
        .allowed("\"inconsistent\", \"consistent\", \"partially\"")
        .paper("consistent, inconsistent, partially-consistent ETC matrices (Ali et al. 2000)")
        .means("with `family`: \"consistent\" sorts each row, so machine type j is at least as fast as j + 1 for every task type; \"partially\" sorts the even columns of each row; the PMFs' means keep the order")
        .example("pet = { family = \"gamma\", consistency = \"consistent\" }"),
    key("sigma", "number", "0.5")
        .allowed("> 0, at most 3")
        .means("with `family = \"lognormal\"`, or `\"bimodal\"` with `modes = \"lognormal\"`: the log-sd of each cell (mode); the log-mean makes the mean the cell (mode) mean")
        .example("pet = { family = \"lognormal\", sigma = 1.0 }"),
    key("alpha", "number", "2.5")
        .allowed("> 1, at most 1,000")
        .means("with `family = \"pareto\"`: the tail index (heavy-tailed; infinite variance at 2 or below), the scale `e (alpha - 1) / alpha` making the mean the cell mean `e`")
        .example("pet = { family = \"pareto\", alpha = 1.8 }"),
    key("fast_share", "number", "0.8")
        .allowed("strictly between 0 and 1")
        .means("with `family = \"bimodal\"`: the probability of the fast mode; the fast mode's mean is `e / (fast_share + (1 - fast_share) slow_ratio)`, so that the mixture's mean is the cell mean `e`")
        .example("pet = { family = \"bimodal\", fast_share = 0.6 }"),
    key("slow_ratio", "number", "5")
        .allowed("1 to 1,000")
        .means("with `family = \"bimodal\"`: the slow mode's mean over the fast mode's")
        .example("pet = { family = \"bimodal\", slow_ratio = 10 }"),
    key("modes", "string", "\"gamma\"")
        .allowed("\"gamma\", \"lognormal\"")
        .means("with `family = \"bimodal\"`: each mode's distribution, gamma (a shape uniform in [1, 20] per mode) or lognormal (log-sd `sigma`)")
        .example("pet = { family = \"bimodal\", modes = \"lognormal\", sigma = 0.2 }"),
    key("cap", "number", "20")
        .unit("times the cell mean")
        .allowed("> 1, at most 1,000")
        .means("with `family`: every sample is clipped at `cap` times its cell's mean (and at 65,536 bins), so heavy tails keep a bounded support; at the defaults the means drop by less than 0.3%")
        .example("pet = { family = \"pareto\", alpha = 1.5, cap = 50 }"),
];

const BURST: &[Key] = &[
    key("baseline_duration", "array [low, high]", "[180, 300]")
        .unit("time units")
        .allowed("0 < low <= high")
        .paper("JPDC 2016, 7.2")
        .means("length of a baseline interval, uniform in the range")
        .example("baseline_duration = [100.0, 200.0]")
        .default_toml("[180.0, 300.0]"),
    key("baseline_factor", "array [low, high]", "[0.5, 0.75]")
        .allowed("0 <= low <= high")
        .paper("JPDC 2016, 7.2")
        .means("rate multiplier during a baseline interval, uniform in the range")
        .example("baseline_factor = [0.25, 0.5]")
        .default_toml("[0.5, 0.75]"),
    key("burst_duration", "array [low, high]", "[30, 90]")
        .unit("time units")
        .allowed("0 < low <= high")
        .paper("JPDC 2016, 7.2")
        .means("length of a burst interval, uniform in the range")
        .example("burst_duration = [60.0, 120.0]")
        .default_toml("[30.0, 90.0]"),
    key("burst_factor", "array [low, high]", "[1.25, 1.5]")
        .allowed("0 <= low <= high")
        .paper("JPDC 2016, 7.2")
        .means("rate multiplier during a burst interval, uniform in the range")
        .example("burst_factor = [1.5, 2.0]")
        .default_toml("[1.25, 1.5]"),
];

const SYSTEM: &[Key] = &[
    key("queue_size", "integer or string", "batch heuristics: 6; immediate heuristics: \"unbounded\"")
        .unit("tasks, counting the executing one")
        .allowed(">= 1, or \"unbounded\" (the only value immediate heuristics accept)")
        .paper("machine queue size, six counting the executing task (thesis 4.4.1)")
        .means("how many tasks a machine holds")
        .example("queue_size = 4"),
    key("drop_model", "string", "\"all\"")
        .allowed("\"none\", \"pending\", \"all\"")
        .paper("dropping scenarios (A), (B), (C): HCW 2019 eqs. (2), (3)-(4), (5); thesis eqs. (3.1), (3.3), (3.4)")
        .means("who is dropped when its deadline passes: nobody, pending tasks only (the executing task runs to completion), or every task, the executing one too; only under \"all\" may the pruner drop the executing task")
        .example("drop_model = \"pending\"")
        .default_toml("\"all\""),
    key("skip_first", "integer", "100")
        .unit("tasks")
        .allowed(">= 0")
        .paper("the first hundred tasks removed from the results (HCW 2019, VI-B)")
        .means("tasks left out of the measures at the start, by arrival (at least one task must count)")
        .example("skip_first = 10")
        .default_toml("100"),
    key("skip_last", "integer", "100")
        .unit("tasks")
        .allowed(">= 0")
        .paper("the last hundred tasks removed from the results (HCW 2019, VI-B)")
        .means("tasks left out of the measures at the end, by arrival")
        .example("skip_last = 10")
        .default_toml("100"),
    key("prices", "array of numbers", "[0.0464, 0.0832, 0.085, 0.1, 0.126, 0.19, 0.526, 0.526]")
        .unit("USD per machine-hour")
        .allowed(">= 0; cycled over the machines")
        .paper("machine prices (thesis 6.6; HCW 2019, VII-F)")
        .means("the price of each machine, for the `cost` measures")
        .example("prices = [0.1, 0.2]"),
    key("hour", "number", "3600")
        .unit("time units per hour")
        .allowed("> 0")
        .means("how many time units make the hour that prices are given for")
        .example("hour = 60.0")
        .default_toml("3600.0"),
    key("early_mapping", "boolean", "false")
        .allowed("true, false")
        .paper("mapping events before machines go idle (JPDC 2016, sec. 5, eqs. (3)-(5))")
        .means("batch mode: let a full machine take one task beyond its limit shortly before it frees a slot")
        .example("early_mapping = true")
        .default_toml("false"),
    key("heuristic_time", "number", "0")
        .unit("time units")
        .allowed(">= 0")
        .paper("t_h, JPDC 2016 eq. (5)")
        .means("the heuristic's execution time, with `early_mapping`")
        .example("early_mapping = true\nheuristic_time = 2.0")
        .default_toml("0.0"),
    key("pct_epsilon", "number", "0 (exact)")
        .allowed("0 <= eps < 0.1")
        .means("trim every completion-time PMF within this total-variation distance: faster, approximate, and labelled in the outputs")
        .example("pct_epsilon = 0.0001")
        .default_toml("0.0"),
    key("windows", "integer", "0 (not measured)")
        .unit("windows")
        .allowed("0 to 10")
        .means("also measure robustness over this many equal consecutive parts of each trial's tasks, all of them, by arrival (the measures `window_01` ...)")
        .example("windows = 10")
        .default_toml("0"),
];

const BELIEF: &[Key] = &[
    key("source", "string", "\"oracle\"")
        .allowed("\"oracle\", \"fixed\", \"learned\"")
        .means("the truth itself (following its drift), the `prior` PET throughout, or learned online from the `prior` (Kaplan-Meier per cell)")
        .example("source = \"learned\"")
        .default_toml("\"oracle\""),
    key("prior", "string", "\"truth\"")
        .allowed("\"truth\", \"samples\", \"scaled\", \"flat\", \"etc\", \"permuted\", \"none\"; not with the oracle; \"permuted\" needs two machine types or more; \"none\" only with source = \"learned\"")
        .means("the fixed PET, or the learned one's starting point: the truth at the start, a histogram of `samples` draws per cell, the truth's times times `scale`, uniform on 1 to the truth's longest time, the `.etc` file `path`, a wrong prior of the right shape: each machine believed to run as the next machine type (the types in the order of their first machine, the last as the first; copies move as a block), or none: no time at all, only which machines are copies of one machine type (as a user who names the kinds of their machines knows it); a cell not yet observed is read as one tick, so it is tried, and its observations alone once it has some (prior_weight 0 unless given)")
        .example("source = \"fixed\"\nprior = \"flat\""),
    key("samples", "integer", "required with prior = \"samples\"")
        .unit("draws per cell")
        .allowed("1 to 10^6; only with prior = \"samples\"")
        .means("draws from the truth per (task type, machine) cell; trial k draws its own, like the history an operator would have")
        .example("source = \"fixed\"\nprior = \"samples\"\nsamples = 10"),
    key("bin_width", "integer", "1")
        .unit("ticks")
        .allowed(">= 1; only with prior = \"samples\"")
        .means("the histogram's bin width of the `samples` prior")
        .example("source = \"fixed\"\nprior = \"samples\"\nsamples = 10\nbin_width = 2"),
    key("scale", "number", "required with prior = \"scaled\"")
        .allowed("> 0; only with prior = \"scaled\"")
        .means("the factor on the truth's execution times")
        .example("source = \"fixed\"\nprior = \"scaled\"\nscale = 0.5"),
    key("path", "string", "required with prior = \"etc\"")
        .unit("path")
        .allowed("only with prior = \"etc\"")
        .means("the `.etc` file of the prior, relative to the experiment file's folder")
        .example("source = \"fixed\"\nprior = \"etc\"\npath = \"belief.etc\""),
    key("censoring", "string", "\"kaplan_meier\"")
        .allowed("\"kaplan_meier\", \"ignore\"; only with source = \"learned\"")
        .paper("Kaplan-Meier estimator for right-censored times (Gao, Robert, Vivien, sec. 5)")
        .means("what an execution cut short by a drop counts for: a lower bound on the time (Kaplan-Meier), or nothing (the naive estimator, completions only)")
        .example("source = \"learned\"\ncensoring = \"ignore\""),
    key("tail", "string", "\"prior\"")
        .allowed("\"prior\", \"at_last\"; only with source = \"learned\"")
        .means("where the mass beyond a censored largest observation goes: on the prior beyond it (geometric beyond the prior), or on the observation itself")
        .example("source = \"learned\"\ntail = \"at_last\""),
    key("prior_weight", "number", "10; 0 with prior = \"none\"")
        .unit("observations")
        .allowed(">= 0; only with source = \"learned\"")
        .means("how many observations the prior weighs as")
        .example("source = \"learned\"\nprior_weight = 5.0"),
    key("window", "integer", "none: every observation")
        .unit("observations")
        .allowed(">= 1; only with source = \"learned\"")
        .means("learn from only the last this many observations of each cell (forgetting)")
        .example("source = \"learned\"\nwindow = 200"),
    key("cadence", "integer", "1")
        .unit("observations")
        .allowed(">= 1; only with source = \"learned\"")
        .means("rebuild a cell's PMF after every k-th observation")
        .example("source = \"learned\"\ncadence = 5"),
    key("cadence_share", "number", "0: off")
        .allowed("0 to 1; only with source = \"learned\"")
        .means("rebuild a cell's PMF only once the observations since its last rebuild reach this share of those it holds, and at least `cadence`: every early observation rebuilds it, later ones in proportion (about ln(n) / share rebuilds for n observations instead of n / cadence)")
        .example("source = \"learned\"\ncadence_share = 0.1"),
    key("machine_scale", "boolean", "false")
        .allowed("only with source = \"learned\"")
        .means("one time-scale factor per machine shared by all its cells (a machine-wide slowdown): the Kaplan-Meier median of the ratios of the machine's observed times to their cells' prior medians, censored runs as lower bounds; a cell learns its times divided by the factor and its PMF is that stretched by the factor, which moves when the estimate differs by more than 5%")
        .example("source = \"learned\"\nmachine_scale = true"),
    key("scale_by_evidence", "boolean", "true")
        .allowed("only with source = \"learned\"; applies without machine_scale, when the prior is not equal on every machine")
        .means("the machine factor from the evidence: each machine's factor is estimated as with machine_scale but applied only while the observations say the machine is slower than its prior (the factor above 1, and every cell of the machine holding at least 10 observations, at least 3 of them, nearer its prior stretched by the factor than its prior itself in Kolmogorov-Smirnov distance); otherwise the factor is 1. The factor stretches the prior each cell blends with (weighing prior_weight observations), not the cell's observed times: all of a cell never run, little of a busy one. It corrects a prior too fast for a whole machine in the cells that run too few tasks to learn it themselves; a prior too slow is left to each cell (its pessimism costs little: those cells lose the comparisons they would lose anyway, and exploration corrects them)")
        .example("source = \"learned\"\nprior = \"scaled\"\nscale = 0.5\nscale_by_evidence = false"),
    key("machine_window", "integer", "50")
        .unit("observations")
        .allowed(">= 1; only with the machine factor (machine_scale = true, or scale_by_evidence)")
        .means("the machine factor from only the last this many observations of the machine (its forgetting; estimated from 10 observations on)")
        .example("source = \"learned\"\nmachine_scale = true\nmachine_window = 30"),
    key("explore", "integer", "10")
        .unit("observations")
        .allowed(">= 0; only with source = \"learned\"")
        .means("exploration: a cell holding fewer observations than this is explored, so that no prior (flat, too slow, another system's) stalls the system or starves a cell: at every mapping event each machine the policy left idle (nothing executing or queued) takes one waiting task of a cell it explores, the one with the fewest observations there, then the latest deadline; only idle machines and tasks the policy did not map, so it costs at most idle time; 0 = never")
        .example("source = \"learned\"\nprior = \"flat\"\nprior_weight = 0\nexplore = 10"),
    key("pool_copies", "boolean", "true")
        .allowed("only with source = \"learned\"")
        .means("copies learn as one: machines whose priors are equal in every task type (copies of a machine type) pool their observations, every copy reading the same learned cells (and sharing one machine factor); a prior equal on every machine (a flat one) tells none apart: then the copies are found from the observations (pool_by_evidence); false for copies that may drift apart")
        .example("source = \"learned\"\npool_copies = false"),
    key("pool_by_evidence", "boolean", "true")
        .allowed("only with source = \"learned\"; applies when the prior is equal on every machine (a flat prior, a homogeneous PET), with pool_copies and without machine_scale")
        .means("copies found from the evidence: every 10 observations per machine the machines are compared task type by task type (the two-sample Kolmogorov-Smirnov distance of their Kaplan-Meier CDFs at 5%, types with at least 30 observations on both); two machines alike in every type compared (at least 3) learn every type together, cells of a type alike on other machines learn that type together, and apart again once a type tells them apart; until then every cell learns as with false")
        .example("source = \"learned\"\nprior = \"flat\"\nprior_weight = 0\npool_by_evidence = false"),
    key("optimism", "boolean", "false")
        .allowed("only with source = \"learned\"")
        .means("optimism in the face of uncertainty: an explored cell holding n observations is also read optimistically, 1 / sqrt(prior_weight + n + 1) of its mass moved from its slowest times onto its fastest tick, so every policy tries it, not only idle machines; costs tasks where the prior is right or too fast")
        .example("source = \"learned\"\nprior = \"scaled\"\nscale = 2\noptimism = true"),
    key("prior_check", "boolean", "false")
        .allowed("only with source = \"learned\"")
        .means("the prior check: a cell whose observations reject its prior learns from them alone: when the Kaplan-Meier CDF of its n observations departs from the prior's CDF by more than sqrt(ln(2 / 0.05) / (2 n)) at some observed time (the Dvoretzky-Kiefer-Wolfowitz band at 95%), the prior weighs nothing in the cell and its censored tail is geometric instead of the prior's; checked at every rebuild, so a prior the evidence agrees with again weighs again")
        .example("source = \"learned\"\nprior = \"flat\"\nprior_weight = 0\nprior_check = true"),
    key("prior_guard", "boolean", "true")
        .allowed("only with source = \"learned\"; not with machine_scale")
        .means("the prior guard: a machine whose observations contradict its prior drops it, and from then on learns as from prior = \"none\" (a cell not yet observed read as one tick, so it is tried; the observations alone; no machine factor). A cell votes once it holds 11 observations (after the machine factor from the evidence had its say): it contradicts the prior when its Kaplan-Meier CDF departs from the prior's (stretched by the machine factor, if one applies) by more than the prior check's band; the machine drops its prior when more than half of its voting cells contradict it, at least 3 of them (all its task types, when it has fewer). It catches a prior wrong as a whole (another system's, machine types swapped, flat) that each cell alone would keep where it runs no task")
        .example("source = \"learned\"\nprior = \"scaled\"\nscale = 2.0\nprior_guard = false"),
];

const DRIFT: &[Key] = &[
    key("at", "number", "`at` or `at_task` is required")
        .unit("time units")
        .allowed(">= 0; not with `at_task`")
        .means("the change applies from this time")
        .example("at = 500.0\nscale = 2.0"),
    key("at_task", "integer", "`at` or `at_task` is required")
        .unit("task, by arrival from 0")
        .allowed(">= 0; not with `at`")
        .means("the change applies from this task's arrival")
        .example("at_task = 100\nscale = 2.0"),
    key("machine", "integer", "every machine")
        .unit("machine index")
        .allowed("a machine of the PET")
        .means("the machine whose times change")
        .example("at_task = 100\nmachine = 1\nscale = 2.0"),
    key("task_type", "integer", "every task type")
        .unit("task type index")
        .allowed("a task type of the PET")
        .means("the task type whose times change")
        .example("at_task = 100\ntask_type = 2\nscale = 2.0"),
    key("scale", "number", "1")
        .allowed("> 0; the PETs of all the entries together at most 2^26 ticks (the scales that apply to a cell multiply its span)")
        .means("the times are multiplied by this")
        .example("at_task = 100\nscale = 0.5"),
    key("shift", "integer", "0")
        .unit("ticks")
        .means("then shifted by this many ticks (the result stays >= 0)")
        .example("at_task = 100\nshift = 5"),
];

/// `[mapper]`: `name`, then each parameter as the heuristics' registry writes it
/// ([`heuristics::PARAMS`]).
const MAPPER: &[Key] = &{
    let mut out = [MAPPER_NAME; 1 + heuristics::PARAMS.len()];
    let mut i = 0;
    while i < heuristics::PARAMS.len() {
        let p = &heuristics::PARAMS[i];
        out[i + 1] = Key {
            key: p.key,
            ty: p.ty,
            default: p.default,
            unit: p.unit,
            allowed: p.allowed,
            paper: p.paper,
            meaning: p.meaning,
            example: p.example,
            default_toml: p.default_toml,
        };
        i += 1;
    }
    out
};

const MAPPER_NAME: Key = key("name", "string", "required")
        .allowed("recommended: auto; batch: lookahead, MM, MSD, MMU, MOC, PAM, EDF, SJF; immediate: FCFS, MET, MCT, KPB, MR; variants: PAMF, PAMF-R, PUM, PAMND, MOCA, `<H>-D`, `<H>-Drop`, `<H>-P` (`prunesim list`); case-insensitive")
        .paper("the heuristics' names (thesis 3.3, 4.3, 5.2; HCW 2019, V-D and VI-C; JPDC 2016, 6)")
        .means("the mapping heuristic; a variant name also sets the pruner")
        .example("name = \"MOC\"");

const PRUNER: &[Key] = &[
    key("rule", "string", "\"probabilistic\": the papers' pruner, which the other keys configure")
        .allowed("\"probabilistic\", or a rule a policy crate registers (`pruner::registry::register`; `list` in its program names them); with another rule no other key")
        .means("which pruner runs: the papers', or a pruning rule of your own by its name (user guide: Write your own heuristic)")
        .example("rule = \"probabilistic\""),
    key("preset", "string", "none: every mechanism off or neutral")
        .allowed("\"paper\", \"thesis\"")
        .paper("\"paper\": HCW 2019, VII (drop 50%, defer 90%, toggle 1, lambda 0.9, Schmitt trigger); \"thesis\": chapters 4-6 (75% for both, toggle 1)")
        .means("a published setting to start from; the table's other keys override it")
        .example("preset = \"paper\""),
    key("drop_threshold", "number", "no preset: dropping off; \"paper\": 0.5; \"thesis\": 0.75")
        .unit("probability")
        .allowed("[0, 1]")
        .paper("dropping (pruning) threshold (thesis Algorithm 1; HCW 2019, V-B)")
        .means("while dropping is engaged, drop a queued (or, under `drop_model = \"all\"`, executing) task whose chance of meeting its deadline is at or below this; setting it turns dropping on")
        .example("drop_threshold = 0.5"),
    key("defer_threshold", "number or string", "no preset: deferring off; \"paper\": 0.9; \"thesis\": 0.75")
        .unit("probability")
        .allowed("[0, 1], or \"off\"")
        .paper("deferring threshold (HCW 2019, V-B2; thesis 4.3)")
        .means("leave a task in the batch queue when its best chance is at or below this")
        .example("defer_threshold = 0.9"),
    key("toggle", "number or string", "no preset: 0 (engaged at every event) when dropping is on; presets: 1")
        .unit("deadline misses")
        .allowed(">= 0, or \"never\"; needs dropping on")
        .paper("the dropping toggle, compared with the oversubscription level d_t (HCW 2019, V-C)")
        .means("dropping engages at mapping events where d_t >= toggle")
        .example("drop_threshold = 0.5\ntoggle = 2"),
    key("lambda", "number", "no preset: 1 (no history); \"paper\": 0.9; \"thesis\": 1")
        .allowed("[0, 1]")
        .paper("lambda, HCW 2019 eq. (8)")
        .means("weight of the latest event in the oversubscription level d_t = lambda mu_t + (1 - lambda) d_{t-1}")
        .example("lambda = 0.5"),
    key("schmitt", "boolean", "no preset: false; \"paper\": true; \"thesis\": false")
        .allowed("true, false")
        .paper("Schmitt trigger (HCW 2019, V-C)")
        .means("once engaged, dropping disengages only at d_t <= schmitt_off x toggle")
        .example("schmitt = true"),
    key("schmitt_off", "number", "0.8")
        .unit("fraction of the toggle")
        .allowed("[0, 1]")
        .paper("the 20% separation of the Schmitt trigger (HCW 2019, V-C)")
        .means("the Schmitt trigger's off level")
        .example("schmitt = true\nschmitt_off = 0.7"),
    key("dynamic_weight", "number", "0 (off)")
        .allowed(">= 0")
        .paper("p, HCW 2019 eq. (7): the per-task dynamic dropping threshold")
        .means("moves each task's drop threshold by its completion-time PMF's bounded skewness and its queue position")
        .example("drop_threshold = 0.5\ndynamic_weight = 0.1"),
    key("fairness", "number", "0 (off)")
        .allowed("[0, 1]")
        .paper("fairness factor theta of PAMF (HCW 2019, V-D2; thesis 6.5)")
        .means("the step by which a task type's sufferage (its relief off the thresholds) moves per task")
        .example("drop_threshold = 0.5\nfairness = 0.05"),
    key("fairness_mode", "string", "\"literal\"")
        .allowed("\"literal\", \"relative\", \"lagging\"; needs fairness > 0")
        .paper("\"literal\": PAMF's sufferage as HCW 2019, V-D2 states it")
        .means("how a type's relief follows from its outcomes: the paper's sufferage, or steered by the type's on-time rate against the mean across types (both ways, or relief only)")
        .example("drop_threshold = 0.5\nfairness = 0.05\nfairness_mode = \"relative\""),
    key("fairness_cap", "number", "1 (no bound)")
        .allowed("[0, 1]; needs fairness > 0")
        .means("how far relief may move a type's thresholds from their base")
        .example("drop_threshold = 0.5\nfairness = 0.05\nfairness_cap = 0.2"),
    key("fairness_relief", "string", "\"both\"")
        .allowed("\"both\", \"defer\"; needs fairness > 0 (and \"defer\" needs deferring)")
        .paper("\"both\": the paper's PAMF")
        .means("which thresholds relief moves: the drop and the defer threshold, or the defer threshold only")
        .example("defer_threshold = 0.9\nfairness = 0.05\nfairness_relief = \"defer\""),
];

const STAGING: &[Key] = &[
    key("mean_size_mb", "number", "64")
        .unit("MB")
        .allowed(">= 0")
        .paper("mean input-data size (JPDC 2016, 7.2)")
        .means("each task's input size is Gaussian with this mean")
        .example("mean_size_mb = 128.0")
        .default_toml("64.0"),
    key("size_variance", "number", "0.1")
        .unit("fraction of the mean")
        .allowed(">= 0")
        .paper("\"the variance is 10% of the mean\" (JPDC 2016, 7.2)")
        .means("variance of the input sizes")
        .example("size_variance = 0.2")
        .default_toml("0.1"),
    key("rate_gbps", "number", "0.68")
        .unit("Gbps")
        .allowed("> 0")
        .paper("staging rate from shared storage (JPDC 2016, 7.2)")
        .means(
            "mean rate of each machine's link; each machine's rate is Gamma-distributed around it",
        )
        .example("rate_gbps = 1.0")
        .default_toml("0.68"),
    key("rate_cv", "number", "0.1")
        .allowed("[0, 10]")
        .means("coefficient of variation of the machines' rates")
        .example("rate_cv = 0.2")
        .default_toml("0.1"),
    key("seconds_per_unit", "number", "1")
        .unit("seconds per time unit")
        .allowed("> 0")
        .means("how many seconds one time unit of the PET is, to turn MB over Gbps into ticks")
        .example("seconds_per_unit = 0.001")
        .default_toml("1.0"),
];

/// Every table of every file, in the reference's order.
pub const TABLES: &[Table] = &[
    Table {
        file: FileKind::Experiment,
        path: "",
        intro: "An experiment file (`prunesim run FILE`) has two keys of its own and a table per part of the system. Unknown keys are errors that name the key.",
        keys: EXPERIMENT,
    },
    Table {
        file: FileKind::Experiment,
        path: "workload",
        intro: "The PET and the arrival trials. Trial k of an experiment is a function of `seed` and k alone.",
        keys: WORKLOAD,
    },
    Table {
        file: FileKind::Experiment,
        path: "workload.pet",
        intro: "Besides the words `\"default\"` and `\"homogeneous\"`, `pet` takes one of five inline tables: `{ homogeneous = M }`, `{ etc = PATH }`, `{ samples = PATH, bin_width = W [, bin_value = ...] }`, `{ means = [[...]] [, bin_width = W, type_names = [...], machine_names = [...]] }`, `{ family = F [, types, machine_types, copies, mean, task_cv, machine_cv, consistency, cap, bin_width, and the family's own: sigma, alpha, fast_share, slow_ratio, modes] }`. These are their keys.",
        keys: PET,
    },
    Table {
        file: FileKind::Experiment,
        path: "workload.burst",
        intro: "The bursty pattern (`pattern = \"bursty\"`) alternates baseline and burst intervals; each range is `[low, high]`, drawn uniformly.",
        keys: BURST,
    },
    Table {
        file: FileKind::Experiment,
        path: "system",
        intro: "The machines' queues, what happens at a deadline, which tasks the measures count, and prices.",
        keys: SYSTEM,
    },
    Table {
        file: FileKind::Experiment,
        path: "mapper",
        intro: "The mapping heuristic. A parameter the heuristic does not use is an error that names it; `prunesim list` shows which heuristic takes which.",
        keys: MAPPER,
    },
    Table {
        file: FileKind::Experiment,
        path: "pruner",
        intro: "The pruner. A table starts from nothing (every mechanism off or neutral) or from `preset`, and sets only the keys it names: a key left out never brings in a published value. A key without an effect (`toggle` without dropping, the fairness keys without `fairness`) is an error. Without a `[pruner]` table, PAM, its variants and the suffixed names (`MM-P`, ...) use the paper's pruner and a plain base heuristic runs unpruned.",
        keys: PRUNER,
    },
    Table {
        file: FileKind::Experiment,
        path: "staging",
        intro: "Input-data staging (Salehi et al., JPDC 2016, sec. 5): a task mapped to a machine starts only when its input has crossed the machine's link. Absent: data are always ready.",
        keys: STAGING,
    },
    Table {
        file: FileKind::Experiment,
        path: "belief",
        intro: "Truth and belief: the PET that draws the execution times (the truth, `[workload] pet`) and the PET the mapper, the pruner and the oracle read (the belief) are configured apart. A key that does not apply to the source or prior chosen is an error naming it.",
        keys: BELIEF,
    },
    Table {
        file: FileKind::Experiment,
        path: "drift",
        intro: "Each `[[drift]]` entry changes the truth during a trial: from a time or a task's arrival, the execution times of a machine, a task type, or both, are scaled and shifted. The belief follows only if it is the oracle or learns.",
        keys: DRIFT,
    },
    Table {
        file: FileKind::Experiment,
        path: "rollout",
        intro: "A knowable reference for the simulator (runner::rollout): at a mapping event where `[mapper]` and the `policies` would map differently, each is simulated forward over `scenarios` futures drawn from what an online scheduler knows (the belief and the recent arrivals, never the trial's draws or its future tasks), and the event is mapped by the one whose futures hold the most tasks on time. It costs about (policies + 1) x scenarios simulations of the horizon per such event; not with immediate-mode heuristics, staging, early mapping events or a heuristic of one's own given in code (`runner::Policies`).",
        keys: ROLLOUT,
    },
    Table {
        file: FileKind::Sweep,
        path: "",
        intro: "A sweep file (`prunesim sweep FILE`) expands into points, x value times series, each an experiment run over the same trials. Overrides apply in the order base, x value, series.",
        keys: SWEEP,
    },
    Table {
        file: FileKind::Sweep,
        path: "x",
        intro: "The x axis.",
        keys: X_AXIS,
    },
    Table {
        file: FileKind::Sweep,
        path: "series",
        intro: "One series of the plot.",
        keys: SERIES,
    },
    Table {
        file: FileKind::Sweep,
        path: "published",
        intro: "A value the paper reports for one series at one x.",
        keys: PUBLISHED,
    },
    Table {
        file: FileKind::Cutting,
        path: "",
        intro: "A table of Gao, Robert, Vivien, \"cutting thresholds for stochastic tasks\" (`kind = \"cutting\"`).",
        keys: CUTTING,
    },
    Table {
        file: FileKind::Moldable,
        path: "",
        intro: "A figure of Hansen et al., \"robust allocation of moldable applications\" (`kind = \"moldable\"`).",
        keys: MOLDABLE,
    },
];

/// The table at `path` of a file kind.
pub fn table(file: FileKind, path: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.file == file && t.path == path)
}

fn cell(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.replace('|', "\\|")
    }
}

/// The reference as Markdown: the guide's configuration chapter is exactly this text.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str("# Configuration reference\n\n");
    out.push_str(
        "Every key of an experiment file and of the three kinds of sweep file: its type, \
         what a file without it gets, its unit, the values it accepts, the papers' name for \
         it, and what it does. This page is generated from `runner::config_reference` \
         (`prunesim config-reference` prints it); tests check that every table lists exactly \
         the keys its parser accepts, that every example parses, and that writing a default \
         changes nothing.\n",
    );
    for t in TABLES {
        let _ = write!(out, "\n## {}\n\n{}\n\n", t.heading(), t.intro);
        out.push_str(
            "| key | type | default | unit | allowed | in the papers | meaning |\n|---|---|---|---|---|---|---|\n",
        );
        for k in t.keys {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} | {} |",
                k.key,
                cell(k.ty),
                cell(k.default),
                cell(k.unit),
                cell(k.allowed),
                cell(k.paper),
                cell(k.meaning)
            );
        }
    }
    out
}
