//! `audit --journal` and `audit --journal-file`: every pull of CRI-O's pull
//! logs, image by image, each node's pulls replayed against its own pool's
//! configuration rendered from the cluster objects (live or `-f`). The logs
//! come from a file, a must-gather's journal files, or each chosen node
//! read live (a bounded number at a time); a node whose log cannot be read
//! or was cut is named and makes the answer undetermined, the rest go on.

use anyhow::Result;

use crate::output;
use mirrorpolicy::explain::{self as core, Config, Explanation};
use std::collections::HashMap;

use mirrorpolicy::journal::fleet::{
    self, EventLog, Fleet, ImageView, NodeNote, NodeReason, PoolImage, PoolLog,
};
use mirrorpolicy::journal::pool::{host_is, node_of, node_pool};
use mirrorpolicy::journal::{self as jr, Expected, Line};
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::render::node::NodeView;
use mirrorpolicy::source::api::{self as live, Read, MACHINE_CONFIG_POOLS, MIRROR_CONFIG, NODES};
use mirrorpolicy::source::journal_text::LINE_CAP;
use mirrorpolicy::source::node_live;
use mirrorpolicy::source::node_logs::{self, NodeLogError};

use crate::cli::{AuditArgs, AuditOutput};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::{inputs, journal};
use crate::term;

/// The pool a node is judged against when the input has no Node objects.
const DEFAULT_POOL: &str = "worker";

/// What picks each node's pool: the pools and the nodes.
const NODE_STATE: &[Read] = &[Read::one(&[MACHINE_CONFIG_POOLS]), Read::one(&[NODES])];

/// Of each image in a journal file, the first and the last pulls kept (this
/// many of each) for the answer's `journal`; the rest are counted.
const KEEP_PER_IMAGE: usize = 5;

/// One node's pull lines, as read.
struct NodeLines {
    node: String,
    lines: Vec<Line>,
    /// The node logged another line after these (live: read apart).
    logged_after: bool,
}

/// What was read: the logs' name, each node's lines, the notes of the
/// nodes not all judged, and the pull events standing in for forbidden logs.
struct Reading {
    name: String,
    logs: Vec<NodeLines>,
    notes: Vec<NodeNote>,
    events: Option<EventLog>,
    /// Live: the `--until` a node's answer could not carry (the kubelet's
    /// 406 fallback), applied to the pulls.
    until_unapplied: Option<jr::Timestamp>,
}

/// The pull log of `audit --journal` or `audit --journal-file`, the logs'
/// name, and the exit code they call for; nothing printed. Journal files
/// are streamed through the replay, never held; a live read's answers are
/// held (capped) and then replayed the same way.
pub fn report(settings: &Settings, args: &AuditArgs) -> Result<(Fleet, String, ExitCode)> {
    let live_logs = args.journal && args.filenames.is_empty();
    let mut reads: Vec<Read> = MIRROR_CONFIG.to_vec();
    if live_logs || args.pool.is_none() {
        reads.extend_from_slice(NODE_STATE);
    }
    let inputs = inputs::load_selected(settings, &args.filenames, &reads, None, None)?;
    if let Some(pool) = &args.pool {
        inputs::check_pool(&inputs, pool)?;
    }
    // A journal file's pulls are counted as they end, and only the first
    // and last of each image kept (live answers are capped when read).
    let replay = match live_logs {
        true => jr::Replay::new(),
        false => {
            let window = journal::file_window(args.since.as_deref(), args.until.as_deref())?;
            jr::Replay::keeping(KEEP_PER_IMAGE, window)
        }
    };
    let mut pools = Pools::new(settings, args, &inputs, replay);
    let (name, mut notes, events, window) = if live_logs {
        let window = journal::window(args.since.as_deref(), args.until.as_deref())?;
        let read = read_live(settings, args, &inputs, &window, journal::now())?;
        let bounds = read
            .until_unapplied
            .map(|u| (jr::Timestamp(i128::MIN), Some(u)));
        for log in &read.logs {
            pools.pool_of(&log.node);
            for l in &log.lines {
                pools.push(l);
            }
            if log.logged_after {
                pools.other(&log.node);
            }
        }
        (read.name, read.notes, read.events, bounds)
    } else {
        let name = stream_files(settings, args, &mut pools)?;
        let (since, until) = (args.since.as_deref(), args.until.as_deref());
        let name = name + &journal::window_words(since, until);
        (name, Vec::new(), None, journal::file_window(since, until)?)
    };
    if args.pool.is_none() && inputs.nodes.is_empty() {
        settings.verbose(|| {
            format!("no Node objects: every node is judged against pool {DEFAULT_POOL} (--pool to choose)")
        });
    }
    let (pool_logs, pool_notes) = pools.finish(events)?;
    notes.extend(pool_notes);
    let fleet = fleet::fleet(pool_logs, notes, window);
    if fleet.pulls == 0 {
        eprintln!("no pull in {name}: no `Pulling image` line of CRI-O");
    }
    let code = code(&fleet);
    Ok((fleet, name, code))
}

