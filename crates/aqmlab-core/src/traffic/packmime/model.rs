//! The PackMime-HTTP samplers (ns-2 `packmime_ranvar.cc` and the parts of `packmime_HTTP.cc` that
//! assemble a connection). Times are `f64` seconds, sizes `u64` bytes.

use super::lrd::{Driver, LrdParams};
use super::special::{gamma, logitinv, norm_cdf, norm_sf};
use super::tables::{InvCdf, FSIZE0_A, FSIZE0_B, FSIZE1_A, FSIZE1_B, LONG_RTT, SHORT_RTT};
use crate::sim::rng::Rng;
use rand::Rng as _;
use rand_distr::{Distribution, Gamma, Normal, StandardNormal, Weibull};

/// ns-2 truncates sizes to whole bytes (`(int)`) and sends an empty message as one byte.
fn bytes(v: f64) -> u64 {
    (v as u64).max(1)
}

fn weibull(shape: f64, scale: f64) -> Weibull<f64> {
    Weibull::new(scale, shape).expect("positive Weibull parameters")
}

/// Gaps between connection starts (ns-2 `PackMimeHTTPFlowArrive::value`).
///
/// Marginal Weibull with `shape = logitinv(0.352 + 0.388·log2 rate)` and `scale = 1/(rate·Γ(1 + 1/shape))`,
/// so the mean gap is exactly `1/rate`; the quantile is driven by the LRD series (d = 0.33, N = 1000,
/// `varRatio = logitinv(0.333 + 0.414·log2 rate)`).
#[derive(Debug, Clone)]
pub struct FlowArrivals {
    shape: f64,
    scale: f64,
    driver: Driver,
}

impl FlowArrivals {
    /// `rate` in new connections per second. `lrd = true` is ns-2; `false` draws i.i.d. gaps with the same
    /// marginal (an allowed simplification, docs/traffic.md#connection-arrivals). With LRD the constructor
    /// runs the FARIMA burn-in on `rng`.
    pub fn new(rate: f64, lrd: bool, rng: &mut Rng) -> Self {
        assert!(rate > 0.0, "PackMime rate must be positive");
        let shape = logitinv(0.352 + 0.388 * rate.log2());
        let scale = 1.0 / (rate * gamma(1.0 + 1.0 / shape));
        let params = LrdParams::for_rate(0.33, 1000, 0.333, 0.414, rate);
        FlowArrivals { shape, scale, driver: Driver::new(params, lrd, rng) }
    }

    /// Weibull shape of the marginal.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// Weibull scale of the marginal, in seconds.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Seconds from this connection start to the next.
    pub fn next_gap(&mut self, rng: &mut Rng) -> f64 {
        let q = norm_sf(self.driver.next(rng)); // 1 − p
        self.scale * (-q.ln()).powf(1.0 / self.shape)
    }
}

/// The run a response belongs to (ns-2 `state_` of the response-size variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// State 0: tiny responses (cache validations), table T3.
    CacheValidation,
    /// State 1: downloads, table T4.
    Download,
}

/// Server response sizes, "fsize0" (ns-2 `PackMimeHTTPFileSize` type 1).
///
/// Responses come in runs of cache validations and downloads; a run's length is
/// `ceil(Weibull(shape_s, scale_s))` with `shape_0 = logitinv(0.718 + 0.357·log2 rate)`, `scale_0 = 0.775`,
/// `shape_1 = logitinv(1.293 + 0.316·log2 rate)`, `scale_1 = 3.11`. Within a state sizes are i.i.d.
/// (no LRD). The run state lives in this one object, so runs span successive connections.
#[derive(Debug, Clone)]
pub struct ResponseSizes {
    run_length: [Weibull<f64>; 2],
    state: RunState,
    remaining: i64,
}

impl ResponseSizes {
    /// `rate` in new connections per second. Starts as ns-2 does: state 0 with an exhausted run, so the
    /// first response opens a download run.
    pub fn new(rate: f64) -> Self {
        let lr = rate.log2();
        ResponseSizes {
            run_length: [
                weibull(logitinv(0.718 + 0.357 * lr), 0.775),
                weibull(logitinv(1.293 + 0.316 * lr), 3.11),
            ],
            state: RunState::CacheValidation,
            remaining: 0,
        }
    }

    /// The state the most recent response was drawn in.
    pub fn state(&self) -> RunState {
        self.state
    }

    /// The next response size in bytes (≥ 1).
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        if self.remaining <= 0 {
            self.state = match self.state {
                RunState::CacheValidation => RunState::Download,
                RunState::Download => RunState::CacheValidation,
            };
            let w = self.run_length[self.state as usize].sample(rng);
            self.remaining = w.ceil() as i64;
        }
        self.remaining -= 1;
        let p: f64 = rng.gen();
        bytes(match self.state {
            RunState::CacheValidation => FSIZE0_A.eval(p),
            RunState::Download => FSIZE0_B.eval((1.0 - p).log2()).exp2(),
        })
    }
}

