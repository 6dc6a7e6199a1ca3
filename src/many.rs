//! Many clusters at once (`--context a,b`, `--all-contexts`): one command
//! run against each context's cluster, concurrently (at most
//! `--context-concurrency` at a time, each within `--context-timeout`), its
//! outputs put together: one section per context in text (`== context NAME
//! (SERVER)`), one `List` of `{context, server, result | error}` in JSON
//! and YAML. A cluster that fails never hides the others; the exit code is
//! the worst of them. A hub's ManagedCluster that the hub reports
//! unavailable or not accepted is reported so without a request (and, with
//! `--skip-unavailable`, leaves the exit code alone); a `--hub-selector`
//! that selects none reads nothing and succeeds.
//!
//! Each cluster gets its own [`Settings`] (its context, its output kept in a
//! buffer) and goes through the same code as a single cluster. Credentials
//! are resolved per context as for one; an exec plugin shared by several
//! contexts runs once (`source::exec` keeps one per user and cluster for
//! the process).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use crate::output;
use crate::output::many::{ByContext, Section};
use mirrorpolicy::audit::Report;
use mirrorpolicy::list::Rule;
use mirrorpolicy::source::api as live;
use mirrorpolicy::source::hub::{self, read_hub, read_ingress_ca, HubError, IngressCa};
use mirrorpolicy::tls::Trust;

use crate::cli::{
    AuditFormat, Cli, Command, DiffFormat, LintFormat, ListFormat, OperatorFormat, OutputFormat,
    RenderFormat, UpgradeFormat,
};
use crate::commands::{audit, list};
use crate::exit::{Described, ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

pub mod summary;

use summary::summary_of;

/// How the outputs of the clusters are put together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One section per context.
    Text,
    /// One JSON `List`.
    Json,
    /// One YAML `List`.
    Yaml,
}

/// What one cluster gave.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The kubeconfig context.
    pub context: String,
    /// Its API server, when the kubeconfig names one.
    pub server: Option<String>,
    /// The command's result, or why the cluster could not be read.
    pub result: Result<T, Described>,
}

/// What one cluster gave, with the output its command wrote.
pub type Ran<T> = Outcome<(T, Vec<u8>)>;

/// Runs `command` against the cluster of each context the flags name and
/// prints the outputs together; `run` runs it for one cluster. With `-o
/// summary`, each cluster's typed report is counted instead (see
/// [`summary::run`]): nothing a command prints is read back.
pub fn run(
    settings: &Settings,
    cli: Arc<Cli>,
    run: fn(&Settings, &Command) -> Result<ExitCode>,
) -> Result<ExitCode> {
    if let Some(summary) = summary_of(&cli.command) {
        summary::refuse_files(&cli.command)?;
        shape_of(&cli.command)?;
        let contexts = if settings.many_clusters() {
            targets(settings)?
        } else {
            vec![current_target(settings)?]
        };
        // Each cluster's report, counted as the cluster is done.
        return summary::run(settings, &contexts, cli, summary);
    }
    let shape = shape_of(&cli.command)?;
    let contexts = targets(settings)?;
    if contexts.is_empty() {
        // A hub selector that selects nothing: an empty List, no text.
        Streamed::new(settings, shape).finish()?;
        return Ok(ExitCode::Success);
    }
    match &cli.command {
        Command::List(a) if a.output == ListFormat::Wide => {
            let table = output::list::TableByContext::new(&settings.layout(a.no_headers));
            return merged(settings, &contexts, cli, list_rules, table);
        }
        // The pull log's wide output is its text, one section per cluster.
        Command::Audit(a)
            if a.output == AuditFormat::Wide && a.journal_file.is_none() && !a.journal =>
        {
            let table = output::audit::TableByContext::new(&settings.layout(a.no_headers));
            return merged(settings, &contexts, cli, audit_report, table);
        }
        _ => {}
    }
    let mut out = Streamed::new(settings, shape);
    let mut worst = ExitCode::Success;
    run_each(
        settings,
        &contexts,
        move |s| run(s, &cli.command),
        |o: Ran<ExitCode>| {
            let code = match &o.result {
                Ok((code, _)) => *code,
                Err(failed) => failed.code,
            };
            worst = worse(worst, code);
            out.write(o)
        },
    )?;
    out.finish()?;
    Ok(worst)
}

