//! Files on a persistent connection (`tcp_files`, study C's "HTTP-like" traffic): files start at
//! Poisson times, with Pareto sizes of the given mean and shape; a file arriving while the previous one
//! is still being sent queues behind it.

use super::app::{AppCtx, AppModel, Application};
use crate::scenario::build::{GroupCx, Traffic};
use crate::scenario::flow_group::{flow_group, GroupKind};
use crate::scenario::units::Bytes;
use crate::scenario::ScenarioError;
use crate::sim::{time, Rng, Time};
use rand_distr::{Distribution, Exp1};
use std::collections::VecDeque;
use std::sync::Arc;

flow_group! {
    /// A `tcp_files` group.
    pub struct FilesGroup {
        /// TCP options overriding the top-level `[tcp]` table.
        pub tcp: Option<toml::Table>,
        /// Files per second (required).
        pub file_rate: Option<f64>,
        /// Mean file size, default 50 kB.
        pub file_mean: Option<Bytes>,
        /// Pareto shape of file sizes, default 1.3.
        pub file_shape: Option<f64>,
    }
}

impl GroupKind for FilesGroup {
    fn traffic(&self, cx: &mut GroupCx) -> Result<Traffic, ScenarioError> {
        let rate = (self.file_rate.filter(|r| r.is_finite() && *r > 0.0))
            .ok_or_else(|| cx.err("file_rate", "a positive number of files per second"))?;
        let shape = self.file_shape.unwrap_or(1.3);
        if !(shape > 1.0 && shape.is_finite()) {
            return Err(cx.err("file_shape", "a Pareto shape above 1 (finite mean)"));
        }
        let mean = self.file_mean.map(|b| b.0).unwrap_or(50_000);
        if mean == 0 {
            return Err(cx.err("file_mean", "a positive mean file size"));
        }
        let app = Arc::new(FilesModel { rate, mean: mean as f64, shape });
        Ok(Traffic::Tcp { tcp: cx.tcp(&self.tcp)?, app })
    }
}

/// The files of every flow of a group: files per second, mean size (bytes) and Pareto shape.
#[derive(Clone, Debug)]
pub struct FilesModel {
    pub rate: f64,
    pub mean: f64,
    pub shape: f64,
}

impl AppModel for FilesModel {
    fn open(&self, stream: &dyn Fn(&str) -> Rng) -> Box<dyn Application> {
        Box::new(Files::new(self.rate, self.mean, self.shape, stream("files")))
    }
}

#[derive(Clone, Debug)]
pub struct Files {
    /// Mean gap between file starts.
    mean_gap: Time,
    /// Pareto scale x_m and shape α.
    scale: f64,
    shape: f64,
    written: u64,
    /// (cumulative end offset, start time, size) of files not yet fully delivered.
    pending: VecDeque<(u64, Time, u64)>,
    delivered: u64,
    completed: u32,
    rng: Rng,
}

impl Files {
    pub fn new(rate_per_s: f64, mean_bytes: f64, shape: f64, rng: Rng) -> Self {
        Files {
            mean_gap: time::secs(1.0 / rate_per_s),
            scale: mean_bytes * (shape - 1.0) / shape,
            shape,
            written: 0,
            pending: VecDeque::new(),
            delivered: 0,
            completed: 0,
            rng,
        }
    }

    fn next_gap(&mut self) -> Time {
        let e: f64 = Exp1.sample(&mut self.rng);
        ((e * self.mean_gap as f64).round() as Time).max(1)
    }

    fn size(&mut self) -> u64 {
        use rand::Rng as _;
        let u: f64 = 1.0 - self.rng.gen::<f64>(); // (0, 1]
        (self.scale / u.powf(1.0 / self.shape)).round().max(1.0) as u64
    }
}

impl Application for Files {
    fn start(&mut self, cx: &mut AppCtx) {
        // The first file starts after one Poisson gap, like every later one.
        cx.timer = Some(cx.now + self.next_gap());
    }

    fn delivered(&mut self, side: usize, bytes: u64, cx: &mut AppCtx) {
        if side != 1 {
            return;
        }
        self.delivered += bytes;
        while let Some(&(end, start, size)) = self.pending.front() {
            if self.delivered < end {
                break;
            }
            self.pending.pop_front();
            self.completed += 1;
            cx.record(self.completed, start, 0, size);
        }
    }

    fn timer(&mut self, cx: &mut AppCtx) {
        let size = self.size();
        self.written += size;
        self.pending.push_back((self.written, cx.now, size));
        cx.writes.push((0, size));
        cx.timer = Some(cx.now + self.next_gap());
    }

    fn outstanding_since(&self, since: Time) -> u64 {
        self.pending.iter().filter(|p| p.1 >= since).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;

    /// Each file is written when its timer fires and recorded once its last byte has arrived.
    #[test]
    fn files_are_recorded_when_their_last_byte_arrives() {
        let mut files = Files::new(10.0, 50_000.0, 1.3, rng::from_seed(1));
        let mut cx = AppCtx::default();
        files.start(&mut cx);
        let first = cx.timer.expect("the first file's start");
        let mut sizes = Vec::new();
        for now in [first, first + 1] {
            cx.reset(now, 3, 7);
            files.timer(&mut cx);
            sizes.push(cx.writes[0].1);
        }
        assert_eq!(files.outstanding_since(first), 2);
        assert_eq!(files.outstanding_since(first + 1), 1, "started before `since`: not counted");
        cx.reset(first + 10, 3, 7);
        files.delivered(1, sizes[0] - 1, &mut cx);
        assert!(cx.records.is_empty(), "one byte of the first file is missing");
        files.delivered(1, 1 + sizes[1], &mut cx);
        let got: Vec<(u32, Time, u64)> =
            cx.records.iter().map(|r| (r.index, r.start, r.response_bytes)).collect();
        assert_eq!(got, [(1, first, sizes[0]), (2, first + 1, sizes[1])]);
        assert!(cx.records.iter().all(|r| (r.class, r.connection, r.end) == (3, 7, first + 10)));
        assert_eq!(files.outstanding_since(0), 0);
    }
}
