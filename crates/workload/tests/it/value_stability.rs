//! Pinned outputs for fixed seeds (after rand_distr's `tests/value_stability.rs`). A change
//! here changes every generated PET and trial, and so every result of the project: only make
//! it on purpose, and say so.

use rand::Rng;
use workload::rng::{Purpose, stream, substream};
use workload::{ArrivalSpec, BurstParams, Pattern, Pet, Task, generate_trial};

/// Relative tolerance for values computed through `ln`/`exp` (which a platform's libm may
/// round differently in the last bit).
const REL: f64 = 1e-12;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= REL * a.abs().max(b.abs())
}

fn assert_task(actual: &Task, task_type: usize, arrival: f64, deadline: f64) {
    assert_eq!(actual.task_type, task_type, "{actual:?}");
    assert!(
        close(actual.arrival, arrival),
        "{actual:?}: arrival {arrival}"
    );
    assert!(
        close(actual.deadline, deadline),
        "{actual:?}: deadline {deadline}"
    );
}

#[test]
fn streams_are_pinned() {
    let a: u64 = stream(42, 0, Purpose::Arrivals).random();
    let b: u64 = stream(42, 1, Purpose::Other(7)).random();
    let c: u64 = substream(42, 0, Purpose::Arrivals, 3).random();
    assert_eq!(a, 0x0f57_1fb0_4be6_ab8d);
    assert_eq!(b, 0xa158_137c_9550_f9db);
    assert_eq!(c, 0x4d6f_d080_652a_7159);
}

#[test]
fn default_pet_is_pinned() {
    let pet = Pet::default_pet(42);
    let p = pet.pmf(0, 0);
    assert_eq!((p.min(), p.max()), (26, 152));
    // Means of 500-sample histograms are multiples of 2 / 500.
    assert!(close(p.mean(), 69.732), "{}", p.mean());
    assert!(close(pet.avg_all(), 95.799), "{}", pet.avg_all());
    assert!(close(pet.avg_type(7), 154.804), "{}", pet.avg_type(7));
}

#[test]
fn constant_trial_is_pinned() {
    let pet = Pet::default_pet(42);
    let t = generate_trial(&pet, &ArrivalSpec::paper(34_000.0), 42, 0);
    assert_task(&t.tasks[0], 0, 8.025976962778625, 185.85647696277863);
    assert_task(&t.tasks[1], 4, 8.424869417811781, 192.7553694178118);
    assert_task(&t.tasks[2], 1, 9.46322005501599, 210.87772005501603);
    assert_task(&t.tasks[799], 5, 2081.9685521710667, 2280.4430521710665);
}

#[test]
fn bursty_trial_is_pinned() {
    let pet = Pet::default_pet(42);
    let spec = ArrivalSpec {
        pattern: Pattern::Bursty(BurstParams::default()),
        ..ArrivalSpec::paper(19_000.0)
    };
    let t = generate_trial(&pet, &spec, 42, 5);
    assert_task(&t.tasks[0], 0, 2.3971896347271895, 180.2276896347272);
    assert_task(&t.tasks[1], 2, 2.4229875297352113, 192.39998752973526);
    assert_task(&t.tasks[799], 8, 4820.872599320922, 5030.398599320922);
}

#[test]
fn generated_families_are_pinned() {
    use workload::{CellFamily, Modes, PetFamily};
    // (family, cell (0, 0): min, max, mean, its first mass, avg_all) at seed 42, the
    // other keys at their defaults. Means of 500-sample histograms are multiples of 2 / 500.
    let cases = [
        (
            CellFamily::Gamma,
            34,
            200,
            91.476,
            0.002,
            107.743_208_333_333_36,
        ),
        (
            CellFamily::Lognormal { sigma: 1.0 },
            4,
            1340,
            88.724,
            0.008,
            107.762_541_666_666_68,
        ),
        (
            CellFamily::Pareto { alpha: 2.5 },
            58,
            824,
            95.676,
            0.078,
            107.066_041_666_666_66,
        ),
        (
            CellFamily::Bimodal {
                fast_share: 0.8,
                slow_ratio: 5.0,
                modes: Modes::Gamma,
            },
            20,
            446,
            92.792,
            0.002,
            107.529_208_333_333_36,
        ),
    ];
    for (family, min, max, mean, first, avg_all) in cases {
        let pet = PetFamily::new(family).generate(42).unwrap();
        let p = pet.pmf(0, 0);
        assert_eq!((p.min(), p.max()), (min, max), "{family:?}");
        assert!(close(p.mean(), mean), "{family:?}: {}", p.mean());
        assert!(close(p.masses()[0], first), "{family:?}: {}", p.masses()[0]);
        assert!(
            close(pet.avg_all(), avg_all),
            "{family:?}: {}",
            pet.avg_all()
        );
    }
}