/// The clusters' outputs, written as each is done, in the clusters' order.
struct Streamed<'a> {
    settings: &'a Settings,
    shape: Shape,
    list: Option<output::many::ListStream>,
    sections: usize,
}

impl<'a> Streamed<'a> {
    fn new(settings: &'a Settings, shape: Shape) -> Self {
        let list = match shape {
            Shape::Text => None,
            shape => Some(output::many::ListStream::new(shape == Shape::Yaml)),
        };
        Self {
            settings,
            shape,
            list,
            sections: 0,
        }
    }

    /// Writes one cluster's section or item.
    fn write(&mut self, o: Ran<ExitCode>) -> Result<()> {
        let outcome = Outcome {
            context: o.context,
            server: o.server,
            result: o.result.map(|(_, bytes)| bytes),
        };
        if let Some(list) = &mut self.list {
            let item = list_item(&outcome, self.shape);
            return Ok(self.settings.print(|out| list.item(out, &item))?);
        }
        let first = self.sections == 0;
        self.sections += 1;
        Ok(self.settings.print_to(term::Sink::Text, |out| {
            if !first {
                writeln!(out)?;
            }
            write_sections(out, std::slice::from_ref(&outcome))
        })?)
    }

    /// Ends the `List`.
    fn finish(self) -> Result<()> {
        if let Some(list) = self.list {
            self.settings.print(|out| list.finish(out))?;
        }
        Ok(())
    }
}

/// `-o summary` without several clusters: the one cluster of the
/// kubeconfig's context (`--context`, else its current context).
fn current_target(settings: &Settings) -> Result<Target> {
    let options = settings.cluster_options()?;
    let name = match settings.cluster.context.first().filter(|c| !c.is_empty()) {
        Some(name) => name.clone(),
        None => live::current_context(&options)
            .map_err(inputs::cluster_failure)?
            .unwrap_or_default(),
    };
    Ok(Target::context(&name))
}

/// Whether `command` asks for `-o summary`, which goes through the
/// many-cluster path even for one cluster.
pub fn wants_summary(command: &Command) -> bool {
    summary_of(command).is_some()
}

/// One table for every cluster (`-o wide` of list and audit): `collect`
/// gives a cluster's data and exit code, `table` writes its rows behind a
/// CONTEXT column as the clusters are done, in their order, and lets the
/// data go. A cluster not read is said on stderr.
fn merged<T: Send + 'static>(
    settings: &Settings,
    contexts: &[Target],
    cli: Arc<Cli>,
    collect: fn(&Settings, &Command) -> Result<(T, ExitCode)>,
    mut table: impl ByContext<T>,
) -> Result<ExitCode> {
    let mut worst = ExitCode::Success;
    run_each(
        settings,
        contexts,
        move |s| collect(s, &cli.command),
        |o| {
            match &o.result {
                Ok(((data, code), _)) => {
                    worst = worse(worst, *code);
                    settings
                        .print_to(term::Sink::Text, |out| table.cluster(out, &o.context, data))?;
                }
                Err(failed) => {
                    worst = worse(worst, failed.code);
                    eprintln!(
                        "error: context {}: {}",
                        term::escape_controls(
                            &output::many::header_name(&o.context, o.server.as_deref()),
                            false
                        ),
                        failed.one_line()
                    );
                }
            }
            Ok(())
        },
    )?;
    settings.print_to(term::Sink::Text, |out| table.finish(out))?;
    Ok(worst)
}

fn list_rules(settings: &Settings, command: &Command) -> Result<(Vec<Rule>, ExitCode)> {
    match command {
        Command::List(args) => Ok((list::collect(settings, args)?, ExitCode::Success)),
        _ => Err(Failure::input("internal error: not a list command").into()),
    }
}