/// `--journal-file FILE|MUST_GATHER`, or `-f MUST_GATHER --journal`:
/// every line streamed into the pools' replay, only those of `--node`
/// when given (each must have a pull line); the logs' name.
fn stream_files(settings: &Settings, args: &AuditArgs, pools: &mut Pools<'_>) -> Result<String> {
    let files = match &args.journal_file {
        Some(path) => journal::Files::One(path),
        None => journal::Files::MustGather(&args.filenames),
    };
    let chosen = |h: &str| args.nodes.is_empty() || args.nodes.iter().any(|n| host_is(h, n));
    let mut hosts: Vec<String> = Vec::new();
    // The warnings about long lines are said on stderr as the files are read.
    let (name, _) = journal::stream_files(settings, files, &mut |read| match read {
        jr::Read::Pull(line) => {
            if !hosts.contains(&line.host) {
                hosts.push(line.host.clone());
            }
            if chosen(&line.host) {
                pools.push(&line);
            }
        }
        jr::Read::Other(host) if chosen(host) => pools.other(host),
        _ => {}
    })?;
    pools.check()?;
    if hosts.is_empty() {
        return Ok(name);
    }
    if let Some(missing) = args
        .nodes
        .iter()
        .find(|n| !hosts.iter().any(|h| host_is(h, n)))
    {
        return Err(Failure::input(format!(
            "{name} has no line of node {missing} (hosts: {})",
            hosts.join(", ")
        ))
        .into());
    }
    Ok(name)
}

/// The pool a node is judged against: `--pool`, else its own (see
/// [`node_pool`]), else `worker` when the input has no Node objects; a note
/// naming the node when its pool is not known.
fn pool_for(args: &AuditArgs, inputs: &Inputs, host: &str) -> Result<String, NodeNote> {
    if let Some(pool) = &args.pool {
        return Ok(pool.clone());
    }
    if inputs.nodes.is_empty() {
        return Ok(DEFAULT_POOL.to_string());
    }
    let note = |message: String| NodeNote {
        node: host.to_string(),
        pool: None,
        reason: NodeReason::NoPool,
        message,
    };
    let Some(node) = node_of(host, &inputs.nodes) else {
        return Err(note(format!(
            "no Node {host} in the input: its pool, and so the configuration it pulls with, is not known (--pool judges every node against one)"
        )));
    };
    node_pool(node, &inputs.pools).map(|(p, _)| p).ok_or_else(|| {
        note(format!(
            "no MachineConfigPool selects node {} and it has no role label: the configuration it pulls with is not known (--pool judges every node against one)",
            node.metadata.name
        ))
    })
}

/// The replay of every node's log against its own pool's configuration, as
/// the lines come: each node's pool is found once, each image a pool's
/// nodes pull is explained once on the pool's rendered configuration (the
/// first time it is met), and the pulls are filed under it.
struct Pools<'a> {
    settings: &'a Settings,
    args: &'a AuditArgs,
    inputs: &'a Inputs,
    replay: jr::Replay,
    /// Each host met, and its pool (none: a note says why).
    hosts: HashMap<String, Option<usize>>,
    pools: Vec<PoolState>,
    notes: Vec<NodeNote>,
    /// The pool of each expectation of the replay.
    of: Vec<usize>,
    /// The first pool whose configuration could not be rendered.
    failed: Option<anyhow::Error>,
}