/// Client request sizes, "fsize1" (ns-2 `PackMimeHTTPFileSize` type 0).
///
/// `p = Φ(y_t)` with the LRD series (d = 0.31, N = 5000, `varRatio = logitinv(0.123 + 0.494·log2 rate)`);
/// `p ≤ 0.5` → `T5(p/0.5)` bytes, else `2^T6(log2(1 − (p − 0.5)/0.5))` bytes.
#[derive(Debug, Clone)]
pub struct RequestSizes {
    driver: Driver,
}

impl RequestSizes {
    /// `rate` in new connections per second; `lrd = true` is ns-2 (burn-in of 5001 values on `rng`).
    pub fn new(rate: f64, lrd: bool, rng: &mut Rng) -> Self {
        let params = LrdParams::for_rate(0.31, 5000, 0.123, 0.494, rate);
        RequestSizes { driver: Driver::new(params, lrd, rng) }
    }

    /// The next request size in bytes (≥ 1).
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        let y = self.driver.next(rng);
        let p = norm_cdf(y);
        bytes(if p <= 0.5 {
            FSIZE1_A.eval(p / 0.5)
        } else {
            // 1 − (p − 0.5)/0.5 = 2·(1 − p), taken from the upper tail directly.
            FSIZE1_B.eval((2.0 * norm_sf(y)).log2()).exp2()
        })
    }
}

/// Server think time before each response (ns-2 `PackMimeHTTP::get_server_delay`):
/// `1 / max(Weibull(shape 0.63, scale 305), 10)` seconds, so at most 0.1 s.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerDelay;

impl ServerDelay {
    /// Seconds between the complete arrival of a request and the sending of its response.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        1.0 / weibull(0.63, 305.0).sample(rng).max(10.0)
    }
}

/// Which DelayBox an RTT variable serves (ns-2 `PackMimeHTTPXmit` `type_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSide {
    /// Type 0: client-side DelayBox, table T1, exponent 5, d = 0.31,
    /// `varRatio = logitinv(−0.445 + 0.554·log2 rate)`.
    Client,
    /// Type 1: server-side DelayBox, table T2, exponent 3, d = 0.32,
    /// `varRatio = logitinv(−0.053 + 0.396·log2 rate)`.
    Server,
}

/// Per-flow base delay for a DelayBox (ns-2 `PackMimeHTTPXmit`, docs/traffic.md#rtt-model).
///
/// `p = Φ(y_t)`, `v = T(−log10(1 − p))^exponent` milliseconds; the value returned is `v/2` (ns-2 halves it
/// because the DelayBox applies it to both directions of the flow), converted to seconds.
#[derive(Debug, Clone)]
pub struct RttModel {
    table: InvCdf,
    exponent: i32,
    driver: Driver,
}

impl RttModel {
    /// `rate` in new connections per second; `lrd = true` is ns-2 (N = 1000 burn-in on `rng`).
    pub fn new(rate: f64, side: RttSide, lrd: bool, rng: &mut Rng) -> Self {
        let (params, table, exponent) = match side {
            RttSide::Client => (LrdParams::for_rate(0.31, 1000, -0.445, 0.554, rate), SHORT_RTT, 5),
            RttSide::Server => (LrdParams::for_rate(0.32, 1000, -0.053, 0.396, rate), LONG_RTT, 3),
        };
        RttModel { table, exponent, driver: Driver::new(params, lrd, rng) }
    }

    /// The DelayBox delay for a new flow, in seconds: half of the sampled `v`.
    pub fn next_delay(&mut self, rng: &mut Rng) -> f64 {
        let x = -norm_sf(self.driver.next(rng)).log10();
        let v_ms = self.table.eval(x).powi(self.exponent);
        v_ms / 2.0 / 1000.0
    }
}

/// HTTP version of a PackMime cloud.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpVersion {
    /// ns-2 default: one request/response pair per connection.
    Http10,
    /// `set-http-1.1`: persistent connections with pages and embedded objects.
    Http11,
}

/// Location and squared scale of the log2 gaps inside a persistent connection (ns-2 `loc_b`, `scale2_b`,
/// `loc_w`, `scale2_w` in `PackMimeHTTPFlowArrive::value_array`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThinkTimeParams {
    /// Location of log2(gap) before the first object of a new page: N(3.22, var 0.73).
    pub loc_between: f64,
    /// Squared scale for between-page gaps: Gamma(1.85, scale 1/1.85).
    pub s2_between: f64,
    /// Location of log2(gap) between objects of one page: N(−4.15, var 3.12).
    pub loc_within: f64,
    /// Squared scale for within-page gaps: Gamma(2.35, scale 1/2.35).
    pub s2_within: f64,
}

const V_ERROR_BETWEEN: f64 = 1.21;
const V_ERROR_WITHIN: f64 = 1.57;

impl ThinkTimeParams {
    /// Draws the four parameters (in ns-2's order: within-page, then between-page).
    pub fn draw(rng: &mut Rng) -> Self {
        let normal = |m: f64, v: f64| Normal::new(m, v.sqrt()).expect("finite normal");
        let gamma = |k: f64| Gamma::new(k, 1.0 / k).expect("positive gamma");
        let loc_within = normal(-4.15, 3.12).sample(rng);
        let s2_within = gamma(2.35).sample(rng);
        let loc_between = normal(3.22, 0.73).sample(rng);
        let s2_between = gamma(1.85).sample(rng);
        ThinkTimeParams { loc_between, s2_between, loc_within, s2_within }
    }

