//! AN-AQM — Adaptive Neuron AQM (J. Sun, M. Zukerman, "An Adaptive Neuron AQM for a Stable Internet",
//! IFIP Networking 2007, LNCS 4479) — **a documented reconstruction, not the paper's algorithm**.
//!
//! Neither the paper nor any code was obtained (docs/aqm.md#an-aqm-reconstruction). This is the standard
//! single-neuron adaptive PID controller the paper and its predecessor ("Neuron PID", ATNAC 2006) build
//! on, and **every constant below is a placeholder parameter**, chosen so that the neuron starts out
//! exactly as ns-2's PI controller (same section). What is believed specific to AN-AQM (a rate-mismatch
//! term in the error, an adapted gain) is not modelled. Results must be labelled as coming from this
//! reconstruction; `state()` carries `("reconstruction", 1.0)` so traces say so too.
//!
//! Every `T = 1/w` seconds (a timer, independent of arrivals), with `q` the waiting packets:
//!
//! ```text
//! e(k) = q(k) - qref
//! x1 = e(k) - e(k-1),  x2 = e(k),  x3 = e(k) - 2 e(k-1) + e(k-2)       (P, I, D inputs)
//! p(k) = clip(p(k-1) + K * sum_i (w_i / sum_j |w_j|) * x_i, 0, 1)        (normalised weights)
//! w_i <- w_i + eta_i * e(k) * p(k) * x_i                                  (supervised Hebb learning)
//! ```
//!
//! Before the first sample the previous queue samples are 0 (an empty queue), as PI's `q_old` starts.
//! With `K = a` and initial weights `(b/a, (a-b)/a, 0)` the first increment is PI's
//! `a (q - qref) - b (q_old - qref)` (ns-2 `a_ = 1.822e-5`, `b_ = 1.816e-5`); learning then moves it.
//!
//! Per packet, as PI (docs/aqm.md#pi): an arrival finding `limit` or more packets waiting is dropped
//! (`Overflow`); otherwise every arrival, even into an empty queue, is tested with `u <= p` and, if
//! selected, marked when `ecn` is on and it is ECN-capable, else dropped (`Early`, or `NotEct` when `ecn`
//! is on).
//!
//! Placeholder defaults: `gain` K = 1.822e-5, `weights` (b/a, (a-b)/a, 0) = (0.99671, 0.00329, 0),
//! `w` = 170 Hz (T = 5.88 ms), `eta` = 1e-3 for all three inputs (the low end of the placeholder range
//! 1e-3…1e-1),
//! `qref` = 15 packets = 30 % of the default 50-packet buffer (study C's convention: "target queue size
//! equal to 30 % of the buffer size", so 27 for its 90-packet buffer; scenarios set it explicitly),
//! `limit` = 50 packets, ECN off. Packet mode only.

use super::fifo::{Fifo, FifoAqm, FifoQueue};
use super::{Buffer, DropReason, LinkInfo, QueueEnv};
use crate::net::PacketId;
use crate::sim::time::secs;
use crate::sim::Time;

/// ns-2 PI's `a_` and `b_`, from which the placeholder gain and initial weights are derived.
const PI_A: f64 = 1.822e-5;
const PI_B: f64 = 1.816e-5;

aqm_config! {
    #[discipline(FifoQueue<AnAqm>)]
    #[buffer(|c| Buffer::Packets(c.limit as u64))]
    pub struct Config {
        /// Buffer size in packets (50); an arrival finding `limit` waiting is dropped.
        #[default(50)]
        #[check(at_least_one)]
        pub limit: u32,
        /// Target queue in packets (placeholder 15 = 30 % of 50; study C: 30 % of the buffer).
        #[default(15.0)]
        #[check(nonnegative)]
        pub qref: f64,
        /// Sampling frequency in Hz (placeholder 170, PI's `w_`); the update period is 1/w.
        #[default(170.0)]
        #[check(positive)]
        pub w: f64,
        /// Neuron gain K (placeholder 1.822e-5 = PI's `a_`).
        #[default(PI_A)]
        #[check(nonnegative)]
        pub gain: f64,
        /// Initial P, I, D weights, normalised by the sum of their magnitudes when used
        /// (placeholder (b/a, (a-b)/a, 0) with PI's a, b).
        #[default([PI_B / PI_A, (PI_A - PI_B) / PI_A, 0.0])]
        #[check(
            |c| c.weights.iter().all(|w| w.is_finite()) && !c.weights.iter().all(|w| *w == 0.0),
            "three finite weights, not all zero"
        )]
        pub weights: [f64; 3],
        /// Hebbian learning rates for the P, I, D weights (placeholder 1e-3 each; 0 freezes learning).
        #[default([1e-3; 3])]
        #[check(nonnegative_each)]
        pub eta: [f64; 3],
        /// Mark ECN-capable packets instead of dropping them.
        pub ecn: bool,
    }
}

