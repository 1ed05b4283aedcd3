//! Where in a TOML document a parse error lies: the 1-based line its span starts on, for the
//! `file:line:` of every configuration error (workload, experiment and sweep files).

/// The 1-based line of byte `offset` of `text` (an offset beyond the end reads the last line).
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The 1-based line of `text` where the error `e` from parsing it starts; `None` when the
/// error has no place in the text.
pub fn error_line(text: &str, e: &toml::de::Error) -> Option<usize> {
    e.span().map(|s| line_of(text, s.start))
}
