//! Cluster objects decoded from text: the documents of one YAML or JSON
//! file (or of a page listed from a cluster) staged into
//! [`crate::objects::Inputs`].
//!
//! A file holds one or more documents (YAML `---` streams, or JSON values
//! one after another). A document is an object, or a `List` / `*List` whose
//! `items` are objects; items without `kind` take it from the list kind.
//! An install-config.yaml (`apiVersion: v1`, no `kind`) is read as the
//! objects the installer writes from it ([`install_config`]). Documents of
//! other kinds are counted, not read. A document of one of the
//! tool's kinds that does not fit its type is an error naming the file, the
//! 1-based document, its first line, the object and the field.
//!
//! YAML is read as Kubernetes tooling reads it in the places that matter
//! here: `0644` is octal (420, Ignition file modes), and only
//! `true`/`false` are booleans (`yes`, `on` stay strings).
//!
//! Nothing here reads a file: the reading (folders, stdin, must-gathers,
//! a live cluster) is the live crate's, which hands the text to
//! [`stage_file`] and [`apply`].

mod chunks;
mod install_config;
mod kind;
mod stream;
mod strict;

use crate::objects::workload::Workload;

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_saphyr::{MessageFormatter, Spanned, UserMessageFormatter};

use crate::objects::crd_schema::{is_crd, parse_crd, CrdSchema};
use crate::objects::inputs::{upsert, Unchecked};
use crate::objects::schema::{misspelt_kind, CHECKED_KINDS};
use crate::objects::{ClusterVersion, Image, ImagePolicy, Node};
use crate::objects::{FieldError, Inputs};
use crate::origin::Origin;
use kind::{api_group, Kind, Object, NONE};
use stream::{Document, Part};

/// Why input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A file or folder could not be read.
    #[error("cannot read \"{path}\": {source}")]
    Read {
        /// The path as given or found.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A file is not UTF-8 text.
    #[error("\"{path}\" is not UTF-8 text")]
    NotUtf8 {
        /// The path as given or found.
        path: String,
    },
    /// An input is larger than [`MAX_INPUT_BYTES`] (or endless).
    #[error("\"{path}\" holds more than 256 MiB, the most one input may hold")]
    TooLarge {
        /// The path as given or found.
        path: String,
    },
    /// `-` was given more than once.
    #[error("stdin (\"-\") can be read only once")]
    StdinTwice,
    /// A document is not valid YAML.
    #[error(
        "{file}: document {document}: invalid YAML at line {line}, column {column}: {message}"
    )]
    Yaml {
        /// The file name (`<stdin>` for stdin).
        file: String,
        /// 1-based index of the document in the file.
        document: usize,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser says.
        message: String,
    },
    /// A document is not valid JSON.
    #[error(
        "{file}: document {document}: invalid JSON at line {line}, column {column}: {message}"
    )]
    Json {
        /// The file name (`<stdin>` for stdin).
        file: String,
        /// 1-based index of the document in the file.
        document: usize,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser says.
        message: String,
    },
    /// A document of one of the tool's kinds does not fit its type.
    #[error("{file}: document {document} (line {line}): {object}{at}: {message}", at = field_suffix(field))]
    Decode {
        /// The file name (`<stdin>` for stdin).
        file: String,
        /// 1-based index of the document in the file.
        document: usize,
        /// 1-based line where the document starts.
        line: usize,
        /// `Kind/name`, or `Kind (no name)`.
        object: String,
        /// Path of the offending field inside the document, e.g.
        /// `spec.imageDigestMirrors[0].mirrors`; empty for the whole object.
        field: String,
        /// What is wrong.
        message: String,
    },
}

fn field_suffix(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!(": {field}")
    }
}

/// Key of [`Inputs::skipped`] for documents with neither `apiVersion` nor `kind`.
const NO_KIND: &str = "<none>/<none>";
const REGISTRIES_CONF_HINT: &str =
    " (the file looks like a registries.conf, which is TOML: pass it with --registries-conf)";

/// Whether text looks like containers-registries.conf(5) rather than YAML.
fn looks_like_registries_conf(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("[[registry]]")
            || l.starts_with("[registries.")
            || l.starts_with("unqualified-search-registries")
            || l.starts_with("short-name-mode")
    })
}

impl Object {
    /// The object's label, `Kind/name` (see [`Origin::object`]).
    fn origin(&self) -> Origin {
        match self {
            Self::Icsp(o) => o.origin(),
            Self::Idms(o) => o.origin(),
            Self::Itms(o) => o.origin(),
            Self::Image(o) => o.origin(),
            Self::ClusterVersion(o) => o.origin(),
            Self::ClusterImagePolicy(o) => o.origin(),
            Self::ImagePolicy(o) => o.origin(),
            Self::MachineConfig(o) => o.origin(),
            Self::MachineConfigPool(o) => o.origin(),
            Self::Node(o) => o.origin(),
            Self::Workload(w) => Origin::from(w.label()),
        }
    }
}

/// Where a document sits, for messages.
#[derive(Clone, Copy)]
struct DocumentAt<'a> {
    file: &'a str,
    document: usize,
    line: usize,
    /// A page of objects listed from a cluster: `file` names the resource
    /// and server, and document and line mean nothing to the user.
    listed: bool,
}

impl DocumentAt<'_> {
    /// Where an object (`item`: its path in a list, or empty) was read.
    fn location(&self, item: &str) -> Origin {
        if self.listed {
            return Origin::from(self.file);
        }
        // `file:line`, as editors and compilers name a place in a file.
        let at = Origin::file_line(self.file, self.line);
        if item.is_empty() {
            at
        } else {
            Origin::from(format!("{at} ({item})"))
        }
    }

    /// What the API server would refuse about the document's object.
    fn refusal(
        &self,
        item: &str,
        object: &str,
        field: &str,
        value: &str,
        message: String,
    ) -> FieldError {
        FieldError {
            object: Origin::from(object),
            file: Some(self.location(item)),
            field: field.to_string(),
            value: value.to_string(),
            message,
        }
    }

    /// A document (not a list item) that does not decode: `object` at `field`.
    fn decode_error(&self, object: &str, field: String, message: String) -> SourceError {
        SourceError::Decode {
            file: self.file.to_string(),
            document: self.document,
            line: self.line,
            object: object.to_string(),
            field,
            message,
        }
    }

    fn warning(&self, item: &str, message: &str) -> String {
        let item = if item.is_empty() {
            String::new()
        } else {
            format!(", {item}")
        };
        format!("{}: document {}{item}: {message}", self.file, self.document)
    }
}

/// The kinds documents are read as, as messages name them: the cluster
/// objects', then `InstallConfig` (install-config.yaml, which has no
/// `kind`: recognised by its shape).
pub fn kinds_read() -> Vec<&'static str> {
    Kind::ALL
        .iter()
        .map(|k| k.spec().kind)
        .chain([crate::objects::install_config::KIND])
        .collect()
}

/// Reads every document of one file (`name` is used in messages only).
///
/// Pure: nothing is read from disk. Either every document is added to
/// `inputs`, or none is and the error says which document is wrong.
pub fn parse_documents(name: &str, text: &str, inputs: &mut Inputs) -> Result<(), SourceError> {
    parse_documents_with(name, text, inputs, false)
}

/// [`parse_documents`], also reading the objects that reference images
/// when `workloads` is set.
pub fn parse_documents_with(
    name: &str,
    text: &str,
    inputs: &mut Inputs,
    workloads: bool,
) -> Result<(), SourceError> {
    let staged = stage_file(name, text, Reading::lenient(workloads))?;
    apply(staged, inputs);
    Ok(())
}

/// [`parse_documents_with`] for a page of objects listed from a cluster
/// (`name`: the resource and server): objects are said to come from there.
pub fn parse_listed(
    name: &str,
    text: &str,
    inputs: &mut Inputs,
    workloads: bool,
) -> Result<(), SourceError> {
    let reading = Reading {
        listed: true,
        ..Reading::lenient(workloads)
    };
    let staged = stage_file(name, text, reading)?;
    apply(staged, inputs);
    Ok(())
}

/// How a file is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reading {
    /// Whether objects that reference images are read (else skipped).
    pub workloads: bool,
    /// Whether every field is checked against the kind's CRD (what kubectl's
    /// `--validate=strict` refuses): read through `Value`s, which costs time
    /// on very large files, so only where the user is about to apply.
    pub strict: bool,
    /// A page listed from a cluster (see [`DocumentAt::listed`]).
    pub listed: bool,
    /// Threads one large YAML file may be parsed on (its runs of
    /// documents, [`chunks`]); 0 or 1: one.
    pub threads: usize,
}

impl Reading {
    fn lenient(workloads: bool) -> Self {
        Self {
            workloads,
            ..Self::default()
        }
    }
}

