//! Typed errors of the PMF crate. No function of this crate panics on user input.

use thiserror::Error;

/// Why a probability mass function could not be built or used.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum PmfError {
    /// No mass was given at all.
    #[error("the PMF is empty: no (time, probability) pair was given")]
    Empty,
    /// A mass or time was NaN or infinite.
    #[error("probability #{index} is not finite ({value})")]
    NonFinite {
        /// Position of the offending value in the input.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// A mass was negative.
    #[error("probability #{index} is negative ({value})")]
    Negative {
        /// Position of the offending value in the input.
        index: usize,
        /// The value itself.
        value: f64,
    },
    /// The masses are finite but their sum overflows.
    #[error("the probabilities sum to infinity")]
    TotalNotFinite,
    /// Every mass was zero.
    #[error("all probabilities are zero")]
    ZeroTotal,
    /// The masses sum too far from 1 to be a rounding artefact.
    #[error(
        "probabilities sum to {total}, more than {tolerance} away from 1 (use a weights constructor to normalise on purpose)"
    )]
    NotNormalised {
        /// The sum of the input masses.
        total: f64,
        /// The largest accepted distance from 1.
        tolerance: f64,
    },
    /// A histogram bin width (or another grid parameter) was not positive.
    #[error("bin width must be a positive number of ticks, got {0}")]
    InvalidBinWidth(i64),
    /// A time does not fit in the integer tick range.
    #[error("time {0} does not fit in the tick range")]
    TimeOutOfRange(f64),
    /// A bin with mass at a tick outside `[0, MAX_TICK]`: a PMF built from data holds times
    /// measured from 0 (an execution time is not negative) within the tick range.
    #[error(
        "the time of bin #{bin} (offset + {bin}) is {tick}, outside [0, {max}]: times built from data are not negative and at most {max} ticks",
        max = crate::MAX_TICK
    )]
    TickOutOfRange {
        /// Position of the bin in the dense masses (`offset + bin` is its tick).
        bin: usize,
        /// Its tick (saturated to the `i64` range when it does not fit).
        tick: i64,
    },
    /// A probability argument was outside [0, 1].
    #[error("probability argument {0} is outside [0, 1]")]
    InvalidProbability(f64),
    /// The PMF would need more bins than the configured maximum.
    #[error("the PMF would span {span} ticks, more than the limit of {limit}")]
    TooWide {
        /// Number of ticks the support would span.
        span: u64,
        /// The limit.
        limit: u64,
    },
    /// An observed time given to the Kaplan-Meier estimator was NaN, infinite or negative.
    #[error("sample #{index} has time {value}: observed times must be finite and non-negative")]
    InvalidSampleTime {
        /// Position of the offending sample in the input.
        index: usize,
        /// The time itself.
        value: f64,
    },
    /// A grid resolution (ticks per time unit) was not a finite positive number.
    #[error("resolution must be a finite positive number of ticks per time unit, got {0}")]
    InvalidResolution(f64),
    /// A scale factor (a speedup's reciprocal, a slowdown grid) was not finite and positive.
    #[error("scale factor must be a finite positive number, got {0}")]
    InvalidScale(f64),
}

// Errors travel inside `Result<Pmf, PmfError>` on hot paths (`next_pct`) and inside other
// crates' errors: keep them two words and a tag.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<PmfError>() <= 24);
