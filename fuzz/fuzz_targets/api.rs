//! The public API of `pmf` and `pruner` on arbitrary ticks, masses and queues: the bytes
//! drive a sequence of up to 32 calls on a pool of up to 16 PMFs (every PMF a call returns
//! joins the pool), each call's result checked: a PMF valid and inside the tick range, a
//! probability in [0, 1], an error of the variant the call documents.
//!
//! Ticks are drawn small (an `i16`), near an end of `i64` or of the tick range, or as any
//! `i64`. Calls whose legitimate cost is large are skipped, so that a slow input means a
//! defect: a convolution of more than 2^22 products, a dense result of more than 2^22 bins
//! (`next_pct` is called when its result is that small or certainly refused as too wide),
//! and walks over PETs more than 2^20 ticks from 0.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use pmf::kaplan_meier::{KaplanMeier, Sample};
use pmf::transform::{product, scale_time};
use pmf::{
    BinValue, DropModel, Executing, MAX_TICK, MIN_TICK, Pending, Pmf, PmfError, TailCdf,
    evaluate_queue_trimmed, executing_pct, from_samples, next_pct,
};
use pruner::{
    DropRule, Engagement, ProbabilisticPruner, PrunerConfig, QueuedTask, Sufferage, Toggle,
    walk_queue, walk_queue_cached,
};

/// The largest work a call may legitimately take here (products, bins).
const BUDGET: i128 = 1 << 22;

fn tick(u: &mut Unstructured<'_>) -> Result<i64> {
    const ENDS: [i64; 5] = [i64::MIN, i64::MAX, MIN_TICK, MAX_TICK, 0];
    Ok(match u.int_in_range(0u8..=3)? {
        0 | 1 => i64::from(u.arbitrary::<i16>()?),
        2 => ENDS[usize::from(u.arbitrary::<u8>()?) % ENDS.len()]
            .wrapping_add(i64::from(u.arbitrary::<i8>()?)),
        _ => u.arbitrary::<i64>()?,
    })
}

fn real(u: &mut Unstructured<'_>) -> Result<f64> {
    const SPECIAL: [f64; 9] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MIN_POSITIVE,
        3.7e19,
    ];
    Ok(match u.int_in_range(0u8..=3)? {
        0 => SPECIAL[usize::from(u.arbitrary::<u8>()?) % SPECIAL.len()],
        1 => f64::from_bits(u.arbitrary::<u64>()?),
        _ => f64::from(u.arbitrary::<u16>()?) / 256.0,
    })
}

/// Masses: mostly valid weights, sometimes any `f64`.
fn masses(u: &mut Unstructured<'_>) -> Result<Vec<f64>> {
    let n = u.int_in_range(0usize..=24)?;
    let wild = u.ratio(1u8, 8)?;
    (0..n)
        .map(|_| {
            if wild {
                real(u)
            } else {
                Ok(f64::from(u.arbitrary::<u8>()?) / 255.0)
            }
        })
        .collect()
}

fn model(u: &mut Unstructured<'_>) -> Result<DropModel> {
    Ok(
        [DropModel::None, DropModel::Pending, DropModel::All]
            [usize::from(u.int_in_range(0u8..=2)?)],
    )
}

fn valid(p: &Pmf) {
    if let Err(e) = p.check_invariants() {
        panic!("invalid PMF: {e}: {p:?}");
    }
    assert!(
        p.min() >= MIN_TICK && p.max() <= MAX_TICK,
        "outside the tick range: {p:?}"
    );
}

fn from_data(p: &Pmf) {
    valid(p);
    assert!(
        p.min() >= 0,
        "a PMF built from data at a negative time: {p:?}"
    );
}

fn probability(x: f64) {
    assert!((0.0..=1.0).contains(&x), "probability {x}");
}

/// Width of `[min(a), max(b)]`-like spans without overflow.
fn span(lo: i64, hi: i64) -> i128 {
    i128::from(hi) - i128::from(lo) + 1
}