/// Reads one file's documents, without touching [`Inputs`] yet.
pub fn stage_file<'a>(
    name: &'a str,
    text: &str,
    reading: Reading,
) -> Result<Staged<'a>, SourceError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let streamed = if reading.strict {
        None
    } else {
        stage_stream(name, text, reading)
    };
    let mut staged = match streamed {
        Some(staged) => staged,
        None => stage_values(name, text, reading)?,
    };
    if !staged.install_configs.is_empty() {
        install_config::trace_lines(&mut staged, text, is_json(name, text));
    }
    if staged.objects.is_empty()
        && staged.skipped.iter().any(|(k, _)| k == NO_KIND)
        && looks_like_registries_conf(text)
    {
        staged.warnings.push(format!(
            "{name}: read no cluster object{REGISTRIES_CONF_HINT}"
        ));
    }
    Ok(staged)
}

/// Adds what a file held, in order.
pub fn apply(staged: Staged<'_>, inputs: &mut Inputs) {
    for (kind, count) in staged.skipped {
        *inputs.skipped.entry(kind).or_default() += count;
    }
    inputs.warnings.extend(staged.warnings);
    inputs.refused.extend(staged.refused);
    inputs.crds.extend(staged.crds);
    inputs.crd_problems.extend(staged.crd_problems);
    inputs.unchecked.extend(staged.unchecked);
    for (object, at, item) in staged.objects {
        add_object(object, &at, &item, inputs);
    }
    for pending in staged.install_configs {
        install_config::apply(pending, inputs);
    }
}

/// Stages a YAML file in one pass, each document decoded straight into its
/// typed object ([`stream`]). `None` for JSON, for a file that does
/// not read (the caller's [`stage_values`] then says why) and for the rare
/// document that must be read as a whole `Value` first.
fn stage_stream<'a>(name: &'a str, text: &str, reading: Reading) -> Option<Staged<'a>> {
    if is_json(name, text) {
        return None;
    }
    let docs: Vec<(usize, Vec<Part>)> = if reading.workloads {
        chunks::parse_documents(text, reading.threads, stream_documents::<true>)?
    } else {
        chunks::parse_documents(text, reading.threads, stream_documents::<false>)?
    };
    let starts = document_start_lines(text);
    let index = |line: usize| starts.partition_point(|&s| s <= line).max(1);
    let mut staged = Staged {
        reading,
        ..Staged::default()
    };
    for (line, parts) in docs {
        let at = DocumentAt {
            file: name,
            document: index(line),
            line,
            listed: reading.listed,
        };
        for part in parts {
            match part {
                Part::Object(object, item) => staged.objects.push((*object, at, item)),
                Part::Skip(key) => staged.skipped.push((key, 1)),
                Part::Value(value, item) => stage_value(value, &at, &item, &mut staged).ok()?,
                Part::Whole => return None,
            }
        }
    }
    Some(staged)
}

fn stream_documents<const W: bool>(text: &str) -> Option<Vec<(usize, Vec<Part>)>> {
    let docs: Vec<Spanned<Document<W>>> =
        serde_saphyr::from_multiple_with_options(text, yaml_options(text)).ok()?;
    Some(
        docs.into_iter()
            .map(|d| (d.referenced.line() as usize, d.value.0))
            .collect(),
    )
}

/// Stages every document of a file from its `Value`: JSON, and YAML that
/// [`stage_stream`] leaves. Its errors are the ones reported.
fn stage_values<'a>(
    name: &'a str,
    text: &str,
    reading: Reading,
) -> Result<Staged<'a>, SourceError> {
    let mut staged = Staged {
        reading,
        ..Staged::default()
    };
    for (document, line, value) in split_documents(name, text)? {
        let at = DocumentAt {
            file: name,
            document,
            line,
            listed: reading.listed,
        };
        stage_value(value, &at, "", &mut staged)?;
    }
    Ok(staged)
}

/// Whether a file is read as JSON: a `.json` name, or text that starts like
/// JSON and parses as JSON (YAML flow style also starts with `{`).
fn is_json(name: &str, text: &str) -> bool {
    if name.to_ascii_lowercase().ends_with(".json") {
        return true;
    }
    matches!(text.trim_start().chars().next(), Some('{' | '['))
        && serde_json::Deserializer::from_str(text)
            .into_iter::<serde::de::IgnoredAny>()
            .all(|d| d.is_ok())
}

/// The documents of a stream as Kubernetes' `YAMLOrJSONDecoder` reads
/// them (what operator-registry reads a catalog file with): a JSON stream
/// when the text opens with `{`, else a YAML multi-document stream; each
/// `(1-based document index, first line, value)`.
pub fn split_yaml_or_json_stream(
    name: &str,
    text: &str,
) -> Result<Vec<(usize, usize, Value)>, SourceError> {
    if text.trim_start().starts_with('{') {
        split_json(name, text)
    } else {
        split_yaml_full(name, text)
    }
}

/// `(1-based document index, first line, value)` for each non-empty document.
fn split_documents(name: &str, text: &str) -> Result<Vec<(usize, usize, Value)>, SourceError> {
    let looks_like_json = matches!(text.trim_start().chars().next(), Some('{' | '['));
    let is_json_file = name.to_ascii_lowercase().ends_with(".json");
    if looks_like_json || is_json_file {
        match split_json(name, text) {
            Ok(docs) => return Ok(docs),
            // YAML flow style also starts with `{`; only a `.json` file must be JSON.
            Err(e) if is_json_file => return Err(e),
            Err(_) => {}
        }
    }
    split_yaml_full(name, text)
}

fn split_json(name: &str, text: &str) -> Result<Vec<(usize, usize, Value)>, SourceError> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut docs = Vec::new();
    let mut document = 0;
    loop {
        let start = stream.byte_offset();
        let Some(next) = stream.next() else { break };
        document += 1;
        match next {
            Ok(Value::Null) => {}
            Ok(value) => docs.push((document, line_of_first_token(text, start), value)),
            Err(e) => {
                return Err(SourceError::Json {
                    file: name.to_string(),
                    document,
                    line: e.line(),
                    column: e.column(),
                    message: json_message(&e),
                })
            }
        }
    }
    Ok(docs)
}

/// serde_json's message without its " at line L column C" suffix.
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

fn line_of_first_token(text: &str, offset: usize) -> usize {
    let rest = &text[offset..];
    let skipped = rest.len() - rest.trim_start().len();
    1 + text[..offset + skipped].matches('\n').count()
}

fn yaml_options(text: &str) -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.legacy_octal_numbers = true;
    options.with_snippet = false;
    options.emit_comments = false;
    options.budget = Some(yaml_budget(text));
    options
}

/// serde-saphyr's budget for `text`. The default is sized for configuration
/// files; oc-mirror output and must-gather lists are larger. Every node,
/// event and document costs at least a byte of input, so the input length
/// bounds them anyway.
pub fn yaml_budget(text: &str) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    let bound = text.len().saturating_mul(2).saturating_add(1_000_000);
    budget.max_events = bound;
    budget.max_nodes = bound;
    budget.max_documents = bound;
    budget.max_total_scalar_bytes = bound;
    budget
}

/// Every YAML document of a file as a `Value` (serde-saphyr).
fn split_yaml_full(name: &str, text: &str) -> Result<Vec<(usize, usize, Value)>, SourceError> {
    let starts = document_start_lines(text);
    let index = |line: usize| starts.partition_point(|&s| s <= line).max(1);
    let docs: Vec<Spanned<Value>> =
        serde_saphyr::from_multiple_with_options(text, yaml_options(text)).map_err(|e| {
            let (line, column) = e
                .location()
                .map_or((0, 0), |l| (l.line() as usize, l.column() as usize));
            let mut message = UserMessageFormatter.format_message(&e).into_owned();
            if text
                .lines()
                .nth(line.saturating_sub(1))
                .is_some_and(|l| l.contains("{{"))
            {
                message.push_str(
                    " (the line holds a \"{{ }}\" template placeholder; render the template first)",
                );
            } else if looks_like_registries_conf(text) {
                message.push_str(REGISTRIES_CONF_HINT);
            }
            SourceError::Yaml {
                file: name.to_string(),
                document: index(line),
                line,
                column,
                message,
            }
        })?;
    Ok(docs
        .into_iter()
        .map(|d| {
            let line = d.referenced.line() as usize;
            (index(line), line, d.value)
        })
        .collect())
}

/// The first line of every YAML document, empty ones included, so that a
/// line can be turned into the document number a reader would count.
fn document_start_lines(text: &str) -> Vec<usize> {
    let is_marker = |l: &str, m: &str| {
        l.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
    };
    let mut starts = Vec::new();
    let mut in_document = false;
    for (i, line) in lines(text).enumerate() {
        // Inside a document only a marker line matters; nearly every line
        // of a large file is one of its indented lines.
        if in_document && !line.starts_with(['-', '.']) {
            continue;
        }
        let n = i + 1;
        if is_marker(line, "---") {
            starts.push(n);
            in_document = true;
        } else if is_marker(line, "...") {
            in_document = false;
        } else if !in_document {
            let t = line.trim();
            if !(t.is_empty() || t.starts_with('#') || line.starts_with('%')) {
                starts.push(n);
                in_document = true;
            }
        }
    }
    starts
}

