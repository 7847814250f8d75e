//! [`aqm_config!`], which declares a discipline's `Config` once: each field with its doc comment (the
//! ns-2 / RFC parameter and its default), its default value and the range it must be in. A field's
//! default and check stand beside its declaration, not in a `Default` impl and a `validate()` that list
//! the fields again.

/// The range checks of a configuration's fields, in declaration order; the error names the first
/// offending field and says what was expected.
pub trait FieldChecks {
    fn check_fields(&self) -> Result<(), (String, String)>;
}

/// Declares `pub struct Config { ... }` as written, read from a scenario's queue table with every field
/// optional and unknown fields refused, plus its `Default` and its [`FieldChecks`]. Preceded by
/// `#[discipline(D)]` and `#[buffer(|c| ...)]`, it also implements [`super::DisciplineConfig`] with that
/// discipline, that buffer and the fields' checks as `validate`. Each field takes, after its doc comment
/// and any `#[serde(...)]` attributes (aliases):
/// - `#[default(value)]`: its default; without it, the type's (`false`, `0`, `None`);
/// - `#[check(name)]`, any number: `check::name("field", value)` (`fraction`, `positive_secs`, ...);
/// - `#[check(|c| ok, "expected")]`: the field is refused, with that message, unless `ok` holds for the
///   configuration `c` (a rule between fields, or a range of its own);
/// - `#[check(|c| result)]`: a check of the configuration `c` that names its field itself.
macro_rules! aqm_config {
    (@default) => { Default::default() };
    (@default $value:expr) => { $value };

    (@check $cfg:expr, $field:ident, $name:ident) => {
        $crate::aqm::check::$name(stringify!($field), $cfg.$field)
    };
    (@check $cfg:expr, $field:ident, |$c:ident| $ok:expr, $expected:literal) => {{
        let $c = $cfg;
        $crate::aqm::check::ensure($ok, stringify!($field), $expected)
    }};
    (@check $cfg:expr, $field:ident, |$c:ident| $result:expr) => {{
        let $c = $cfg;
        $result
    }};

    (
        #[discipline($discipline:ty)]
        #[buffer(|$c:ident| $buffer:expr)]
        pub struct Config { $($fields:tt)* }
    ) => {
        aqm_config! { pub struct Config { $($fields)* } }

        impl $crate::aqm::DisciplineConfig for Config {
            type Discipline = $discipline;

            fn buffer(&self) -> $crate::aqm::Buffer {
                let $c = self;
                $buffer
            }
        }
    };

    (
        pub struct Config {
            $(
                $(#[doc = $doc:expr])*
                $(#[serde($($serde:tt)*)])*
                $(#[default($default:expr)])?
                $(#[check($($check:tt)*)])*
                pub $field:ident: $ty:ty,
            )*
        }
    ) => {
        #[derive(Clone, Debug, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Config {
            $(
                $(#[doc = $doc])*
                $(#[serde($($serde)*)])*
                pub $field: $ty,
            )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $($field: aqm_config!(@default $($default)?),)* }
            }
        }

        impl $crate::aqm::config::FieldChecks for Config {
            fn check_fields(&self) -> Result<(), (String, String)> {
                $($(aqm_config!(@check self, $field, $($check)*)?;)*)*
                Ok(())
            }
        }
    };
}
