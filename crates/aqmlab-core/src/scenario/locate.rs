//! Finds the line of a field path (`flows[1].tcp.mss`) in a TOML document, for error messages.

use toml_edit::{DocumentMut, ImDocument, Item, Table, Value};

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

/// For each key of the table at `path`: the key and the document without it.
pub fn without_each_key(text: &str, path: &str) -> Vec<(String, String)> {
    let Ok(doc) = text.parse::<DocumentMut>() else {
        return Vec::new();
    };
    let keys: Vec<String> = match item_at(&mut doc.clone(), path).and_then(|t| t.as_table_like()) {
        Some(table) => table.iter().map(|(k, _)| k.to_string()).collect(),
        None => return Vec::new(),
    };
    keys.into_iter()
        .filter_map(|key| {
            let mut without = doc.clone();
            item_at(&mut without, path)?.as_table_like_mut()?.remove(&key);
            Some((key, without.to_string()))
        })
        .collect()
}

/// The document with `kind` moved first in every table that has it elsewhere, or None if there is none
/// (or the text is not TOML): see `scenario::tagged`.
pub fn kind_first(text: &str) -> Option<String> {
    let mut doc = text.parse::<DocumentMut>().ok()?;
    kind_first_in_item(doc.as_item_mut()).then(|| doc.to_string())
}

/// Whether `kind` is a key of a table but not its first.
fn kind_is_late<'k>(mut keys: impl Iterator<Item = &'k str>) -> bool {
    keys.next().is_some_and(|first| first != "kind") && keys.any(|k| k == "kind")
}

/// Orders `kind` before the other keys (sorting is stable), returning whether any table moved.
fn kind_first_in_item(item: &mut Item) -> bool {
    match item {
        Item::Table(t) => kind_first_in_table(t),
        Item::ArrayOfTables(a) => a.iter_mut().fold(false, |moved, t| kind_first_in_table(t) | moved),
        Item::Value(v) => kind_first_in_value(v),
        Item::None => false,
    }
}

fn kind_first_in_table(t: &mut Table) -> bool {
    let late = kind_is_late(t.iter().map(|(k, _)| k));
    if late {
        t.sort_values_by(|a, _, b, _| (b.get() == "kind").cmp(&(a.get() == "kind")));
    }
    t.iter_mut().fold(late, |moved, (_, v)| kind_first_in_item(v) | moved)
}

fn kind_first_in_value(value: &mut Value) -> bool {
    match value {
        Value::InlineTable(t) => {
            let late = kind_is_late(t.iter().map(|(k, _)| k));
            if late {
                t.sort_values_by(|a, _, b, _| (b.get() == "kind").cmp(&(a.get() == "kind")));
            }
            t.iter_mut().fold(late, |moved, (_, v)| kind_first_in_value(v) | moved)
        }
        Value::Array(a) => a.iter_mut().fold(false, |moved, v| kind_first_in_value(v) | moved),
        _ => false,
    }
}

/// The field path of a `key = value` line (1-based) read from the text alone, for syntax errors, which
/// come without one (`seed = 99999999999999999999`): the key under the nearest table header above it.
pub fn path_on_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let (key, _) = lines.get(line.checked_sub(1)?)?.split_once('=')?;
    let key = key.trim();
    if key.is_empty() || key.starts_with(['[', '#']) {
        return None;
    }
    let above = &lines[..line - 1];
    let Some(h) = above.iter().rposition(|l| l.trim_start().starts_with('[')) else {
        return Some(key.to_string());
    };
    let header = |l: &str| {
        let l = l.trim();
        let array = l.starts_with("[[");
        let name = l.trim_start_matches('[').split(']').next().unwrap_or("").trim().to_string();
        (name, array)
    };
    let (table, array) = header(above[h]);
    if !array {
        return Some(format!("{table}.{key}"));
    }
    let index = above[..h].iter().filter(|l| header(l) == (table.clone(), true)).count();
    Some(format!("{table}[{index}].{key}"))
}

fn item_at<'a>(doc: &'a mut DocumentMut, path: &str) -> Option<&'a mut Item> {
    let mut item = doc.as_item_mut();
    for seg in segments(path) {
        item = match seg {
            Seg::Key(k) => item.get_mut(k.as_str())?,
            Seg::Index(i) => item.get_mut(i)?,
        };
    }
    Some(item)
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

    #[test]
    fn reads_the_path_of_a_line_from_the_text() {
        let text = "seed = 1\n[measure]\nwarmup = x\n[[links]]\na = 1\n[[links]]\n# note\nrate = @\n";
        assert_eq!(path_on_line(text, 1).as_deref(), Some("seed"));
        assert_eq!(path_on_line(text, 3).as_deref(), Some("measure.warmup"));
        assert_eq!(path_on_line(text, 8).as_deref(), Some("links[1].rate"));
        assert_eq!(path_on_line(text, 7), None, "a comment");
        assert_eq!(path_on_line(text, 4), None, "a header");
    }

    #[test]
    fn moves_kind_first_in_every_table_that_has_it_later() {
        let text = "[[links]]\na = \"x\"\nqueue = { limit = 3, kind = \"red\" }\n[[flows]]\nname = \"g\"\nkind = \"udp_cbr\"\n\
                    [[flows]]\nkind = \"tcp_bulk\"\nname = \"h\"\n";
        let moved = kind_first(text).expect("two tables with `kind` later");
        assert!(moved.contains("queue = { kind = \"red\" , limit = 3}"), "only the order matters: {moved}");
        assert!(moved.contains("[[flows]]\nkind = \"udp_cbr\"\nname = \"g\"\n"), "{moved}");
        assert!(moved.contains("[[flows]]\nkind = \"tcp_bulk\"\nname = \"h\"\n"), "{moved}");
        assert_eq!(kind_first(&moved), None, "nothing left to move");
    }

    #[test]
    fn removes_each_key_of_a_nested_table() {
        let text = "[[links]]\na = \"x\"\nqueue = { kind = \"red\", limit = -3 }\n";
        let variants = without_each_key(text, "links[0].queue");
        let keys: Vec<&str> = variants.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["kind", "limit"]);
        assert!(variants[1].1.contains("queue = { kind = \"red\"}"), "{}", variants[1].1);
        assert!(without_each_key(text, "links[0].a").is_empty(), "a value has no keys");
    }
}
