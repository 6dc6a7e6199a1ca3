//! install-config.yaml among the documents of a file: recognised by its
//! shape ([`InstallConfig::is_shaped`], `apiVersion: v1`), staged as the
//! mirror objects the installer writes from it, and traced to its lines:
//! each entry, its `source` and its mirrors, the `additionalTrustBundle`
//! and the `pullSecret`, found by reading the document's text again with
//! positions (a document of a JSON file is traced to its first line).
//!
//! The `pullSecret` is taken out of the document before anything decodes
//! it, so that no message can quote it; it is kept only as the
//! [`PullSecret`] the probe may use.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::Spanned;

use super::{decode, document_start_lines, yaml_options, DocumentAt, Object, SourceError, Staged};
use crate::objects::install_config::{
    Generated, GeneratedEntry, InstallConfig, PullSecret, TrustedBundle, API_VERSION,
};
use crate::objects::Inputs;
use crate::origin::Origin;

/// An install-config.yaml staged from one document, its objects already
/// among the staged objects.
pub(super) struct Pending<'a> {
    config: InstallConfig,
    pull_secret: Option<String>,
    at: DocumentAt<'a>,
    /// Where its fields were written, once the text is read again.
    lines: Option<Lines>,
}

/// The lines of the fields of one install-config.yaml.
#[derive(Debug, Default, PartialEq)]
struct Lines {
    image_content_sources: Vec<EntryLines>,
    image_digest_sources: Vec<EntryLines>,
    additional_trust_bundle: Option<usize>,
    pull_secret: Option<usize>,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct EntryLines {
    line: usize,
    source: Option<usize>,
    mirrors: Vec<usize>,
}

/// Stages `value` when it is an install-config.yaml (`api`, `kind`: its
/// header; a whole document, `item` empty); gives it back when it is not.
/// One shaped like one under another `apiVersion` is given back with a
/// warning.
pub(super) fn stage<'a>(
    mut value: Value,
    api: Option<&str>,
    kind: Option<&str>,
    at: &DocumentAt<'a>,
    item: &str,
    staged: &mut Staged<'a>,
) -> Result<Option<Value>, SourceError> {
    if !item.is_empty() || !InstallConfig::is_shaped(kind, &value) {
        return Ok(Some(value));
    }
    if api != Some(API_VERSION) {
        let api = api.map_or("no apiVersion".to_string(), |a| {
            format!("apiVersion \"{a}\"")
        });
        staged.warnings.push(at.warning(
            "",
            &format!("read no cluster object: this looks like an install-config.yaml, with {api}; the installer reads only apiVersion: {API_VERSION}"),
        ));
        return Ok(Some(value));
    }
    let pull_secret = take_pull_secret(&mut value, at, staged);
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let label = Origin::object(crate::objects::install_config::KIND, name).to_string();
    let config: InstallConfig =
        decode(&value).map_err(|(field, message)| at.decode_error(&label, field, message))?;
    let objects = config.mirror_objects().map_err(|message| {
        at.decode_error(
            &label,
            "imageContentSources".to_string(),
            message.to_string(),
        )
    })?;
    if let Some(icsp) = objects.icsp {
        staged.warnings.push(at.warning("", &format!(
            "imageContentSources is deprecated: the installer writes it as {}; write its entries as imageDigestSources to get an ImageDigestMirrorSet",
            icsp.origin()
        )));
        staged
            .objects
            .push((Object::Icsp(icsp), *at, String::new()));
    }
    if let Some(idms) = objects.idms {
        staged
            .objects
            .push((Object::Idms(idms), *at, String::new()));
    }
    staged.install_configs.push(Pending {
        config,
        pull_secret,
        at: *at,
        lines: None,
    });
    Ok(None)
}

/// Takes `pullSecret` out of the document; one that is not a string is
/// dropped with a warning that does not quote it.
fn take_pull_secret(
    value: &mut Value,
    at: &DocumentAt<'_>,
    staged: &mut Staged<'_>,
) -> Option<String> {
    match value.as_object_mut()?.remove("pullSecret")? {
        Value::String(s) if !s.trim().is_empty() => Some(s),
        Value::String(_) | Value::Null => None,
        _ => {
            staged.warnings.push(at.warning(
                "",
                "pullSecret is not a string (the installer refuses it): registries are probed without it",
            ));
            None
        }
    }
}

/// Finds the lines of the install-config.yaml documents staged from
/// `text` (YAML only: JSON documents keep their first line).
pub(super) fn trace_lines(staged: &mut Staged<'_>, text: &str, json: bool) {
    if json || staged.install_configs.is_empty() {
        return;
    }
    let starts = document_start_lines(text);
    for pending in &mut staged.install_configs {
        pending.lines = lines_of(text, &starts, pending.at.line);
    }
}

