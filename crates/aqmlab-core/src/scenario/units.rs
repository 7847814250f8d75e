//! Quantities with units as written in scenarios: durations (`"10ms"` or seconds as a number), rates
//! (`"100Mbps"` or bit/s as a number) and byte sizes (`"16KiB"`, `"1500B"` or bytes as a number).
//! AQM parameters take durations as [`Seconds`].

use crate::sim::{time, Time};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A non-negative duration, stored in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Time);

/// A duration as an AQM parameter, in seconds: a string such as `"5ms"` is read as every other
/// duration (whole nanoseconds), a bare number is kept exactly as written, since ns-2's parameters
/// enter floating-point formulas and must give the same results as before units were accepted. Range
/// checks are left to the discipline's `validate`, which names the field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seconds(pub f64);

/// A link or sending rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Rate(pub u64);

/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Bytes(pub u64);

impl Duration {
    pub fn secs(self) -> f64 {
        time::to_secs(self.0)
    }
    pub fn from_secs(s: f64) -> Self {
        Duration(time::secs(s))
    }
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    // "1e3ms": a trailing 'e' that starts no exponent belongs to the unit; keep it simple: retry shorter.
    let mut cut = end;
    while cut > 0 {
        if let Ok(v) = s[..cut].parse::<f64>() {
            return Some((v, s[cut..].trim()));
        }
        cut -= 1;
    }
    None
}

/// Parses `"10ms"`, `"1.5s"`, `"2min"`, `"250us"`, `"100ns"`; a bare number means seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("a duration like \"10ms\" or \"1.5s\", found {s:?}"))?;
    let scale = match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("a duration unit (ns, us, ms, s, min, h), found {unit:?} in {s:?}")),
    };
    to_duration(v * scale).map_err(|e| format!("{e} (in {s:?})"))
}

/// Longest duration a scenario may give (about 31 years): sums of a few such times still fit the
/// engine's clock (u64 nanoseconds, 584 years), so nothing is clamped.
pub const MAX_DURATION_S: f64 = 1e9;

fn to_duration(secs: f64) -> Result<Duration, String> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("a non-negative duration, found {secs} s"));
    }
    if secs > MAX_DURATION_S {
        return Err(format!("a duration of at most {MAX_DURATION_S:e} s, found {secs:e} s"));
    }
    Ok(Duration::from_secs(secs))
}

fn parse_seconds(s: &str) -> Result<Seconds, String> {
    parse_duration(s).map(|d| Seconds(d.secs()))
}

/// Parses `"100Mbps"`, `"1Gbps"`, `"10Mb/s"`, `"64kbps"`, `"9600bps"`; a bare number means bit/s.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("a rate like \"100Mbps\", found {s:?}"))?;
    let unit = unit.trim_end_matches("/s").trim_end_matches("ps").trim_end_matches("bit");
    let scale = match unit {
        "" | "b" => 1.0,
        "k" | "K" | "kb" | "Kb" => 1e3,
        "M" | "Mb" => 1e6,
        "G" | "Gb" => 1e9,
        _ => return Err(format!("a rate unit (bps, kbps, Mbps, Gbps), found {s:?}")),
    };
    to_rate(v * scale).map_err(|e| format!("{e} (in {s:?})"))
}

/// Fastest rate a scenario may give (10 Tbit/s), so that sending a packet still takes nanoseconds.
pub const MAX_RATE_BPS: f64 = 1e13;

fn to_rate(bps: f64) -> Result<Rate, String> {
    if !bps.is_finite() || bps <= 0.0 {
        return Err(format!("a positive rate, found {bps} bit/s"));
    }
    // Below 1 bit/s the rate would round to 0 and a transmission would never end.
    if bps < 1.0 {
        return Err(format!("a rate of at least 1 bit/s, found {bps} bit/s"));
    }
    if bps > MAX_RATE_BPS {
        return Err(format!("a rate of at most {MAX_RATE_BPS:e} bit/s (10 Tbit/s), found {bps:e} bit/s"));
    }
    Ok(Rate(bps.round() as u64))
}

