//! Tables tagged by `kind` (`queue = { kind = "red", ... }`, a `[[flows]]` group), read so that an error
//! names its field.
//!
//! serde's `#[serde(tag = "kind")]` reads such a table whole before its fields, so an error inside
//! would carry only the table's path. Here `kind` is looked for first: the fields after it are read
//! straight from the scenario (`links[0].queue.interval: ...`); fields written before it are gathered
//! and read once the kind is known, with the table's path only, and [`super::parse`] then reads the
//! scenario again with `kind` moved first to name the field.

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::marker::PhantomData;

/// A type read from a table tagged by `kind`: one struct per kind.
pub trait Tagged: Sized {
    /// Every accepted spelling of `kind`.
    const KINDS: &'static [&'static str];
    /// What the table is, for a value of the wrong type.
    const EXPECTING: &'static str;
    /// Reads the fields (all but `kind`) of a table of `kind`, an entry of [`Tagged::KINDS`].
    fn read<'de, D: Deserializer<'de>>(kind: &str, fields: D) -> Result<Self, D::Error>;
}

/// Reads a [`Tagged`] table; the `Deserialize` of each tagged type calls it.
pub fn deserialize<'de, T: Tagged, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(Table(PhantomData))
}

struct Table<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for Table<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut before = toml::Table::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "kind" {
                let kind = map.next_value_seed(Kind(T::KINDS))?;
                if before.is_empty() {
                    return T::read(&kind, MapAccessDeserializer::new(map));
                }
                while let Some((k, v)) = map.next_entry::<String, toml::Value>()? {
                    before.insert(k, v);
                }
                return T::read(&kind, toml::Value::Table(before))
                    .map_err(|e| de::Error::custom(e.message()));
            }
            before.insert(key, map.next_value()?);
        }
        Err(de::Error::missing_field("kind"))
    }
}

/// The value of `kind`, checked against the accepted ones where it is read, so an unknown kind is
/// reported at `....kind`.
struct Kind(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Kind {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let kind = String::deserialize(d)?;
        if self.0.contains(&kind.as_str()) {
            Ok(kind)
        } else {
            Err(de::Error::unknown_variant(&kind, self.0))
        }
    }
}
