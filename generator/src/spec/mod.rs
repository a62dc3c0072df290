//! Parse phase: TOML text -> raw serde model (`raw`), collecting every syntax error,
//! every unknown key and one type error per table item before stopping.

pub mod raw;

use crate::diag::{catalog, Diagnostics, SourceMap};
use raw::*;
use serde::de::{self, Deserialize, Visitor};
use std::ops::Range;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// Reads an included file: its path as written in `include` -> (origin for diagnostics
/// and `#line`, text), or why it cannot be read.
pub type Reader<'a> = dyn Fn(&str) -> Result<(String, String), String> + 'a;

/// Parse the root spec (file 0 of `sources`) and the files its `include` names, which
/// `read` fetches and this adds to `sources`; on failure every diagnostic of the phase is
/// in `diags`.
pub fn parse(sources: &mut SourceMap, read: &Reader, diags: &mut Diagnostics) -> Option<RawSpec> {
    let root = sources.files.first()?.clone();
    let mut spec = RawSpec { doc_span: root.base..root.base + root.len.min(1), ..RawSpec::default() };
    let mut includes = Vec::new();
    parse_file(sources, 0, &mut spec, &mut includes, diags);
    let mut seen: Vec<String> = Vec::new();
    for inc in includes {
        let rel = inc.get_ref();
        if let Some(why) = include_problem(rel) {
            push(diags, inc.span(), catalog::bad_include(rel, why));
            continue;
        }
        if seen.contains(rel) {
            push(diags, inc.span(), catalog::duplicate("include", rel));
            continue;
        }
        seen.push(rel.clone());
        match read(rel) {
            Ok((origin, text)) => {
                let k = sources.add(&origin, &text);
                parse_file(sources, k, &mut spec, &mut Vec::new(), diags);
            }
            Err(why) => push(diags, inc.span(), catalog::unreadable_include(rel, &why)),
        }
    }
    diags.is_empty().then_some(spec)
}

/// Why an `include` path cannot be used, if it cannot: included files sit at or below
/// the root spec's directory (so an sdist carries them beside it) and are TOML.
fn include_problem(rel: &str) -> Option<&'static str> {
    let p = std::path::Path::new(rel);
    if rel.is_empty() || p.is_absolute() || rel.starts_with('/') || rel.contains('\\') {
        return Some("not a relative path with `/` separators");
    }
    if p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return Some("`.` and `..` are not allowed: included files live at or below the root spec's directory");
    }
    (!rel.ends_with(".toml")).then_some("not a `.toml` file")
}

/// Parse file `k` of `sources` into `spec`. Spans are offsets into the whole map: the
/// file's text is parsed behind `base` spaces (whitespace to TOML), so every span the
/// parser records already points into the map.
fn parse_file(
    sources: &SourceMap,
    k: usize,
    spec: &mut RawSpec,
    includes: &mut Vec<Spanned<String>>,
    diags: &mut Diagnostics,
) {
    let file = &sources.files[k];
    let padded = format!("{}{}", " ".repeat(file.base), sources.text_of(file));
    let (root, errors) = DeTable::parse_recoverable(&padded);
    for err in &errors {
        let span = err.span().unwrap_or(file.base..file.base);
        push(diags, span, catalog::toml_syntax(err.message()));
    }
    if !errors.is_empty() {
        return;
    }
    let is_root = k == 0;
    for (key, value) in root.into_inner() {
        let span = key.span();
        match key.get_ref().as_ref() {
            "ufunc" => spec.ufuncs.extend(items::<RawUfunc>(&value, "[[ufunc]]", diags)),
            "function" => spec.functions.extend(items::<RawFunction>(&value, "[[function]]", diags)),
            "prelude" => spec.preludes.extend(items::<RawPrelude>(&value, "[[prelude]]", diags)),
            "host_only" => spec.host_only.extend(items::<RawHostOnly>(&value, "[[host_only]]", diags)),
            "package" | "defaults" | "include" if !is_root => push(diags, span, catalog::root_only(key.get_ref())),
            "package" => spec.package = item::<RawPackage>(&value, "[package]", diags),
            "defaults" => {
                if let Some(d) = item::<RawDefaults>(&value, "[defaults]", diags) {
                    spec.defaults = d;
                }
            }
            "include" => match Vec::<Spanned<String>>::deserialize(ValueDeserializer::from(value.clone())) {
                Ok(v) => includes.extend(v),
                Err(err) => push(
                    diags,
                    err.span().unwrap_or_else(|| value.span()),
                    catalog::bad_value("include", "expected an array of file paths"),
                ),
            },
            other => push(diags, span, catalog::unknown_table(other)),
        }
    }
}

