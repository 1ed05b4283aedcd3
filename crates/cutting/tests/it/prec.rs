//! Named tolerances of the tests.

/// Two exact computations of the same quantity.
pub(crate) const EXACT: f64 = 1e-12;
/// Special functions against published tables (about 14 digits).
pub(crate) const SPECIAL: f64 = 1e-13;
/// Numerical integration (eq. (2) by quadrature) against a closed form.
pub(crate) const QUADRATURE: f64 = 1e-7;
/// A value printed by the paper with 2 to 4 significant digits.
pub(crate) const PRINTED: f64 = 0.005;
