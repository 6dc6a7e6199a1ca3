//! Shell completion: `completion SHELL` prints a static script for the
//! standalone binary, and the hidden `__complete ARGS...` answers kubectl's
//! plugin-completion protocol (kubectl >= 1.26 runs
//! `kubectl_complete-mirrorpolicy ARGS...`, which calls it).
//!
//! The protocol is Cobra's: one candidate per line, `value<TAB>description`,
//! then `:<directive>` on the last line, where the directive is a bit set:
//! 1 error, 2 no space after the word, 4 no file completion.
//! Flags, subcommands and enumerated values come from the clap definition;
//! pool, node, namespace, context, cluster and user names from the
//! kubeconfig and the cluster, with a short timeout, silently empty when
//! the cluster cannot answer.

use std::time::Duration;

use anyhow::Result;
use clap::{Arg, ArgAction, Command, CommandFactory};

use mirrorpolicy::render::policy::{CRIO_POLICIES_DIR, POLICY_JSON};
use mirrorpolicy::render::pool::{REGISTRIES_CONF, SEARCH_REGISTRIES_CONF};
use mirrorpolicy::render::sigstore::SIGSTORE_REGISTRIES_D;
use mirrorpolicy::source::api::{self as live, ClusterOptions, FlagOverrides, Resource};

use crate::cli::{Cli, Shell};
use crate::term;

pub const NO_FILE: u8 = 4;
pub const DEFAULT: u8 = 0;

/// The name of the binary in generated scripts.
pub const BIN: &str = "kubectl-mirrorpolicy";

/// `completion SHELL`: the script on stdout.
pub fn run_completion(shell: Shell) -> Result<()> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell.generator(), &mut cmd, BIN, &mut buf);
    Ok(term::print_bytes(&buf)?)
}

/// A completion candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub help: String,
}

/// What to complete, found from the words typed so far.
#[derive(Debug, PartialEq, Eq)]
enum Want {
    /// The value of the flag with this long name (or short, as `-n`).
    Value { flag: String, prefix: String },
    /// A flag of the current command.
    Flag,
    /// A subcommand, or the positional argument at this index.
    Word(usize),
}

/// `__complete ARGS...`: candidates for the last (partial) argument.
pub fn run_protocol(args: &[String]) -> Result<()> {
    let (candidates, directive) = complete(args, &Fetch);
    term::print(|out| {
        for c in &candidates {
            if c.help.is_empty() {
                writeln!(out, "{}", c.value)?;
            } else {
                writeln!(out, "{}\t{}", c.value, c.help)?;
            }
        }
        writeln!(out, ":{directive}")
    })?;
    Ok(())
}

/// Where dynamic names come from (the cluster, or a table in tests).
pub trait Names {
    /// Names of `resource` objects; empty when they cannot be read.
    fn names(&self, resource: &Resource, words: &[String]) -> Vec<String>;
    /// Context, cluster or user names of the kubeconfig.
    fn kubeconfig(&self, what: &str, words: &[String]) -> Vec<String>;
}

/// Completes `args` (words after the plugin name; the last is partial).
pub fn complete(args: &[String], names: &dyn Names) -> (Vec<Candidate>, u8) {
    let mut root = Cli::command();
    root.build();
    let (words, partial) = match args.split_last() {
        Some((last, rest)) => (rest, last.as_str()),
        None => (&[][..], ""),
    };
    let (cmd, want) = locate(&root, words, partial);
    match want {
        Want::Value { flag, prefix } => {
            complete_flag_value(cmd, &flag, &prefix, words, partial, names)
        }
        Want::Flag => (complete_flag(cmd, partial), NO_FILE),
        Want::Word(index) => complete_word(cmd, index, words, partial, names),
    }
}

/// The values of `flag` (long or short name) of `cmd` that the partial
/// word (after `prefix`, the `--flag=` typed with it) starts, each with
/// `prefix` put back.
fn complete_flag_value(
    cmd: &Command,
    flag: &str,
    prefix: &str,
    words: &[String],
    partial: &str,
    names: &dyn Names,
) -> (Vec<Candidate>, u8) {
    let arg = cmd.get_arguments().find(|a| {
        a.get_long() == Some(flag) || a.get_short().map(|c| c.to_string()).as_deref() == Some(flag)
    });
    let Some(arg) = arg else {
        return (Vec::new(), NO_FILE);
    };
    let typed = partial.strip_prefix(prefix).unwrap_or(partial);
    let (values, directive) = values_for(arg, words, names);
    let out = values
        .into_iter()
        .filter(|c| c.value.starts_with(typed))
        .map(|c| Candidate {
            value: format!("{prefix}{}", c.value),
            help: c.help,
        })
        .collect();
    (out, directive)
}