fn audit_report(settings: &Settings, command: &Command) -> Result<(Report, ExitCode)> {
    match command {
        Command::Audit(args) => audit::collect(settings, args),
        _ => Err(Failure::input("internal error: not an audit command").into()),
    }
}

/// The worse of two exit codes: a cluster not read (3) over an input
/// error (2) over findings (1) over success; a refusal (4) above all.
pub fn worse(a: ExitCode, b: ExitCode) -> ExitCode {
    if (b as i32) > (a as i32) {
        b
    } else {
        a
    }
}

/// One cluster of several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// What its section and item are named: the context, or the hub's
    /// ManagedCluster.
    pub name: String,
    /// The kubeconfig context whose credentials reach it.
    pub context: String,
    /// The server in place of the context's: the hub's cluster-proxy URL.
    pub server: Option<String>,
    /// Why the hub says it cannot be reached (not accepted, unavailable):
    /// it is reported so, and no request is sent.
    pub unavailable: Option<String>,
    /// Roots trusted besides the context's: the CA of the hub's
    /// cluster-proxy Route (its ingress CA, or `--hub-ca`).
    pub trust: Trust,
}

impl Target {
    fn context(name: &str) -> Self {
        Self {
            name: name.to_string(),
            context: name.to_string(),
            server: None,
            unavailable: None,
            trust: Trust::default(),
        }
    }
}

/// The clusters the flags name: the contexts of `--context` in their order
/// (duplicates dropped), the kubeconfig's sorted by name (`--all-contexts`),
/// or the hub's ManagedClusters sorted by name (`--hub`).
pub fn targets(settings: &Settings) -> Result<Vec<Target>> {
    if let Some(hub) = &settings.cluster.hub {
        return hub_targets(settings, hub);
    }
    if !settings.cluster.all_contexts {
        let mut named: Vec<Target> = Vec::new();
        for c in &settings.cluster.context {
            if c.is_empty() {
                return Err(Failure::input("--context: an empty context name").into());
            }
            if !named.iter().any(|t| t.name == *c) {
                named.push(Target::context(c));
            }
        }
        return Ok(named);
    }
    let options = settings.cluster_options()?;
    let mut names = live::kubeconfig_names(&options, "context").map_err(inputs::cluster_failure)?;
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err(Failure::input("--all-contexts: the kubeconfig has no context")
            .with_hint("kubectl config get-contexts lists them; point KUBECONFIG or --kubeconfig at the kubeconfig")
            .into());
    }
    Ok(names.iter().map(|n| Target::context(n)).collect())
}

/// `--hub`: the hub's ManagedClusters, each reached through the
/// cluster-proxy user server with the hub context's credentials.
fn hub_targets(settings: &Settings, hub: &str) -> Result<Vec<Target>> {
    let selector = settings.cluster.hub_selector.as_deref();
    if let Some(text) = selector {
        mirrorpolicy::labels::Selector::parse(text).map_err(|e| {
            Failure::input(format!(
                "invalid label selector {text:?} (--hub-selector): {e}"
            ))
        })?;
    }
    let given_ca = match &settings.cluster.hub_ca {
        Some(file) => Some(hub_ca_trust(file)?),
        None => None,
    };
    let (hub_settings, _) = settings.for_cluster(hub, hub, None);
    let options = hub_settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let read = runtime.block_on(async {
        let connection = live::connect(&options).await?;
        hub_settings.verbose(|| {
            format!(
                "reading the ManagedClusters of the hub at {}",
                connection.server
            )
        });
        let found = read_hub(&connection, selector).await?;
        let ingress = match given_ca {
            Some(_) => None,
            None => Some(read_ingress_ca(&connection).await?),
        };
        Ok((found, ingress))
    });
    let (found, ingress) = match read {
        Ok(read) => read,
        Err(e @ HubError::NoClusters { .. }) => {
            // As `kubectl get -l` finding nothing: said on stderr, not an error.
            eprintln!("{e}: no cluster to read");
            return Ok(Vec::new());
        }
        Err(HubError::Cluster(e)) => return Err(inputs::cluster_failure(e)),
        Err(e @ HubError::NoClusterProxy { .. }) => {
            return Err(Failure::cluster(e.to_string())
                .with_hint("enable the cluster-proxy add-on on the hub (ACM and the multicluster engine install it), or name the clusters' own contexts with --context")
                .into())
        }
        Err(e) => return Err(Failure::cluster(e.to_string()).into()),
    };
    let trust = match (given_ca, ingress) {
        (Some(trust), _) => trust,
        (None, ingress) => ingress_trust(ingress.unwrap_or(IngressCa::Missing(String::new())))?,
    };
    Ok(found
        .clusters
        .iter()
        .map(|c| Target {
            name: c.name.clone(),
            context: hub.to_string(),
            server: Some(found.cluster_url(&c.name)),
            unavailable: c.unavailable.clone(),
            trust: trust.clone(),
        })
        .collect())
}

