//! A `[[flows]]` group: where and when its flows run (the fields every group has), and its kind's
//! traffic. Each kind is a struct of its own, declared with [`flow_group!`] in its traffic model's file
//! (`traffic/bulk.rs`, ...), and one line of [`flow_groups!`] below, so that a field of another kind
//! (`file_rate` on a `tcp_bulk` group) is an unknown field, named with its path.

use super::build::{GroupCx, Traffic};
use super::tagged::{self, Tagged};
use super::units::Duration;
use super::{NodeSel, ScenarioError};
use crate::traffic::{bulk, files, udp};
use serde::de::{self, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Where and when a group's flows run: the fields every kind of group has.
#[derive(Clone, Debug)]
pub struct GroupCommon {
    pub name: String,
    pub count: Option<u32>,
    pub between: Option<String>,
    pub reverse: bool,
    pub src: Option<NodeSel>,
    pub dst: Option<NodeSel>,
    pub pairing: Pairing,
    pub start: StartSpec,
    pub class: Option<String>,
}

/// Declares the table of one kind of flow group: the fields of [`GroupCommon`], then the kind's own.
/// A macro rather than a flattened struct: serde's `flatten` reads the fields whole, so an error would
/// not name its field, and it cannot refuse unknown fields with the list of the known ones.
macro_rules! flow_group {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(<const $param:ident: bool>)? {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name $(<const $param: bool>)? {
            /// Group name (default `group<k>`); also the default traffic class.
            #[serde(default)]
            pub name: String,
            /// Number of flows (default 1, or one per host pair with `between`).
            pub count: Option<u32>,
            /// A topology builder's host pairs (`crate::topology::between`): `"dumbbell"`, flow i from left
            /// host i to right host i, or `"parking_lot:A->B"`, from host i of group A to host i of group B
            /// (`reverse = true`: the other way).
            pub between: Option<String>,
            #[serde(default)]
            pub reverse: bool,
            pub src: Option<$crate::scenario::NodeSel>,
            pub dst: Option<$crate::scenario::NodeSel>,
            #[serde(default)]
            pub pairing: $crate::scenario::flow_group::Pairing,
            #[serde(default)]
            pub start: $crate::scenario::flow_group::StartSpec,
            /// Traffic class for per-class counters (default: the group name).
            pub class: Option<String>,
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $(<const $param: bool>)? $name $(<$param>)? {
            /// Where and when the group's flows run.
            pub fn common(&self) -> $crate::scenario::flow_group::GroupCommon {
                $crate::scenario::flow_group::GroupCommon {
                    name: self.name.clone(),
                    count: self.count,
                    between: self.between.clone(),
                    reverse: self.reverse,
                    src: self.src.clone(),
                    dst: self.dst.clone(),
                    pairing: self.pairing,
                    start: self.start.clone(),
                    class: self.class.clone(),
                }
            }
        }
    };
}
pub(crate) use flow_group;

/// What a kind of flow group adds to where and when its flows run: their traffic.
pub trait GroupKind {
    /// The traffic of each of the group's flows, its fields checked (`cx` locates errors in the group).
    fn traffic(&self, cx: &mut GroupCx) -> Result<Traffic, ScenarioError>;
}

/// Defines [`FlowGroup`] from one line per kind: `Variant(its table) = "kind"`.
macro_rules! flow_groups {
    ($($(#[$doc:meta])* $variant:ident($group:ty) = $kind:literal;)*) => {
        /// A `[[flows]]` table, by its `kind`.
        #[derive(Clone, Debug)]
        pub enum FlowGroup {
            $($(#[$doc])* $variant($group),)*
        }

        impl Tagged for FlowGroup {
            const KINDS: &'static [&'static str] = &[$($kind,)*];
            const EXPECTING: &'static str =
                "a flow group such as { kind = \"tcp_bulk\", src = \"h1\", dst = \"h2\" }";

            fn read<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error> {
                match kind {
                    $($kind => <$group>::deserialize(fields).map(FlowGroup::$variant),)*
                    _ => Err(de::Error::unknown_variant(kind, Self::KINDS)),
                }
            }
        }

        impl FlowGroup {
            /// Where and when the group's flows run.
            pub fn common(&self) -> GroupCommon {
                match self {
                    $(FlowGroup::$variant(g) => g.common(),)*
                }
            }

            /// What each of the group's flows sends (see [`GroupKind::traffic`]).
            pub fn traffic(&self, cx: &mut GroupCx) -> Result<Traffic, ScenarioError> {
                match self {
                    $(FlowGroup::$variant(g) => g.traffic(cx),)*
                }
            }
        }
    };
}

flow_groups! {
    /// A TCP connection from src to dst sending `bytes` (forever if absent).
    TcpBulk(bulk::BulkGroup) = "tcp_bulk";
    /// UDP datagrams of `packet_size` at a constant `rate`.
    UdpCbr(udp::UdpGroup<false>) = "udp_cbr";
    /// UDP datagrams of `packet_size` with exponential gaps, mean rate `rate`.
    UdpPoisson(udp::UdpGroup<true>) = "udp_poisson";
    /// A persistent TCP connection carrying files that start at Poisson times: study C's "HTTP-like"
    /// traffic.
    TcpFiles(files::FilesGroup) = "tcp_files";
}

/// Read kind first, so that an error names its field (`flows[2].file_rate: unknown field ...`).
impl<'de> Deserialize<'de> for FlowGroup {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged::deserialize(d)
    }
}

/// How the flows of a group are spread over `src` × `dst`.
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Pairing {
    /// Flow i: src[i mod |src|] → dst[i mod |dst|].
    #[default]
    Zip,
    /// Flow i: the (i mod |src|·|dst|)-th of all (src, dst) combinations, src-major.
    Cross,
}

/// When the flows of a group start.
#[derive(Clone, Debug)]
pub enum StartSpec {
    At(Duration),
    /// Flow i of n starts at `i · spread / n`.
    Spread {
        spread: Duration,
    },
    /// Uniformly random in [lo, hi), from the group's own stream.
    Uniform {
        uniform: [Duration; 2],
    },
}

const START_FORMS: &str = "a time (\"1s\"), { spread = \"1s\" } or { uniform = [\"0s\", \"1s\"] }";

/// By hand rather than `untagged`, so that a wrong key is named (serde's untagged enums only say that no
/// variant matched) and errors inside a form keep their field path.
impl<'de> Deserialize<'de> for StartSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StartVisitor;
        fn at<'de, E: de::Error, V: IntoDeserializer<'de, E>>(v: V) -> Result<StartSpec, E> {
            Duration::deserialize(v.into_deserializer()).map(StartSpec::At)
        }
        impl<'de> Visitor<'de> for StartVisitor {
            type Value = StartSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(START_FORMS)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<StartSpec, E> {
                at(s)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<StartSpec, E> {
                at(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<StartSpec, E> {
                at(v)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<StartSpec, E> {
                at(v)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StartSpec, A::Error> {
                let key: Option<String> = map.next_key()?;
                let start = match key.as_deref() {
                    Some("spread") => StartSpec::Spread { spread: map.next_value()? },
                    Some("uniform") => StartSpec::Uniform { uniform: map.next_value()? },
                    Some(other) => {
                        return Err(de::Error::custom(format!(
                            "{START_FORMS}; `{other}` is neither `spread` nor `uniform`"
                        )))
                    }
                    None => return Err(de::Error::custom(format!("{START_FORMS}, found an empty table"))),
                };
                if let Some(extra) = map.next_key::<String>()? {
                    return Err(de::Error::custom(format!(
                        "{START_FORMS}, one key only; found `{extra}` too"
                    )));
                }
                Ok(start)
            }
        }
        d.deserialize_any(StartVisitor)
    }
}

impl Default for StartSpec {
    fn default() -> Self {
        StartSpec::At(Duration(0))
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{parse, ScenarioError};

    /// Two good groups, then `third` as `flows[2]`.
    fn with_third(third: &str) -> String {
        let good = "[[flows]]\nname = \"ok\"\nkind = \"tcp_bulk\"\nsrc = \"a\"\ndst = \"b\"\n";
        format!("duration = \"1s\"\n{good}{good}[[flows]]\n{third}")
    }

    fn error(text: &str) -> ScenarioError {
        parse(text, "f.toml").expect_err("a scenario error")
    }

    /// The 1-based line of the first line of `text` that starts with `prefix`.
    fn line(text: &str, prefix: &str) -> usize {
        text.lines().position(|l| l.starts_with(prefix)).expect("the line") + 1
    }

    /// A field of another kind is an unknown field, wherever `kind` is written in the group.
    #[test]
    fn a_field_of_another_kind_is_named_with_its_path_and_line() {
        for third in [
            "name = \"web\"\nkind = \"tcp_bulk\"\nsrc = \"a\"\ndst = \"b\"\nfile_rate = 2\n",
            "kind = \"tcp_bulk\"\nname = \"web\"\nfile_rate = 2\nsrc = \"a\"\n",
            "file_rate = 2\nname = \"web\"\nsrc = \"a\"\nkind = \"tcp_bulk\"\n",
        ] {
            let text = with_third(third);
            let e = error(&text);
            assert_eq!(
                (e.path.as_str(), e.line),
                ("flows[2].file_rate", Some(line(&text, "file_rate"))),
                "{e}"
            );
            assert!(e.message.starts_with("unknown field `file_rate`, expected one of `name`"), "{e}");
            assert!(e.message.contains("`bytes`"), "the kind's own fields are listed: {e}");
        }
        let text = with_third("kind = \"udp_cbr\"\nrate = \"1Mbps\"\ntcp = { ecn = true }\n");
        assert_eq!(error(&text).path, "flows[2].tcp");
        let text = with_third("kind = \"tcp_files\"\nfile_rate = 1\nstop = \"1s\"\n");
        assert_eq!(error(&text).path, "flows[2].stop");
    }

    /// Fields written before `kind` are read once the kind is known; the error still names the field
    /// at fault at its own depth, not the key of the group that holds it.
    #[test]
    fn an_error_inside_a_field_written_before_kind_names_the_innermost_field() {
        let text = with_third("start = { spread = \"-1s\" }\nsrc = \"a\"\nkind = \"tcp_bulk\"\n");
        let e = error(&text);
        assert_eq!((e.path.as_str(), e.line), ("flows[2].start.spread", Some(line(&text, "start"))), "{e}");
        assert!(e.message.contains("non-negative duration"), "{e}");
        let text = with_third("bytes = true\nkind = \"tcp_bulk\"\n");
        let e = error(&text);
        assert_eq!((e.path.as_str(), e.line), ("flows[2].bytes", Some(line(&text, "bytes"))), "{e}");
        let text = with_third("src = 1\nkind = \"udp_poisson\"\n");
        assert_eq!(error(&text).path, "flows[2].src");
    }

    #[test]
    fn groups_in_an_inline_array_and_unknown_kinds_are_located() {
        let text = "duration = \"1s\"\nflows = [\n  { kind = \"tcp_bulk\", src = \"a\", dst = \"b\" },\n  \
                    { name = \"f\", kind = \"tcp_bulk\", file_shape = 1.5 },\n]\n";
        let e = error(text);
        assert_eq!((e.path.as_str(), e.line), ("flows[1].file_shape", Some(4)), "{e}");
        let text = with_third("name = \"x\"\nkind = \"tcp_bulkk\"\n");
        let e = error(&text);
        assert_eq!(
            (e.path.as_str(), e.line),
            ("flows[2].kind", Some(line(&text, "kind = \"tcp_bulkk\""))),
            "{e}"
        );
        assert!(
            e.message.contains("expected one of `tcp_bulk`, `udp_cbr`, `udp_poisson`, `tcp_files`"),
            "{e}"
        );
        let e = error(&with_third("name = \"x\"\n"));
        assert_eq!((e.path.as_str(), e.message.as_str()), ("flows[2]", "missing field `kind`"));
    }

    #[test]
    fn each_kind_reads_its_own_fields() {
        use super::FlowGroup;
        let text = with_third(
            "kind = \"tcp_files\"\nname = \"files\"\nfile_rate = 2\nfile_mean = \"10kB\"\ncount = 3\n",
        );
        let s = parse(&text, "f.toml").unwrap_or_else(|e| panic!("{e}"));
        let FlowGroup::TcpFiles(g) = &s.flows[2] else { panic!("a tcp_files group: {:?}", s.flows[2]) };
        assert_eq!((g.file_rate, g.file_mean.map(|b| b.0), g.count), (Some(2.0), Some(10_000), Some(3)));
        assert_eq!(s.flows[2].common().name, "files");
        assert!(matches!(s.flows[0], FlowGroup::TcpBulk(_)));
    }
}
