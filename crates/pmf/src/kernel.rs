//! The convolution kernel behind [`crate::Pmf::convolve`] and the PCT functions
//! ([`crate::next_pct`], [`crate::executing_pct`]): output blocks of 16 bins, each bin's
//! products summed from +0.0 in a fixed order, compiled for the CPU's widest SIMD extension
//! and chosen at run time by `pulp`, so every CPU computes the same bits as the direct loop.

/// Width of the output blocks of [`blocked`]: sixteen `f64` accumulators. Each is a chain of
/// dependent additions (one per outer bin), so the kernel runs at one block step per
/// addition latency: sixteen fill four AVX2 registers (eight SSE2 ones), enough independent
/// chains to keep the adders busy. Eight were as fast without AVX2 and half as fast with it.
const W: usize = 16;

/// `out[i + j] += a[i] * b[j]` over the first `limit` output bins, with `b` known to be zero
/// off multiples of `stride` (the PET's grid, [`crate::ExecPmf::stride`]); bins from `limit` on are left
/// untouched. `out` must be zeroed (as every caller's fresh buffer is) and have at least
/// `limit` bins (`a.len() + b.len() - 1` for the whole convolution).
///
/// Bit-identical to the direct loop (`convolve_strided_reference` in the tests): every output
/// bin `k` is the sum, from +0.0, of the products `a[i] * b[k - i]` in increasing `i`, zero
/// terms left out (see [`conv`]).
pub(crate) fn convolve_strided_into(
    a: &[f64],
    b: &[f64],
    stride: usize,
    out: &mut [f64],
    limit: usize,
) {
    let limit = limit.min(a.len() + b.len() - 1);
    debug_assert!(out.len() >= limit);
    SCRATCH.with(|cell| {
        arch().dispatch(Conv {
            scratch: &mut cell.borrow_mut(),
            x: a,
            y: b,
            sy: stride.max(1),
            out,
            limit,
        })
    });
}

/// `out[i + j] += a[i] * b[j]`: the convolution kernel. `out` must have
/// `a.len() + b.len() - 1` elements, zeroed by the caller.
///
/// Bit-identical to the direct loop with the shorter input outside (`convolve_reference` in
/// the tests): every output bin is the sum, from +0.0, of its products in increasing index of
/// the shorter input, zero terms left out (see [`conv`]).
pub(crate) fn convolve_into(a: &[f64], b: &[f64], out: &mut [f64]) {
    debug_assert_eq!(out.len(), a.len() + b.len() - 1);
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let n = out.len();
    let sy = grid(long);
    SCRATCH.with(|cell| {
        arch().dispatch(Conv {
            scratch: &mut cell.borrow_mut(),
            x: short,
            y: long,
            sy,
            out,
            limit: n,
        })
    });
}

/// One call of [`conv`], run by [`pulp::Arch::dispatch`] inside a function compiled for the
/// widest SIMD extension the CPU has (AVX2 and the rest of x86-64-v3, NEON, or none). The
/// kernel is plain Rust, inlined into that function (`#[inline(always)]` down to
/// [`block`]), where the compiler vectorises it for that extension. The results do not
/// depend on the extension: each output bin is the same sums in the same order, and Rust
/// never fuses a multiplication and an addition into an FMA unless asked to.
struct Conv<'a> {
    scratch: &'a mut Scratch,
    x: &'a [f64],
    y: &'a [f64],
    sy: usize,
    out: &'a mut [f64],
    limit: usize,
}

impl pulp::WithSimd for Conv<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        conv(self.scratch, self.x, self.y, self.sy, self.out, self.limit);
    }
}

/// The CPU's SIMD extensions, detected once per process.
fn arch() -> pulp::Arch {
    static ARCH: std::sync::OnceLock<pulp::Arch> = std::sync::OnceLock::new();
    *ARCH.get_or_init(pulp::Arch::new)
}