/// The lines of `text` exactly as `str::lines` gives them, found with
/// memchr: this walks every line of inputs of hundreds of megabytes.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(|end| (end, true))
        .chain(std::iter::once((text.len(), false)))
        .filter_map(move |(end, newline)| {
            if !newline && start >= text.len() {
                return None;
            }
            // `end` is at a `\n` or the end: both are character boundaries.
            let line = &text[start..end];
            start = end + 1;
            Some(match newline {
                true => line.strip_suffix('\r').unwrap_or(line),
                false => line,
            })
        })
}

#[derive(Default)]
pub struct Staged<'a> {
    reading: Reading,
    objects: Vec<(Object, DocumentAt<'a>, String)>,
    skipped: Vec<(String, usize)>,
    warnings: Vec<String>,
    refused: Vec<FieldError>,
    crds: Vec<CrdSchema>,
    crd_problems: Vec<String>,
    unchecked: Vec<Unchecked>,
    install_configs: Vec<install_config::Pending<'a>>,
}

fn str_member<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// Stages one document, or one item of a list at the field path `item`:
/// an object of a kind the tool reads (with any refusal of its
/// `apiVersion` or, when strict, its unknown fields), each item of a list,
/// a workload, or a skip, warning or refusal saying why it was not read.
fn stage_value<'a>(
    value: Value,
    at: &DocumentAt<'a>,
    item: &str,
    staged: &mut Staged<'a>,
) -> Result<(), SourceError> {
    let api_version = str_member(&value, "apiVersion").map(str::to_string);
    let kind = str_member(&value, "kind").map(str::to_string);
    let skip = |staged: &mut Staged<'a>| {
        let key = format!(
            "{}/{}",
            api_version.as_deref().unwrap_or(NONE),
            kind.as_deref().unwrap_or(NONE)
        );
        staged.skipped.push((key, 1));
    };
    let (api, kind_of) = (api_version.as_deref(), kind.as_deref());
    let Some(value) = install_config::stage(value, api, kind_of, at, item, staged)? else {
        return Ok(());
    };
    let Some(kind_name) = kind.as_deref() else {
        if item.is_empty() && api.is_none() {
            warn_headerless(&value, at, staged);
        }
        skip(staged);
        return Ok(());
    };
    let is_list = kind_name == "List"
        || (kind_name.ends_with("List") && value.get("items").is_some_and(Value::is_array));
    if is_list {
        return stage_list(value, kind_name, api, at, item, staged);
    }
    if staged.reading.workloads {
        if let Some(workload) =
            api.and_then(|api| crate::objects::workload::workload_kind(api, kind_name))
        {
            return stage_workload(workload, &value, kind_name, at, item, staged);
        }
    }
    let label = object_label(&value, kind_name);
    let Some(known) = Kind::from_name(kind_name) else {
        stage_unread(&value, kind_name, api, &label, at, item, staged);
        skip(staged);
        return Ok(());
    };
    let api_refusal = match check_api_version(known, kind_name, api) {
        ApiVersionCheck::Served => None,
        ApiVersionCheck::Refused { api, message } => Some((api, message)),
        ApiVersionCheck::OtherKind => {
            skip(staged);
            return Ok(());
        }
    };
    let object = decode_object(known, &value, |field, message| SourceError::Decode {
        file: at.file.to_string(),
        document: at.document,
        line: at.line,
        object: label.clone(),
        field: join_path(item, &field),
        message,
    })?;
    if let Some((api, message)) = api_refusal {
        let refusal = at.refusal(item, object.origin().as_str(), "apiVersion", &api, message);
        staged.refused.push(refusal);
    }
    if staged.reading.strict {
        let group = api_group(api.unwrap_or_default());
        let origin = object.origin();
        let pending = unchecked(kind_name, group, origin, at, item, value);
        staged.unchecked.push(pending);
    }
    staged.objects.push((object, *at, item.to_string()));
    Ok(())
}

/// An object read strictly, for its fields to be checked once every file
/// is read.
fn unchecked(
    kind: &str,
    group: &str,
    object: Origin,
    at: &DocumentAt<'_>,
    item: &str,
    value: Value,
) -> Unchecked {
    Unchecked {
        kind: kind.to_string(),
        group: group.to_string(),
        object,
        file: at.location(item),
        value,
    }
}

/// What a document of a kind the tool does not read still gives: a
/// refusal when its kind is a misspelt one; when reading strictly, a CustomResourceDefinition of a checked kind (its field
/// tree), or an object of a checked kind the tool does not model
/// (ContainerRuntimeConfig), whose fields are checked all the same.
fn stage_unread(
    value: &Value,
    kind_name: &str,
    api_version: Option<&str>,
    label: &str,
    at: &DocumentAt<'_>,
    item: &str,
    staged: &mut Staged<'_>,
) {
    refuse_misspelt_kind(kind_name, api_version, label, at, item, staged);
    if !staged.reading.strict {
        return;
    }
    if is_crd(value) {
        let checked = value
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            .is_some_and(|k| CHECKED_KINDS.contains(&k));
        if checked {
            match parse_crd(value, at.location(item).as_str()) {
                Ok(crd) => staged.crds.push(crd),
                Err(e) => {
                    staged.warnings.push(format!(
                        "{e}; its kind is checked against the tool's own field tree"
                    ));
                    staged.crd_problems.push(e);
                }
            }
        }
        return;
    }
    let group = api_group(api_version.unwrap_or_default());
    if CHECKED_KINDS.contains(&kind_name) && group == crate::kinds::MACHINE_CONFIG.group {
        let object = Origin::from(label);
        staged
            .unchecked
            .push(unchecked(kind_name, group, object, at, item, value.clone()));
    }
}

/// `Kind/name` for messages about an object, or `Kind (no name)`.
fn object_label(value: &Value, kind_name: &str) -> String {
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if name.is_empty() {
        format!("{kind_name} (no name)")
    } else {
        format!("{kind_name}/{name}")
    }
}

/// Warns about a whole document with neither `apiVersion` nor `kind` that
/// looks like something the user meant to pass: a containers policy.json,
/// or a headerless merge patch of `Image/cluster`.
fn warn_headerless(value: &Value, at: &DocumentAt<'_>, staged: &mut Staged<'_>) {
    let item = "";
    let policy_keys = value
        .as_object()
        .is_some_and(|o| o.contains_key("transports") || o.contains_key("default"));
    if policy_keys {
        staged.warnings.push(at.warning(
            item,
            "read no cluster object: this looks like a containers policy.json; pass it with --policy-json",
        ));
    } else if let Some(field) = image_patch_field(value) {
        staged.warnings.push(at.warning(
            item,
            &format!(
                "read no cluster object: this is a headerless patch of Image/cluster ({field}), \
                 as applied with `patch image.config.openshift.io/cluster --type=merge`; \
                 to read it, add `apiVersion: {}`, `kind: Image` and `metadata: {{name: cluster}}`",
                crate::kinds::IMAGE.api_version()
            ),
        ));
    }
}

/// Stages each item of a list (`List`, or `<Kind>List` with an `items`
/// array), giving items without them the list's item kind and
/// `apiVersion`.
fn stage_list<'a>(
    mut value: Value,
    kind_name: &str,
    api_version: Option<&str>,
    at: &DocumentAt<'a>,
    item: &str,
    staged: &mut Staged<'a>,
) -> Result<(), SourceError> {
    let Some(Value::Array(items)) = value.get_mut("items").map(Value::take) else {
        return Ok(());
    };
    let item_kind = kind_name.strip_suffix("List").filter(|k| !k.is_empty());
    for (i, mut entry) in items.into_iter().enumerate() {
        if let (Some(object), Some(item_kind)) = (entry.as_object_mut(), item_kind) {
            object
                .entry("kind")
                .or_insert_with(|| Value::String(item_kind.to_string()));
            if let Some(api) = api_version {
                object
                    .entry("apiVersion")
                    .or_insert_with(|| Value::String(api.to_string()));
            }
        }
        let path = join_path(item, &format!("items[{i}]"));
        stage_value(entry, at, &path, staged)?;
    }
    Ok(())
}