/// The number of bins `next_pct` would allocate for its dense result, and the limit above
/// which it refuses (`None`: it allocates nothing beyond its inputs). Mirrors `pmf::pct`.
fn next_pct_size(prev: &Pmf, pet: &Pmf, deadline: i64, model: DropModel) -> Option<(i128, i128)> {
    if model == DropModel::None {
        return None;
    }
    let d = i128::from(deadline.clamp(-(1 << 60), 1 << 60));
    let (p0, plen) = (i128::from(prev.min()), prev.len() as i128);
    let split = (d - p0).clamp(0, plen);
    if split == 0 || split == plen {
        return None;
    }
    let conv_start = p0 + i128::from(pet.min());
    let conv_len = split + pet.len() as i128 - 1;
    let (start0, buf) = if model == DropModel::All {
        let keep = (d - conv_start).clamp(0, conv_len);
        if keep == conv_len {
            (conv_start, conv_len)
        } else if d < conv_start {
            (d, 1)
        } else {
            (conv_start, keep + 1)
        }
    } else {
        (conv_start, conv_len)
    };
    let hi_start = p0 + split;
    let start = start0.min(hi_start);
    let end = (start0 + buf - 1).max(i128::from(prev.max()));
    let limit = i128::from(pmf::prec::MAX_SPAN as u32).max(buf + plen - split);
    Some((end - start + 1, limit))
}