fn push(diags: &mut Diagnostics, span: Range<usize>, e: catalog::Entry) {
    diags.error(span, e.message, e.label, e.help);
}

/// Deserialize every element of an array of tables, reporting each bad element.
fn items<T: for<'de> Deserialize<'de> + KeyCheck>(
    value: &Spanned<DeValue<'_>>,
    table: &str,
    diags: &mut Diagnostics,
) -> Vec<T> {
    match value.get_ref() {
        DeValue::Array(arr) => arr.iter().filter_map(|v| item::<T>(v, table, diags)).collect(),
        _ => {
            push(diags, value.span(), catalog::bad_value(table, "expected an array of tables"));
            Vec::new()
        }
    }
}

/// Deserialize one table after checking its keys (so all unknown keys are reported).
fn item<T: for<'de> Deserialize<'de> + KeyCheck>(
    value: &Spanned<DeValue<'_>>,
    table: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    let before = diags.len();
    T::check_keys(value, table, diags);
    if diags.len() != before {
        return None;
    }
    match T::deserialize(ValueDeserializer::from(value.clone())) {
        Ok(v) => Some(v),
        Err(err) => {
            let span = err.span().unwrap_or_else(|| value.span());
            push(diags, span, catalog::bad_value(table, err.message()));
            None
        }
    }
}

/// Unknown-key checking, recursing into nested tables.
trait KeyCheck {
    fn check_keys(value: &Spanned<DeValue<'_>>, table: &str, diags: &mut Diagnostics);
}

fn check_table<T: for<'de> Deserialize<'de>>(
    value: &Spanned<DeValue<'_>>,
    table: &str,
    diags: &mut Diagnostics,
    mut nested: impl FnMut(&str, &Spanned<DeValue<'_>>, &mut Diagnostics),
) {
    let DeValue::Table(t) = value.get_ref() else {
        return; // serde reports the type error
    };
    let known = struct_fields::<T>();
    for (k, v) in t.iter() {
        let name: &str = k.get_ref().as_ref();
        if known.contains(&name) {
            nested(name, v, diags);
        } else {
            push(diags, k.span(), catalog::unknown_key(name, table, known));
        }
    }
}

fn check_array_of<T: for<'de> Deserialize<'de> + KeyCheck>(
    value: &Spanned<DeValue<'_>>,
    table: &str,
    diags: &mut Diagnostics,
) {
    if let DeValue::Array(a) = value.get_ref() {
        for v in a {
            T::check_keys(v, table, diags);
        }
    }
}

macro_rules! flat_key_check {
    ($($t:ty),*) => {$(
        impl KeyCheck for $t {
            fn check_keys(value: &Spanned<DeValue<'_>>, table: &str, diags: &mut Diagnostics) {
                check_table::<$t>(value, table, diags, |_, _, _| {});
            }
        }
    )*};
}
flat_key_check!(RawPackage, RawDefaults, RawPrelude, RawHostOnly, RawTest, RawArray, RawOutput, RawWorkspace, RawParam);

impl KeyCheck for RawUfunc {
    fn check_keys(value: &Spanned<DeValue<'_>>, table: &str, diags: &mut Diagnostics) {
        check_table::<RawUfunc>(value, table, diags, |k, v, diags| {
            if k == "test" {
                RawTest::check_keys(v, "[ufunc.test]", diags);
            }
        });
    }
}

impl KeyCheck for RawFunction {
    fn check_keys(value: &Spanned<DeValue<'_>>, table: &str, diags: &mut Diagnostics) {
        check_table::<RawFunction>(value, table, diags, |k, v, diags| match k {
            "inputs" => check_array_of::<RawArray>(v, "[[function.inputs]]", diags),
            "outputs" => check_array_of::<RawOutput>(v, "[[function.outputs]]", diags),
            "workspace" => check_array_of::<RawWorkspace>(v, "[[function.workspace]]", diags),
            "params" => check_array_of::<RawParam>(v, "[[function.params]]", diags),
            _ => {}
        });
    }
}

/// The field names serde's derive knows for `T`, read by asking it to deserialize a
/// struct from a probe that records the `fields` argument and then refuses.
fn struct_fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field probe")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> de::Deserializer<'de> for Probe<'_> {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            *self.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut fields));
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_reads_field_names() {
        let f = struct_fields::<RawWorkspace>();
        assert_eq!(f, ["name", "bytes"]);
    }
}
