//! Closed-loop web users (`[[web_users]]`, docs/traffic.md#closed-loop-web-users).
//!
//! Each emulated user loops: it requests a page — one top-level object, then the page's embedded
//! objects, up to `parallel` at a time — waits until the whole page has arrived, thinks, and requests the
//! next page. A page's objects travel on TCP connections of their own (HTTP/1.0) or, for a `persistent`
//! share of the pages, on up to `parallel` persistent connections that each carry several objects in
//! sequence (HTTP/1.1). Because a user asks for nothing while its page is in flight, the offered load
//! falls when the network is congested (closed loop), unlike PackMime-HTTP's connection arrivals (open
//! loop).
//!
//! The defaults are SURGE's (Barford and Crovella, "Generating Representative Web Workloads for Network
//! and Server Performance Evaluation", ACM SIGMETRICS 1998, Table 1): think times ("inactive OFF") Pareto
//! with k = 1 s, α = 1.5; objects per page ("embedded references") Pareto with k = 1, α = 2.43, rounded
//! down; response sizes a lognormal body (μ = 9.357, σ = 1.318) with a Pareto tail (k = 133 KB, α = 1.1).
//! Request sizes follow PackMime's request-size marginal (SURGE has none); four parallel connections is
//! Netscape Navigator's default. No page goes over persistent connections unless asked (SURGE's model is
//! HTTP/1.0). Any distribution may instead come from a CDF file (`traffic/empirical.rs`).
//!
//! This module holds the samplers and one user's state machine; the engine (`engine/web.rs`) turns them
//! into connections and events. Times are `f64` seconds here, sizes bytes.

use super::empirical::EmpiricalCdf;
use super::packmime::special::norm_cdf;
use super::packmime::{RequestSizes, ResponseSizes};
use crate::sim::{Rng, Time};
use rand::Rng as _;
use rand_distr::{Distribution, Exp1, StandardNormal};

/// SURGE's response-size body and tail (Barford and Crovella 1998, Table 1).
pub const SURGE_BODY_MU: f64 = 9.357;
pub const SURGE_BODY_SIGMA: f64 = 1.318;
pub const SURGE_TAIL_CUTOFF: f64 = 133_000.0;
pub const SURGE_TAIL_SHAPE: f64 = 1.1;
/// SURGE's inactive OFF time (think time), seconds.
pub const SURGE_THINK_SCALE: f64 = 1.0;
pub const SURGE_THINK_SHAPE: f64 = 1.5;
/// SURGE's embedded references per page.
pub const SURGE_OBJECTS_SCALE: f64 = 1.0;
pub const SURGE_OBJECTS_SHAPE: f64 = 2.43;
/// Parallel connections for a page's embedded objects.
pub const DEFAULT_PARALLEL: u32 = 4;
/// Share of pages fetched over persistent connections: SURGE's model is HTTP/1.0 (docs/traffic.md).
pub const DEFAULT_PERSISTENT: f64 = 0.0;

/// A distribution of a positive quantity (seconds, bytes or a count).
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Constant(f64),
    Exponential {
        mean: f64,
    },
    /// P(X > x) = (scale / x)^shape for x ≥ scale.
    Pareto {
        scale: f64,
        shape: f64,
    },
    /// ln X ~ N(mu, sigma²).
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// P(X > x) = exp(−(x / scale)^shape).
    Weibull {
        scale: f64,
        shape: f64,
    },
    /// Lognormal(mu, sigma) below `cutoff`, and above it a Pareto tail (scale `cutoff`, `shape`) holding
    /// the lognormal's mass above `cutoff`, so the CDF is continuous (SURGE's hybrid file sizes).
    LognormalPareto {
        mu: f64,
        sigma: f64,
        cutoff: f64,
        shape: f64,
    },
    /// Read from a CDF file, sampled by inverse CDF.
    Empirical(EmpiricalCdf),
}

impl Dist {
    /// SURGE's response sizes.
    pub fn surge_sizes() -> Self {
        Dist::LognormalPareto {
            mu: SURGE_BODY_MU,
            sigma: SURGE_BODY_SIGMA,
            cutoff: SURGE_TAIL_CUTOFF,
            shape: SURGE_TAIL_SHAPE,
        }
    }