/// `out[i + j] += x[i] * y[j]` over the output bins below `limit`, each bin the sum, from
/// +0.0, of its non-zero products in increasing `i`; `y` is zero off multiples of `sy`.
///
/// On a grid of step s > 1 only some products can be non-zero, and the kernel computes just
/// those, split into residue classes modulo s, each a dense convolution that [`blocked`]
/// computes in the required order:
/// * `y` on the grid (`sy` = s): only `i ≡ k (mod s)` reach bin `k`, so the class `r` of the
///   outer input (`x`'s bins r, r+s, ...) with `y`'s bins 0, s, 2s, ... gives exactly the
///   output bins r, r+s, ..., its terms in increasing `i`;
/// * else `x` on the grid (its non-zero bins at multiples of s, found by [`grid`]): `x`'s
///   bins 0, s, 2s, ... with the class `r` of `y` (bins r, r+s, ...) give the output bins
///   r, r+s, ..., again in increasing `i`.
///
/// The products left out are zero terms, and adding a zero to a sum that started from +0.0
/// and only received non-negative terms changes no bit (all masses are finite and
/// non-negative), so the result equals the direct loop's bit for bit.
#[inline(always)]
fn conv(scratch: &mut Scratch, x: &[f64], y: &[f64], sy: usize, out: &mut [f64], limit: usize) {
    match sy {
        1 => match grid(x) {
            1 => {
                pad_into::<1>(&mut scratch.yr, y, 1);
                blocked::<1>(x, &scratch.yr, out, 1, limit);
            }
            2 => outer_on_grid::<2>(scratch, x, y, 2, out, limit),
            sx => outer_on_grid::<0>(scratch, x, y, sx, out, limit),
        },
        2 => inner_on_grid::<2>(scratch, x, y, 2, out, limit),
        _ => inner_on_grid::<0>(scratch, x, y, sy, out, limit),
    }
}

/// [`conv`] with `y` zero off multiples of `s` (`S` is `s` when known at compile time, else
/// 0): the class `r` of `x` with `y`'s bins 0, s, 2s, ... gives the output bins r, r+s, ... .
#[inline(always)]
fn inner_on_grid<const S: usize>(
    scratch: &mut Scratch,
    x: &[f64],
    y: &[f64],
    s: usize,
    out: &mut [f64],
    limit: usize,
) {
    let Scratch { xc, yr } = scratch;
    pad_into::<S>(yr, y, s);
    for r in 0..s.min(x.len()).min(limit) {
        gather::<S>(xc, &x[r..], s);
        // Class `r` holds the output bins r + m s for m < lim_r.
        let lim_r = (limit - r).div_ceil(s);
        blocked::<S>(xc, yr, &mut out[r..], s, lim_r);
    }
}

/// [`conv`] with `x` zero off multiples of `s`: `x`'s bins 0, s, 2s, ... with the class `r`
/// of `y` give the output bins r, r+s, ... .
#[inline(always)]
fn outer_on_grid<const S: usize>(
    scratch: &mut Scratch,
    x: &[f64],
    y: &[f64],
    s: usize,
    out: &mut [f64],
    limit: usize,
) {
    let Scratch { xc, yr } = scratch;
    gather::<S>(xc, x, s);
    for r in 0..s.min(y.len()).min(limit) {
        pad_into::<S>(yr, &y[r..], s);
        let lim_r = (limit - r).div_ceil(s);
        blocked::<S>(xc, yr, &mut out[r..], s, lim_r);
    }
}

/// The largest `g` such that every non-zero bin of `v` sits at a multiple of `g`, if it is at
/// most [`MAX_SPLIT`]; else 1 (also when there is at most one non-zero bin, at 0, or none).
/// Beyond that the residue classes are too many and short to pay for their set-up.
fn grid(v: &[f64]) -> usize {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut g = 0;
    for (k, &m) in v.iter().enumerate() {
        if m != 0.0 && (g == 0 || k % g != 0) {
            g = gcd(g, k);
            if g == 1 {
                return 1;
            }
        }
    }
    if g <= MAX_SPLIT { g.max(1) } else { 1 }
}

/// The largest grid [`grid`] reports.
const MAX_SPLIT: usize = 8;