/// Stages a workload (read with `--workloads`) for the images it runs;
/// one it holds none of is dropped.
fn stage_workload<'a>(
    workload: &'static crate::objects::workload::WorkloadKind,
    value: &Value,
    kind_name: &str,
    at: &DocumentAt<'a>,
    item: &str,
    staged: &mut Staged<'a>,
) -> Result<(), SourceError> {
    let name = value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let read =
        crate::objects::workload::workload_from(workload, value).map_err(|(field, message)| {
            SourceError::Decode {
                file: at.file.to_string(),
                document: at.document,
                line: at.line,
                object: format!("{kind_name}/{name}"),
                field: join_path(item, &field),
                message,
            }
        })?;
    if let Some(w) = read {
        staged
            .objects
            .push((Object::Workload(w), *at, item.to_string()));
    }
    Ok(())
}

/// Refuses an object whose kind is one letter or a case away from one of
/// the tool's, in an OpenShift group (or none): the user meant that kind,
/// and the API server serves no such thing.
fn refuse_misspelt_kind(
    kind_name: &str,
    api_version: Option<&str>,
    label: &str,
    at: &DocumentAt<'_>,
    item: &str,
    staged: &mut Staged<'_>,
) {
    let openshift_group = api_version.is_none_or(|api| api_group(api).ends_with("openshift.io"));
    if let Some(meant) = misspelt_kind(kind_name).filter(|_| openshift_group) {
        staged.refused.push(at.refusal(
            item,
            label,
            "kind",
            kind_name,
            format!("is not a kind the API server serves (did you mean \"{meant}\"?); the object was not read"),
        ));
    }
}

/// What an object's `apiVersion` says about reading it as a known kind.
enum ApiVersionCheck {
    /// One the kind is served under.
    Served,
    /// Missing, or a version of the kind's group the API server does not
    /// serve it under: read all the same, and refused with this value and
    /// message.
    Refused { api: String, message: String },
    /// Another group's kind of the same name: not one of the tool's.
    OtherKind,
}

/// Checks `api_version` against the versions `known` is served under.
fn check_api_version(known: Kind, kind_name: &str, api_version: Option<&str>) -> ApiVersionCheck {
    let spec = known.spec();
    let preferred = || spec.api_versions().next().unwrap_or_default();
    match api_version {
        Some(api) if spec.serves(api) => ApiVersionCheck::Served,
        None => ApiVersionCheck::Refused {
            api: String::new(),
            message: format!("is required; read as \"{}\"", preferred()),
        },
        Some(api) if known.read_under_wrong_version(api) => ApiVersionCheck::Refused {
            api: api.to_string(),
            message: format!(
                "is not served for {kind_name}, which is served as {}; read as \"{}\"",
                spec.api_versions()
                    .map(|v| format!("\"{v}\""))
                    .collect::<Vec<_>>()
                    .join(" or "),
                preferred()
            ),
        },
        Some(_) => ApiVersionCheck::OtherKind,
    }
}

/// Decodes `value` as the typed object of kind `known`; a field that does
/// not fit becomes the error `decode_err` makes of its path and message.
fn decode_object(
    known: Kind,
    value: &Value,
    decode_err: impl Fn(String, String) -> SourceError,
) -> Result<Object, SourceError> {
    let err = |(f, m)| decode_err(f, m);
    Ok(match known {
        Kind::Icsp => Object::Icsp(decode(value).map_err(err)?),
        Kind::Idms => Object::Idms(decode(value).map_err(err)?),
        Kind::Itms => Object::Itms(decode(value).map_err(err)?),
        Kind::Image => Object::Image(decode(value).map_err(err)?),
        Kind::ClusterVersion => Object::ClusterVersion(decode(value).map_err(err)?),
        Kind::ClusterImagePolicy => Object::ClusterImagePolicy(decode(value).map_err(err)?),
        Kind::ImagePolicy => Object::ImagePolicy(decode(value).map_err(err)?),
        Kind::MachineConfig => Object::MachineConfig(decode(value).map_err(err)?),
        Kind::MachineConfigPool => Object::MachineConfigPool(decode(value).map_err(err)?),
        Kind::Node => Object::Node(
            decode::<k8s_openapi::api::core::v1::Node>(value)
                .map(Node::from)
                .map_err(err)?,
        ),
    })
}

/// The Image spec field a headerless document sets, when it is nothing
/// else: a merge patch of `Image/cluster` (`spec:` and at most `metadata:`).
fn image_patch_field(value: &Value) -> Option<String> {
    const IMAGE_SPEC: [&str; 5] = [
        "registrySources",
        "allowedRegistriesForImport",
        "additionalTrustedCA",
        "externalRegistryHostnames",
        "imageStreamImportMode",
    ];
    let object = value.as_object()?;
    if object.keys().any(|k| k != "spec" && k != "metadata") {
        return None;
    }
    let spec = object.get("spec")?.as_object()?;
    let field = spec.keys().find(|k| IMAGE_SPEC.contains(&k.as_str()))?;
    Some(format!("spec.{field}"))
}

/// Joins field paths the way the API server prints them: `a.b`, `a[0]`,
/// and `a[key.with.dots]` for map keys that are not plain words.
fn join_path(base: &str, next: &str) -> String {
    match (base.is_empty(), next.is_empty()) {
        (_, true) => base.to_string(),
        (true, false) => next.to_string(),
        (false, false) if next.starts_with('[') => format!("{base}{next}"),
        (false, false) => format!("{base}.{next}"),
    }
}

fn key_segment(key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        key.to_string()
    } else {
        format!("[{key}]")
    }
}

/// Deserializes a typed object; on failure returns the path of the field
/// that does not fit and serde's message.
fn decode<T: DeserializeOwned>(value: &Value) -> Result<T, (String, String)> {
    match T::deserialize(value) {
        Ok(t) => Ok(t),
        Err(e) => Err((locate_decode_error::<T>(value), e.to_string())),
    }
}

/// Finds the field a decoding error is about: serde_json reports positions
/// only when reading text, so the value is printed with one member per line
/// and the error's line is mapped back to the member's path.
fn locate_decode_error<T: DeserializeOwned>(value: &Value) -> String {
    fn walk(value: &Value, path: &str, lines: &mut Vec<String>) {
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (key, child) in map {
                    let p = join_path(path, &key_segment(key));
                    lines.push(p.clone());
                    walk(child, &p, lines);
                }
                lines.push(path.to_string());
            }
            Value::Array(items) if !items.is_empty() => {
                for (i, child) in items.iter().enumerate() {
                    let p = join_path(path, &format!("[{i}]"));
                    lines.push(p.clone());
                    walk(child, &p, lines);
                }
                lines.push(path.to_string());
            }
            _ => {}
        }
    }
    let Ok(pretty) = serde_json::to_string_pretty(value) else {
        return String::new();
    };
    let Err(e) = serde_json::from_str::<T>(&pretty) else {
        return String::new();
    };
    let mut lines = vec![String::new()];
    walk(value, "", &mut lines);
    e.line()
        .checked_sub(1)
        .and_then(|i| lines.get(i))
        .cloned()
        .unwrap_or_default()
}

/// Adds one staged object to `inputs`, remembering where it was read; a
/// later copy of an object replaces an earlier one, with a warning when
/// their contents differ.
fn add_object(object: Object, at: &DocumentAt<'_>, item: &str, inputs: &mut Inputs) {
    let Some((label, identical)) = store_object(object, at, item, inputs) else {
        return;
    };
    if !identical {
        inputs.warnings.push(at.warning(
            item,
            &format!(
                "{label} was already read with different content; this later copy replaces it"
            ),
        ));
    }
    if !inputs.generated.is_empty() {
        // Read as itself now, not as the installer writes it.
        inputs.generated.retain(|g| g.object != label);
    }
    inputs.read_from.insert(label, at.location(item));
}

/// Stores `object` in its collection of `inputs`, keyed by its identity;
/// returns its label and whether any copy it replaced was identical, or
/// `None` (with a warning) when it is one the MCO ignores.
fn store_object(
    object: Object,
    at: &DocumentAt<'_>,
    item: &str,
    inputs: &mut Inputs,
) -> Option<(Origin, bool)> {
    const NAME: &str = "name";
    let index = &mut inputs.index;
    Some(match object {
        Object::Icsp(o) => (
            o.origin(),
            upsert(&mut inputs.icsps, &mut index.icsps, o, NAME, |o| {
                o.metadata.name.clone()
            }),
        ),
        Object::Idms(o) => (
            o.origin(),
            upsert(&mut inputs.idmss, &mut index.idmss, o, NAME, |o| {
                o.metadata.name.clone()
            }),
        ),
        Object::Itms(o) => (
            o.origin(),
            upsert(&mut inputs.itmss, &mut index.itmss, o, NAME, |o| {
                o.metadata.name.clone()
            }),
        ),
        Object::ClusterImagePolicy(o) => (
            o.origin(),
            upsert(
                &mut inputs.cluster_image_policies,
                &mut index.cluster_image_policies,
                o,
                NAME,
                |o| o.metadata.name.clone(),
            ),
        ),
        Object::ImagePolicy(o) => store_image_policy(o, at, item, inputs),
        Object::MachineConfig(o) => (
            o.origin(),
            upsert(
                &mut inputs.machine_configs,
                &mut index.machine_configs,
                o,
                NAME,
                |o| o.metadata.name.clone(),
            ),
        ),
        Object::MachineConfigPool(o) => (
            o.origin(),
            upsert(&mut inputs.pools, &mut index.pools, o, NAME, |o| {
                o.metadata.name.clone()
            }),
        ),
        Object::Node(o) => (
            o.origin(),
            upsert(&mut inputs.nodes, &mut index.nodes, o, NAME, |o| {
                o.metadata.name.clone()
            }),
        ),
        Object::Workload(w) => store_workload(w, inputs),
        Object::Image(o) => store_image(o, at, item, inputs)?,
        Object::ClusterVersion(o) => store_cluster_version(o, at, item, inputs)?,
    })
}