/// One pool as its nodes' lines are read.
struct PoolState {
    name: String,
    nodes: Vec<String>,
    /// Its rendered configuration, once an image needs it.
    view: Option<NodeView>,
    /// Each image met: its expected order, its explanation's error, and its
    /// expectation in the replay.
    images: Vec<(Expected, Option<String>, usize)>,
    index: HashMap<String, usize>,
}

impl<'a> Pools<'a> {
    fn new(
        settings: &'a Settings,
        args: &'a AuditArgs,
        inputs: &'a Inputs,
        replay: jr::Replay,
    ) -> Self {
        Self {
            settings,
            args,
            inputs,
            replay,
            hosts: HashMap::new(),
            pools: Vec::new(),
            notes: Vec::new(),
            of: Vec::new(),
            failed: None,
        }
    }

    /// The pool of `host`, found the first time it is met (a note when it
    /// has none).
    fn pool_of(&mut self, host: &str) -> Option<usize> {
        if let Some(p) = self.hosts.get(host) {
            return *p;
        }
        let p = match pool_for(self.args, self.inputs, host) {
            Ok(pool) => Some(self.pool_index(pool)),
            Err(note) => {
                self.notes.push(note);
                None
            }
        };
        if let Some(p) = p {
            self.pools[p].nodes.push(host.to_string());
        }
        self.hosts.insert(host.to_string(), p);
        p
    }

    fn pool_index(&mut self, pool: String) -> usize {
        if let Some(p) = self.pools.iter().position(|s| s.name == pool) {
            return p;
        }
        self.pools.push(PoolState {
            name: pool,
            nodes: Vec::new(),
            view: None,
            images: Vec::new(),
            index: HashMap::new(),
        });
        self.pools.len() - 1
    }

    /// A pull line of a node whose pool is known.
    fn push(&mut self, line: &Line) {
        let Some(p) = self.pool_of(&line.host) else {
            return;
        };
        if let jr::line::Event::Pulling { image } = &line.event {
            if self.explained(p, image).is_none() {
                return;
            }
        }
        let of = &self.of;
        self.replay.push_for(line, |k| of[k] == p);
    }

    /// Another line of a node met before.
    fn other(&mut self, host: &str) {
        if let Some(Some(_)) = self.hosts.get(host) {
            self.replay.other(host);
        }
    }

    /// `image` explained on pool `p`'s configuration (rendered the first
    /// time); `None` when the configuration cannot be rendered.
    fn explained(&mut self, p: usize, image: &str) -> Option<usize> {
        if let Some(&i) = self.pools[p].index.get(image) {
            return Some(i);
        }
        let (expected, error) = self.explain(p, image)?;
        let k = self.replay.add(expected.clone());
        self.of.push(p);
        let pool = &mut self.pools[p];
        pool.images.push((expected, error, k));
        pool.index.insert(image.to_string(), pool.images.len() - 1);
        Some(pool.images.len() - 1)
    }

    fn explain(&mut self, p: usize, image: &str) -> Option<(Expected, Option<String>)> {
        if self.failed.is_some() {
            return None;
        }
        let pool = &mut self.pools[p];
        if pool.view.is_none() {
            match inputs::render_view(self.settings, self.inputs, &pool.name, None) {
                Ok((_, view)) => pool.view = Some(view),
                Err(e) => {
                    self.failed = Some(e);
                    return None;
                }
            }
        }
        let config = Config::from(pool.view.as_ref()?);
        let mode = mirrorpolicy::crio::short_name_mode(self.inputs.cluster_version.as_ref());
        let item = core::explain(&config, image, mode, None)
            .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e));
        Some((item.expected(), item.error.clone()))
    }

    /// The error of a pool whose configuration could not be rendered.
    fn check(&mut self) -> Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }

    /// Each pool's log, sorted by pool: its nodes, the pull events standing
    /// in for those whose logs are forbidden, and every image they pulled
    /// with its pulls; and the notes of the nodes whose pool is not known.
    fn finish(mut self, events: Option<EventLog>) -> Result<(Vec<PoolLog>, Vec<NodeNote>)> {
        self.check()?;
        if self.pools.is_empty() && self.notes.is_empty() {
            let pool = self.args.pool.clone();
            self.pool_index(pool.unwrap_or(DEFAULT_POOL.to_string()));
        }
        let mut logs = Vec::new();
        for p in 0..self.pools.len() {
            let ev = events.as_ref().map(|e| EventLog {
                nodes: (e.nodes.iter())
                    .filter(|n| self.pools[p].nodes.contains(n))
                    .cloned()
                    .collect(),
                ..e.clone()
            });
            let ev = ev.filter(|e| !e.nodes.is_empty());
            for image in ev.iter().flat_map(EventLog::images) {
                self.explained(p, &image);
            }
            self.check()?;
            logs.push(ev);
        }
        let mut records = self.replay.finish_summarised();
        let mut out: Vec<PoolLog> = (self.pools.into_iter().zip(logs))
            .map(|(pool, events)| PoolLog {
                pool: pool.name,
                nodes: pool.nodes,
                images: (pool.images.into_iter())
                    .map(|(expected, error, k)| {
                        let (mut mine, summarised) = std::mem::take(&mut records[k]);
                        mine.retain(|r| r.image == expected.image);
                        PoolImage {
                            expected,
                            error,
                            records: mine,
                            summarised,
                        }
                    })
                    .collect(),
                events,
            })
            .collect();
        out.sort_by(|a, b| a.pool.cmp(&b.pool));
        Ok((out, self.notes))
    }
}

