//! NewReno's window, as ns-2's `Agent/TCP/Newreno` computes it (`opencwnd`, `slowdown`): counted in
//! segments and opened per ACK, not per byte acknowledged. Fast recovery's inflation and deflation are
//! the endpoint's (see the module docs of [`super`]).

use super::{Ack, Controller};
use crate::tcp::TcpConfig;

pub struct NewReno {
    // DCTCP (`dctcp.rs`) grows and cuts for losses as NewReno and sets both for its own ECN cut; Prague
    // (`prague.rs`) grows its own way.
    pub(super) cwnd: f64,
    pub(super) ssthresh: f64,
}

impl NewReno {
    /// Half the window a loss cuts, unrounded, as ns-2's `slowdown` computes it with
    /// `precision_reduce_` (its default): `min(cwnd, max_window) / 2`.
    fn half_window(&self, cfg: &TcpConfig) -> f64 {
        self.cwnd.min(cfg.max_window as f64) / 2.0
    }

    /// Growth by the segments an ACK acknowledges, as Linux's `tcp_slow_start` then
    /// `tcp_cong_avoid_ai` and ns-3's `TcpLinuxReno` count them: one per segment below ssthresh (up to
    /// it), the rest `increase` segments per window's worth. Delayed ACKs then do not halve the growth,
    /// as they do for ns-2's per-ACK rule ([`Controller::on_ack`] here). DCTCP's (increase 1) and TCP
    /// Prague's (its RTT-independent increase).
    pub(super) fn grow_per_segment(&mut self, segments: f64, increase: f64) {
        let segments = super::slow_start(&mut self.cwnd, self.ssthresh, segments);
        self.cwnd += increase * segments / self.cwnd;
    }

    /// A sender already in congestion avoidance at `cwnd` (tests of the endpoint start from one).
    #[cfg(test)]
    pub(crate) fn in_congestion_avoidance(cwnd: f64) -> Self {
        NewReno { cwnd, ssthresh: cwnd }
    }
}

impl Controller for NewReno {
    /// Slow start from `init_cwnd` up to the largest window the receiver allows.
    fn new(cfg: &TcpConfig) -> Self {
        NewReno { cwnd: cfg.init_cwnd, ssthresh: cfg.max_window as f64 }
    }

    fn cwnd(&self) -> f64 {
        self.cwnd
    }

    fn ssthresh(&self) -> f64 {
        self.ssthresh
    }

    /// Slow start +1 segment per ACK below ssthresh, congestion avoidance +1/cwnd (about one segment
    /// per window of ACKs) from it.
    fn on_ack(&mut self, _ack: &Ack) {
        self.cwnd += if self.cwnd < self.ssthresh { 1.0 } else { 1.0 / self.cwnd };
    }

    /// cwnd = half the window with its fraction, ssthresh = its whole segments, at least 2: ns-2's
    /// slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF), as for ECN ([`Self::on_ecn_echo`]); cwnd at
    /// least 1 (a loss is detected with a window of at least one segment in flight).
    fn on_loss(&mut self, cfg: &TcpConfig) {
        let half = self.half_window(cfg);
        self.ssthresh = half.floor().max(2.0);
        self.cwnd = half.max(1.0);
    }

    /// ns-2's slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF) with `precisionReduce_`: cwnd = window/2
    /// unrounded and with no floor (31 -> 15.5, 1 -> 0.5), ssthresh = int(window/2) and at least 2.
    fn on_ecn_echo(&mut self, window: f64) {
        let half = window / 2.0;
        self.ssthresh = half.floor().max(2.0);
        self.cwnd = half;
    }

    /// Restart from one segment; a cut ssthresh is half the window, as after a loss.
    fn on_timeout(&mut self, cut_ssthresh: bool, cfg: &TcpConfig) {
        if cut_ssthresh {
            self.ssthresh = self.half_window(cfg).floor().max(2.0);
        }
        self.cwnd = 1.0;
    }

