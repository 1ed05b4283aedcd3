//! Learning the PET online, as both drivers start it: an estimator whose prior is a PET
//! ([`estimator_from_prior`]), handed to [`System::set_estimator`].

use learn::{Estimator, LearnError, Options};
use workload::Pet;

#[cfg(doc)]
use crate::System;

/// The online estimator ([`learn::Estimator`]) of a PET shaped as `prior` (its task types by
/// its machines) whose every cell starts from `prior`'s PMF of that cell: the simulator's
/// learned belief (`[belief]`, its prior PET), the live scheduler's (`learn_online`, the PET
/// it decides on) and the Python `Estimator` (a `Pet` given) alike.
///
/// Errors: options out of range ([`learn::Options::validate`]).
pub fn estimator_from_prior(prior: &Pet, options: Options) -> Result<Estimator, LearnError> {
    Estimator::with_prior(
        prior.n_types(),
        prior.n_machines(),
        |t, m| prior.pmf(t, m).clone(),
        options,
    )
}
