//! PackMime-HTTP: the web-traffic model of Cao, Cleveland, Gao, Jeffay, Smith and Weigle, "Stochastic
//! Models for Generating Synthetic HTTP Source Traffic" (IEEE INFOCOM 2004), as ns-2.35 implements it in
//! `packmime/packmime_ranvar.cc` and `packmime_HTTP.cc` (docs/traffic.md).
//!
//! PackMime describes a cloud of web clients and servers by one parameter, the rate of new TCP
//! connections per second. Everything else — gaps between connection starts, request and response sizes,
//! persistent connections with pages and embedded objects, the gaps between their requests, the server's
//! delay and the per-flow RTTs added by DelayBoxes — comes from statistical models fitted to traces of
//! the UNC access link, most of them rate-dependent. Several quantities are long-range dependent: their
//! quantile is driven by a FARIMA-based Gaussian series ([`lrd`]).
//!
//! This module is the generative model only (no networking); the engine turns its draws into TCP
//! connections. Units: times are `f64` seconds, sizes `u64` bytes. Every draw comes from the `&mut Rng`
//! passed in, so results are deterministic given the generator.
//!
//! Reproduced as in ns-2: the Weibull gap marginal and its rate-dependent parameters; Hosking's FARIMA
//! recursion with ns-2's truncation (N = 1000, or 5000 for requests), burn-in and "new model" variance
//! split; the inverse-CDF tables and their linear extrapolation; the response run-state machine and its
//! persistence across connections; the HTTP/1.1 page/object structure, one request size per connection,
//! the persistent-response model above 275 B, and the within/between-page gaps; the server delay; the
//! DelayBox RTT model returning half of `v`.
//!
//! Deliberate differences:
//! - ns-2 uses one RngStream per random variable; here the caller chooses the generator(s), so results
//!   match ns-2 in distribution, not draw for draw.
//! - `1 − Φ(y)` is computed directly from the upper tail rather than as `1 − p` (same value, no
//!   cancellation, never `log 0`); sizes are `u64` (ns-2's `int` overflows for the astronomically rare
//!   extrapolated sizes beyond 2^31 bytes).
//! - The LRD series can be switched off (`lrd = false`: i.i.d. N(0, 1) drivers, identical marginals) — an
//!   allowed simplification, and what the KS tests use.
//! - Think-time parameters are drawn per persistent connection, as ns-2's source does
//!   ([`ThinkTimeScope::PerConnection`]); [`ThinkTimeScope::PerRun`] gives the once-per-run reading of
//!   docs/traffic.md#persistent-connections.

pub mod lrd;
mod model;
pub(crate) mod special;
pub mod tables;
#[cfg(test)]
mod tests;

pub use model::{
    ConnectionPlanner, FlowArrivals, HttpVersion, Pair, RequestSizes, ResponseSizes, RttModel, RttSide,
    RunState, ServerDelay, ThinkTimeParams, ThinkTimeScope,
};
