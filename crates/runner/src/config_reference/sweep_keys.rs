//! The keys of the three kinds of sweep file (simulator experiments with their x axis,
//! series and published values; cutting tables; moldable figures), for [`super::TABLES`].

use super::{Key, key};

pub(super) const SWEEP: &[Key] = &[
    key("kind", "string", "\"experiment\"")
        .allowed("\"experiment\", \"cutting\", \"moldable\"")
        .means("which kind of sweep file this is; the cutting and moldable kinds have tables of their own below")
        .example("kind = \"experiment\"")
        .default_toml("\"experiment\""),
    key("id", "string", "required")
        .allowed("1 to 100 ASCII letters, digits, `-`, `_`, `.`, starting with a letter, a digit or `_`: one file name, never a path")
        .means("identifier: the stem of the outputs `OUT/<id>.csv`, `.trials.csv`, `.svg`, `.png`, `.manifest.json`")
        .example("id = \"my-sweep\""),
    key("title", "string", "required")
        .means("the plot's title")
        .example("title = \"My sweep\""),
    key("source", "string", "\"\"")
        .means("where the figure comes from, for the manifest")
        .example("source = \"thesis fig. 4.3\"")
        .default_toml("\"\""),
    key("chart", "string", "\"bars\"")
        .allowed("\"bars\", \"lines\"")
        .means("grouped bars (x values are categories) or lines over the x values, with 95% intervals")
        .example("chart = \"lines\"")
        .default_toml("\"bars\""),
    key("metric", "string", "\"robustness\"")
        .allowed("a measure's name (the measures chapter)")
        .means("the y measure")
        .example("metric = \"cost_per_robustness\"")
        .default_toml("\"robustness\""),
    key("label_metric", "string", "none")
        .allowed("a measure's name")
        .means("a second measure printed above each bar")
        .example("label_metric = \"robustness\""),
    key("extra_metrics", "array of strings", "[]")
        .allowed("measures' names")
        .means("further measures summarised per point: columns `<name>`, `<name>_ci95_low`, `<name>_ci95_high` of the CSV")
        .example("extra_metrics = [\"type_variance\"]")
        .default_toml("[]"),
    key("y_label", "string", "the metric's name")
        .means("the y axis' label")
        .example("y_label = \"Tasks on time (%)\""),
    key("trials", "integer", "30")
        .unit("trials per point")
        .allowed(">= 1")
        .means("trials per point (`prunesim sweep --trials` overrides it)")
        .example("trials = 10")
        .default_toml("30"),
    key("seed", "integer", "required")
        .means("master seed of every point: the same arrivals and luck in every point (common random numbers)")
        .example("seed = 43"),
    key("bound", "boolean", "false")
        .allowed("true, false")
        .means("also draw the clairvoyant optimum's bracket as a grey band (costly: once per distinct set of trials)")
        .example("bound = true")
        .default_toml("false"),
    key("notes", "array of strings", "[]")
        .means("settings chosen where the source is silent, copied into the manifest")
        .example("notes = [\"beta chosen by us\"]")
        .default_toml("[]"),
    key("base", "table", "required")
        .means("the base experiment: an experiment file's tables (`workload`, `system`, `mapper`, `pruner`, `staging`) that every point starts from")
        .example("[base]\nworkload = { rate = 19000 }\nmapper = { name = \"PAM\" }"),
    key("x", "table", "required")
        .means("the x axis: `[x]`")
        .example("[x]\nlabel = \"Rate\"\nvalues = [9000]\nset = [\"workload.rate\"]"),
    key("series", "array of tables", "required")
        .means("the series: `[[series]]`, each a label and overrides")
        .example("[[series]]\nlabel = \"PAM\""),
    key("published", "array of tables", "[]")
        .means("the values the paper reports, drawn as hollow markers beside the series' own (never written to the CSVs): `[[published]]`")
        .example("[[published]]\nseries = \"MM\"\nx = \"9000\"\nvalue = 50.0")
        .default_toml("[]"),
];

pub(super) const PUBLISHED: &[Key] = &[
    key("series", "string", "required")
        .allowed("a `[[series]] label`")
        .means("the series the value belongs to")
        .example("series = \"MM\"\nx = \"9000\"\nvalue = 50.0"),
    key("x", "string", "required")
        .allowed("an x label as printed on the axis (`x.labels`, else the value)")
        .means("the x value it is reported at")
        .example("series = \"MM\"\nx = \"9000\"\nvalue = 50.0"),
    key("value", "number", "required")
        .unit("the figure's measure")
        .means("the value reported")
        .example("series = \"MM\"\nx = \"9000\"\nvalue = 70.0"),
    key("note", "string", "none")
        .means("where it comes from and how it was read, e.g. \"the text: near 70%\"")
        .example("series = \"MM\"\nx = \"9000\"\nvalue = 70.0\nnote = \"the text\""),
];