/// Reused buffers of the kernels (one set per thread: no allocation once warm).
#[derive(Default)]
struct Scratch {
    /// One residue class of the outer input.
    xc: Vec<f64>,
    /// The inner input, reversed, between `W - 1` zeros on each side (see [`pad_into`]).
    yr: Vec<f64>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Stores `src`'s bins 0, s, 2s, ... into `dst` (`S`: `s` when known at compile time, else 0).
#[inline(always)]
fn gather<const S: usize>(dst: &mut Vec<f64>, src: &[f64], s: usize) {
    let s = if S > 0 { S } else { s };
    let chunks = src.chunks_exact(s);
    let rest = chunks.remainder().first().copied();
    dst.clear();
    dst.extend(chunks.map(|c| c[0]));
    dst.extend(rest);
}

/// Stores `y`'s bins 0, s, 2s, ... (`y` not empty) reversed into `yr`, between `W - 1` zeros
/// on each side: the layout [`blocked`] reads.
#[inline(always)]
fn pad_into<const S: usize>(yr: &mut Vec<f64>, y: &[f64], s: usize) {
    let s = if S > 0 { S } else { s };
    let n = y.len().div_ceil(s);
    // Cut after the last bin taken, the chunks from the end end with the bins taken, and
    // bin 0 is left over when s > 1.
    let chunks = y[..(n - 1) * s + 1].rchunks_exact(s);
    let rest = chunks.remainder().first().copied();
    yr.clear();
    yr.extend([0.0; W - 1]);
    yr.extend(chunks.map(|c| c[s - 1]));
    yr.extend(rest);
    yr.extend([0.0; W - 1]);
}

/// Sets `out[m * s]`, zero before, to `Σ_i x[i] * y[m - i]` for the output bins `m < m_end`
/// (those with a non-zero term; the others stay zero), where `y` is `yr` reversed without its
/// `W - 1` zeros of padding on each side (see [`pad_into`]).
///
/// Output-stationary and register-blocked: for each block of `W` consecutive bins
/// `m0..m0 + W`, one pass over the `i` that reach any of them, in increasing order, adds
/// `x[i] * y[m - i]` into the accumulator of every bin `m` of the block, then stores the
/// block. So each bin is the sum, from +0.0, of its products in increasing `i`, as in the
/// direct loop (`for i { for j { out[i + j] += x[i] * y[j] } }`). The products the direct
/// loop does not have (indices of `y` out of range, read from the padding, and the zero bins
/// of `x`, which it skips) are zero terms, and adding a zero to a sum that started from +0.0
/// and only received non-negative terms changes no bit: all masses are finite and
/// non-negative. The bins of one block see different ranges of `i`; the padding covers their
/// union, so the inner loop has no branch.
#[inline(always)]
fn blocked<const S: usize>(x: &[f64], yr: &[f64], out: &mut [f64], s: usize, m_end: usize) {
    let s = if S > 0 { S } else { s };
    let ylen = yr.len() - 2 * (W - 1);
    // Only the non-zero span of `x` contributes.
    let Some((x0, x1)) = nonzero_span(x) else {
        return;
    };
    let x = &x[..x1];
    let m_end = m_end.min(x1 + ylen - 1);
    let mut m0 = x0;
    while m0 < m_end {
        // The `i` reaching a bin of the block: `m - i` in `0..ylen` for some bin `m`, and
        // only bins below `m_end` are kept.
        let lo = x0.max((m0 + 1).saturating_sub(ylen));
        let hi = x1.min(m0 + W).min(m_end);
        let xs = &x[lo..hi];
        // `y[q]` is `yr[ylen + W - 2 - q]`, so with `acc[W - 1 - j]` the bin `m0 + j`, the
        // accumulators read the window of `W` values of `yr` starting at
        // `ylen - 1 - m0 + i`: increasing `i` walks the windows forwards.
        let ys = &yr[ylen + lo - (m0 + 1)..][..xs.len() + W - 1];
        let acc = block(xs, ys);
        // `out` holds +0.0 there, and +0.0 + v = v: the sum is never -0.0 as it starts at
        // +0.0 (round to nearest), so storing is adding.
        let n = W.min(m_end - m0);
        let dst = &mut out[m0 * s..];
        if n == W && dst.len() > (W - 1) * s {
            for j in 0..W {
                dst[j * s] = acc[W - 1 - j];
            }
        } else {
            for j in 0..n {
                dst[j * s] = acc[W - 1 - j];
            }
        }
        m0 += W;
    }
}

/// The first non-zero bin of `x` and one past the last, if any.
#[inline(always)]
fn nonzero_span(x: &[f64]) -> Option<(usize, usize)> {
    let x0 = x.iter().position(|&v| v != 0.0)?;
    let x1 = x.iter().rposition(|&v| v != 0.0).map_or(x0, |l| l + 1);
    Some((x0, x1))
}

/// The sums of one block of [`blocked`]: `acc[l] = Σ_t xs[t] * ys[t + l]` for `l < W`, each
/// from +0.0 in increasing `t`; `ys` has `xs.len() + W - 1` values.
#[inline(always)]
fn block(xs: &[f64], ys: &[f64]) -> [f64; W] {
    let mut acc = [0.0; W];
    for (&v, w) in xs.iter().zip(ys.windows(W)) {
        let w: &[f64; W] = w.try_into().expect("windows of W");
        for (a, &y) in acc.iter_mut().zip(w) {
            *a += v * y;
        }
    }
    acc
}

/// The strided loop as first written: the reference of the residue-class kernel's tests.
#[cfg(test)]
pub(crate) fn convolve_strided_reference(
    a: &[f64],
    b: &[f64],
    stride: usize,
    out: &mut [f64],
    limit: usize,
) {
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 || i >= limit {
            continue;
        }
        let n = (limit - i).min(b.len());
        for (o, &y) in out[i..i + n]
            .iter_mut()
            .step_by(stride)
            .zip(b[..n].iter().step_by(stride))
        {
            *o += x * y;
        }
    }
}

/// The dense loop as first written, outer loop over the shorter input: the reference of
/// [`convolve_into`]'s tests.
#[cfg(test)]
pub(crate) fn convolve_reference(a: &[f64], b: &[f64], out: &mut [f64]) {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    for (i, &x) in short.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (o, &y) in out[i..i + long.len()].iter_mut().zip(long) {
            *o += x * y;
        }
    }
}