/// Stores an ImagePolicy by namespace and name, warning when it has no
/// namespace (applied, it would land in the current context's).
fn store_image_policy(
    o: ImagePolicy,
    at: &DocumentAt<'_>,
    item: &str,
    inputs: &mut Inputs,
) -> (Origin, bool) {
    if o.metadata
        .namespace
        .as_deref()
        .unwrap_or_default()
        .is_empty()
    {
        inputs.warnings.push(at.warning(
            item,
            &format!(
                "{} has no metadata.namespace; applied, it would be created in the namespace of the current kubeconfig context",
                o.origin()
            ),
        ));
    }
    (
        o.origin(),
        upsert(
            &mut inputs.image_policies,
            &mut inputs.index.image_policies,
            o,
            "namespace/name",
            |o| format!("{:?}\0{}", o.metadata.namespace, o.metadata.name),
        ),
    )
}

/// Stores a workload by kind, namespace and name.
fn store_workload(w: Workload, inputs: &mut Inputs) -> (Origin, bool) {
    let label = w.label();
    let identical = upsert(
        &mut inputs.workloads,
        &mut inputs.index.workloads,
        w,
        "kind/namespace/name",
        |w| format!("{}\0{}\0{}", w.kind, w.namespace, w.name),
    );
    (label.into(), identical)
}

/// Stores `Image/cluster`; any other Image is ignored with a warning.
fn store_image(
    o: Image,
    at: &DocumentAt<'_>,
    item: &str,
    inputs: &mut Inputs,
) -> Option<(Origin, bool)> {
    if o.metadata.name != Image::CLUSTER {
        inputs.warnings.push(at.warning(
            item,
            &format!(
                "{} is ignored: the MCO reads only Image/cluster",
                o.origin()
            ),
        ));
        return None;
    }
    let label = o.origin();
    let identical = replace_single(&mut inputs.image, o);
    Some((label, identical))
}

/// Stores `ClusterVersion/version`; any other ClusterVersion is ignored
/// with a warning.
fn store_cluster_version(
    o: ClusterVersion,
    at: &DocumentAt<'_>,
    item: &str,
    inputs: &mut Inputs,
) -> Option<(Origin, bool)> {
    if o.metadata.name != ClusterVersion::VERSION {
        inputs.warnings.push(at.warning(
            item,
            &format!(
                "{} is ignored: only ClusterVersion/version names the release",
                o.origin()
            ),
        ));
        return None;
    }
    let label = o.origin();
    let identical = replace_single(&mut inputs.cluster_version, o);
    Some((label, identical))
}

fn replace_single<T: PartialEq>(slot: &mut Option<T>, item: T) -> bool {
    let identical = slot.as_ref().is_none_or(|existing| *existing == item);
    *slot = Some(item);
    identical
}

/// Every ConfigMap of one of `namespaces` in the text of one file (`name`,
/// for messages and origins), as `(where it was read, object)`; the items
/// of a list count. A text that names neither `ConfigMap` nor one of the
/// namespaces is not parsed.
pub fn config_maps_in(
    name: &str,
    text: &str,
    namespaces: &[&str],
) -> Result<Vec<(String, Value)>, SourceError> {
    let mut maps = Vec::new();
    if !text.contains("ConfigMap") || !namespaces.iter().any(|ns| text.contains(ns)) {
        return Ok(maps);
    }
    for (document, _, value) in split_documents(name, text)? {
        let at = format!("{name} document {document}");
        collect_config_maps(&value, &at, namespaces, &mut maps);
    }
    Ok(maps)
}

/// Every object of one of `kinds` (`kind` as written) in the text of one
/// file (`name`, for messages and origins), as `(where it was read,
/// object)`; the items of a list count. A text that names none of the kinds
/// is not parsed. For the kinds the tool reads only as JSON (OLM's
/// Subscriptions, CatalogSources, ClusterServiceVersions).
pub fn objects_in(
    name: &str,
    text: &str,
    kinds: &[&str],
) -> Result<Vec<(String, Value)>, SourceError> {
    let mut found = Vec::new();
    if !kinds.iter().any(|k| text.contains(k)) {
        return Ok(found);
    }
    for (document, line, value) in split_documents(name, text)? {
        let at = format!("{name} document {document} (line {line})");
        collect_kinds(&value, &at, kinds, &mut found);
    }
    Ok(found)
}

fn collect_kinds(value: &Value, at: &str, kinds: &[&str], out: &mut Vec<(String, Value)>) {
    match str_member(value, "kind") {
        Some(kind) if kinds.contains(&kind) => out.push((at.to_string(), value.clone())),
        Some(kind) if kind.ends_with("List") => {
            let items = value.get("items").and_then(Value::as_array);
            for (i, item) in items.into_iter().flatten().enumerate() {
                let kind = kind.trim_end_matches("List");
                let mut item = item.clone();
                if str_member(&item, "kind").is_none() && !kind.is_empty() {
                    item["kind"] = Value::String(kind.to_string());
                }
                collect_kinds(&item, &format!("{at} (items[{i}])"), kinds, out);
            }
        }
        _ => {}
    }
}