/// `--hub-ca FILE`: the CA of the hub's cluster-proxy Route.
fn hub_ca_trust(file: &std::path::Path) -> Result<Trust> {
    let origin = format!("--hub-ca {}", file.display());
    let pem = std::fs::read(file)
        .map_err(|e| Failure::input(format!("cannot read --hub-ca \"{}\": {e}", file.display())))?;
    let mut trust = Trust::default();
    trust
        .add_pem(origin, &pem)
        .map_err(|e| Failure::input(format!("--hub-ca \"{}\": {e}", file.display())))?;
    Ok(trust)
}

/// The hub's ingress CA as the Route's roots, or a note saying why there
/// is none (said when the Route's certificate is refused).
fn ingress_trust(ingress: IngressCa) -> Result<Trust> {
    let config_map = format!(
        "ConfigMap {}/{}",
        hub::INGRESS_CA_NAMESPACE,
        hub::INGRESS_CA_CONFIG_MAP
    );
    let mut trust = Trust::default();
    match ingress {
        IngressCa::Found(pem) => trust
            .add_pem(
                format!("the hub's ingress CA ({config_map})"),
                pem.as_bytes(),
            )
            .map_err(|e| {
                Failure::cluster(format!(
                    "{config_map} on the hub, key {}: {e}",
                    hub::INGRESS_CA_KEY
                ))
            })?,
        IngressCa::Missing(why) => trust.note(format!(
            "the hub's ingress CA was not read ({config_map}: {why}; give it with --hub-ca FILE)"
        )),
    }
    Ok(trust)
}