    fn set_cwnd(&mut self, cwnd: f64) {
        self.cwnd = cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NewReno reads nothing from an ACK.
    const ACK: Ack = Ack { now: 0, segments: 1.0, srtt: 0.1 };

    fn cfg(init_cwnd: f64, max_window: u32) -> TcpConfig {
        TcpConfig { init_cwnd, max_window, ..TcpConfig::default() }
    }

    /// Acknowledges each segment of one window (the whole segments of cwnd) separately.
    fn ack_one_window(cc: &mut NewReno) {
        for _ in 0..cc.cwnd() as u64 {
            cc.on_ack(&ACK);
        }
    }

    #[test]
    fn growth_per_segment_counts_what_a_delayed_ack_acknowledges() {
        // Slow start: an ACK of two segments opens two.
        let mut cc = NewReno { cwnd: 4.0, ssthresh: 100.0 };
        cc.grow_per_segment(2.0, 1.0);
        assert_eq!(cc.cwnd, 6.0);
        // Up to ssthresh, and the rest of the ACK is congestion avoidance: 9 + 1 then 1/10.
        let mut cc = NewReno { cwnd: 9.0, ssthresh: 10.0 };
        cc.grow_per_segment(2.0, 1.0);
        assert_eq!(cc.cwnd, 10.1);
        // Congestion avoidance: `increase` segments per window's worth, 2·1/20 and 2·0.5/20.
        let mut cc = NewReno::in_congestion_avoidance(20.0);
        cc.grow_per_segment(2.0, 1.0);
        assert_eq!(cc.cwnd, 20.1);
        cc.grow_per_segment(2.0, 0.5);
        assert_eq!(cc.cwnd, 20.1 + 1.0 / 20.1);
        // ns-2's per-ACK rule opens half as much for the same delayed ACK.
        let mut ns2 = NewReno::in_congestion_avoidance(20.0);
        ns2.on_ack(&Ack { segments: 2.0, ..ACK });
        assert_eq!(ns2.cwnd, 20.05);
    }

    #[test]
    fn slow_start_doubles_the_window_every_round_trip_up_to_ssthresh() {
        let cfg = cfg(2.0, 20);
        let mut cc = NewReno::new(&cfg);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (2.0, 20.0), "ssthresh starts at max_window");
        let mut rounds = Vec::new();
        for _ in 0..3 {
            ack_one_window(&mut cc);
            rounds.push(cc.cwnd());
        }
        assert_eq!(rounds, vec![4.0, 8.0, 16.0]);
        // The fourth round's 16 ACKs: four reach ssthresh 20, then 12 of congestion avoidance.
        ack_one_window(&mut cc);
        let expected = (0..12).fold(20.0, |w: f64, _| w + 1.0 / w);
        assert_eq!(cc.cwnd(), expected);
        assert!(cc.cwnd() > 20.5 && cc.cwnd() < 20.6);
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut cc = NewReno::in_congestion_avoidance(10.0);
        cc.on_ack(&ACK);
        assert_eq!(cc.cwnd(), 10.1, "1/cwnd per ACK");
        for _ in 1..10 {
            cc.on_ack(&ACK);
        }
        // 10 + 1/10 + 1/10.1 + ...: just under one segment per window of ten ACKs.
        assert!((cc.cwnd() - 10.958_647_968_473_018).abs() < 1e-12, "{}", cc.cwnd());
        for _ in 0..10 {
            ack_one_window(&mut cc);
        }
        assert!((20.0..21.0).contains(&cc.cwnd()), "ten more windows, ten more segments: {}", cc.cwnd());
        assert_eq!(cc.ssthresh(), 10.0);
    }

    #[test]
    fn a_loss_halves_the_window_keeping_its_fraction_and_ssthresh_takes_the_whole_segments() {
        // Checked against ns-2.35's Agent/TCP/Newreno on a traced run: 20.132 -> 10.066, 17.809 -> 8.905.
        let cfg = cfg(2.0, 100);
        for (cwnd, half, ssthresh) in [(31.7, 15.85, 15.0), (20.0, 10.0, 10.0), (3.0, 1.5, 2.0), (1.0, 1.0, 2.0)] {
            let mut cc = NewReno::in_congestion_avoidance(cwnd);
            cc.on_loss(&cfg);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (half, ssthresh), "from {cwnd}");
        }
        // The receiver's window caps what is halved.
        let mut cc = NewReno::in_congestion_avoidance(50.0);
        cc.on_loss(&TcpConfig { max_window: 20, ..cfg });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (10.0, 10.0));
    }

    #[test]
    fn ecn_echo_halves_the_window_in_use_keeping_the_fraction() {
        for (window, cwnd, ssthresh) in [(31.0, 15.5, 15.0), (20.0, 10.0, 10.0), (1.0, 0.5, 2.0)] {
            let mut cc = NewReno::in_congestion_avoidance(window);
            cc.on_ecn_echo(window);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (cwnd, ssthresh), "from {window}");
        }
        // The window in use includes fast recovery's inflation: cwnd 10 + 3 duplicate ACKs.
        let mut cc = NewReno::in_congestion_avoidance(10.0);
        cc.on_ecn_echo(13.0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (6.5, 6.0));
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_and_slow_starts_to_half_the_old_window() {
        let cfg = cfg(2.0, 100);
        let mut cc = NewReno::in_congestion_avoidance(20.6);
        cc.on_timeout(true, &cfg);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1.0, 10.0));
        let mut rounds = Vec::new();
        for _ in 0..4 {
            ack_one_window(&mut cc);
            rounds.push(cc.cwnd());
        }
        assert_eq!(rounds[..3], [2.0, 4.0, 8.0]);
        // The fourth round's 8 ACKs: two reach ssthresh 10, then 6 of congestion avoidance.
        assert_eq!(rounds[3], (0..6).fold(10.0, |w: f64, _| w + 1.0 / w));
        // A timeout that keeps ssthresh (after an ECN cut, or after idleness).
        let mut cc = NewReno::in_congestion_avoidance(20.0);
        cc.on_timeout(false, &cfg);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1.0, 20.0));
    }

    /// README's "How to add a congestion control" quotes this file: each function it shows must be here
    /// as written.
    #[test]
    fn the_readme_example_is_this_code() {
        let readme = include_str!("../../../../../README.md");
        let section = readme.split("## How to add a congestion control").nth(1).expect("the section");
        let example = section.split("```rust\n").nth(1).and_then(|b| b.split("   ```").next()).unwrap();
        let source = include_str!("newreno.rs");
        for function in example.split("\n\n") {
            // The README indents the block by 3 (a list item), the file by 4 (an impl).
            let indented: String = function.lines().map(|l| format!(" {l}\n")).collect();
            assert!(source.contains(&indented), "not in newreno.rs:\n{indented}");
        }
    }
}
