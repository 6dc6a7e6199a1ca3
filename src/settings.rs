//! The settings of one run, resolved once from the command line and the
//! environment in `main` and passed to each command: how to reach the
//! cluster, how loud to be, whether to colour, and the name the user ran the
//! plugin by. Nothing else holds command-line state.

use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use anyhow::Result;

use crate::output::table::Layout;
use mirrorpolicy::source::api::{self as live, ClusterOptions, FlagOverrides};
use mirrorpolicy::source::node_exec::ReadOptions;

use crate::cli::{Cli, ClusterArgs, ColorChoice, NodeReadArgs};
use crate::exit::Failure;
use crate::term;

/// Everything the global flags decide.
#[derive(Debug, Clone)]
pub struct Settings {
    /// How the user ran the plugin (`kubectl mirrorpolicy` or `oc mirrorpolicy`):
    /// messages name its commands that way.
    pub name: &'static str,
    /// `-v`: say on stderr what was read and what was skipped.
    pub verbose: bool,
    /// Whether output may carry colour (`--color`, `NO_COLOR`, the terminal).
    pub colour: bool,
    /// The connection flags, as given (`--kubeconfig`, `--context`, `-n`, ...).
    pub cluster: ClusterArgs,
    /// Where the command's data goes.
    pub output: Output,
    /// With several clusters, the one these settings read: its messages
    /// on stderr (`-v`, warnings) start with `[NAME] `.
    pub label: Option<String>,
}

/// Where a command writes its data.
#[derive(Debug, Clone, Default)]
pub enum Output {
    /// Standard output.
    #[default]
    Stdout,
    /// A buffer, read back when the command is one of several (one per
    /// cluster) whose outputs are put together.
    Buffer(Arc<Mutex<Vec<u8>>>),
}

impl Settings {
    /// The settings of this run: `cli`'s global flags, the environment and
    /// whether stdout is a terminal.
    pub fn new(cli: &Cli, name: &'static str) -> Self {
        Self {
            name,
            verbose: cli.verbose,
            colour: colour_from(cli.color),
            cluster: cli.cluster.clone(),
            output: Output::Stdout,
            label: None,
        }
    }

    /// These settings for one cluster of several, named `name`: its context
    /// (and the server to reach it at, for a hub's cluster), and the output
    /// kept in a buffer.
    pub fn for_cluster(
        &self,
        name: &str,
        context: &str,
        server: Option<&str>,
    ) -> (Self, Arc<Mutex<Vec<u8>>>) {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let mut cluster = self.cluster.clone();
        cluster.context = vec![context.to_string()];
        cluster.all_contexts = false;
        cluster.hub = None;
        cluster.hub_selector = None;
        cluster.hub_ca = None;
        if let Some(server) = server {
            cluster.server = Some(server.to_string());
        }
        let settings = Self {
            cluster,
            output: Output::Buffer(Arc::clone(&buffer)),
            label: Some(name.to_string()),
            ..self.clone()
        };
        (settings, buffer)
    }

    /// Whether the flags name more than one cluster (`--context a,b`,
    /// `--all-contexts`, `--hub`).
    pub fn many_clusters(&self) -> bool {
        self.cluster.all_contexts || self.cluster.hub.is_some() || self.cluster.context.len() > 1
    }

    /// Renders into a buffer, then writes it out in one go: a renderer
    /// error leaves nothing half-printed. Text for a person
    /// ([`term::Sink::Text`]) has its input-borne control characters
    /// escaped, this program's colour kept when colour is on.
    pub fn print_to(
        &self,
        sink: term::Sink,
        render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut buf = Vec::new();
        render(&mut buf)?;
        match sink {
            term::Sink::Exact => self.print_bytes(&buf),
            term::Sink::Text => {
                let text = String::from_utf8_lossy(&buf);
                self.print_bytes(term::escape_controls(&text, self.colour).as_bytes())
            }
        }
    }

    /// [`Settings::print_to`] of exact bytes (JSON, YAML, file contents).
    pub fn print(&self, render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        self.print_to(term::Sink::Exact, render)
    }

    /// Writes bytes that are already complete.
    pub fn print_bytes(&self, bytes: &[u8]) -> io::Result<()> {
        match &self.output {
            Output::Stdout => term::print_bytes(bytes),
            Output::Buffer(buffer) => {
                buffer
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// `-n/--namespace` as given on the command line.
    pub fn namespace(&self) -> Option<&str> {
        self.cluster.namespace.as_deref()
    }

    /// Prints a `-v` message to stderr.
    pub fn verbose(&self, message: impl FnOnce() -> String) {
        if self.verbose {
            eprintln!(
                "{}{}",
                self.prefix(),
                term::escape_controls(&message(), false)
            );
        }
    }

    /// Prints a warning to stderr, its input-borne control characters escaped.
    pub fn warn(&self, message: impl std::fmt::Display) {
        eprintln!(
            "warning: {}{}",
            self.prefix(),
            term::escape_controls(&message.to_string(), false)
        );
    }

    /// `[NAME] ` with several clusters, else nothing.
    fn prefix(&self) -> String {
        self.label.as_deref().map_or(String::new(), |name| {
            format!("[{}] ", term::escape_controls(name, false))
        })
    }

    /// How tables are laid out on stdout (see [`term::layout`]).
    pub fn layout(&self, no_headers: bool) -> Layout {
        term::layout(self.colour, no_headers)
    }

    /// The connection options of the cluster flags. `--request-timeout` is
    /// checked here, when a cluster is to be reached, not before: with `-f`
    /// it does not matter.
    pub fn cluster_options(&self) -> Result<ClusterOptions> {
        let args = &self.cluster;
        let request_timeout = live::parse_request_timeout(&args.request_timeout)
            .map_err(|e| Failure::input(format!("--request-timeout: {e}")))?;
        Ok(ClusterOptions {
            kubeconfig: args.kubeconfig.clone(),
            context: args.context.first().cloned(),
            cluster: args.cluster.clone(),
            user: args.user.clone(),
            request_timeout,
            page_size: args.chunk_size,
            flags: FlagOverrides {
                server: args.server.clone(),
                tls_server_name: args.tls_server_name.clone(),
                certificate_authority: args.certificate_authority.clone(),
                insecure_skip_tls_verify: args.insecure_skip_tls_verify,
                token: args.token.clone(),
                client_certificate: args.client_certificate.clone(),
                client_key: args.client_key.clone(),
                impersonate: args.as_user.clone(),
                impersonate_uid: args.as_uid.clone(),
                impersonate_groups: args.as_group.clone(),
            },
            extra_trust: args.route_trust.clone(),
        })
    }
}

/// Decides colour from `--color`, `NO_COLOR` and whether stdout is a terminal.
fn colour_from(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    }
}

/// The read options of `--node-concurrency` and `--node-timeout`, for every
/// command that reads node files live.
pub fn node_read_options(args: &NodeReadArgs) -> Result<ReadOptions> {
    let timeout = live::parse_request_timeout(&args.timeout)
        .map_err(|_| {
            Failure::input(format!(
                "--node-timeout: invalid duration {:?}: use a number of seconds or a duration such as 30s, 2m or 1m30s",
                args.timeout.trim()
            ))
        })?
        .ok_or_else(|| {
            Failure::input("--node-timeout: 0 would wait forever on a node that never answers; give a duration such as 60s")
        })?;
    Ok(ReadOptions {
        concurrency: usize::from(args.concurrency),
        timeout,
    })
}
