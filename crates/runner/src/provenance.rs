//! Where results come from: the program version and the git revision embedded at build
//! time, and content hashes of the inputs.

use std::path::Path;

use sha2::{Digest, Sha256};
use workload::Pet;

/// The version of the prunesim crates.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit the runner was built from, with `-dirty` when the work tree had uncommitted
/// changes at build time; `unknown` when built outside a git checkout (see `build.rs`).
pub const GIT_REVISION: &str = env!("PRUNESIM_GIT_REVISION");

/// The SHA-256 of bytes, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of a file's content.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut h = Sha256::new();
    let mut f = std::fs::File::open(path)?;
    std::io::copy(&mut f, &mut h)?;
    Ok(hex(&h.finalize()))
}

/// A content hash of a PET: its type and machine names and every PMF's first tick and
/// masses (bit patterns), in a fixed order. Two PETs with the same hash give the same results.
pub fn pet_sha256(pet: &Pet) -> String {
    let mut h = Sha256::new();
    let mut name = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    for n in pet.type_names() {
        name(n);
    }
    for n in pet.machine_names() {
        name(n);
    }
    h.update((pet.n_types() as u64).to_le_bytes());
    h.update((pet.n_machines() as u64).to_le_bytes());
    // Each PMF's bytes handed over at once (the same bytes in the same order as one update
    // per value: the same hash, without the hasher's bookkeeping per value).
    let mut bytes: Vec<u8> = Vec::new();
    for t in 0..pet.n_types() {
        for m in 0..pet.n_machines() {
            let p = pet.pmf(t, m);
            bytes.clear();
            bytes.extend_from_slice(&p.offset().to_le_bytes());
            bytes.extend_from_slice(&(p.masses().len() as u64).to_le_bytes());
            for x in p.masses() {
                bytes.extend_from_slice(&x.to_bits().to_le_bytes());
            }
            h.update(&bytes);
        }
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A machine of the source PET and how many machines of the system copy it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MachineOrigin {
    /// The source machine's name.
    pub machine: String,
    /// How many machines copy it.
    pub copies: usize,
}

/// The machines of a PET described by where they come from: `m3#2` (the third copy of `m3`)
/// counts toward `m3`. In the PET's machine order of first appearance.
pub fn machine_counts(pet: &Pet) -> Vec<MachineOrigin> {
    let mut out: Vec<MachineOrigin> = Vec::new();
    for n in pet.machine_names() {
        let base = n.split_once('#').map_or(n.as_str(), |(b, _)| b);
        match out.iter_mut().find(|o| o.machine == base) {
            Some(o) => o.copies += 1,
            None => out.push(MachineOrigin {
                machine: base.to_owned(),
                copies: 1,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_a_known_string() {
        // FIPS 180-2 example.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_pet_hash_tells_pets_apart() {
        let a = Pet::default_pet(1);
        let b = Pet::default_pet(2);
        assert_eq!(pet_sha256(&a), pet_sha256(&Pet::default_pet(1)));
        assert_ne!(pet_sha256(&a), pet_sha256(&b));
    }

    #[test]
    fn the_pet_hash_is_the_hash_of_its_values_one_by_one() {
        // The plain reading of the documented byte stream: one update per value.
        let pet = Pet::default_pet(3);
        let mut h = Sha256::new();
        for n in pet.type_names().iter().chain(pet.machine_names()) {
            h.update((n.len() as u64).to_le_bytes());
            h.update(n.as_bytes());
        }
        h.update((pet.n_types() as u64).to_le_bytes());
        h.update((pet.n_machines() as u64).to_le_bytes());
        for t in 0..pet.n_types() {
            for m in 0..pet.n_machines() {
                let p = pet.pmf(t, m);
                h.update(p.offset().to_le_bytes());
                h.update((p.masses().len() as u64).to_le_bytes());
                for x in p.masses() {
                    h.update(x.to_bits().to_le_bytes());
                }
            }
        }
        assert_eq!(pet_sha256(&pet), hex(&h.finalize()));
    }

    #[test]
    fn drawn_machines_count_toward_their_source() {
        let pet = Pet::default_pet(1).select_machines(&[3, 0, 3, 3]);
        let origins = machine_counts(&pet);
        let counts: Vec<(&str, usize)> = origins
            .iter()
            .map(|o| (o.machine.as_str(), o.copies))
            .collect();
        assert_eq!(counts, vec![("m3", 3), ("m0", 1)]);
    }
}