#[cfg(test)]
mod kernel_tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn strided_kernel_on_a_hand_example() {
        // a = [1, 2, 3] (dense), b = [0.5, 0, 0.25] (stride 2): out = a * b.
        let a = [1.0, 2.0, 3.0];
        let b = [0.5, 0.0, 0.25];
        let mut out = [0.0; 5];
        convolve_strided_into(&a, &b, 2, &mut out, 5);
        assert_eq!(out, [0.5, 1.0, 1.75, 0.5, 0.75]);
        // Only the first 3 bins.
        let mut out = [0.0; 5];
        convolve_strided_into(&a, &b, 2, &mut out, 3);
        assert_eq!(out, [0.5, 1.0, 1.75, 0.0, 0.0]);
    }

    proptest! {
        /// The residue-class kernel is bit-identical to the direct strided loop.
        #[test]
        fn strided_kernel_is_bit_identical(
            a in prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..1.0], 1..40),
            b_dense in prop::collection::vec(0.0f64..1.0, 1..20),
            stride in 1usize..4,
            cut in 0usize..80,
        ) {
            // b with non-zero bins only at multiples of the stride.
            let mut b = vec![0.0; (b_dense.len() - 1) * stride + 1];
            for (j, &y) in b_dense.iter().enumerate() {
                b[j * stride] = y;
            }
            let len = a.len() + b.len() - 1;
            let limit = cut.min(len);
            let mut fast = vec![0.0; len];
            let mut slow = vec![0.0; len];
            convolve_strided_into(&a, &b, stride, &mut fast, limit);
            convolve_strided_reference(&a, &b, stride, &mut slow, limit);
            let fast_bits: Vec<u64> = fast.iter().map(|x| x.to_bits()).collect();
            let slow_bits: Vec<u64> = slow.iter().map(|x| x.to_bits()).collect();
            prop_assert_eq!(fast_bits, slow_bits);
        }

        /// The strided kernel, on inputs of up to 300 bins (many blocks of `W`, and shorter
        /// than `W`), `a` itself on a grid or not, any stride and any limit, is bit-identical
        /// to the direct loop.
        #[test]
        fn strided_kernel_matches_the_direct_loop(
            a in on_grid(),
            b in masses(),
            stride in 1usize..=4,
            cut in 0.0f64..1.2,
        ) {
            let b = keep_grid(b, stride);
            let len = a.len() + b.len() - 1;
            let limit = ((cut * len as f64) as usize).min(len);
            let mut fast = vec![0.0; len];
            let mut slow = vec![0.0; len];
            convolve_strided_into(&a, &b, stride, &mut fast, limit);
            convolve_strided_reference(&a, &b, stride, &mut slow, limit);
            prop_assert_eq!(bits(&fast), bits(&slow));
        }

        /// The full kernel, on inputs of up to 300 bins, each on a grid or not, is
        /// bit-identical to the direct loop over the shorter input.
        #[test]
        fn full_kernel_matches_the_direct_loop(a in on_grid(), b in on_grid()) {
            let len = a.len() + b.len() - 1;
            let mut fast = vec![0.0; len];
            let mut slow = vec![0.0; len];
            convolve_into(&a, &b, &mut fast);
            convolve_reference(&a, &b, &mut slow);
            prop_assert_eq!(bits(&fast), bits(&slow));
        }
    }

    /// A mass: zero (of either sign) now and then, else of any size down to products below
    /// the normal range, so that the order of the additions shows in the bits.
    fn mass() -> impl Strategy<Value = f64> {
        prop_oneof![
            2 => Just(0.0),
            1 => Just(-0.0),
            8 => 0.0f64..1.0,
            1 => (0.0f64..1.0).prop_map(|v| v * 1e-160),
        ]
    }

    /// `v` with the bins off multiples of `grid` zeroed.
    fn keep_grid(mut v: Vec<f64>, grid: usize) -> Vec<f64> {
        for (k, m) in v.iter_mut().enumerate() {
            if k % grid != 0 {
                *m = 0.0;
            }
        }
        v
    }

    /// 1 to 299 masses, as often fewer than `2 W` (edges of the blocks) as more.
    fn masses() -> impl Strategy<Value = Vec<f64>> {
        prop_oneof![1usize..2 * W, 2 * W..300].prop_flat_map(|n| prop::collection::vec(mass(), n))
    }

    /// [`masses`] on a grid of 1 to 12 bins (beyond [`MAX_SPLIT`] too).
    fn on_grid() -> impl Strategy<Value = Vec<f64>> {
        (masses(), 1usize..=12).prop_map(|(v, g)| keep_grid(v, g))
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }
}