pub(super) const X_AXIS: &[Key] = &[
    key("label", "string", "required")
        .means("the x axis' label")
        .example("label = \"Arrival rate\""),
    key("values", "array", "required")
        .allowed("numbers or strings (e.g. \"never\")")
        .means("the x values; each point sets them at the paths of `set`")
        .example("values = [9000, 19000]"),
    key("labels", "array of strings", "the values themselves")
        .means("display labels, one per value")
        .example("labels = [\"9k\"]"),
    key("set", "array of strings", "[]")
        .allowed("dotted paths into the experiment, e.g. \"workload.rate\", \"pruner.toggle\"")
        .means("where the x value goes")
        .example("set = [\"workload.rate\"]")
        .default_toml("[]"),
    key("scale", "number", "1")
        .means("numeric x values are multiplied by this before they are set (e.g. 1000 for values given in thousands)")
        .example("scale = 1000.0")
        .default_toml("1.0"),
];

pub(super) const SERIES: &[Key] = &[
    key("label", "string", "required")
        .means("the legend's label")
        .example("label = \"MM\""),
    key("set", "inline table", "{}")
        .allowed("dotted path = value")
        .means("overrides of the base experiment for this series; applied after the x value, so a path both set wins here at every x")
        .example("set = { \"mapper.name\" = \"MM\" }")
        .default_toml("{}"),
    key("x_values", "array", "all of `[x] values`")
        .means("the x values this series runs at")
        .example("x_values = [9000]"),
];

pub(super) const CUTTING: &[Key] = &[
    key("kind", "string", "required")
        .allowed("\"cutting\"")
        .means("a table of Gao, Robert, Vivien (cutting thresholds for stochastic tasks)")
        .example("kind = \"cutting\""),
    key("id", "string", "required")
        .allowed("1 to 100 ASCII letters, digits, `-`, `_`, `.`, starting with a letter, a digit or `_`: one file name, never a path")
        .means("identifier: the stem of the outputs")
        .example("id = \"my-table\""),
    key("title", "string", "required")
        .means("the title")
        .example("title = \"My table\""),
    key("source", "string", "\"\"")
        .means("where the table comes from")
        .example("source = \"Gao, Robert, Vivien, table 5\"")
        .default_toml("\"\""),
    key("table", "string", "required")
        .allowed("\"table4\", \"table5\"")
        .paper("Gao, Robert, Vivien, tables 4 (b = 1000, d = 100) and 5 (b = 50, d = 5)")
        .means("which table")
        .example("table = \"table4\""),
    key("trials", "integer", "required")
        .unit("instances per distribution")
        .allowed(">= 1")
        .means("instances per distribution")
        .example("trials = 10"),
    key("seed", "integer", "required")
        .means("master seed")
        .example("seed = 2020"),
    key("notes", "array of strings", "[]")
        .means("copied into the manifest")
        .example("notes = [\"a note\"]")
        .default_toml("[]"),
];

pub(super) const MOLDABLE: &[Key] = &[
    key("kind", "string", "required")
        .allowed("\"moldable\"")
        .means("a figure of Hansen et al. (robust allocation of moldable applications)")
        .example("kind = \"moldable\""),
    key("id", "string", "required")
        .allowed("1 to 100 ASCII letters, digits, `-`, `_`, `.`, starting with a letter, a digit or `_`: one file name, never a path")
        .means("identifier: the stem of the outputs")
        .example("id = \"my-figure\""),
    key("title", "string", "required")
        .means("the title")
        .example("title = \"My figure\""),
    key("source", "string", "\"\"")
        .means("where the figure comes from")
        .example("source = \"Hansen et al., fig. 4\"")
        .default_toml("\"\""),
    key("figure", "integer", "required")
        .allowed("4, 5")
        .paper("Hansen et al., figs. 4 and 5")
        .means("which figure")
        .example("figure = 4"),
    key("trials", "integer", "required")
        .unit("random scenarios per point")
        .allowed(">= 1")
        .means("random scenarios per point")
        .example("trials = 3"),
    key("seed", "integer", "required")
        .means("master seed")
        .example("seed = 2"),
    key("notes", "array of strings", "[]")
        .means("copied into the manifest")
        .example("notes = [\"a note\"]")
        .default_toml("[]"),
];