fn collect_config_maps(
    value: &Value,
    at: &str,
    namespaces: &[&str],
    out: &mut Vec<(String, Value)>,
) {
    match str_member(value, "kind") {
        Some("ConfigMap") => {
            let ns = value
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if namespaces.contains(&ns) {
                out.push((at.to_string(), value.clone()));
            }
        }
        Some(kind) if kind.ends_with("List") => {
            let items = value.get("items").and_then(Value::as_array);
            for (i, item) in items.into_iter().flatten().enumerate() {
                collect_config_maps(item, &format!("{at} (items[{i}])"), namespaces, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The repository's top folder (examples, fixtures).
    fn workspace_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    /// The YAML and JSON files under `dir`, depth-first in sorted order.
    fn manifest_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                manifest_files(&path, out);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ["yaml", "yml", "json"].contains(&e.to_ascii_lowercase().as_str()))
            {
                out.push(path);
            }
        }
    }

    use super::*;

    fn parse(name: &str, text: &str) -> Result<Inputs, SourceError> {
        let mut inputs = Inputs::default();
        parse_documents(name, text, &mut inputs).map(|()| inputs)
    }

    /// A one-line summary of what was read: kinds with counts, then skipped.
    fn summary(inputs: &Inputs) -> String {
        let mut parts = Vec::new();
        for (label, n) in [
            ("icsp", inputs.icsps.len()),
            ("idms", inputs.idmss.len()),
            ("itms", inputs.itmss.len()),
            ("image", usize::from(inputs.image.is_some())),
            ("cv", usize::from(inputs.cluster_version.is_some())),
            ("cip", inputs.cluster_image_policies.len()),
            ("ip", inputs.image_policies.len()),
            ("mc", inputs.machine_configs.len()),
            ("mcp", inputs.pools.len()),
            ("node", inputs.nodes.len()),
            ("installconfig", inputs.install_configs.len()),
        ] {
            if n > 0 {
                parts.push(format!("{label}={n}"));
            }
        }
        for (kind, n) in &inputs.skipped {
            parts.push(format!("skip {kind}={n}"));
        }
        if !inputs.warnings.is_empty() {
            parts.push(format!("warnings={}", inputs.warnings.len()));
        }
        if !inputs.refused.is_empty() {
            parts.push(format!("refused={}", inputs.refused.len()));
        }
        parts.join(" ")
    }

    const IDMS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: a\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.io/x]\n";

    /// Texts for the one-pass reader's differential test: key orders, lists,
    /// inheritance, scalar types, YAML styles.
    const STYLES: &[&str] = &[
        "kind: ImageDigestMirrorSet\napiVersion: config.openshift.io/v1\nmetadata: {name: a}\nspec: {imageDigestMirrors: [{source: q.io/x, mirrors: [m.io/x]}]}\n",
        "spec:\n  imageDigestMirrors:\n  - {source: q.io/x, mirrorSourcePolicy: NeverContactSource}\nmetadata:\n  name: late\nkind: ImageDigestMirrorSet\napiVersion: config.openshift.io/v1\n",
        "{apiVersion: config.openshift.io/v1, kind: ImageTagMirrorSet, metadata: {name: flow}, spec: {imageTagMirrors: [{source: a.io, mirrors: [b.io]}]}}\n",
        "apiVersion: v1\nitems:\n- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet\n  metadata: {name: i1}\n  spec: {}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n- metadata: {name: nokind}\nkind: List\nmetadata: {resourceVersion: \"\"}\n",
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSetList\nitems:\n- metadata: {name: inherits}\n  spec: {}\n- kind: ImageTagMirrorSet\n  metadata: {name: own-kind}\n  spec: {}\n- apiVersion: v1\n  kind: Secret\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: has-items}\nitems:\n- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet\n  metadata: {name: not-a-list-item}\n  spec: {}\n",
        "apiVersion: v1\nitems:\n- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet\n  metadata: {name: x}\n  spec: {}\nkind: Template\n",
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-x\n  labels: &l {machineconfiguration.openshift.io/role: worker}\nspec:\n  config:\n    ignition: {version: 3.2.0}\n    storage:\n      files:\n      - path: /etc/x\n        mode: 0644\n        overwrite: true\n        contents: {source: 'data:,x'}\n      - path: /etc/y\n        mode: 420\n        contents:\n          source: >-\n            data:,y\n",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {node-role.kubernetes.io/worker: \"\"}\n  annotations:\n    machineconfiguration.openshift.io/state: Done\nstatus:\n  capacity: {cpu: \"4\"}\n",
        "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec:\n  registrySources:\n    blockedRegistries: [\"a.io\", 'b.io']\n    insecureRegistries: []\n  allowedRegistriesForImport: ~\n",
        "base: &b\n  source: q.io/x\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: anchors}\nspec:\n  imageDigestMirrors:\n  - &e\n    source: q.io/y\n    mirrors: [m.io/y]\n  - *e\n",
        "apiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata: {name: p, namespace: ns}\nspec:\n  scopes: [example.com]\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey: {keyData: QQ==}\n    signedIdentity: {matchPolicy: MatchRepository}\n",
        "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nstatus:\n  desired: {version: 4.19.3}\n  history: [{version: 4.19.3, state: Completed}]\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: n}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: quay.io/x:1}]\n",
        "kind: Pod\nmetadata: {name: p, namespace: n}\napiVersion: v1\nspec: {containers: [{name: c, image: 'quay.io/y@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'}]}\n",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: \"icsp\"\n  annotations: {a: \"1\", b: 'it''s'}\nspec:\n  repositoryDigestMirrors:\n  - mirrors:\n    - m.io/x\n    source: q.io/x\n",
        "---\n--- !!map\napiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: tagged}\nspec: {}\n...\n---\n- just\n- a list\n---\n42\n",
    ];

    /// The one-pass reader gives the same objects, skips and warnings as
    /// staging each document's `Value`, for the test inputs, the examples,
    /// the shipped fixtures and, when `MIRRORPOLICY_TEST_CORPUS` names a
    /// folder of real users' files, for those.
    #[test]
    fn one_pass_reader_agrees_with_values() {
        let root = workspace_root();
        let mut texts: Vec<(String, String)> = STYLES
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("style-{i}.yaml"), t.to_string()))
            .collect();
        let mut dirs = vec![root.join("tests/fixtures"), root.join("examples")];
        if let Some(corpus) = std::env::var_os("MIRRORPOLICY_TEST_CORPUS") {
            dirs.push(PathBuf::from(corpus));
        }
        let mut files = Vec::new();
        for dir in dirs {
            manifest_files(&dir, &mut files);
        }
        for file in files {
            if let Ok(text) = std::fs::read_to_string(&file) {
                texts.push((file.display().to_string(), text));
            }
        }
        let mut streamed = 0;
        for (name, text) in &texts {
            for workloads in [false, true] {
                let Some(one_pass) = stage_stream(name, text, Reading::lenient(workloads)) else {
                    continue;
                };
                streamed += 1;
                let by_value = stage_values(name, text, Reading::lenient(workloads))
                    .unwrap_or_else(|e| panic!("{name}: one pass read it, by value: {e}"));
                let (mut a, mut b) = (Inputs::default(), Inputs::default());
                apply(one_pass, &mut a);
                apply(by_value, &mut b);
                assert_eq!(a, b, "{name} (workloads: {workloads})");
            }
        }
        assert!(
            streamed >= texts.len(),
            "one pass read only {streamed} of {} texts twice",
            texts.len()
        );
    }

    #[test]
    fn documents_are_read_by_kind() {
        let cases: Vec<(&str, String, &str)> = vec![
            ("one.yaml", IDMS.to_string(), "idms=1"),
            (
                "multi.yaml",
                format!("# header\n---\n{IDMS}---\n---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n...\n"),
                "idms=1 skip v1/ConfigMap=1",
            ),
            (
                "stream.json",
                r#"{"apiVersion":"config.openshift.io/v1","kind":"ImageTagMirrorSet","metadata":{"name":"t"},"spec":{}}
                   {"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}"#.to_string(),
                "itms=1 node=1",
            ),
            (
                "list.json",
                r#"{"apiVersion":"v1","kind":"List","items":[
                    {"apiVersion":"config.openshift.io/v1","kind":"Image","metadata":{"name":"cluster"},"spec":{}},
                    {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}]}"#.to_string(),
                "image=1 skip v1/Secret=1",
            ),
            (
                "typed-list.yaml",
                "apiVersion: config.openshift.io/v1\nkind: ClusterImagePolicyList\nitems:\n- metadata: {name: p}\n  spec:\n    scopes: [example.com]\n    policy: {rootOfTrust: {policyType: PublicKey, publicKey: {keyData: QQ==}}}\n".to_string(),
                "cip=1",
            ),
            (
                "v1alpha1.yaml",
                "apiVersion: config.openshift.io/v1alpha1\nkind: ClusterImagePolicy\nmetadata: {name: openshift}\nspec:\n  scopes: [quay.io/openshift-release-dev/ocp-release]\n  policy: {rootOfTrust: {policyType: PublicKey, publicKey: {keyData: QQ==}}}\n".to_string(),
                "cip=1",
            ),
            ("headerless.yaml", "spec:\n  registrySources:\n    allowedRegistries: [quay.io]\n".to_string(), "skip <none>/<none>=1 warnings=1"),
            ("scalar.yaml", "just text\n".to_string(), "skip <none>/<none>=1"),
            ("empty.yaml", "\n# nothing\n---\n".to_string(), ""),
            (
                "confusables.yaml",
                "apiVersion: policy.sigstore.dev/v1beta1\nkind: ClusterImagePolicy\nmetadata: {name: x}\nspec: {authorities: [{keyless: {}}]}\n---\napiVersion: image.openshift.io/v1\nkind: Image\nmetadata: {name: sha256:abc}\ndockerImageReference: quay.io/x@sha256:abc\n".to_string(),
                "skip image.openshift.io/v1/Image=1 skip policy.sigstore.dev/v1beta1/ClusterImagePolicy=1",
            ),
            (
                "wrong-group.yaml",
                IDMS.replace("config.openshift.io/v1", "operator.openshift.io/v1alpha1"),
                "idms=1 refused=1",
            ),
            ("no-api-version.yaml", IDMS.replace("apiVersion: config.openshift.io/v1\n", ""), "idms=1 refused=1"),
            (
                "image-v2.yaml",
                "apiVersion: config.openshift.io/v2\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n".to_string(),
                "image=1 refused=1",
            ),
            (
                "misspelt-kind.yaml",
                IDMS.replace("kind: ImageDigestMirrorSet", "kind: ImageDigestMirrorset"),
                "skip config.openshift.io/v1/ImageDigestMirrorset=1 refused=1",
            ),
            (
                "config-map.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n".to_string(),
                "skip v1/ConfigMap=1",
            ),
            (
                "other-image.yaml",
                "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: extra}\nspec: {}\n".to_string(),
                "warnings=1",
            ),
            (
                "not-version.yaml",
                "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: other}\n".to_string(),
                "warnings=1",
            ),
            (
                "mcp-and-mc.yaml",
                "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: worker}\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: 99-x}\nspec:\n  config:\n    ignition: {version: 3.1.0}\n    storage:\n      files:\n      - path: /etc/x\n        mode: 0644\n        filesystem: root\n        contents: {source: 'data:,x'}\n".to_string(),
                "mc=1 mcp=1",
            ),
            ("bom.yaml", format!("\u{feff}{IDMS}"), "idms=1"),
            ("duplicate.yaml", format!("{IDMS}---\n{IDMS}"), "idms=1"),
            (
                "duplicate-differs.yaml",
                format!("{IDMS}---\n{}", IDMS.replace("m.io/x", "n.io/x")),
                "idms=1 warnings=1",
            ),
            (
                "namespaceless-imagepolicy.yaml",
                "apiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata: {name: p}\nspec:\n  scopes: [example.com]\n  policy: {rootOfTrust: {policyType: PublicKey, publicKey: {keyData: QQ==}}}\n".to_string(),
                "ip=1 warnings=1",
            ),
            (
                "install-config.yaml",
                "apiVersion: v1\nbaseDomain: example.com\nmetadata: {name: c}\nimageDigestSources:\n- source: q.io/a\n  mirrors: [m.io/a]\n".to_string(),
                "idms=1 installconfig=1",
            ),
            (
                "install-config-icsp.yaml",
                "apiVersion: v1\nbaseDomain: example.com\nimageContentSources:\n- source: q.io/a\n  mirrors: [m.io/a]\n".to_string(),
                "icsp=1 installconfig=1 warnings=1",
            ),
            (
                "install-config-kind.json",
                r#"{"apiVersion": "v1", "kind": "InstallConfig", "metadata": {"name": "c"}}"#.to_string(),
                "installconfig=1",
            ),
            (
                "install-config-old.yaml",
                "apiVersion: v1beta4\nbaseDomain: example.com\n".to_string(),
                "skip v1beta4/<none>=1 warnings=1",
            ),
            (
                "headerless-v1.yaml",
                "apiVersion: v1\nmetadata: {name: x}\n".to_string(),
                "skip v1/<none>=1",
            ),
        ];
        for (name, text, want) in cases {
            let inputs = parse(name, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(summary(&inputs), want, "{name}: {:?}", inputs.warnings);
        }
    }

    /// openshift/installer `imagedigestmirrorset.go`: the entries as
    /// written, named as the installer names the object; every fact traced
    /// to its line of install-config.yaml; the bundle and the pull secret
    /// kept aside, the secret never in a label or a message.
    #[test]
    fn install_config_reads_as_the_installer_writes_it() {
        let text = "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: demo\npullSecret: '{\"auths\":{\"m.io\":{\"auth\":\"c2VjcmV0\"}}}'\nimageDigestSources:\n- source: q.io/a\n  mirrors:\n  - m.io/a\n  sourcePolicy: NeverContactSource\nadditionalTrustBundle: |\n  -----BEGIN CERTIFICATE-----\n";
        let inputs = parse("ic.yaml", text).unwrap();
        let idms = &inputs.idmss[0];
        assert_eq!(
            idms.origin().as_str(),
            "ImageDigestMirrorSet/image-digest-mirror"
        );
        assert_eq!(
            idms.spec.image_digest_mirrors[0].mirror_source_policy,
            Some(crate::objects::MirrorSourcePolicy::NeverContactSource)
        );
        let g = inputs.generated(&idms.origin()).unwrap();
        assert_eq!(
            g.entries[0].origin.as_str(),
            "ic.yaml:7: imageDigestSources[0] (ImageDigestMirrorSet/image-digest-mirror)"
        );
        assert_eq!(g.entries[0].mirror_lines, [9]);
        assert_eq!(
            inputs.read_from(&idms.origin()).map(Origin::as_str),
            Some("ic.yaml:1")
        );
        assert_eq!(inputs.install_configs[0].as_str(), "InstallConfig/demo");
        assert_eq!(
            inputs.node_trust[0].origin.as_str(),
            "ic.yaml:11: additionalTrustBundle"
        );
        let secret = inputs.pull_secret.as_ref().unwrap();
        assert_eq!(secret.origin.as_str(), "ic.yaml:5: pullSecret");
        assert!(secret.expose().contains("c2VjcmV0"));
        assert!(!format!("{inputs:?}").contains("c2VjcmV0"));

        // A CRD error of the object is said of the install-config field.
        let bad = text.replace("  - m.io/a\n", "  - m.io/a\n  - m.io/a\n");
        let errors = parse("ic.yaml", &bad).unwrap().validate();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0].file.as_ref().map(Origin::as_str),
            Some("ic.yaml:10")
        );
        assert_eq!(errors[0].field, "imageDigestSources[0].mirrors[1]");

        // A real object of that name, read later, is itself again.
        let mut inputs = parse("ic.yaml", text).unwrap();
        parse_documents(
            "idms.yaml",
            "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: image-digest-mirror}\nspec: {}\n",
            &mut inputs,
        )
        .unwrap();
        assert!(inputs.generated.is_empty());
    }

    #[test]
    fn yaml_scalars_read_as_kubernetes_does() {
        let inputs = parse(
            "x.yaml",
            "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: yes}\nspec:\n  imageTagMirrors:\n  - source: on\n    mirrors: [y, off.io]\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata: {name: m}\nspec: {config: {storage: {files: [{path: /a, mode: 0644}, {path: /b, mode: 420}]}}}\n",
        )
        .unwrap();
        let itms = &inputs.itmss[0];
        assert_eq!(itms.metadata.name, "yes");
        assert_eq!(itms.spec.image_tag_mirrors[0].source, "on");
        assert_eq!(itms.spec.image_tag_mirrors[0].mirrors, ["y", "off.io"]);
        let files = &inputs.machine_configs[0].spec.config.storage.files;
        assert_eq!(files[0].mode, Some(420));
        assert_eq!(files[1].mode, Some(420));
    }

    #[test]
    fn warnings_name_file_and_document() {
        let inputs = parse(
            "sets.yaml",
            &format!(
                "{IDMS}---\n{}",
                IDMS.replace("config.openshift.io/v1", "operator.openshift.io/v1alpha1")
                    .replace("name: a", "name: b")
            ),
        )
        .unwrap();
        assert!(inputs.warnings.is_empty(), "{:?}", inputs.warnings);
        let refused: Vec<String> = inputs.refused.iter().map(ToString::to_string).collect();
        assert_eq!(
            refused,
            ["sets.yaml:10: ImageDigestMirrorSet/b: apiVersion: \"operator.openshift.io/v1alpha1\" is not served for ImageDigestMirrorSet, which is served as \"config.openshift.io/v1\"; read as \"config.openshift.io/v1\""]
        );
        assert_eq!(
            inputs
                .read_from(&Origin::from("ImageDigestMirrorSet/b"))
                .map(Origin::as_str),
            Some("sets.yaml:10")
        );
        let inputs = parse(
            "d.yaml",
            &format!("{IDMS}---\n{}", IDMS.replace("m.io/x", "n.io/x")),
        )
        .unwrap();
        assert_eq!(
            inputs.warnings,
            ["d.yaml: document 2: ImageDigestMirrorSet/a was already read with different content; this later copy replaces it"]
        );
        assert_eq!(
            inputs.idmss[0].spec.image_digest_mirrors[0].mirrors,
            ["n.io/x"]
        );
    }

    #[test]
    fn errors_name_file_document_line_and_field() {
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "mirrors-string.yaml",
                format!("{IDMS}---\n{}", IDMS.replace("name: a", "name: b").replace("mirrors: [m.io/x]", "mirrors: m.io/x")),
                "mirrors-string.yaml: document 2 (line 10): ImageDigestMirrorSet/b: spec.imageDigestMirrors[0].mirrors: invalid type: string \"m.io/x\", expected a sequence",
            ),
            (
                "no-source.yaml",
                IDMS.replace("  - source: quay.io/x\n    mirrors", "  - mirrors"),
                "no-source.yaml: document 1 (line 1): ImageDigestMirrorSet/a: spec.imageDigestMirrors[0]: missing field `source`",
            ),
            (
                "no-spec.yaml",
                "---\napiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\n".to_string(),
                "no-spec.yaml: document 1 (line 2): Image/cluster: missing field `spec`",
            ),
            (
                "placeholder.yaml",
                "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n    name: disconnected-internal-icsp\nspec:\n    repositoryDigestMirrors: $mirrors\n".to_string(),
                "placeholder.yaml: document 1 (line 1): ImageContentSourcePolicy/disconnected-internal-icsp: spec.repositoryDigestMirrors: invalid type: string \"$mirrors\", expected a sequence",
            ),
            (
                "in-list.json",
                r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},{"apiVersion":"v1","kind":"Node","metadata":{"name":"b","labels":{"node-role.kubernetes.io/worker":true}}}]}"#.to_string(),
                "in-list.json: document 1 (line 1): Node/b: items[1].metadata.labels[node-role.kubernetes.io/worker]: invalid type: boolean `true`, expected a string",
            ),
            (
                "bad-enum-shape.yaml",
                "apiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata: {name: p}\nspec:\n  scopes: [example.com]\n  policy: {rootOfTrust: {policyType: [PublicKey]}}\n".to_string(),
                "bad-enum-shape.yaml: document 1 (line 1): ClusterImagePolicy/p: spec.policy.rootOfTrust.policyType: invalid type: sequence, expected a string",
            ),
            (
                "unnamed.yaml",
                "kind: MachineConfigPool\napiVersion: machineconfiguration.openshift.io/v1\nspec: {paused: maybe}\n".to_string(),
                "unnamed.yaml: document 1 (line 1): MachineConfigPool (no name): spec.paused: invalid type: string \"maybe\", expected a boolean",
            ),
            (
                "broken.yaml",
                format!("{IDMS}---\napiVersion: v1\nkind: List\nitems: [\n"),
                "broken.yaml: document 2: invalid YAML at line 12, column 8: unclosed bracket '['",
            ),
            (
                "template.yaml",
                "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: {{ .Name }}\n".to_string(),
                "template.yaml: document 1: invalid YAML at line 4, column 10: expected string scalar (the line holds a \"{{ }}\" template placeholder; render the template first)",
            ),
            (
                "bad.json",
                "{\"kind\": \"Node\",\n \"metadata\": }".to_string(),
                "bad.json: document 1: invalid JSON at line 2, column 14: expected value",
            ),
            (
                "dup-key.yaml",
                "kind: Node\nkind: Node\n".to_string(),
                "dup-key.yaml: document 1: invalid YAML at line 2, column 1: duplicate mapping key `kind` is not allowed here",
            ),
            (
                "both.yaml",
                "apiVersion: v1\nmetadata: {name: c}\nimageContentSources: [{source: a.io/x}]\nimageDigestSources: [{source: b.io/x}]\n".to_string(),
                "both.yaml: document 1 (line 1): InstallConfig/c: imageContentSources: cannot set imageContentSources and imageDigestSources at the same time",
            ),
            (
                "sources-string.yaml",
                "apiVersion: v1\npullSecret: '{\"auths\": {\"r\": {\"auth\": \"c2VjcmV0\"}}}'\nimageDigestSources: q.io/a\n".to_string(),
                "sources-string.yaml: document 1 (line 1): InstallConfig (no name): imageDigestSources: invalid type: string \"q.io/a\", expected a sequence",
            ),
        ];
        for (name, text, want) in cases {
            let mut inputs = Inputs::default();
            let err = parse_documents(name, &text, &mut inputs).expect_err(name);
            assert_eq!(err.to_string(), want, "{name}");
            assert_eq!(
                inputs,
                Inputs::default(),
                "{name}: nothing is added on error"
            );
        }
    }

    #[test]
    fn node_config_files_get_a_hint() {
        let err = parse(
            "registries.conf",
            "[registries.search]\nregistries = ['docker.io']\n\n[registries.insecure]\nregistries = []\n",
        )
        .unwrap_err();
        assert!(
            err.to_string().ends_with("pass it with --registries-conf)"),
            "{err}"
        );
        let inputs = parse(
            "drop-in.conf",
            "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n",
        )
        .unwrap();
        assert_eq!(
            inputs.warnings,
            ["drop-in.conf: read no cluster object (the file looks like a registries.conf, which is TOML: pass it with --registries-conf)"]
        );
        let inputs = parse(
            "policy.json",
            r#"{"default":[{"type":"reject"}],"transports":{"docker":{}}}"#,
        )
        .unwrap();
        assert_eq!(
            inputs.warnings,
            ["policy.json: document 1: read no cluster object: this looks like a containers policy.json; pass it with --policy-json"]
        );
    }

    #[test]
    fn lines_are_those_of_str_lines() {
        for text in [
            "",
            "a",
            "a\n",
            "a\r\n",
            "a\r",
            "\n",
            "\n\n",
            "\r\n\r\n",
            "a\r\rb\r\n",
            "x\ny\r\nz",
            "é\n😀\r\n",
            "---\n...\r",
            "\r",
        ] {
            let ours: Vec<&str> = lines(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn document_numbers_count_empty_documents() {
        let text = "# comment\n\n---\na: 1\n---\n---\nb: 2\n...\n# between\nc: 3\n--- # trailing comment\nd: 4\n";
        let starts = document_start_lines(text);
        assert_eq!(starts, [3, 5, 6, 10, 11]);
        for (line, want) in [(1, 1), (4, 1), (7, 3), (10, 4), (12, 5)] {
            assert_eq!(
                starts.partition_point(|&s| s <= line).max(1),
                want,
                "line {line}"
            );
        }
        assert_eq!(document_start_lines("a: 1\n---\nb: 2\n"), [1, 2]);
    }

    /// Pieces of YAML streams, valid and not, around document markers: what
    /// a cut at a `---` line must not change.
    const STREAM_PIECES: &[&str] = &[
        "apiVersion: v1\nkind: A\nmetadata:\n  name: x\n",
        "key: |\n  line\n  ---\n  more\n",
        "--- |\n  indented literal\n",
        "--- |\nliteral at column zero\n",
        "--- >\nfolded\n\nat zero\n",
        "q: \"multi\n  line\"\n",
        "q: \"open\n",
        "closed\"\n",
        "x: 'it''s\n",
        "f: [a,\n",
        " b]\n",
        "m: {a: 1,\n",
        "...\n",
        "... # end\n",
        "# comment\n",
        "\n",
        "---\n",
        "--- \n",
        "---\r\n",
        "--- a\n",
        "--- {a: 1}\n",
        "--- # c\n",
        "----\n",
        "---x: 1\n",
        "a: &x 1\nb: *x\n",
        "c: *x\n",
        "\u{feff}a: 1\n",
        "- item\n- item2\n",
        "plain\n  continued\n",
        "k: >\n  folded\n\n  more\n",
        "? complex\n: value\n",
        "a: 1\nb:\n",
        "!!str x\n",
        "t: !custom x\n",
        "  indented: 1\n",
        "k: v\r\n",
        "kind: ImageDigestMirrorSet\n",
        "items:\n- a\n",
        "a: 1\na: 2\n",
        "k: [\"---\"]\n",
        "%YAML 1.2\n",
    ];

    /// Every document of a stream, as JSON text, with its first line.
    fn stream_values(text: &str) -> Option<Vec<(usize, String)>> {
        let docs: Vec<Spanned<Value>> =
            serde_saphyr::from_multiple_with_options(text, yaml_options(text)).ok()?;
        Some(
            docs.into_iter()
                .map(|d| (d.referenced.line() as usize, d.value.to_string()))
                .collect(),
        )
    }

    /// Cut into runs of documents parsed on their own, a stream reads as
    /// the whole stream does: the same documents at the same lines, or a
    /// refusal. Over generated streams of pieces that sit on either side
    /// of document markers (quoted scalars and flow collections cut by
    /// one, literals at column zero, anchors used across documents).
    #[test]
    fn runs_of_documents_read_as_the_whole_stream() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};

        let mut runner = TestRunner::new(Config {
            cases: 3000,
            failure_persistence: None,
            ..Config::default()
        });
        let pieces = prop::collection::vec(0..STREAM_PIECES.len(), 1..40);
        let cut = std::cell::Cell::new(0usize);
        runner
            .run(&(pieces, 2usize..6), |(picked, parts)| {
                let text: String = picked.iter().map(|&i| STREAM_PIECES[i]).collect();
                let whole = stream_values(&text);
                let split = super::chunks::parse_in_runs(&text, parts, 0, stream_values);
                cut.set(cut.get() + usize::from(text.contains("\n---")));
                prop_assert_eq!(&split, &whole, "{:?} in {} runs", text, parts);
                Ok(())
            })
            .unwrap();
        let cut = cut.get();
        assert!(cut > 1000, "only {cut} streams had a marker to cut at");
    }

    /// A large file of many documents is read on several threads with the
    /// same objects, lines and document numbers as on one.
    #[test]
    fn large_files_read_alike_on_one_thread_and_several() {
        let mut text = String::new();
        let mut files = Vec::new();
        manifest_files(&workspace_root().join("examples"), &mut files);
        for file in files {
            let Ok(one) = std::fs::read_to_string(&file) else {
                continue;
            };
            if stage_stream("one.yaml", &one, Reading::default()).is_some() && !one.contains("\n%")
            {
                text.push_str("---\n");
                text.push_str(&one);
            }
        }
        let unit = text.clone();
        while text.len() < 600 * 1024 {
            text.push_str(&unit);
        }
        let read = |threads: usize| {
            let reading = Reading {
                threads,
                ..Reading::default()
            };
            let mut inputs = Inputs::default();
            apply(
                stage_stream("big.yaml", &text, reading).unwrap(),
                &mut inputs,
            );
            inputs
        };
        let one = read(1);
        assert!(!one.idmss.is_empty());
        for threads in [2, 3, 7] {
            assert_eq!(read(threads), one, "{threads} threads");
        }
    }
}
