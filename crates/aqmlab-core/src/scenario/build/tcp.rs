//! TCP configurations: the top-level `[tcp]` table, overridden field by field by each group's or
//! generator's own `tcp`; equal configurations share one entry of `Model::tcp_configs`.

use super::Ctx;
use crate::scenario::ScenarioError;
use crate::tcp::TcpConfig;

pub(super) struct TcpConfigs {
    shared: toml::Table,
    pub configs: Vec<TcpConfig>,
}

impl TcpConfigs {
    /// Checks the shared table alone, so that its errors point at `tcp.<field>`, not at a group.
    pub fn new(shared: &Option<toml::Table>, cx: &Ctx) -> Result<Self, ScenarioError> {
        let shared = shared.clone().unwrap_or_default();
        read(shared.clone(), "tcp", cx)?;
        Ok(TcpConfigs { shared, configs: Vec::new() })
    }

    /// The configuration of a group or generator (at `path`) with its own table `own`.
    pub fn id(&mut self, own: &Option<toml::Table>, path: &str, cx: &Ctx) -> Result<u16, ScenarioError> {
        let mut table = self.shared.clone();
        if let Some(t) = own {
            table.extend(t.clone());
        }
        let cfg = read(table, &format!("{path}.tcp"), cx)?;
        Ok(match self.configs.iter().position(|c| *c == cfg) {
            Some(i) => i as u16,
            None => {
                self.configs.push(cfg);
                (self.configs.len() - 1) as u16
            }
        })
    }
}

/// A configuration from its table, written at `path`.
fn read(table: toml::Table, path: &str, cx: &Ctx) -> Result<TcpConfig, ScenarioError> {
    let cfg: TcpConfig = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let field = e.path().to_string();
        cx.err(format!("{path}.{field}"), e.into_inner().message().trim().to_string())
    })?;
    if let Err((f, expected)) = cfg.validate() {
        return Err(cx.err(format!("{path}.{f}"), expected));
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::super::test_scenarios::{model, refused, two_hosts};

    fn group(tcp: &str) -> String {
        format!("[[flows]]\nkind = \"tcp_bulk\"\nsrc = \"h1\"\ndst = \"h2\"\n{tcp}")
    }

    #[test]
    fn groups_override_the_shared_table_and_share_equal_configurations() {
        let text = two_hosts(&format!(
            "[tcp]\nmss = 500\n{}{}{}",
            group(""),
            group("tcp = { max_window = 7 }\n"),
            group("tcp = { mss = 500 }\n")
        ));
        let m = model(&text);
        let tcp = |f: usize| match m.flows[f].traffic {
            super::super::Traffic::Tcp { tcp, .. } => tcp,
            super::super::Traffic::Udp(_) => panic!("a TCP flow"),
        };
        assert_eq!([tcp(0), tcp(1), tcp(2)], [0, 1, 0]);
        assert_eq!((m.tcp_configs[1].mss, m.tcp_configs[1].max_window), (500, 7));
    }

    #[test]
    fn errors_name_the_table_they_are_in() {
        refused(&two_hosts(&format!("[tcp]\nmss = \"big\"\n{}", group(""))), "tcp.mss");
        refused(&two_hosts(&group("tcp = { cc = \"vegas\" }\n")), "flows[0].tcp.cc");
    }
}