pub struct AnAqm {
    cfg: Config,
    period: Time,
    p: f64,
    /// Current (un-normalised) weights.
    weights: [f64; 3],
    /// Queue samples at k-1 and k-2.
    q_prev: [f64; 2],
}

impl FifoAqm for AnAqm {
    type Config = Config;

    fn new(cfg: Config, _link: LinkInfo) -> Self {
        AnAqm {
            period: secs(1.0 / cfg.w),
            weights: cfg.weights,
            cfg,
            p: 0.0,
            q_prev: [0.0; 2],
        }
    }

    fn enqueue(&mut self, pkt: PacketId, fifo: &mut Fifo, env: &mut QueueEnv) {
        if fifo.len() >= self.cfg.limit as usize {
            env.drop(pkt, DropReason::Overflow);
            return;
        }
        if env.uniform() <= self.p && !env.mark_or_drop(pkt, self.cfg.ecn) {
            return;
        }
        fifo.push(pkt, env.packets, env.now);
    }

    fn update_period(&self) -> Option<Time> {
        Some(self.period)
    }

    /// One sample of the neuron: updates `p`, then the weights.
    fn update(&mut self, fifo: &Fifo) {
        let q = fifo.len() as f64;
        let qref = self.cfg.qref;
        let (e, e1, e2) = (q - qref, self.q_prev[0] - qref, self.q_prev[1] - qref);
        let x = [e - e1, e, e - 2.0 * e1 + e2];
        let norm: f64 = self.weights.iter().map(|w| w.abs()).sum();
        let u: f64 = if norm > 0.0 { (0..3).map(|i| self.weights[i] / norm * x[i]).sum() } else { 0.0 };
        self.p = (self.p + self.cfg.gain * u).clamp(0.0, 1.0);
        for (i, xi) in x.iter().enumerate() {
            self.weights[i] += self.cfg.eta[i] * e * self.p * xi;
        }
        self.q_prev = [q, self.q_prev[0]];
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.extend([
            ("p", self.p),
            ("w1", self.weights[0]),
            ("w2", self.weights[1]),
            ("w3", self.weights[2]),
            ("reconstruction", 1.0),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::QueueDisc;
    use crate::aqm::state_of;
    use crate::aqm::testutil::{assert_rejected, one_bad_field, on_10_mbps, Harness};
    use crate::aqm::QueueAction;
    use crate::net::Ecn;

    fn an_aqm(cfg: Config) -> (Harness, FifoQueue<AnAqm>) {
        on_10_mbps(cfg)
    }

    /// Sets the waiting queue to `n` packets, with the early test switched off meanwhile.
    fn fill_to(h: &mut Harness, q: &mut FifoQueue<AnAqm>, n: usize) {
        let p = std::mem::take(&mut q.aqm.p);
        while q.len_packets() < n {
            assert!(h.arrive(q, 500, Ecn::NotEct).is_none());
        }
        while q.len_packets() > n {
            h.depart(q);
        }
        q.aqm.p = p;
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-9)
    }

    #[test]
    fn without_learning_the_neuron_is_ns2_pi() {
        let (mut h, mut q) = an_aqm(Config { limit: 200, eta: [0.0; 3], ..Default::default() });
        let (a, b, qref) = (1.822e-5, 1.816e-5, 15.0);
        let (mut p, mut q_old) = (0.0_f64, 0.0);
        for (k, n) in [40, 45, 60, 30, 10, 0, 0, 80].into_iter().enumerate() {
            fill_to(&mut h, &mut q, n);
            q.aqm.p = p; // start each step from PI's value so rounding cannot accumulate
            h.now = (k as u64 + 1) * q.aqm.period;
            assert_eq!(q.on_timer(&mut h.env()), Some(h.now + q.aqm.period));
            // PI: p = a (q - qref) - b (q_old - qref) + p, clipped to [0, 1].
            p = (a * (n as f64 - qref) - b * (q_old - qref) + p).clamp(0.0, 1.0);
            q_old = n as f64;
            assert!(close(q.aqm.p, p), "step {k}: {} != {p}", q.aqm.p);
        }
        // First step by hand: 1.822e-5 * 25 + 1.816e-5 * 15 = 7.279e-4.
        let (mut h, mut q) = an_aqm(Config { limit: 200, eta: [0.0; 3], ..Default::default() });
        fill_to(&mut h, &mut q, 40);
        q.on_timer(&mut h.env());
        assert!(close(q.aqm.p, 7.279e-4));
    }

    #[test]
    fn hebbian_learning_moves_the_weights_after_the_first_pi_step() {
        let eta = [1e-3, 2e-3, 3e-3];
        let (mut h, mut q) = an_aqm(Config { limit: 200, eta, ..Default::default() });
        let (a, b) = (1.822e-5, 1.816e-5);
        let w0 = [b / a, (a - b) / a, 0.0];

        // k = 1: q = 40, previous samples 0. Same as PI.
        fill_to(&mut h, &mut q, 40);
        q.on_timer(&mut h.env());
        let (e, e1, e2) = (25.0, -15.0, -15.0);
        let x = [e - e1, e, e - 2.0 * e1 + e2]; // (40, 25, 40)
        let p1 = a * 25.0 - b * (-15.0);
        assert!(close(q.aqm.p, p1));
        // w_i += eta_i e p x_i
        let w1: Vec<f64> = (0..3).map(|i| w0[i] + eta[i] * e * p1 * x[i]).collect();
        for (i, w) in w1.iter().enumerate() {
            assert!(close(q.aqm.weights[i], *w), "w{i}");
        }
        assert!(w1[2] > 0.0, "the derivative weight starts to learn");

        // k = 2: q = 60, samples 40 and 0.
        fill_to(&mut h, &mut q, 60);
        q.on_timer(&mut h.env());
        let (e, e1, e2) = (45.0, 25.0, -15.0);
        let x = [e - e1, e, e - 2.0 * e1 + e2]; // (20, 45, -20)
        let norm: f64 = w1.iter().map(|w| w.abs()).sum();
        let u: f64 = (0..3).map(|i| w1[i] / norm * x[i]).sum();
        let p2 = p1 + a * u;
        assert!(close(q.aqm.p, p2), "{} != {p2}", q.aqm.p);
        // PI would have given p1 + a*45 - b*25; learning changed the answer.
        assert!((p2 - (p1 + a * 45.0 - b * 25.0)).abs() > 1e-9);
        for i in 0..3 {
            assert!(close(q.aqm.weights[i], w1[i] + eta[i] * e * p2 * x[i]), "w{i}");
        }
    }

    #[test]
    fn probability_is_clipped_to_the_unit_interval() {
        let (mut h, mut q) = an_aqm(Config { limit: 200, gain: 1.0, eta: [0.0; 3], ..Default::default() });
        fill_to(&mut h, &mut q, 100);
        q.on_timer(&mut h.env());
        assert_eq!(q.aqm.p, 1.0);
        fill_to(&mut h, &mut q, 0);
        q.on_timer(&mut h.env());
        assert_eq!(q.aqm.p, 0.0);
    }

    #[test]
    fn arrivals_are_tested_even_into_an_empty_queue_and_overflow_comes_first() {
        let (mut h, mut q) = an_aqm(Config { limit: 2, ..Default::default() });
        q.aqm.p = 1.0;
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::Ect0), Some(DropReason::Early));

        let (mut h, mut q) = an_aqm(Config { limit: 2, ecn: true, ..Default::default() });
        q.aqm.p = 1.0;
        assert!(matches!(h.arrive(&mut q, 500, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert_eq!(h.arrival_dropped(&mut q, 40, Ecn::NotEct), Some(DropReason::NotEct));
        assert!(matches!(h.arrive(&mut q, 500, Ecn::Ect0), Some(QueueAction::Marked(_))));
        assert_eq!(q.len_packets(), 2, "PI's overflow rule lets `limit` packets wait");
        assert_eq!(h.arrival_dropped(&mut q, 500, Ecn::Ect0), Some(DropReason::Overflow));
    }

    #[test]
    fn timer_runs_every_1_over_w_and_state_says_reconstruction() {
        let (_, q) = an_aqm(Config::default());
        assert_eq!(q.first_timer(), Some(secs(1.0 / 170.0)));
        let state = state_of(&q);
        assert!(state.contains(&("reconstruction", 1.0)));
        assert!(close(state[1].1 + state[2].1, 1.0), "initial weights are PI's (b/a, (a-b)/a)");
    }

    #[test]
    fn validate_rejects_nonsense() {
        assert_rejected(one_bad_field![
            limit: 0, qref: -1.0, w: 0.0, gain: f64::NAN, weights: [0.0; 3],
        ]);
        assert_rejected([
            ("eta[1]", Config { eta: [0.0, -1.0, 0.0], ..Default::default() }),
        ]);
    }
}