    /// One draw.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        // (0, 1]: never ln 0 or a division by 0.
        let unit = |rng: &mut Rng| 1.0 - rng.gen::<f64>();
        match *self {
            Dist::Constant(v) => v,
            Dist::Empirical(ref cdf) => cdf.quantile(rng.gen()),
            Dist::Exponential { mean } => {
                let e: f64 = Exp1.sample(rng);
                mean * e
            }
            Dist::Pareto { scale, shape } => scale / unit(rng).powf(1.0 / shape),
            Dist::Lognormal { mu, sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                (mu + sigma * z).exp()
            }
            Dist::Weibull { scale, shape } => scale * (-unit(rng).ln()).powf(1.0 / shape),
            Dist::LognormalPareto { mu, sigma, cutoff, shape } => {
                let body = norm_cdf((cutoff.ln() - mu) / sigma);
                if rng.gen::<f64>() < body {
                    // The lognormal conditioned on X ≤ cutoff, by rejection (body ≥ ½ is checked when
                    // the scenario is built, so this takes fewer than two draws on average).
                    loop {
                        let z: f64 = StandardNormal.sample(rng);
                        let x = (mu + sigma * z).exp();
                        if x <= cutoff {
                            return x;
                        }
                    }
                }
                cutoff / unit(rng).powf(1.0 / shape)
            }
        }
    }

    /// The mean, where finite.
    pub fn mean(&self) -> Option<f64> {
        match *self {
            Dist::Constant(v) => Some(v),
            Dist::Empirical(ref cdf) => Some(cdf.mean()),
            Dist::Exponential { mean } => Some(mean),
            Dist::Pareto { scale, shape } => (shape > 1.0).then(|| shape * scale / (shape - 1.0)),
            Dist::Lognormal { mu, sigma } => Some((mu + sigma * sigma / 2.0).exp()),
            Dist::Weibull { scale, shape } => {
                Some(scale * super::packmime::special::gamma(1.0 + 1.0 / shape))
            }
            Dist::LognormalPareto { shape, .. } if shape <= 1.0 => None,
            Dist::LognormalPareto { mu, sigma, cutoff, shape } => {
                // E[X; X ≤ c] for the lognormal is e^{μ+σ²/2} Φ((ln c − μ − σ²)/σ).
                let z = (cutoff.ln() - mu) / sigma;
                let body = (mu + sigma * sigma / 2.0).exp() * norm_cdf(z - sigma);
                Some(body + (1.0 - norm_cdf(z)) * shape * cutoff / (shape - 1.0))
            }
        }
    }
}

/// Where sizes come from: a distribution, or PackMime-HTTP's samplers (docs/traffic.md#response-sizes,
/// #request-sizes), with i.i.d. drivers.
#[derive(Clone, Debug)]
pub enum SizeModel {
    Dist(Dist),
    PackmimeResponse(Box<ResponseSizes>),
    PackmimeRequest(Box<RequestSizes>),
}

impl SizeModel {
    /// A size in bytes (≥ 1).
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        match self {
            SizeModel::Dist(d) => bytes(d.sample(rng)),
            SizeModel::PackmimeResponse(r) => r.next(rng),
            SizeModel::PackmimeRequest(r) => r.next(rng),
        }
    }
}

/// Whole bytes, at least one (as PackMime: an empty message is sent as one byte).
pub fn bytes(v: f64) -> u64 {
    if v >= u64::MAX as f64 / 4.0 {
        u64::MAX / 4
    } else {
        (v as u64).max(1)
    }
}

/// A count (objects on a page, pages from one server): a draw rounded down, at least 1.
pub fn count(d: &Dist, rng: &mut Rng) -> u32 {
    let x = d.sample(rng);
    if x >= u32::MAX as f64 {
        u32::MAX
    } else {
        (x as u32).max(1)
    }
}

/// What a user is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Thinking until this time (the first "think" staggers the users' starts).
    Thinking(Time),
    /// Fetching a page.
    Page,
    /// The generator's `stop` time has passed: no more pages.
    Stopped,
}

/// One emulated user.
#[derive(Clone, Debug)]
pub struct User {
    /// Index of the user's generator.
    pub generator: u32,
    /// Number of the user within its generator (page records carry it).
    pub number: u32,
    /// The user's client node, as an index into its generator's client list.
    pub client: u32,
    /// The server of the current page, as an index into the server list.
    pub server: u32,
    /// Further pages to request from `server` before choosing a server afresh.
    pub pages_left_on_server: u64,
    pub phase: Phase,
    /// Pages this user has started.
    pub pages: u32,
    /// The current page's objects go over persistent connections.
    pub persistent: bool,
    pub page_start: Time,
    /// Objects on the current page (top-level one included), requested so far, completed so far, and
    /// requested but not completed.
    pub objects: u32,
    pub requested: u32,
    pub completed: u32,
    pub active: u32,
    pub request_bytes: u64,
    pub response_bytes: u64,
}