/// Runs `run` once per context, concurrently (at most
/// `--context-concurrency` at a time), each with its own [`Settings`] and
/// deadline; `done` gets each outcome, with the captured output of its
/// cluster, in the contexts' order, as soon as it and those before it are
/// over. A cluster is started only while fewer than [`window`] outcomes
/// wait for one before them, so what is held does not grow with the
/// fleet. A cluster that outlives `--context-timeout` is reported as not
/// read (its thread is left to end with the process). On a terminal,
/// stderr shows the progress.
pub fn run_each<T: Send + 'static>(
    settings: &Settings,
    contexts: &[Target],
    run: impl Fn(&Settings) -> Result<T> + Send + Sync + 'static,
    mut done: impl FnMut(Ran<T>) -> Result<()>,
) -> Result<()> {
    let timeout = live::parse_request_timeout(&settings.cluster.context_timeout)
        .map_err(|e| Failure::input(format!("--context-timeout: {e}")))?;
    let limit = usize::from(settings.cluster.context_concurrency.max(1));
    let window = window(limit);
    let run = Arc::new(run);
    let (tx, rx) = mpsc::channel();
    let mut order = Reorder::new(contexts.len());
    let mut running: BTreeMap<usize, Option<Instant>> = BTreeMap::new();
    let mut next = 0;
    loop {
        while running.len() < limit && next < contexts.len() && next < order.next + window {
            if let Some(why) = &contexts[next].unavailable {
                order.put(next, unavailable_outcome(settings, &contexts[next], why));
                next += 1;
                continue;
            }
            spawn_one(
                settings,
                &contexts[next],
                next,
                Arc::clone(&run),
                tx.clone(),
            )?;
            running.insert(next, timeout.map(|t| Instant::now() + t));
            next += 1;
        }
        order.flush(&mut done)?;
        if running.is_empty() {
            if next >= contexts.len() {
                break;
            }
            continue;
        }
        let earliest = running.values().flatten().min().copied();
        let received = match earliest {
            Some(deadline) => rx.recv_timeout(deadline.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match received {
            Ok((i, server, result)) => {
                if running.remove(&i).is_some() {
                    let context = contexts[i].name.clone();
                    order.put(
                        i,
                        Outcome {
                            context,
                            server,
                            result,
                        },
                    );
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                for i in overdue(&mut running) {
                    order.put(i, timed_out_outcome(settings, &contexts[i], timeout));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    order.flush(&mut done)?;
    order.progress.clear();
    Ok(())
}

/// How many clusters may be started ahead of the first one not over:
/// enough that a slow cluster does not hold the others back for long, few
/// enough that the outcomes waiting for it stay small.
pub fn window(limit: usize) -> usize {
    limit.saturating_mul(4).max(64)
}

/// The outcomes that came before their turn, and the progress line.
struct Reorder<T> {
    waiting: BTreeMap<usize, Ran<T>>,
    /// The index of the next outcome to hand on.
    next: usize,
    progress: Progress,
}

impl<T> Reorder<T> {
    fn new(total: usize) -> Self {
        Self {
            waiting: BTreeMap::new(),
            next: 0,
            progress: Progress::new(total),
        }
    }

    fn put(&mut self, i: usize, outcome: Ran<T>) {
        self.progress.done(outcome.result.is_err());
        self.waiting.insert(i, outcome);
    }

    /// Hands on every outcome whose turn it is.
    fn flush(&mut self, done: &mut impl FnMut(Ran<T>) -> Result<()>) -> Result<()> {
        while let Some(outcome) = self.waiting.remove(&self.next) {
            self.next += 1;
            self.progress.clear();
            done(outcome)?;
        }
        self.progress.show();
        Ok(())
    }
}

/// `1,234/3,000 clusters, 12 failed` on stderr, when it is a terminal.
struct Progress {
    on: bool,
    total: usize,
    done: usize,
    failed: usize,
    shown: bool,
}

impl Progress {
    fn new(total: usize) -> Self {
        use std::io::IsTerminal;
        Self {
            on: io::stderr().is_terminal(),
            total,
            done: 0,
            failed: 0,
            shown: false,
        }
    }

    fn done(&mut self, failed: bool) {
        self.done += 1;
        self.failed += usize::from(failed);
    }

    fn show(&mut self) {
        if self.on && self.done < self.total {
            let line = format!(
                "{}/{} clusters, {} failed",
                thousands(self.done),
                thousands(self.total),
                thousands(self.failed)
            );
            let _ = write!(io::stderr(), "\r{line}\x1b[K");
            self.shown = true;
        }
    }

    /// Takes the line away (before output, and at the end).
    fn clear(&mut self) {
        if self.shown {
            let _ = write!(io::stderr(), "\r\x1b[K");
            self.shown = false;
        }
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The outcome of a ManagedCluster the hub cannot reach (`why`), without
/// a request: a cluster error, or with `--skip-unavailable` reported but
/// leaving the exit code to the clusters read.
fn unavailable_outcome<T>(settings: &Settings, target: &Target, why: &str) -> Ran<T> {
    let code = if settings.cluster.skip_unavailable {
        ExitCode::Success
    } else {
        ExitCode::Cluster
    };
    Outcome {
        context: target.name.clone(),
        server: target.server.clone(),
        result: Err(Described {
            lines: vec![format!("managed cluster {} is {why}", target.name)],
            hint: None,
            code,
        }),
    }
}

/// What a cluster's thread sends back: its index, its server and its result.
type Sent<T> = (usize, Option<String>, Result<(T, Vec<u8>), Described>);

/// Starts the thread that runs `run` against one context, its output
/// captured; the outcome is sent on `tx` with the context's index `i`.
fn spawn_one<T: Send + 'static>(
    settings: &Settings,
    target: &Target,
    i: usize,
    run: Arc<impl Fn(&Settings) -> Result<T> + Send + Sync + 'static>,
    tx: mpsc::Sender<Sent<T>>,
) -> Result<()> {
    let (mut one, buffer) =
        settings.for_cluster(&target.name, &target.context, target.server.as_deref());
    one.cluster.route_trust = target.trust.clone();
    std::thread::Builder::new()
        .name(format!("cluster {}", target.name))
        .spawn(move || {
            let server = server_of(&one);
            let result = run(&one).map(|value| {
                let bytes = std::mem::take(&mut *buffer.lock().unwrap_or_else(|e| e.into_inner()));
                (value, bytes)
            });
            let result = result.map_err(|e| Described::of(&e, one.name));
            // The receiver is gone only once the command is over.
            let _ = tx.send((i, server, result));
        })
        .map_err(|e| Failure::cluster(format!("cannot start a thread for {}: {e}", target.name)))?;
    Ok(())
}

/// Removes from `running` the clusters past their deadline; returns them.
fn overdue(running: &mut BTreeMap<usize, Option<Instant>>) -> Vec<usize> {
    let now = Instant::now();
    let late: Vec<usize> = running
        .iter()
        .filter(|(_, d)| d.is_some_and(|d| d <= now))
        .map(|(i, _)| *i)
        .collect();
    for i in &late {
        running.remove(i);
    }
    late
}

/// The outcome of a cluster that outlived `--context-timeout`.
fn timed_out_outcome<T>(settings: &Settings, target: &Target, timeout: Option<Duration>) -> Ran<T> {
    let (one, _) = settings.for_cluster(&target.name, &target.context, target.server.as_deref());
    Outcome {
        context: target.name.clone(),
        server: server_of(&one),
        result: Err(timed_out(timeout.unwrap_or_default())),
    }
}

/// The error of a cluster that took longer than `--context-timeout`.
fn timed_out(after: Duration) -> Described {
    Described {
        lines: vec![format!(
            "no answer within {} (--context-timeout)",
            mirrorpolicy::duration::text(after)
        )],
        hint: None,
        code: ExitCode::Cluster,
    }
}

/// The API server of the settings' context, as the kubeconfig names it
/// (nothing is sent).
fn server_of(settings: &Settings) -> Option<String> {
    let options = settings.cluster_options().ok()?;
    let runtime = inputs::runtime().ok()?;
    runtime
        .block_on(live::connect(&options))
        .ok()
        .map(|c| c.server)
}

/// How `command`'s outputs are put together, or why it cannot run
/// against several clusters.
fn shape_of(command: &Command) -> Result<Shape> {
    let (filenames, shape) = match command {
        Command::Explain(a) => {
            if a.registries_conf.is_some() || a.registries_conf_d.is_some() {
                return Err(refuse("explain with node files (--registries-conf)"));
            }
            if a.node_files.is_some() {
                return Err(refuse("--node-files (one cluster's nodes)"));
            }
            let shape = match a.output {
                OutputFormat::Table | OutputFormat::Summary => Shape::Text,
                OutputFormat::Json => Shape::Json,
                OutputFormat::Yaml => Shape::Yaml,
            };
            (&a.filenames, shape)
        }
        Command::List(a) => {
            let shape = match a.output {
                ListFormat::Table | ListFormat::Wide | ListFormat::Name => Shape::Text,
                ListFormat::Json => Shape::Json,
                ListFormat::Yaml => Shape::Yaml,
            };
            (&a.filenames, shape)
        }
        Command::Lint(a) => {
            let shape = match a.output {
                LintFormat::Table => Shape::Text,
                LintFormat::Json => Shape::Json,
            };
            (&a.filenames, shape)
        }
        Command::Render(a) => {
            let shape = match (a.file.is_some(), a.output) {
                (true, _) | (false, RenderFormat::Files) => Shape::Text,
                (false, RenderFormat::Machineconfig) => Shape::Yaml,
                (false, RenderFormat::Json) => Shape::Json,
            };
            (&a.filenames, shape)
        }
        Command::Diff(a) => {
            if a.node_files.is_some() {
                return Err(refuse("--node-files (one cluster's nodes)"));
            }
            let shape = match a.output {
                DiffFormat::Text | DiffFormat::Summary => Shape::Text,
                DiffFormat::Json => Shape::Json,
            };
            (&a.filenames, shape)
        }
        Command::Audit(a) => {
            let shape = match a.output {
                AuditFormat::Table | AuditFormat::Wide | AuditFormat::Summary => Shape::Text,
                AuditFormat::Json => Shape::Json,
                AuditFormat::Yaml => Shape::Yaml,
            };
            (&a.filenames, shape)
        }
        Command::UpgradeCheck(a) => {
            let shape = match a.output {
                UpgradeFormat::Table | UpgradeFormat::Wide | UpgradeFormat::Summary => Shape::Text,
                UpgradeFormat::Json => Shape::Json,
                UpgradeFormat::Yaml => Shape::Yaml,
            };
            (&a.filenames, shape)
        }
        Command::MigrateIcsp(_) => return Err(refuse("migrate-icsp")),
        Command::OperatorCheck(a) => (&a.filenames, operator_shape(a.output)),
        Command::CollectNodeFiles(_) => {
            return Err(refuse(
                "collect-node-files (one cluster's nodes go to one --dest-dir)",
            ));
        }
        Command::Completion(_) | Command::Complete(_) => return Err(refuse("completion")),
    };
    if !filenames.is_empty() {
        return Err(refuse("-f (files are read, not clusters)"));
    }
    Ok(shape)
}

fn operator_shape(format: OperatorFormat) -> Shape {
    match format {
        OperatorFormat::Table | OperatorFormat::Wide | OperatorFormat::Summary => Shape::Text,
        OperatorFormat::Json => Shape::Json,
        OperatorFormat::Yaml => Shape::Yaml,
    }
}

fn refuse(what: &str) -> anyhow::Error {
    Failure::input(format!(
        "several clusters (--context a,b, --all-contexts or --hub) cannot be used with {what}"
    ))
    .with_hint("explain, list, lint, render, diff, audit, upgrade-check and operator-check read several clusters at once; run others once per context")
    .into()
}

/// Text: a header line per context, then its output or its error.
pub fn write_sections(out: &mut dyn Write, sections: &[Outcome<Vec<u8>>]) -> io::Result<()> {
    let sections: Vec<Section> = sections
        .iter()
        .map(|s| Section {
            context: &s.context,
            server: s.server.as_deref(),
            result: s
                .result
                .as_ref()
                .map(Vec::as_slice)
                .map_err(|failed| failed.lines.as_slice()),
        })
        .collect();
    output::many::write_sections(out, &sections)
}

/// One item of the `List`: the cluster's own output as `result`, or
/// `error` when it could not be read.
#[derive(Debug, Serialize)]
pub struct Item {
    pub context: String,
    pub server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The `List` item of one cluster.
pub fn list_item(s: &Outcome<Vec<u8>>, shape: Shape) -> Item {
    let parsed = match &s.result {
        Ok(bytes) => parse(bytes, shape),
        Err(failed) => Err(failed.one_line()),
    };
    let (result, error) = match parsed {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    Item {
        context: s.context.clone(),
        server: s.server.clone(),
        result,
        error,
    }
}

/// Reads back one cluster's JSON or YAML output.
fn parse(bytes: &[u8], shape: Shape) -> Result<serde_json::Value, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::Value::Null);
    }
    match shape {
        Shape::Yaml => {
            let text = String::from_utf8_lossy(bytes);
            serde_saphyr::from_str(&text).map_err(|e| format!("the output is not YAML: {e}"))
        }
        _ => serde_json::from_slice(bytes).map_err(|e| format!("the output is not JSON: {e}")),
    }
}