/// The positions of the fields of the document whose first line is
/// `first`, read again from its own text.
fn lines_of(text: &str, starts: &[usize], first: usize) -> Option<Lines> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Spans {
        #[serde(default)]
        image_content_sources: Option<Vec<Spanned<EntrySpans>>>,
        #[serde(default)]
        image_digest_sources: Option<Vec<Spanned<EntrySpans>>>,
        #[serde(default)]
        additional_trust_bundle: Option<Spanned<IgnoredAny>>,
        #[serde(default)]
        pull_secret: Option<Spanned<IgnoredAny>>,
    }
    #[derive(Deserialize)]
    struct EntrySpans {
        #[serde(default)]
        source: Option<Spanned<IgnoredAny>>,
        #[serde(default)]
        mirrors: Option<Vec<Spanned<IgnoredAny>>>,
    }
    // The document runs from its start to the next document's.
    let start = starts
        .iter()
        .rev()
        .find(|&&s| s <= first)
        .copied()
        .unwrap_or(1);
    let end = starts.iter().find(|&&s| s > first).copied();
    let own: String = text
        .split_inclusive('\n')
        .enumerate()
        .filter(|(i, _)| *i + 1 >= start && end.is_none_or(|e| *i + 1 < e))
        .map(|(_, l)| l)
        .collect();
    let spans: Spans = serde_saphyr::from_str_with_options(&own, yaml_options(&own)).ok()?;
    let at = |line: u64| start + line as usize - 1;
    let entries = |list: Option<Vec<Spanned<EntrySpans>>>| -> Vec<EntryLines> {
        list.unwrap_or_default()
            .into_iter()
            .map(|e| EntryLines {
                line: at(e.referenced.line()),
                source: e.value.source.map(|s| at(s.referenced.line())),
                mirrors: e
                    .value
                    .mirrors
                    .unwrap_or_default()
                    .iter()
                    .map(|m| at(m.referenced.line()))
                    .collect(),
            })
            .collect()
    };
    // A block scalar's position is its first line of content: the key's
    // line, when the key starts a line, is the one a reader looks for.
    let key_line = |key: &str| {
        own.lines()
            .position(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))
            .map(|i| start + i)
    };
    let additional_trust_bundle = key_line("additionalTrustBundle").or_else(|| {
        spans
            .additional_trust_bundle
            .map(|s| at(s.referenced.line()))
    });
    let pull_secret =
        key_line("pullSecret").or_else(|| spans.pull_secret.map(|s| at(s.referenced.line())));
    Some(Lines {
        image_content_sources: entries(spans.image_content_sources),
        image_digest_sources: entries(spans.image_digest_sources),
        additional_trust_bundle,
        pull_secret,
    })
}

/// Adds what an install-config.yaml gives besides its objects (already
/// added): the records of the objects, the CAs and the pull secret.
pub(super) fn apply(pending: Pending<'_>, inputs: &mut Inputs) {
    let Pending {
        config,
        pull_secret,
        at,
        lines,
    } = pending;
    let lines = lines.unwrap_or_default();
    let file = at.file;
    let place = |line: Option<usize>, field: &str| {
        Origin::from(format!(
            "{}: {field}",
            Origin::file_line(file, line.unwrap_or(at.line))
        ))
    };
    let objects = config.mirror_objects().unwrap_or_default();
    let mut generated = Vec::new();
    if let Some(o) = &objects.icsp {
        let entries = entry_lines(
            &lines.image_content_sources,
            config.image_content_sources.len(),
        );
        generated.push(record(
            o.origin(),
            &at,
            "imageContentSources",
            "spec.repositoryDigestMirrors",
            &entries,
        ));
    }
    if let Some(o) = &objects.idms {
        let entries = entry_lines(
            &lines.image_digest_sources,
            config.image_digest_sources.len(),
        );
        generated.push(record(
            o.origin(),
            &at,
            "imageDigestSources",
            "spec.imageDigestMirrors",
            &entries,
        ));
    }
    inputs.take_install_configs(vec![config.origin()], generated);
    if !config.additional_trust_bundle.trim().is_empty() {
        inputs.node_trust.push(TrustedBundle {
            origin: place(lines.additional_trust_bundle, "additionalTrustBundle"),
            pem: config.additional_trust_bundle,
        });
    }
    if let Some(text) = pull_secret {
        inputs.pull_secret = Some(PullSecret::new(
            place(lines.pull_secret, "pullSecret"),
            text,
        ));
    }
}

/// The lines of `count` entries: those found, else unknown.
fn entry_lines(found: &[EntryLines], count: usize) -> Vec<EntryLines> {
    let mut out = found.to_vec();
    out.resize(count, EntryLines::default());
    out
}

/// The record of the object `object` written from the entries of `field`.
fn record(
    object: Origin,
    at: &DocumentAt<'_>,
    field: &'static str,
    spec_field: &'static str,
    entries: &[EntryLines],
) -> Generated {
    let entries = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let line = if e.line == 0 { at.line } else { e.line };
            GeneratedEntry {
                origin: Origin::from(format!(
                    "{}: {field}[{i}] ({object})",
                    Origin::file_line(at.file, line)
                )),
                line,
                source_line: e.source.unwrap_or(line),
                mirror_lines: e.mirrors.clone(),
            }
        })
        .collect();
    Generated {
        object,
        file: at.file.to_string(),
        field,
        spec_field,
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_entries_mirrors_and_bundle() {
        let text = "kind: ConfigMap\napiVersion: v1\n---\n# install\napiVersion: v1\nbaseDomain: x\npullSecret: '{}'\nimageDigestSources:\n- mirrors:\n  - m.io/a\n  - n.io/a\n  source: q.io/a\n- {source: q.io/b, mirrors: [m.io/b]}\nadditionalTrustBundle: |\n  -----BEGIN CERTIFICATE-----\n---\nkind: Other\n";
        let starts = document_start_lines(text);
        let lines = lines_of(text, &starts, 5).unwrap();
        assert_eq!(
            lines.image_digest_sources,
            [
                EntryLines {
                    line: 9,
                    source: Some(12),
                    mirrors: vec![10, 11]
                },
                EntryLines {
                    line: 13,
                    source: Some(13),
                    mirrors: vec![13]
                },
            ]
        );
        assert_eq!(lines.pull_secret, Some(7));
        assert_eq!(lines.additional_trust_bundle, Some(14));
        assert!(lines.image_content_sources.is_empty());
    }
}