/// The nodes `audit --journal` reads: `--node`'s (each must exist), else
/// the Linux nodes of `--pool`, else every Linux node.
fn chosen_nodes(args: &AuditArgs, inputs: &Inputs) -> Result<Vec<String>> {
    let known: Vec<&str> = inputs
        .nodes
        .iter()
        .map(|n| n.metadata.name.as_str())
        .collect();
    if !args.nodes.is_empty() {
        if let Some(message) = node_live::unknown_node(&args.nodes, &known) {
            return Err(Failure::input(message).into());
        }
        return Ok(args.nodes.clone());
    }
    let chosen: Vec<String> = inputs
        .nodes
        .iter()
        .filter(|n| n.metadata.label("kubernetes.io/os") != Some("windows"))
        .filter(|n| match &args.pool {
            Some(pool) => node_pool(n, &inputs.pools).is_some_and(|(p, _)| &p == pool),
            None => true,
        })
        .map(|n| n.metadata.name.clone())
        .collect();
    if chosen.is_empty() {
        let message = match &args.pool {
            Some(pool) => format!(
                "no Linux node of pool {pool} (nodes: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
            None => "the cluster has no Linux Node whose log could be read".to_string(),
        };
        return Err(Failure::input(message).into());
    }
    Ok(chosen)
}

/// `audit --journal`, live: each chosen node's CRI-O log in the window,
/// read through the node proxy a bounded number at a time. A node whose
/// log cannot be read or was cut gets a note; a node whose log is forbidden
/// is read from the kubelet's pull events instead (as `explain --node N
/// --journal` does); every node forbidden and the events too stops with the
/// 403, exit 3.
fn read_live(
    settings: &Settings,
    args: &AuditArgs,
    inputs: &Inputs,
    window: &node_logs::Window,
    now: jr::Timestamp,
) -> Result<Reading> {
    let nodes = chosen_nodes(args, inputs)?;
    let options = settings.cluster_options()?;
    let concurrency = usize::from(args.node_concurrency);
    let runtime = inputs::runtime()?;
    let results = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let read = node_logs::read_many(&connection, &nodes, window, now, concurrency);
            Ok::<_, live::ClusterError>(read.await)
        })
        .map_err(inputs::cluster_failure)?;
    let forbidden = |r: &Result<_, NodeLogError>| matches!(r, Err(NodeLogError::Forbidden { .. }));
    let events = match results.iter().find(|r| forbidden(r)) {
        None => None,
        Some(Err(e)) => {
            let all = results.iter().all(forbidden);
            let read = runtime.block_on(async {
                let connection = live::connect(&options).await?;
                node_logs::read_events(&connection).await
            });
            match read {
                Ok(events) => Some(events),
                Err(live::ClusterError::Forbidden(_)) if all => {
                    return Err(Failure::cluster(format!(
                        "{e}; the pull events are no stand-in either: `list events` is forbidden too"
                    ))
                    .with_hint(journal::FORBIDDEN_HINT)
                    .into())
                }
                Err(live::ClusterError::Forbidden(_)) => None,
                Err(e) => return Err(inputs::cluster_failure(e)),
            }
        }
        Some(Ok(_)) => None,
    };
    let mut read = Reading {
        name: String::new(),
        logs: Vec::new(),
        notes: Vec::new(),
        events: events.map(|events| EventLog {
            events,
            nodes: Vec::new(),
            bounds: window.bounds(now),
        }),
        until_unapplied: None,
    };
    for (node, result) in nodes.into_iter().zip(results) {
        node_lines(settings, args, inputs, &mut read, node, result);
    }
    let until = args
        .until
        .as_deref()
        .map_or(String::new(), |u| format!(" until {u}"));
    let since = args.since.as_deref().unwrap_or(journal::LIVE_SINCE);
    read.name = format!("the nodes' CRI-O logs since {since}{until}");
    Ok(read)
}

