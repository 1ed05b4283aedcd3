//! Reproducible random streams: one per (master seed, trial, purpose).
//!
//! Every random draw of the project comes from a stream made here, passed explicitly to the
//! code that draws. A stream depends only on its three numbers, so trial `k` of a sweep draws
//! the same numbers whatever else runs, in whatever order, on however many threads; adding a
//! draw for one purpose never shifts the draws of another (matklad, "On random numbers").
//!
//! The generator is ChaCha12 (`rand_chacha` 0.9), portable across platforms and versions of
//! this crate. Its 256-bit key is expanded from the three numbers by a SplitMix64 mix. Where
//! one purpose needs several independent sequences (one per task type, one per PET block),
//! [`substream`] selects one of ChaCha's 2^64 streams of the same key.

use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

/// What a stream's numbers are used for. Each purpose has its own stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Generating a PET (the thesis' gamma samples, 3.4.1).
    Pet,
    /// Arrival times and task-type counts of a trial (thesis 3.4.2).
    Arrivals,
    /// Actual execution times drawn during a simulation.
    Execution,
    /// Data staging times (JPDC-2016 7.1).
    Staging,
    /// Drawing a large system's machines from a PET's machines (`[workload] machines`).
    Machines,
    /// A belief PET drawn from the truth (`[belief] prior = "samples"`).
    Belief,
    /// Anything else; distinct values give distinct streams.
    Other(u64),
}

impl Purpose {
    /// A (tag, value) pair unique to each purpose.
    fn code(self) -> (u64, u64) {
        match self {
            Purpose::Pet => (1, 0),
            Purpose::Arrivals => (2, 0),
            Purpose::Execution => (3, 0),
            Purpose::Staging => (4, 0),
            Purpose::Other(v) => (5, v),
            Purpose::Machines => (6, 0),
            Purpose::Belief => (7, 0),
        }
    }
}

/// SplitMix64's finaliser (Steele, Lea and Flood 2014): a bijective mix of 64 bits.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ChaCha12 stream of `(seed, trial, purpose)`.
///
/// ```
/// use rand::Rng;
/// use workload::rng::{Purpose, stream};
/// let a: u64 = stream(42, 7, Purpose::Arrivals).random();
/// let b: u64 = stream(42, 7, Purpose::Arrivals).random();
/// let c: u64 = stream(42, 8, Purpose::Arrivals).random();
/// assert_eq!(a, b);
/// assert_ne!(a, c);
/// ```
pub fn stream(seed: u64, trial: u64, purpose: Purpose) -> ChaCha12Rng {
    let (tag, value) = purpose.code();
    let mut state = splitmix64(seed);
    state = splitmix64(state ^ trial);
    state = splitmix64(state ^ tag);
    state = splitmix64(state ^ value);
    let mut key = [0u8; 32];
    for (k, chunk) in key.chunks_exact_mut(8).enumerate() {
        // Successive outputs of a SplitMix64 generator started at `state`.
        let word = splitmix64(state.wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    ChaCha12Rng::from_seed(key)
}

/// The `index`-th independent sequence of the stream of `(seed, trial, purpose)`: the same
/// key, ChaCha stream number `index + 1`, from its start. (Stream number 0 is [`stream`]
/// itself.) Used where one purpose needs one sequence per task type or per PET block, so that
/// the draws of one do not depend on how many draws another made.
pub fn substream(seed: u64, trial: u64, purpose: Purpose, index: u64) -> ChaCha12Rng {
    let mut rng = stream(seed, trial, purpose);
    rng.set_stream(index.wrapping_add(1));
    rng.set_word_pos(0);
    rng
}