fn pick<'a>(pool: &'a [Pmf], u: &mut Unstructured<'_>) -> Result<&'a Pmf> {
    Ok(&pool[usize::from(u.arbitrary::<u8>()?) % pool.len()])
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let mut pool: Vec<Pmf> = vec![
        Pmf::point(0),
        Pmf::new(2, vec![0.5, 0.0, 0.5]).expect("valid"),
    ];
    for _ in 0..32 {
        if u.is_empty() {
            break;
        }
        let mut made: Option<Pmf> = None;
        match u.int_in_range(0u8..=15)? {
            // Constructors from data: times in [0, MAX_TICK] or a typed error.
            0 => {
                let (offset, m) = (tick(u)?, masses(u)?);
                for r in [Pmf::new(offset, m.clone()), Pmf::from_weights(offset, m)] {
                    match r {
                        Ok(p) => {
                            from_data(&p);
                            made = Some(p);
                        }
                        Err(e) => assert!(
                            !matches!(e, PmfError::TooWide { .. }),
                            "unexpected error: {e}"
                        ),
                    }
                }
            }
            1 => {
                let n = u.int_in_range(0usize..=8)?;
                let pairs: Vec<(i64, f64)> = (0..n)
                    .map(|_| Ok((tick(u)?, f64::from(u.arbitrary::<u8>()?) / 255.0)))
                    .collect::<Result<_>>()?;
                let with_mass = pairs.iter().filter(|p| p.1 > 0.0);
                let lo = with_mass.clone().map(|p| p.0).min().unwrap_or(0);
                let hi = with_mass.map(|p| p.0).max().unwrap_or(0);
                // Spans up to MAX_SPAN are legitimate and dense: only small ones are built.
                if span(lo, hi) <= 4096 || span(lo, hi) > i128::from(1u32 << 27) {
                    if let Ok(n) = Pmf::from_pairs(pairs.clone()) {
                        from_data(&n.pmf);
                    }
                    if let Ok(p) = Pmf::from_weighted_pairs(pairs) {
                        from_data(&p);
                        made = Some(p);
                    }
                }
            }
            2 => {
                let n = u.int_in_range(0usize..=8)?;
                let samples: Vec<f64> = (0..n).map(|_| real(u)).collect::<Result<_>>()?;
                let width = tick(u)?;
                let value = [BinValue::Upper, BinValue::Lower, BinValue::Centre]
                    [usize::from(u.int_in_range(0u8..=2)?)];
                let finite = samples.iter().filter(|x| x.is_finite() && **x >= 0.0);
                let lo = finite.clone().fold(f64::INFINITY, |a, &b| a.min(b));
                let hi = finite.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                let bins = (hi - lo) / width.max(1) as f64;
                if !(bins > 4096.0 && bins < f64::from(1u32 << 27)) {
                    if let Ok(p) = from_samples(&samples, width, value) {
                        from_data(&p);
                        made = Some(p);
                    }
                }
            }
            3 => {
                let p = Pmf::point(tick(u)?);
                valid(&p);
                made = Some(p);
            }
            // Operations: a PMF in the tick range, whatever the ticks.
            4 => {
                let (a, t) = (pick(&pool, u)?, tick(u)?);
                let shifted = a.shift(t);
                valid(&shifted);
                let mut moved = a.clone();
                moved.shift_in_place(t);
                assert_eq!(moved, shifted);
                made = Some(shifted);
            }
            5 => {
                let (a, b) = (pick(&pool, u)?, pick(&pool, u)?);
                if (a.len() as i128) * (b.len() as i128) <= BUDGET {
                    let c = a.convolve(b);
                    valid(&c);
                    made = Some(c);
                }
            }
            6 => {
                let (a, t, x) = (pick(&pool, u)?, tick(u)?, real(u)?);
                for p in [
                    a.condition_after(t),
                    a.gather_at(t),
                    a.at_least(t),
                    a.trim_tails(x),
                ] {
                    valid(&p);
                }
                let mut trimmed = a.clone();
                trimmed.trim_tv(x);
                valid(&trimmed);
                made = Some(a.condition_after(t));
            }
            7 => {
                let (a, b) = (pick(&pool, u)?, pick(&pool, u)?);
                probability(a.total_variation(b));
            }
            8 => {
                let (prev, pet, d, m) = (pick(&pool, u)?, pick(&pool, u)?, tick(u)?, model(u)?);
                let products = (prev.len() as i128) * (pet.len() as i128);
                let size = next_pct_size(prev, pet, d, m);
                let cheap = size.is_none_or(|(len, limit)| len <= BUDGET || len > limit);
                if products <= BUDGET && cheap {
                    match next_pct(prev, pet, d, m) {
                        Ok(p) => {
                            valid(&p);
                            assert!(size.is_none_or(|(len, limit)| len <= limit));
                            made = Some(p);
                        }
                        Err(PmfError::TooWide { .. }) => {
                            assert!(size.is_some_and(|(len, limit)| len > limit));
                        }
                        Err(e) => panic!("next_pct: unexpected error {e}"),
                    }
                }
            }
            9 => {
                let pet = pick(&pool, u)?;
                let (start, now, d, m) = (tick(u)?, tick(u)?, tick(u)?, model(u)?);
                let p = executing_pct(pet, start, now, d, m);
                valid(&p);
                made = Some(p);
            }
            // Queries: a probability in [0, 1] at any tick.
            10 => {
                let (a, t, x) = (pick(&pool, u)?, tick(u)?, real(u)?);
                for p in [a.cdf_tick(t), a.prob_before(t), a.mass_at(t)] {
                    probability(p);
                }
                if !x.is_nan() {
                    probability(a.cdf(x));
                    probability(a.sf(x));
                }
                if let Ok(q) = a.quantile(x) {
                    assert!(q >= a.min() && q <= a.max());
                }
                assert!(a.expected_min(t).is_finite() && a.mean().is_finite());
                let _ = (a.variance(), a.skewness(), a.bounded_skewness(), a.stride());
            }
            11 => {
                let (tail, pet, t) = (pick(&pool, u)?, pick(&pool, u)?, tick(u)?);
                let idle = TailCdf::idle(tick(u)?);
                for c in [TailCdf::new(tail), idle, TailCdf::default()] {
                    let (s, b) = (c.append_success(pet, t), c.append_success_bound(pet, t));
                    probability(s);
                    probability(b);
                    assert!(s <= b + 1e-9, "append {s} above its bound {b}");
                    probability(c.at(t));
                    let _ = c.first_reaching(real(u)?);
                }
            }
            12 => {
                let (a, b, x) = (pick(&pool, u)?, pick(&pool, u)?, real(u)?);
                let wide = |lo: f64, hi: f64| (hi - lo).abs() * x.abs() > 4096.0;
                if !wide(a.min() as f64, a.max() as f64) {
                    if let Ok(p) = scale_time(a, x) {
                        valid(&p);
                    }
                }
                let corner = (a.max() as f64).abs().max((a.min() as f64).abs())
                    * (b.max() as f64).abs().max((b.min() as f64).abs());
                if corner * x.abs() <= 4096.0 && a.impulses() * b.impulses() <= 1 << 16 {
                    if let Ok(p) = product(a, b, x) {
                        valid(&p);
                    }
                }
            }
            13 => {
                let n = u.int_in_range(1usize..=8)?;
                let obs: Vec<Sample> = (0..n)
                    .map(|_| {
                        Ok(Sample {
                            time: real(u)?,
                            censored: u.arbitrary()?,
                        })
                    })
                    .collect::<Result<_>>()?;
                let res = real(u)?;
                if let Ok(km) = KaplanMeier::new(&obs) {
                    let _ = (km.mean(), km.variance(), km.survival(res), km.cdf(res));
                    let width = (km.last_time() - km.times()[0]) * res;
                    if !(width > 4096.0 && width < f64::from(1u32 << 27)) {
                        if let Ok(p) = km.to_pmf(res) {
                            from_data(&p);
                        }
                    }
                }
            }
            // A queue: evaluated, then walked by the pruner.
            14 => {
                let n = u.int_in_range(1usize..=6)?;
                let mut tasks = Vec::with_capacity(n);
                for _ in 0..n {
                    let pet = pick(&pool, u)?;
                    tasks.push((pet, tick(u)?, usize::from(u.arbitrary::<u8>()?)));
                }
                let near = tasks.iter().all(|(p, _, _)| {
                    p.min().unsigned_abs() <= 1 << 20
                        && p.max().unsigned_abs() <= 1 << 20
                        && p.len() <= 4096
                });
                if !near {
                    continue;
                }
                let (now, start, m, eps) = (tick(u)?, tick(u)?, model(u)?, real(u)?);
                let running = u.arbitrary::<bool>()?;
                let executing = running.then(|| Executing {
                    pet: tasks[0].0,
                    start,
                    deadline: tasks[0].1,
                });
                let pending: Vec<Pending<'_>> = tasks
                    .iter()
                    .skip(usize::from(running))
                    .map(|&(pet, deadline, _)| Pending { pet, deadline })
                    .collect();
                match evaluate_queue_trimmed(now, executing, &pending, m, eps) {
                    Ok(positions) => {
                        assert_eq!(positions.len(), n);
                        for p in &positions {
                            valid(&p.pct);
                            probability(p.success);
                            probability(p.dropped);
                        }
                    }
                    Err(e) => assert!(matches!(e, PmfError::TooWide { .. }), "{e}"),
                }
                let queue: Vec<QueuedTask<'_>> = tasks
                    .iter()
                    .enumerate()
                    .map(|(i, &(pet, deadline, task_type))| QueuedTask {
                        task_type,
                        pet,
                        deadline,
                        start: (i == 0 && running).then_some(start),
                    })
                    .collect();
                let sufferage = [real(u)?, real(u)?];
                let rule = DropRule {
                    threshold: real(u)?,
                    dynamic_weight: real(u)?,
                    sufferage: &sufferage,
                };
                let walked = walk_queue(now, &queue, m, rule);
                let cached = walk_queue_cached(now, &queue, m, rule, Some(&[]), eps);
                for r in [&walked, &cached] {
                    match r {
                        Ok(drops) => assert_eq!(drops.len(), n),
                        Err(e) => assert!(matches!(e, PmfError::TooWide { .. }), "{e}"),
                    }
                }
                if eps.is_nan() || eps <= 0.0 {
                    assert_eq!(walked, cached, "an empty cache changes the walk");
                }
            }
            // The pruner's state under any settings and events.
            _ => {
                let types = if u.arbitrary::<bool>()? {
                    usize::from(u.arbitrary::<u8>()?)
                } else {
                    u.arbitrary::<usize>()?
                };
                let config = PrunerConfig {
                    drop_threshold: real(u)?,
                    defer_threshold: u.arbitrary::<bool>()?.then(|| 0.9),
                    toggle: Toggle::Level(real(u)?),
                    lambda: real(u)?,
                    schmitt: u.arbitrary()?,
                    schmitt_off: real(u)?,
                    dynamic_weight: real(u)?,
                    fairness: real(u)?,
                };
                let _ = Sufferage::new(types, config.fairness);
                let _ = Engagement::new(config.toggle, config.lambda, Some(config.schmitt_off));
                if let Ok(mut p) = ProbabilisticPruner::new(config, types) {
                    for _ in 0..u.int_in_range(0u8..=8)? {
                        p.observe_misses(u.arbitrary()?);
                        assert!(p.engagement().level().is_finite());
                        let t = u.arbitrary::<usize>()? % (types + 1);
                        p.record_end(t, u.arbitrary()?);
                        probability(p.sufferage().value(t));
                        probability(p.drop_threshold(t));
                        if let Some(d) = p.defer_threshold(t) {
                            probability(d);
                        }
                    }
                }
            }
        }
        if let Some(p) = made {
            if pool.len() < 16 {
                pool.push(p);
            } else {
                let k = usize::from(u.arbitrary::<u8>()?) % pool.len();
                pool[k] = p;
            }
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = run(&mut u);
});
