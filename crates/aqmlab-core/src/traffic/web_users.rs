//! Closed-loop web users (`[[web_users]]`, docs/traffic.md#closed-loop-web-users).
//!
//! Each emulated user loops: it requests a page — one top-level object, then the page's embedded
//! objects, up to `parallel` at a time — waits until the whole page has arrived, thinks, and requests the
//! next page. Every object travels on a TCP connection of its own (HTTP/1.0). Because a user asks for
//! nothing while its page is in flight, the offered load falls when the network is congested (closed
//! loop), unlike PackMime-HTTP's connection arrivals (open loop).
//!
//! The defaults are SURGE's (Barford and Crovella, "Generating Representative Web Workloads for Network
//! and Server Performance Evaluation", ACM SIGMETRICS 1998, Table 1): think times ("inactive OFF") Pareto
//! with k = 1 s, α = 1.5; objects per page ("embedded references") Pareto with k = 1, α = 2.43, rounded
//! down; response sizes a lognormal body (μ = 9.357, σ = 1.318) with a Pareto tail (k = 133 KB, α = 1.1).
//! Request sizes follow PackMime's request-size marginal (SURGE has none); four parallel connections is
//! Netscape Navigator's default.
//!
//! This module holds the samplers and one user's state machine; the engine (`engine/web.rs`) turns them
//! into connections and events. Times are `f64` seconds here, sizes bytes.

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
    pub fn begin_page(&mut self, now: Time, objects: u32, server: u32) {
        self.phase = Phase::Page;
        self.server = server;
        self.pages += 1;
        self.page_start = now;
        self.objects = objects.max(1);
        self.requested = 0;
        self.completed = 0;
        self.active = 0;
        self.request_bytes = 0;
        self.response_bytes = 0;
    }

    /// How many objects to request now with at most `parallel` in flight: the top-level object alone,
    /// then (once it has arrived and the browser knows what the page embeds) the embedded ones.
    pub fn to_request(&self, parallel: u32) -> u32 {
        if self.phase != Phase::Page {
            return 0;
        }
        let known = if self.completed == 0 { 1 } else { self.objects };
        (known - self.requested).min(parallel.saturating_sub(self.active))
    }

    pub fn requesting(&mut self) {
        self.requested += 1;
        self.active += 1;
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