/// One node's answer into `read`: its lines, or a note saying why not all
/// its pulls can be judged; its pull events when its log is forbidden and
/// the events were read.
fn node_lines(
    settings: &Settings,
    args: &AuditArgs,
    inputs: &Inputs,
    read: &mut Reading,
    node: String,
    result: Result<node_logs::NodeLog, NodeLogError>,
) {
    let note = |reason: NodeReason, message: String| NodeNote {
        node: node.clone(),
        pool: pool_for(args, inputs, &node).ok(),
        reason,
        message,
    };
    let log = match (result, &mut read.events) {
        (Ok(log), _) => {
            read.until_unapplied = read.until_unapplied.or(log.until_unapplied);
            log
        }
        (Err(e @ NodeLogError::Forbidden { .. }), Some(events)) => {
            let message = journal::events_message(&e, &node);
            settings.warn(&message);
            read.notes.push(note(NodeReason::Events, message));
            events.nodes.push(node.clone());
            read.logs.push(NodeLines {
                node,
                lines: Vec::new(),
                logged_after: false,
            });
            return;
        }
        (Err(e), _) => {
            let message = format!("its log could not be read: {e}");
            read.notes.push(note(NodeReason::Unread, message));
            return;
        }
    };
    settings.verbose(|| format!("read {} in {:.1}s", log.path, log.elapsed.as_secs_f64()));
    if let Some(long) = log.long_lines {
        settings.warn(long.warning(&format!("node {node}'s CRI-O log"), LINE_CAP));
    }
    let mut lines = match jr::read(&format!("node {node}'s CRI-O log"), &log.text) {
        Ok(lines) => lines,
        Err(e) => {
            read.notes.push(note(NodeReason::Unread, e.to_string()));
            return;
        }
    };
    for l in &mut lines {
        l.host = node.clone();
    }
    if node_logs::was_cut(log.elapsed) {
        let message = journal::cut_message(&node, log.elapsed, &lines);
        read.notes.push(note(NodeReason::Cut, message));
    }
    read.logs.push(NodeLines {
        node,
        lines,
        logged_after: log.logged_after,
    });
}

/// 1 when a pull diverges, else 3 when one is undetermined or a node's log
/// could not all be judged (read from the pull events too: they never say
/// what served, and the kubelet's events expire), else 0.
fn code(fleet: &Fleet) -> ExitCode {
    // The counts, not the pulls listed: those of a long log are summarised.
    let any = |f: fn(&ImageView) -> usize| fleet.images.iter().any(|v| f(v) > 0);
    if any(|v| v.verdicts.diverges) {
        ExitCode::Findings
    } else if any(|v| v.verdicts.undetermined) || !fleet.undetermined_nodes.is_empty() {
        ExitCode::Cluster
    } else {
        ExitCode::Success
    }
}

/// Prints the pull log `fleet` of the logs named `name` in `format`
/// (`-o wide` is the text).
pub fn print(settings: &Settings, format: AuditOutput, fleet: &Fleet, name: &str) -> Result<()> {
    let sink = match format {
        AuditOutput::Table | AuditOutput::Wide => term::Sink::Text,
        AuditOutput::Json | AuditOutput::Yaml => term::Sink::Exact,
    };
    settings.print_to(sink, |out| match format {
        AuditOutput::Table | AuditOutput::Wide => output::pull_log::write_text(out, fleet, name),
        AuditOutput::Json => output::write_json(out, std::slice::from_ref(fleet)),
        AuditOutput::Yaml => output::write_yaml(out, std::slice::from_ref(fleet)),
    })?;
    Ok(())
}
