//! Command-line arguments (clap derive): the commands, their flags and help.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use mirrorpolicy::registries::ShortNameMode;

const EXPLAIN_EXAMPLES: &str = "\
Examples:
  # Where does a node pull the release image from? (files copied from a node)
  kubectl mirrorpolicy explain quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64 \\
      --registries-conf examples/node/registries.conf --policy-json examples/node/policy.json

  # The same pull by digest uses the digest-only mirrors
  kubectl mirrorpolicy explain \\
      quay.io/openshift-release-dev/ocp-release@sha256:<64 hex digits> \\
      --registries-conf /etc/containers/registries.conf \\
      --registries-conf-d /etc/containers/registries.conf.d

  # A short name, resolved as CRI-O (enforcing) would, as JSON for scripts
  kubectl mirrorpolicy explain ubi9/ubi --registries-conf registries.conf \\
      --short-name-mode enforcing -o json";

/// Explain where CRI-O pulls an image from on OpenShift, and why.
///
/// Reads the registries.conf, registries.conf.d drop-ins and policy.json a
/// node uses, and shows for each image the ordered pull sources, the
/// mirrors skipped and why, blocked endpoints, short-name candidates and
/// the signature policy that applies, each traced to where it came from.
#[derive(Debug, Parser)]
#[command(version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    /// When to colour the output: auto colours only a terminal, and never when NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks,
    /// short-name candidates and signature policy.
    #[command(after_long_help = EXPLAIN_EXAMPLES, after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("node-config").required(true).multiple(true))]
pub struct ExplainArgs {
    /// Image references as a pod spec or `podman pull` would give them (tag, digest or short name).
    #[arg(required = true, value_name = "IMAGE")]
    pub images: Vec<String>,

    /// A registries.conf file, as /etc/containers/registries.conf on a node.
    #[arg(long, value_name = "FILE", group = "node-config")]
    pub registries_conf: Option<PathBuf>,

    /// A registries.conf.d folder of drop-ins (`*.conf`, read in lexical order, merged over the main file).
    #[arg(long = "registries-conf-d", value_name = "DIR", group = "node-config")]
    pub registries_conf_d: Option<PathBuf>,

    /// A policy.json file, as /etc/containers/policy.json on a node; without it no signature policy is shown.
    #[arg(long, value_name = "FILE")]
    pub policy_json: Option<PathBuf>,

    /// Override the short-name mode. Default: the files' `short-name-mode` (permissive when unset),
    /// as podman without a terminal; CRI-O 1.34+ (OpenShift 4.21+) uses enforcing.
    #[arg(long, value_enum, value_name = "MODE")]
    pub short_name_mode: Option<ShortNameModeArg>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `-o/--output` for explain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Yaml,
}

/// `--short-name-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShortNameModeArg {
    Enforcing,
    Permissive,
    Disabled,
}

impl From<ShortNameModeArg> for ShortNameMode {
    fn from(m: ShortNameModeArg) -> Self {
        match m {
            ShortNameModeArg::Enforcing => ShortNameMode::Enforcing,
            ShortNameModeArg::Permissive => ShortNameMode::Permissive,
            ShortNameModeArg::Disabled => ShortNameMode::Disabled,
        }
    }
}

/// The name users typed to run the plugin: `oc mirrorpolicy` when the
/// binary was installed as `oc-mirrorpolicy`, `kubectl mirrorpolicy` otherwise.
pub fn display_name(argv0: &str) -> &'static str {
    let file = argv0.rsplit(['/', '\\']).next().unwrap_or(argv0);
    if file.starts_with("oc-") {
        "oc mirrorpolicy"
    } else {
        "kubectl mirrorpolicy"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn display_name_follows_argv0() {
        assert_eq!(
            display_name("/usr/local/bin/oc-mirrorpolicy"),
            "oc mirrorpolicy"
        );
        assert_eq!(display_name("kubectl-mirrorpolicy"), "kubectl mirrorpolicy");
        assert_eq!(
            display_name("C:\\bin\\oc-mirrorpolicy.exe"),
            "oc mirrorpolicy"
        );
    }
}
