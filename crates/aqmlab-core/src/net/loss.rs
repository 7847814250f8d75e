//! Error models on a link direction (ns-2 `ErrorModel`): packets lost on the wire before the queue,
//! either at random with a fixed probability or by position in the stream (ns-2 `ErrModel/List`).

use crate::sim::Rng;
use rand::Rng as _;
use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LossSpec {
    /// Probability that a packet carrying payload is lost.
    pub rate: f64,
    /// Positions (1-based) of packets carrying payload to lose, counted at this link direction.
    pub list: Vec<u64>,
}

impl LossSpec {
    pub fn validate(&self) -> Result<(), (String, String)> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(("rate".into(), "a loss probability in [0, 1]".into()));
        }
        if self.list.contains(&0) {
            return Err(("list".into(), "packet positions counted from 1".into()));
        }
        Ok(())
    }
}

pub struct LossModel {
    rate: f64,
    list: Vec<u64>,
    seen: u64,
    /// Its own stream, so enabling losses leaves the queue's random draws unchanged.
    rng: Rng,
}

impl LossModel {
    pub fn new(spec: &LossSpec, rng: Rng) -> Self {
        let mut list = spec.list.clone();
        list.sort_unstable();
        LossModel { rate: spec.rate, list, seen: 0, rng }
    }

    /// Decides the fate of one arriving packet; pure ACKs and control segments are never lost.
    pub fn lose(&mut self, payload: u32) -> bool {
        if payload == 0 {
            return false;
        }
        self.seen += 1;
        self.list.binary_search(&self.seen).is_ok() || (self.rate > 0.0 && self.rng.gen::<f64>() < self.rate)
    }
}