impl User {
    pub fn new(generator: u32, number: u32, client: u32, first_page_at: Time) -> Self {
        User {
            generator,
            number,
            client,
            server: 0,
            pages_left_on_server: 0,
            phase: Phase::Thinking(first_page_at),
            pages: 0,
            persistent: false,
            page_start: 0,
            objects: 0,
            requested: 0,
            completed: 0,
            active: 0,
            request_bytes: 0,
            response_bytes: 0,
        }
    }

    /// Starts a page of `objects` objects from `server`.
    pub fn begin_page(&mut self, now: Time, objects: u32, server: u32, persistent: bool) {
        self.phase = Phase::Page;
        self.server = server;
        self.persistent = persistent;
        self.pages += 1;
        self.page_start = now;
        self.objects = objects.max(1);
        self.requested = 0;
        self.completed = 0;
        self.active = 0;
        self.request_bytes = 0;
        self.response_bytes = 0;
    }

    /// The connections to open now with at most `parallel` per page, each as the number of objects it
    /// carries. The top-level object goes alone; once it has arrived (and the browser knows what the page
    /// embeds) come the embedded ones. HTTP/1.0: one connection per object, a new one as soon as one in
    /// flight has arrived. Persistent: embedded object i goes on connection i mod `parallel`, and
    /// connection 0 is the top-level object's, kept open.
    pub fn connections_to_open(&self, parallel: u32) -> impl Iterator<Item = u32> {
        let embedded = self.objects.saturating_sub(1);
        let spread = parallel.min(embedded).max(1);
        let dealt = move |c: u32| (embedded + spread - 1 - c) / spread;
        let persistent = self.persistent;
        let range = match self.phase {
            Phase::Page if !persistent => {
                let known = if self.completed == 0 { 1 } else { self.objects };
                0..(known - self.requested).min(parallel.saturating_sub(self.active))
            }
            Phase::Page if self.requested == 0 => 0..1,
            Phase::Page if self.completed > 0 && self.requested < self.objects => 1..spread,
            _ => 0..0,
        };
        range.map(move |c| if persistent { (c == 0) as u32 + dealt(c) } else { 1 })
    }

    /// A connection carrying `objects` objects opens.
    pub fn requesting(&mut self, objects: u32) {
        self.requested += objects;
        self.active += objects;
    }

    /// An object's response has arrived completely.
    pub fn object_done(&mut self, request: u64, response: u64) {
        self.active -= 1;
        self.completed += 1;
        self.request_bytes += request;
        self.response_bytes += response;
    }

    /// Every object of the current page has arrived.
    pub fn page_complete(&self) -> bool {
        self.phase == Phase::Page && self.completed == self.objects
    }
}

#[cfg(test)]
mod tests {
    use super::User;

    /// The objects on each connection the user opens now, as it would open them.
    fn open(user: &mut User, parallel: u32) -> Vec<u32> {
        let conns: Vec<u32> = user.connections_to_open(parallel).collect();
        for &objects in &conns {
            user.requesting(objects);
        }
        conns
    }

    #[test]
    fn connections_carry_one_object_or_a_share_of_the_page() {
        // HTTP/1.0, 6 objects, 4 at a time: the top-level one, then 4, then one more as one arrives.
        let mut u = User::new(0, 0, 0, 0);
        u.begin_page(0, 6, 0, false);
        assert_eq!(open(&mut u, 4), [1]);
        u.object_done(1, 1);
        assert_eq!(open(&mut u, 4), [1, 1, 1, 1]);
        u.object_done(1, 1);
        assert_eq!(open(&mut u, 4), [1]);
        // Persistent, 6 objects, 2 connections: the top-level one with embedded 0, 2, 4; then 1 and 3.
        u.begin_page(0, 6, 0, true);
        assert_eq!(open(&mut u, 2), [4]);
        assert!(open(&mut u, 2).is_empty(), "the others wait for the top-level object");
        u.object_done(1, 1);
        assert_eq!(open(&mut u, 2), [2]);
        assert!(open(&mut u, 2).is_empty());
        // Fewer embedded objects than connections: one each; a lone object: one connection.
        u.begin_page(0, 3, 0, true);
        assert_eq!(open(&mut u, 4), [2]);
        u.object_done(1, 1);
        assert_eq!(open(&mut u, 4), [1]);
        u.begin_page(0, 1, 0, true);
        assert_eq!(open(&mut u, 4), [1]);
    }
}
