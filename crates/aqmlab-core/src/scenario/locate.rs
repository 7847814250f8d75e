//! Finds the line of a field path (`flows[1].tcp.mss`) in a TOML document, for error messages.

use toml_edit::{ImDocument, Item};

/// 1-based line of the value at `path`, or of its nearest existing parent.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let doc = ImDocument::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut best = None;
    for seg in segments(path) {
        let next = match seg {
            Seg::Key(k) => item.get(k.as_str()),
            Seg::Index(i) => item.get(i),
        };
        match next {
            Some(n) => {
                item = n;
                if let Some(span) = span_of(item) {
                    best = Some(span);
                }
            }
            None => break,
        }
    }
    best.map(|offset| text[..offset.min(text.len())].matches('\n').count() + 1)
}

fn span_of(item: &Item) -> Option<usize> {
    match item {
        Item::Value(v) => v.span().map(|s| s.start),
        Item::Table(t) => t.span().map(|s| s.start),
        Item::ArrayOfTables(a) => a.span().map(|s| s.start),
        Item::None => None,
    }
}

enum Seg {
    Key(String),
    Index(usize),
}

/// Splits `a.b[2].c` into keys and indices.
fn segments(path: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        if let Some(b) = rest.find('[') {
            if b > 0 {
                out.push(Seg::Key(rest[..b].to_string()));
            }
            rest = &rest[b..];
            while let Some(stripped) = rest.strip_prefix('[') {
                let close = stripped.find(']').unwrap_or(stripped.len());
                if let Ok(i) = stripped[..close].parse() {
                    out.push(Seg::Index(i));
                }
                rest = stripped.get(close + 1..).unwrap_or("");
            }
        } else {
            out.push(Seg::Key(rest.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_fields() {
        let text = "seed = 1\n\n[[links]]\na = \"x\"\nb = \"y\"\n\n[[links]]\na = \"p\"\nrate = \"-3Mbps\"\n";
        assert_eq!(line_of(text, "seed"), Some(1));
        assert_eq!(line_of(text, "links[1].rate"), Some(9));
        assert_eq!(line_of(text, "links[0].b"), Some(5));
        // A missing field points at its table.
        assert_eq!(line_of(text, "links[1].delay"), Some(7));
    }
}