/// The visible flags of `cmd` that `partial` starts: every `--long`, and
/// the `-s` forms while the partial word is at most a dash and a letter.
fn complete_flag(cmd: &Command, partial: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        if let Some(long) = arg.get_long() {
            let value = format!("--{long}");
            if value.starts_with(partial) {
                out.push(Candidate {
                    value,
                    help: first_line(arg.get_help()),
                });
            }
        }
        if let Some(short) = arg.get_short() {
            let value = format!("-{short}");
            if partial.len() <= 2 && value.starts_with(partial) && partial != "--" {
                out.push(Candidate {
                    value,
                    help: first_line(arg.get_help()),
                });
            }
        }
    }
    out
}

/// A word of `cmd`: its subcommands that `partial` starts (when it has
/// any), else the values of its positional number `index` (the last one
/// when it repeats).
fn complete_word(
    cmd: &Command,
    index: usize,
    words: &[String],
    partial: &str,
    names: &dyn Names,
) -> (Vec<Candidate>, u8) {
    let subcommands: Vec<Candidate> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name().starts_with(partial))
        .map(|s| Candidate {
            value: s.get_name().to_string(),
            help: first_line(s.get_about()),
        })
        .collect();
    if !subcommands.is_empty() || cmd.has_subcommands() {
        return (subcommands, NO_FILE);
    }
    let positional: Vec<&Arg> = cmd.get_positionals().collect();
    let arg = positional.get(index).or_else(|| {
        positional
            .last()
            .filter(|a| matches!(a.get_action(), ArgAction::Append))
    });
    match arg {
        Some(arg) => {
            let (values, directive) = values_for(arg, words, names);
            let out = values
                .into_iter()
                .filter(|c| c.value.starts_with(partial))
                .collect();
            (out, directive)
        }
        None => (Vec::new(), NO_FILE),
    }
}

/// Walks the typed words: the deepest subcommand, and whether the partial
/// word is a flag, a flag's value or a word.
fn locate<'c>(root: &'c Command, words: &[String], partial: &str) -> (&'c Command, Want) {
    let mut cmd = root;
    let mut pending: Option<String> = None;
    let mut rest_positional = false;
    let mut positionals = 0;
    for word in words {
        if pending.take().is_some() {
            continue;
        }
        if rest_positional {
            positionals += 1;
            continue;
        }
        if word == "--" {
            rest_positional = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            if !long.contains('=') && takes_value(cmd, Some(long), None) {
                pending = Some(long.to_string());
            }
            continue;
        }
        if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            // `-n ns`, `-nns`, `-vn ns`: the last short flag may take the next word.
            let last = shorts.chars().last();
            let attached = shorts.len() > 1
                && shorts
                    .chars()
                    .next()
                    .is_some_and(|c| takes_value(cmd, None, Some(c)));
            if !attached && last.is_some_and(|c| takes_value(cmd, None, Some(c))) {
                pending = last.map(|c| c.to_string());
            }
            continue;
        }
        match cmd.find_subcommand(word) {
            Some(sub) => {
                cmd = sub;
                positionals = 0;
            }
            None => positionals += 1,
        }
    }
    if let Some(flag) = pending {
        return (
            cmd,
            Want::Value {
                flag,
                prefix: String::new(),
            },
        );
    }
    if let Some(long) = partial.strip_prefix("--") {
        if let Some((name, _)) = long.split_once('=') {
            return (
                cmd,
                Want::Value {
                    flag: name.to_string(),
                    prefix: format!("--{name}="),
                },
            );
        }
        return (cmd, Want::Flag);
    }
    if partial.starts_with('-') {
        return (cmd, Want::Flag);
    }
    (cmd, Want::Word(positionals))
}

fn takes_value(cmd: &Command, long: Option<&str>, short: Option<char>) -> bool {
    cmd.get_arguments()
        .find(|a| {
            (long.is_some() && a.get_long() == long) || (short.is_some() && a.get_short() == short)
        })
        .is_some_and(|a| matches!(a.get_action(), ArgAction::Set | ArgAction::Append))
}