/// Parses `"1500B"`, `"16KiB"`, `"16KB"` (1000), `"1MB"`; a bare number means bytes.
pub fn parse_bytes(s: &str) -> Result<Bytes, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("a size like \"1500B\" or \"16KiB\", found {s:?}"))?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1048576.0,
        "GB" => 1e9,
        _ => return Err(format!("a size unit (B, KB, KiB, MB, MiB, GB), found {s:?}")),
    };
    let b = v * scale;
    if !b.is_finite() || b < 0.0 {
        return Err(format!("a non-negative size, found {s:?}"));
    }
    Ok(Bytes(b.round() as u64))
}

macro_rules! quantity_serde {
    ($ty:ident, $parse:ident, $from_num:expr, $to_num:expr, $what:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $parse(s).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        $from_num(v).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        $from_num(v as f64).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        $from_num(v as f64).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_f64($to_num(self))
            }
        }
    };
}

quantity_serde!(
    Duration,
    parse_duration,
    to_duration,
    |d: &Duration| d.secs(),
    "a duration such as \"10ms\" or a number of seconds"
);
quantity_serde!(
    Seconds,
    parse_seconds,
    |v: f64| Ok::<Seconds, String>(Seconds(v)),
    |s: &Seconds| s.0,
    "a duration such as \"10ms\" or a number of seconds"
);
quantity_serde!(
    Rate,
    parse_rate,
    to_rate,
    |r: &Rate| r.0 as f64,
    "a rate such as \"100Mbps\" or a number of bit/s"
);
quantity_serde!(
    Bytes,
    parse_bytes,
    |v: f64| parse_bytes(&v.to_string()),
    |b: &Bytes| b.0 as f64,
    "a size such as \"1500B\" or a number of bytes"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for (text, ns) in [("10ms", 10_000_000), ("1.5", 1_500_000_000), ("2min", 120_000_000_000)] {
            assert_eq!(parse_duration(text).unwrap().0, ns, "{text}");
        }
        for bad in ["-1s", "10 parsecs"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        // Beyond the bound a duration would be clamped to the clock's range: refused instead.
        assert!(parse_duration("1e12").unwrap_err().contains("at most 1e9 s"));
    }

    #[test]
    fn aqm_durations_keep_bare_numbers_exactly() {
        let read =
            |v: &str| toml::from_str::<std::collections::HashMap<String, Seconds>>(&format!("t = {v}"));
        assert_eq!(read("\"15ms\"").unwrap()["t"], Seconds(0.015));
        assert_eq!(read("\"100us\"").unwrap()["t"], Seconds(1e-4));
        assert_eq!(read("0.1").unwrap()["t"], Seconds(0.1));
        assert_eq!(read("2").unwrap()["t"], Seconds(2.0));
        // Not a whole number of nanoseconds, yet kept as written; negative numbers are left to validate.
        assert_eq!(read("1.00000000001e-3").unwrap()["t"], Seconds(1.00000000001e-3));
        assert_eq!(read("-1.0").unwrap()["t"], Seconds(-1.0));
        assert!(read("\"-1ms\"").is_err());
        assert!(read("\"5 parsecs\"").unwrap_err().message().contains("a duration unit"));
    }

    #[test]
    fn rates() {
        for (text, bps) in
            [("100Mbps", 100_000_000), ("1Gbps", 1_000_000_000), ("10Mb/s", 10_000_000), ("64kbps", 64_000)]
        {
            assert_eq!(parse_rate(text).unwrap().0, bps, "{text}");
        }
        for (bad, message) in
            [("-5Mbps", ""), ("0", ""), ("0.4", "at least 1 bit/s"), ("1e30", "at most 1e13 bit/s")]
        {
            assert!(parse_rate(bad).unwrap_err().contains(message), "{bad}");
        }
    }

    #[test]
    fn sizes() {
        for (text, bytes) in [("16KiB", 16384), ("1500B", 1500), ("1MB", 1_000_000)] {
            assert_eq!(parse_bytes(text).unwrap().0, bytes, "{text}");
        }
    }
}
