//! The library's warnings (`tracing` events at WARN and above, such as "times in seconds read
//! as ticks?" or a PET renormalised) as Python warnings of the class `PrunesimWarning`: a
//! subscriber installed when the module is imported keeps them, and each call that reads
//! files or runs experiments hands them to Python's `warnings` module before it returns,
//! with its file and fields, so `warnings.filterwarnings` and `pytest.warns` apply.

use std::ffi::CString;
use std::fmt::Write as _;
use std::sync::Mutex;

use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::{PyTypeInfo, create_exception};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

create_exception!(
    prunesim,
    PrunesimWarning,
    PyUserWarning,
    "A warning of prunesim about its input or a run (the same text `prunesim` logs)."
);

/// At most this many warnings wait for Python; later ones are counted, not kept, so a
/// file with a million bad rows cannot fill memory.
const KEPT: usize = 100;

/// The warnings not yet handed to Python, and how many more were left out.
static PENDING: Mutex<(Vec<String>, usize)> = Mutex::new((Vec::new(), 0));

struct Keep;

#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }
}

impl<S: Subscriber> Layer<S> for Keep {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() > Level::WARN {
            return;
        }
        let mut text = Text::default();
        event.record(&mut text);
        let line = format!("{}{}", text.message, text.fields);
        let mut pending = PENDING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pending.0.len() < KEPT && !pending.0.contains(&line) {
            pending.0.push(line);
        } else if !pending.0.contains(&line) {
            pending.1 += 1;
        }
    }
}

/// Installs the subscriber that keeps warnings (once; a subscriber already set by the
/// embedding program is left alone, and then no warnings are kept).
pub(crate) fn install() {
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Keep));
}

/// Hands the kept warnings to Python's `warnings.warn` as `PrunesimWarning`s, attributed to
/// the caller of the package's function.
pub(crate) fn flush(py: Python<'_>) -> PyResult<()> {
    let (lines, more) = {
        let mut pending = PENDING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (
            std::mem::take(&mut pending.0),
            std::mem::take(&mut pending.1),
        )
    };
    let category = PrunesimWarning::type_object(py);
    for line in lines
        .into_iter()
        .chain((more > 0).then(|| format!("{more} more warnings left out")))
    {
        let message = CString::new(line.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, category.as_any(), &message, 3)?;
    }
    Ok(())
}

/// `result`, after the warnings its call raised are handed to Python.
pub(crate) fn warned<T>(py: Python<'_>, result: PyResult<T>) -> PyResult<T> {
    flush(py)?;
    result
}
