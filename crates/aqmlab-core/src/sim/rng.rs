//! Random streams derived from (run seed, component).
//!
//! Every component (a queue, a TCP connection, a traffic generator) owns its own stream, seeded from a
//! stable hash of the run seed and the component's name. Adding a flow therefore leaves every other
//! flow's random numbers unchanged, and a run is identical on every machine and in every order.

use rand::SeedableRng;
use std::collections::HashSet;

/// The generator used everywhere: small, fast, statistically strong (PCG 64-bit MCG).
pub type Rng = rand_pcg::Pcg64Mcg;

/// A stream for `component` (e.g. `"queue/A->B"`, `"tcp/17"`) under `seed`.
pub fn stream(seed: u64, component: &str) -> Rng {
    // FNV-1a over the name, then SplitMix64 finalisation with the seed: stable across Rust versions.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in component.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let lo = splitmix(seed ^ splitmix(h));
    let hi = splitmix(lo ^ 0x9e37_79b9_7f4a_7c15);
    Rng::new(((hi as u128) << 64) | lo as u128 | 1)
}

/// Hands out stream names so that no two components share one: the first component to ask for a name
/// gets it, a later one asking for the same name gets `{name}/{k}` with the smallest k = 1, 2, … not
/// yet handed out (so the k-th further claimant gets `{name}/{k}` unless a component's own name
/// already took it).
#[derive(Debug, Default)]
pub struct StreamNames {
    taken: HashSet<String>,
}

impl StreamNames {
    pub fn claim(&mut self, name: String) -> String {
        if self.taken.insert(name.clone()) {
            return name;
        }
        (1..).map(|k| format!("{name}/{k}")).find(|n| self.taken.insert(n.clone())).expect("an unused suffix")
    }
}

/// Seeds a generator from a single number, for tests.
pub fn from_seed(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn streams_depend_on_seed_and_component_only() {
        let a1: u64 = stream(1, "tcp/0").gen();
        let a2: u64 = stream(1, "tcp/0").gen();
        let b: u64 = stream(1, "tcp/1").gen();
        let c: u64 = stream(2, "tcp/0").gen();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    #[test]
    fn claimed_names_are_unique_and_the_first_keeps_its_own() {
        let mut names = StreamNames::default();
        let got: Vec<String> =
            ["a", "b", "a", "a", "a/3", "a/3"].iter().map(|n| names.claim(n.to_string())).collect();
        assert_eq!(got, ["a", "b", "a/1", "a/2", "a/3", "a/3/1"]);
        // `a/3` was taken by a component of that name, so the next further `a` skips it.
        assert_eq!(names.claim("a".into()), "a/4");
    }
}