fn first_line(text: Option<&clap::builder::StyledStr>) -> String {
    text.map(|t| t.to_string())
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_string()
}

/// The values a flag takes, and whether the shell should offer files.
fn values_for(arg: &Arg, words: &[String], names: &dyn Names) -> (Vec<Candidate>, u8) {
    let possible = arg.get_possible_values();
    if !possible.is_empty() {
        let out = possible
            .iter()
            .filter(|p| !p.is_hide_set())
            .map(|p| Candidate {
                value: p.get_name().to_string(),
                help: first_line(p.get_help()),
            })
            .collect();
        return (out, NO_FILE);
    }
    let plain = |values: Vec<String>| -> (Vec<Candidate>, u8) {
        (
            values
                .into_iter()
                .map(|value| Candidate {
                    value,
                    help: String::new(),
                })
                .collect(),
            NO_FILE,
        )
    };
    match arg.get_id().as_str() {
        "pool" | "pools" => plain(names.names(&live::MACHINE_CONFIG_POOLS, words)),
        "node" | "nodes" => plain(names.names(&live::NODES, words)),
        "namespace" | "namespaces" => plain(names.names(&NAMESPACES, words)),
        "context" => plain(names.kubeconfig("context", words)),
        "cluster" => plain(names.kubeconfig("cluster", words)),
        "user" => plain(names.kubeconfig("user", words)),
        "file" | "files" => plain(
            [
                REGISTRIES_CONF,
                SEARCH_REGISTRIES_CONF,
                POLICY_JSON,
                SIGSTORE_REGISTRIES_D,
            ]
            .iter()
            .map(|s| s.to_string())
            .chain(std::iter::once(format!("{CRIO_POLICIES_DIR}/")))
            .collect(),
        ),
        "request_timeout" => plain(vec!["0".into(), "10s".into(), "30s".into(), "1m".into()]),
        _ => match arg.get_value_hint() {
            clap::ValueHint::FilePath
            | clap::ValueHint::DirPath
            | clap::ValueHint::AnyPath
            | clap::ValueHint::Unknown => (Vec::new(), DEFAULT),
            _ => (Vec::new(), NO_FILE),
        },
    }
}

const NAMESPACES: Resource = Resource {
    group: "",
    version: "v1",
    plural: "namespaces",
    kind: "Namespace",
    namespaced: false,
};

/// Names from the cluster and kubeconfig named by the typed words
/// (`--kubeconfig`, `--context`), within two seconds.
struct Fetch;

impl Fetch {
    fn options(words: &[String]) -> ClusterOptions {
        let flag = |name: &str| {
            words
                .iter()
                .position(|w| w == name)
                .and_then(|i| words.get(i + 1))
                .cloned()
                .or_else(|| {
                    let prefix = format!("{name}=");
                    words
                        .iter()
                        .find_map(|w| w.strip_prefix(&prefix).map(str::to_string))
                })
        };
        ClusterOptions {
            kubeconfig: flag("--kubeconfig").map(Into::into),
            context: flag("--context"),
            cluster: flag("--cluster"),
            user: flag("--user"),
            request_timeout: Some(Duration::from_secs(2)),
            page_size: 0,
            flags: FlagOverrides {
                server: flag("--server").or_else(|| flag("-s")),
                token: flag("--token"),
                impersonate: flag("--as"),
                certificate_authority: flag("--certificate-authority"),
                tls_server_name: flag("--tls-server-name"),
                insecure_skip_tls_verify: words.iter().any(|w| {
                    w == "--insecure-skip-tls-verify" || w == "--insecure-skip-tls-verify=true"
                }),
                ..FlagOverrides::default()
            },
            extra_trust: Default::default(),
        }
    }
}

impl Names for Fetch {
    fn names(&self, resource: &Resource, words: &[String]) -> Vec<String> {
        let options = Self::options(words);
        let Ok(runtime) = crate::steps::inputs::runtime() else {
            return Vec::new();
        };
        runtime
            .block_on(async {
                let connection = live::connect(&options).await.ok()?;
                connection.names(resource).await.ok()
            })
            .unwrap_or_default()
    }

    fn kubeconfig(&self, what: &str, words: &[String]) -> Vec<String> {
        live::kubeconfig_names(&Self::options(words), what).unwrap_or_default()
    }
}