    /// A gap in seconds: `2^(loc + √s2·√V_ERROR·Z)`.
    pub fn gap(&self, new_page: bool, rng: &mut Rng) -> f64 {
        let (loc, s2, v) = if new_page {
            (self.loc_between, self.s2_between, V_ERROR_BETWEEN)
        } else {
            (self.loc_within, self.s2_within, V_ERROR_WITHIN)
        };
        let z: f64 = rng.sample(StandardNormal);
        (loc + s2.sqrt() * z * v.sqrt()).exp2()
    }
}

/// How often the think-time parameters are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ThinkTimeScope {
    /// Afresh for every persistent connection: what ns-2's source does (`value_array` draws them into
    /// locals on each call, once per connection).
    PerConnection,
    /// One set for the whole run (the once-per-run reading of docs/traffic.md#persistent-connections; also
    /// useful to pin them in tests).
    PerRun(ThinkTimeParams),
}

/// One request/response exchange of a connection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// Request bytes (≥ 1).
    pub request: u64,
    /// Response bytes (≥ 1).
    pub response: u64,
    /// Seconds the client waits, after the previous response has arrived completely, before sending this
    /// request (0 for the first request of a connection).
    pub gap: f64,
}

const P_PERSISTENT: f64 = 0.09;
const P_1PAGE: f64 = 0.82;
const SCALE_NPAGE: f64 = 0.417;
const P_1TRANSFER: f64 = 0.69;
const SCALE_NTRANSFER: f64 = 1.578;
const FSIZE0_CACHE_CUTOFF: u64 = 275;

/// Assembles connections: persistence, pages, objects, gaps and sizes
/// (docs/traffic.md#persistent-connections).
#[derive(Debug, Clone)]
pub struct ConnectionPlanner {
    version: HttpVersion,
    think: ThinkTimeScope,
    requests: RequestSizes,
    responses: ResponseSizes,
}

impl ConnectionPlanner {
    /// A planner drawing sizes from `requests` and `responses` (both stateful, shared by all connections
    /// of the cloud, as in ns-2).
    pub fn new(
        version: HttpVersion,
        think: ThinkTimeScope,
        requests: RequestSizes,
        responses: ResponseSizes,
    ) -> Self {
        ConnectionPlanner { version, think, requests, responses }
    }

    /// Objects per page of the next connection; `[1]` for a non-persistent one (ns-2 `value_array` and
    /// `Template`).
    fn pages(rng: &mut Rng) -> Vec<u32> {
        if !rng.gen_bool(P_PERSISTENT) {
            return vec![1];
        }
        // ceil(1 + Exp) ≥ 2, as ns-2's `(int) ceil(W) + 1`, bumped to 2 if W == 0.
        let many = |scale: f64, rng: &mut Rng| (weibull(1.0, scale).sample(rng).ceil() as u32 + 1).max(2);
        let pages = if rng.gen_bool(P_1PAGE) { 1 } else { many(SCALE_NPAGE, rng) };
        (0..pages)
            .map(|_| if pages > 1 && rng.gen_bool(P_1TRANSFER) { 1 } else { many(SCALE_NTRANSFER, rng) })
            .collect()
    }

    /// The request/response pairs of the next connection, in order.
    pub fn plan(&mut self, rng: &mut Rng) -> Vec<Pair> {
        let objects = match self.version {
            HttpVersion::Http10 => vec![1],
            HttpVersion::Http11 => Self::pages(rng),
        };
        let total: usize = objects.iter().map(|&o| o as usize).sum();
        let mut gaps = Vec::with_capacity(total);
        if total > 1 {
            let think = match self.think {
                ThinkTimeScope::PerConnection => ThinkTimeParams::draw(rng),
                ThinkTimeScope::PerRun(p) => p,
            };
            for (page, &n) in objects.iter().enumerate() {
                for obj in 0..n {
                    gaps.push(if page == 0 && obj == 0 { 0.0 } else { think.gap(obj == 0, rng) });
                }
            }
        } else {
            gaps.push(0.0);
        }
        let request = self.requests.next(rng);
        let first = self.responses.next(rng);
        let mut responses = vec![first; total];
        if total > 1 && first > FSIZE0_CACHE_CUTOFF {
            let loc = Normal::new(10.62, 0.94f64.sqrt()).expect("finite normal").sample(rng);
            let s2: f64 = Gamma::new(3.22, 1.0 / 3.22).expect("positive gamma").sample(rng);
            for r in &mut responses[1..] {
                let z: f64 = rng.sample(StandardNormal);
                *r = bytes((loc + s2.sqrt() * z * 2.43f64.sqrt()).exp2());
            }
        }
        gaps.into_iter().zip(responses).map(|(gap, response)| Pair { request, response, gap }).collect()
    }
}
