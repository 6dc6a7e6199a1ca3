//! Command-line arguments (clap derive): the commands, their flags and help.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use mirrorpolicy::registries::ShortNameMode;

pub const EXPLAIN_EXAMPLES: &str = "\
Examples:
  # Against the cluster of the current kubeconfig context
  kubectl mirrorpolicy explain registry.redhat.io/rhel9/support-tools:latest

  # Against a cluster's mirror objects (must-gather or `oc get -o yaml` output)
  kubectl mirrorpolicy explain registry.redhat.io/rhel9/support-tools:latest \\
      -f examples/disconnected-cluster

  # How would it be pulled once this ImageTagMirrorSet is applied?
  kubectl mirrorpolicy explain registry.example.com/apps/web:2.1 \\
      --with new-itms.yaml

  # For a pod in namespace payments: its ImagePolicy decides signature checks
  kubectl mirrorpolicy explain mirror.corp.example.com:5000/payments/api:v2 \\
      -f must-gather/ -n payments

  # Where does a node pull the release image from? (files copied from a node)
  kubectl mirrorpolicy explain \\
      quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64 \\
      --registries-conf examples/node/registries.conf \\
      --policy-json examples/node/policy.json

  # Against one node's own files, read through its machine-config-daemon pod
  kubectl mirrorpolicy explain registry.redhat.io/rhel9/support-tools:latest \\
      --node worker-1

  # The same from a collect-node-files folder
  kubectl mirrorpolicy explain registry.redhat.io/rhel9/support-tools:latest \\
      --node worker-1 --node-files node-files/

  # The same pull by digest uses the digest-only mirrors
  kubectl mirrorpolicy explain \\
      quay.io/openshift-release-dev/ocp-release@sha256:<64 hex digits> \\
      --registries-conf /etc/containers/registries.conf \\
      --registries-conf-d /etc/containers/registries.conf.d

  # A short name, resolved as CRI-O (enforcing) would, as JSON for scripts
  kubectl mirrorpolicy explain ubi9/ubi --registries-conf registries.conf \\
      --short-name-mode enforcing -o json";

/// `--version`: the version and the git commit the binary was built from
/// (`unknown` when built outside a git checkout); `-V` and the man pages
/// give the version only.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("MIRRORPOLICY_GIT_COMMIT"),
    ")"
);

/// Explain where CRI-O pulls an image from on OpenShift, and why.
///
/// Reads the mirror objects of a cluster (ImageContentSourcePolicy,
/// ImageDigestMirrorSet, ImageTagMirrorSet, the Image config, image policies)
/// from files or a must-gather with -f, or the registries.conf, drop-ins and
/// policy.json a node uses; renders them as the Machine Config Operator does,
/// and shows for each image the ordered pull sources, the mirrors skipped and
/// why, blocked endpoints, short-name candidates and the signature policy
/// that applies, each traced to the object or file line it came from.
#[derive(Debug, Parser)]
#[command(
    version,
    long_version = LONG_VERSION,
    propagate_version = true,
    max_term_width = 100,
    mut_subcommands(one_cluster_only)
)]
pub struct Cli {
    /// When to colour the output: auto colours only a terminal, and never when NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    /// Say more on stderr: which files and objects were read, and what was skipped.
    #[arg(short, long, global = true)]
    pub verbose: bool,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(subcommand)]
    pub command: Command,
}

pub const RENDER_EXAMPLES: &str = "\
Examples:
  # The registries.conf the MCO writes for the current cluster's master pool
  kubectl mirrorpolicy render --pool master \\
      --file /etc/containers/registries.conf

  # Every file the MCO would write for the worker pool, from a must-gather
  kubectl mirrorpolicy render -f must-gather/

  # The exact registries.conf a node gets
  kubectl mirrorpolicy render -f examples/disconnected-cluster \\
      --file /etc/containers/registries.conf

  # The generated MachineConfig object of the master pool
  kubectl mirrorpolicy render -f cluster-objects.yaml --pool master \\
      -o machineconfig";

pub const LIST_EXAMPLES: &str = "\
Examples:
  # The merged mirror rules of the current cluster, and the objects behind them
  kubectl mirrorpolicy list

  # The same from the example cluster's objects
  kubectl mirrorpolicy list -f examples/disconnected-cluster

  # As JSON, for scripts
  kubectl mirrorpolicy list -f must-gather/ -o json

  # Every cluster of the kubeconfig at once, one table with a CONTEXT column
  kubectl mirrorpolicy list --all-contexts -o wide

  # Every ACM-managed cluster labelled env=prod, through the hub
  kubectl mirrorpolicy list --hub acm-hub --hub-selector env=prod";

pub const LINT_EXAMPLES: &str = "\
Examples:
  # Check what the current cluster holds, as the MCO would
  kubectl mirrorpolicy lint

  # Check proposed mirror sets together with what a must-gather holds
  kubectl mirrorpolicy lint -f must-gather/ -f new-idms.yaml

  # In CI, as JSON
  kubectl mirrorpolicy lint -f manifests/ -o json";

/// The flags of [`ClusterArgs`] that name several clusters (`--context` names one or several).
const MANY_CLUSTER_FLAGS: [&str; 7] = [
    "all_contexts",
    "hub",
    "hub_selector",
    "hub_ca",
    "skip_unavailable",
    "context_concurrency",
    "context_timeout",
];

/// The commands that read one cluster only.
const ONE_CLUSTER_COMMANDS: [&str; 2] = ["migrate-icsp", "collect-node-files"];

/// A command that reads one cluster ([`ONE_CLUSTER_COMMANDS`]): its help
/// offers no flag of several clusters. They stay global (given anyway,
/// they are refused with a message), hidden on this command, and its
/// `--context` takes one context. Other commands are left as they are.
fn one_cluster_only(cmd: clap::Command) -> clap::Command {
    use clap::Args as _;
    if !ONE_CLUSTER_COMMANDS.contains(&cmd.get_name()) {
        return cmd;
    }
    let shared = ClusterArgs::augment_args(clap::Command::new("cluster"));
    let mut cmd = cmd;
    for arg in shared.get_arguments() {
        let id = arg.get_id().as_str();
        if MANY_CLUSTER_FLAGS.contains(&id) {
            cmd = cmd.arg(arg.clone().hide(true));
        } else if id == "context" {
            cmd = cmd.arg(arg.clone().help("The kubeconfig context to use"));
        } else if id == "kubeconfig" {
            // Defined here too, so that it still comes first.
            cmd = cmd.arg(arg.clone());
        }
    }
    cmd
}

/// The rules between the cluster flags, whichever side of the command name
/// each flag is given on (`--hub HUB list --hub-selector env=prod`): clap
/// checks `requires` and `conflicts_with` of a global flag on one side
/// only (and would refuse this one), so `--hub-selector`,
/// `--skip-unavailable` and `--hub-ca` need `--hub` here, and the
/// conflicts clap finds on one side are found across too.
pub fn check_cluster_flags(cli: &Cli, cmd: &mut clap::Command) -> Result<(), clap::Error> {
    use clap::error::ErrorKind;
    let c = &cli.cluster;
    let with_hub = [
        ("--hub-selector <SELECTOR>", c.hub_selector.is_some()),
        ("--skip-unavailable", c.skip_unavailable),
        ("--hub-ca <FILE>", c.hub_ca.is_some()),
    ];
    if c.hub.is_none() {
        if let Some((flag, _)) = with_hub.iter().find(|(_, given)| *given) {
            return Err(cmd.error(
                ErrorKind::MissingRequiredArgument,
                format!("the following required arguments were not provided:\n  --hub <CONTEXT>\n\n{flag} is used with --hub"),
            ));
        }
    }
    let many = [
        ("--hub <CONTEXT>", c.hub.is_some()),
        ("--all-contexts", c.all_contexts),
    ];
    let one = [
        ("--context <NAME>", !c.context.is_empty()),
        ("--server <URL>", c.server.is_some()),
        ("--all-contexts", c.all_contexts),
    ];
    for (flag, given) in many {
        let other = one.iter().find(|(o, g)| *g && *o != flag);
        if let (true, Some((other, _))) = (given, other) {
            return Err(cmd.error(
                ErrorKind::ArgumentConflict,
                format!("the argument '{flag}' cannot be used with '{other}'"),
            ));
        }
    }
    Ok(())
}

/// How to reach the cluster, as kubectl takes it. Ignored with -f (files) and
/// node files: then the cluster is never contacted.
#[derive(Debug, Clone, Default, Args)]
pub struct ClusterArgs {
    /// Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config).
    #[arg(long, value_name = "FILE", global = true, help_heading = "Cluster")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use; several (repeated, or a comma list) read those clusters
    /// at once, one section each.
    #[arg(
        long,
        value_name = "NAME",
        global = true,
        help_heading = "Cluster",
        value_delimiter = ','
    )]
    pub context: Vec<String>,

    /// Read the cluster of every context of the kubeconfig at once, one section each.
    #[arg(
        long,
        global = true,
        help_heading = "Cluster",
        conflicts_with_all = ["context", "server"]
    )]
    pub all_contexts: bool,

    /// Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig
    /// context, each through the hub's cluster-proxy add-on, one section each; one the hub
    /// reports unavailable or has not accepted is reported so, without a request (exit 3 unless
    /// --skip-unavailable).
    #[arg(
        long,
        value_name = "CONTEXT",
        global = true,
        help_heading = "Cluster",
        conflicts_with_all = ["context", "all_contexts", "server"]
    )]
    pub hub: Option<String>,

    /// With --hub: only the ManagedClusters this label selector selects (key=value, key!=value,
    /// key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List).
    #[arg(long, value_name = "SELECTOR", global = true, help_heading = "Cluster")]
    pub hub_selector: Option<String>,

    /// With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable
    /// not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does
    /// not make the exit code 3; the exit code is that of the clusters read.
    #[arg(long, global = true, help_heading = "Cluster")]
    pub skip_unavailable: bool,

    /// With --hub: the CA bundle (PEM) that signed the certificate of the hub's cluster-proxy
    /// Route, in place of the hub's ingress CA (ConfigMap default-ingress-cert in
    /// openshift-config-managed).
    #[arg(long, value_name = "FILE", global = true, help_heading = "Cluster")]
    pub hub_ca: Option<std::path::PathBuf>,

    /// Roots trusted besides the cluster's: a hub's route CA, for one of its
    /// ManagedClusters (set by --hub, never a flag).
    #[arg(skip)]
    pub route_trust: mirrorpolicy::tls::Trust,

    /// With several contexts: how many clusters to read at the same time
    /// (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB;
    /// see BENCHMARKS.md).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 32,
        value_parser = clap::value_parser!(u16).range(1..),
        global = true,
        help_heading = "Cluster"
    )]
    pub context_concurrency: u16,

    /// With several contexts: how long one cluster may take before it is reported as not read
    /// (0 waits forever; a number of seconds or a duration such as 90s or 2m).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "2m",
        global = true,
        help_heading = "Cluster"
    )]
    pub context_timeout: String,

    /// The kubeconfig cluster to use.
    #[arg(long, value_name = "NAME", global = true, help_heading = "Cluster")]
    pub cluster: Option<String>,

    /// The kubeconfig user to use.
    #[arg(long, value_name = "NAME", global = true, help_heading = "Cluster")]
    pub user: Option<String>,

    /// The address and port of the API server, in place of the kubeconfig cluster's (its CA stays;
    /// its tls-server-name does not).
    #[arg(
        short = 's',
        long,
        value_name = "URL",
        global = true,
        help_heading = "Cluster"
    )]
    pub server: Option<String>,

    /// Bearer token for authentication to the API server, in place of the kubeconfig user's
    /// credential.
    #[arg(long, value_name = "TOKEN", global = true, help_heading = "Cluster")]
    pub token: Option<String>,

    /// Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME).
    #[arg(
        long = "as",
        value_name = "USER",
        global = true,
        help_heading = "Cluster"
    )]
    pub as_user: Option<String>,

    /// Group to impersonate for the operation; repeat it for several groups.
    #[arg(
        long = "as-group",
        value_name = "GROUP",
        global = true,
        help_heading = "Cluster"
    )]
    pub as_group: Vec<String>,

    /// UID to impersonate for the operation.
    #[arg(
        long = "as-uid",
        value_name = "UID",
        global = true,
        help_heading = "Cluster"
    )]
    pub as_uid: Option<String>,

    /// Do not check the server's certificate (insecure); drops the kubeconfig's CA.
    #[arg(
        long,
        value_name = "BOOL",
        global = true,
        help_heading = "Cluster",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        default_value_t = false,
        action = clap::ArgAction::Set
    )]
    pub insecure_skip_tls_verify: bool,

    /// Path to a certificate file for the certificate authority, in place of the kubeconfig's.
    #[arg(long, value_name = "FILE", global = true, help_heading = "Cluster")]
    pub certificate_authority: Option<String>,

    /// Path to a client certificate file for TLS.
    #[arg(long, value_name = "FILE", global = true, help_heading = "Cluster")]
    pub client_certificate: Option<String>,

    /// Path to a client key file for TLS.
    #[arg(long, value_name = "FILE", global = true, help_heading = "Cluster")]
    pub client_key: Option<String>,

    /// Server name to use for server certificate validation (and SNI); without it, the host of
    /// the server URL.
    #[arg(long, value_name = "NAME", global = true, help_heading = "Cluster")]
    pub tls_server_name: Option<String>,

    /// The namespace: explain applies its ImagePolicy (the pod's namespace); audit checks only
    /// its workloads and operator-check only its Subscriptions (default there: the context's
    /// namespace; with -f, every namespace in the files unless this is given).
    #[arg(
        short = 'n',
        long,
        value_name = "NAMESPACE",
        global = true,
        help_heading = "Cluster"
    )]
    pub namespace: Option<String>,

    /// How long to wait for each API request: 0 waits forever, else a number of seconds or a
    /// duration with a unit (500ms, 30s, 2m).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "0",
        global = true,
        help_heading = "Cluster"
    )]
    pub request_timeout: String,

    /// Read large lists in pages of this many objects (0: all at once), as kubectl's --chunk-size.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 500,
        global = true,
        help_heading = "Cluster"
    )]
    pub chunk_size: u32,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks,
    /// short-name candidates and signature policy. Exit 1 when an image's pull would be refused or
    /// fail, 2 when a reference is invalid.
    #[command(after_long_help = EXPLAIN_EXAMPLES, after_help = EXPLAIN_EXAMPLES)]
    Explain(ExplainArgs),
    /// Render what the Machine Config Operator generates from the mirror CRs: registries.conf,
    /// policy.json, registries.d, namespace policies and the generated MachineConfig.
    #[command(after_long_help = RENDER_EXAMPLES, after_help = RENDER_EXAMPLES)]
    Render(RenderArgs),
    /// Check mirror CRs before applying them: the API server's CRD rules and the MCO's own
    /// validation (which it only logs), plus warnings. Exit 1 when an error is found.
    #[command(after_long_help = LINT_EXAMPLES, after_help = LINT_EXAMPLES)]
    Lint(LintArgs),
    /// List the effective mirror rules after the MCO's merge, with the objects behind each.
    #[command(after_long_help = LIST_EXAMPLES, after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`),
    /// prove the nodes see no change, and write them out or apply them to the cluster.
    #[command(name = "migrate-icsp", after_long_help = MIGRATE_EXAMPLES, after_help = MIGRATE_EXAMPLES)]
    MigrateIcsp(MigrateArgs),
    /// Check every image that Pods, workload controllers, ClusterServiceVersions (not the copies
    /// OLM makes) and CatalogSources reference against the mirrors and policies: which will be
    /// served by a mirror, go to the source, fail, or need a signature.
    #[command(after_long_help = AUDIT_EXAMPLES, after_help = AUDIT_EXAMPLES)]
    Audit(AuditArgs),
    /// Compare what the CRs render, the generated MachineConfig, the pool's rendered config and
    /// what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift.
    #[command(after_long_help = DIFF_EXAMPLES, after_help = DIFF_EXAMPLES)]
    Diff(DiffArgs),
    /// Copy the mirror-configuration files each node really holds (registries.conf, drop-ins,
    /// policy.json, registries.d, CRI-O namespace policies, the daemon's currentconfig, and the
    /// SHA-256 of the certs.d files) into DIR/<node>/<host path>, read through the node's
    /// machine-config-daemon pod. Exit 3 when a node could not be read (the others are written).
    #[command(name = "collect-node-files", after_long_help = COLLECT_EXAMPLES, after_help = COLLECT_EXAMPLES)]
    CollectNodeFiles(CollectNodeFilesArgs),
    /// Check that an update to a release will pull through the cluster's own mirrors: the payload
    /// and every component image it names, probed on the sources CRI-O on a control-plane node
    /// walks. Exit 0 ready, 1 not ready (an image missing, unsigned where required, or refused),
    /// 2 bad input, 3 undetermined (a registry or the cluster did not answer).
    #[command(name = "upgrade-check", after_long_help = UPGRADE_EXAMPLES, after_help = UPGRADE_EXAMPLES)]
    UpgradeCheck(UpgradeCheckArgs),
    /// Check that an operator's install or update will pull through the cluster's own mirrors:
    /// the catalog image read as CRI-O pulls it, OLM's update path from the installed CSV, and
    /// every bundle, operator and related image of each hop probed. Exit 0 ready, 1 not ready,
    /// 2 bad input, 3 undetermined.
    #[command(name = "operator-check", after_long_help = OPERATOR_EXAMPLES, after_help = OPERATOR_EXAMPLES)]
    OperatorCheck(OperatorCheckArgs),
    /// Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell,
    /// elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy.
    #[command(after_long_help = COMPLETION_EXAMPLES, after_help = COMPLETION_EXAMPLES)]
    Completion(CompletionArgs),
    /// kubectl's plugin-completion protocol: candidates for the last of ARGS.
    #[command(name = "__complete", hide = true)]
    Complete(CompleteArgs),
}

const UPGRADE_EXAMPLES: &str = "\
Examples:
  # Will the update the cluster offers to 4.21.3 pull through its mirrors?
  kubectl mirrorpolicy upgrade-check --to 4.21.3

  # A payload by digest, with a must-gather's cluster objects (the registries
  # are probed from this machine)
  kubectl mirrorpolicy upgrade-check -f must-gather/ \\
      --to-image quay.io/openshift-release-dev/ocp-release@sha256:<digest>

  # Every image, not only the failing ones; or as JSON for scripts
  kubectl mirrorpolicy upgrade-check --to 4.21.3 -o wide
  kubectl mirrorpolicy upgrade-check --to 4.21.3 -o json";

/// How `upgrade-check` and `operator-check` probe the registries from this machine (they
/// always probe).
#[derive(Debug, Args)]
pub struct RegistryProbeArgs {
    /// The registry credentials (containers-auth.json or a Docker config.json), instead of the
    /// cluster's pull secret (live) or containers/image's default auth files (-f).
    #[arg(long, value_name = "FILE")]
    pub authfile: Option<PathBuf>,

    /// A folder of certificates trusted for every registry, as skopeo's --cert-dir (`*.crt`
    /// CAs, `*.cert`/`*.key` client certificate pairs), besides the cluster's additionalTrustedCA.
    #[arg(long, value_name = "DIR")]
    pub cert_dir: Option<PathBuf>,

    /// Seconds to wait for each registry request.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub probe_timeout: u64,

    /// How many images are probed at once (a mirror registry answers many at a time).
    #[arg(long, value_name = "N", default_value_t = 32,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub probe_concurrency: u16,
}

/// Arguments of `upgrade-check`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("target").required(true).args(["to", "to_image"]))]
pub struct UpgradeCheckArgs {
    /// The version to update to, as `oc adm upgrade --to`: one of ClusterVersion
    /// status.availableUpdates or status.conditionalUpdates (whose risks are shown).
    #[arg(long, value_name = "VERSION")]
    pub to: Option<String>,

    /// The release payload to update to, as `oc adm upgrade --to-image`: a pull spec by digest
    /// (a tag is resolved on the source that serves it, and the digest reported).
    #[arg(long, value_name = "PULLSPEC")]
    pub to_image: Option<String>,

    /// Cluster objects (mirror sets, Image config, image policies, ClusterVersion, Nodes) from
    /// files or a must-gather, instead of the live cluster; the registries are still probed
    /// from this machine. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// The control plane's architecture (amd64, arm64, ppc64le, s390x): picks the image of a
    /// multi-architecture payload, and a payload without one for it is not ready; default the
    /// control-plane Nodes' kubernetes.io/arch.
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,

    #[command(flatten)]
    pub probe: RegistryProbeArgs,

    /// Leave out the header row of the table.
    #[arg(long)]
    pub no_headers: bool,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = UpgradeFormat::Table)]
    pub output: UpgradeFormat,
}

/// `-o/--output` for upgrade-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UpgradeFormat {
    /// The summary, the failing images and the next steps.
    Table,
    /// The same with every image.
    Wide,
    Json,
    Yaml,
    /// With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total.
    Summary,
}

/// How upgrade-check prints its report: `-o` but `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpgradeOutput {
    Table,
    Wide,
    Json,
    Yaml,
}

impl UpgradeFormat {
    /// The format the report is printed in; `None` for `-o summary`, which
    /// the fleet path counts from the report instead.
    pub fn printed(self) -> Option<UpgradeOutput> {
        match self {
            UpgradeFormat::Table => Some(UpgradeOutput::Table),
            UpgradeFormat::Wide => Some(UpgradeOutput::Wide),
            UpgradeFormat::Json => Some(UpgradeOutput::Json),
            UpgradeFormat::Yaml => Some(UpgradeOutput::Yaml),
            UpgradeFormat::Summary => None,
        }
    }
}

const OPERATOR_EXAMPLES: &str = "\
Examples:
  # The Subscriptions of the current namespace, or of every namespace, live
  kubectl mirrorpolicy operator-check
  kubectl mirrorpolicy operator-check -A

  # Every Subscription of a must-gather, its catalog read through its mirrors
  kubectl mirrorpolicy operator-check -f must-gather/

  # One Subscription, with oc-mirror's cluster resources as the mirror setup
  kubectl mirrorpolicy operator-check etcd -n operators \\
      -f subscriptions.yaml -f working-dir/cluster-resources/

  # Before disconnecting: every image served by a mirror, the parsed catalog
  # kept between runs
  kubectl mirrorpolicy operator-check -A --require-mirror \\
      --cache-dir ~/.cache/mirrorpolicy

  # One package from a catalog image, updating from an installed CSV, as JSON
  kubectl mirrorpolicy operator-check -f cluster-resources/ \\
      --catalog-image registry.redhat.io/redhat/redhat-operator-index:v4.21 \\
      --package etcd --channel stable --installed etcd.v0.9.2 -o json";

/// Arguments of `operator-check`.
#[derive(Debug, Args)]
pub struct OperatorCheckArgs {
    /// Subscriptions to check, by name, and OLM v1 ClusterExtensions as clusterextension/NAME
    /// (default: every Subscription and ClusterExtension read, or --package).
    #[arg(value_name = "SUBSCRIPTION", conflicts_with = "package")]
    pub subscriptions: Vec<String>,

    /// Cluster objects (Subscriptions, CatalogSources, ClusterServiceVersions, InstallPlans,
    /// ClusterExtensions, ClusterCatalogs, mirror sets, Image config, MachineConfigPools, Nodes)
    /// from files, folders or a must-gather, instead of the live cluster; the registries are
    /// probed from this machine. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// The Subscriptions of every namespace (live: instead of the current context's namespace).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// The catalog image to read, instead of the CatalogSource's spec.image.
    #[arg(long, value_name = "PULLSPEC")]
    pub catalog_image: Option<String>,

    /// Check this package as a Subscription would (with --catalog-image), instead of the
    /// Subscriptions read.
    #[arg(long, value_name = "PACKAGE", requires = "catalog_image")]
    pub package: Option<String>,

    /// With --package: the channel (default: every channel, the default channel first, as OLM
    /// reads a Subscription without one).
    #[arg(long, value_name = "CHANNEL", requires = "package")]
    pub channel: Option<String>,

    /// With --package: the installed CSV to update from.
    #[arg(
        long,
        value_name = "CSV",
        requires = "package",
        conflicts_with = "starting_csv"
    )]
    pub installed: Option<String>,

    /// With --package: install this CSV first (a Subscription's spec.startingCSV).
    #[arg(long, value_name = "CSV", requires = "package")]
    pub starting_csv: Option<String>,

    /// Stop the update path at this CSV instead of the channel head.
    #[arg(long, value_name = "CSV")]
    pub to: Option<String>,

    /// Stop the update path after this many hops.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub max_hops: usize,

    /// Every image must be served by a mirror (a disconnected cluster): an image the probe
    /// finds served only by its own registry is `notMirrored`, and not ready. (A source under
    /// `mirrorSourcePolicy: NeverContactSource` is blocked, so it never serves anyway.)
    #[arg(long)]
    pub require_mirror: bool,

    /// Count the relatedImages (operands) of every hop, not only of the last.
    #[arg(long)]
    pub operands: bool,

    /// For a multi-architecture catalog: the architecture to read (amd64, arm64, ppc64le,
    /// s390x); default the worker Nodes' kubernetes.io/arch.
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,

    /// Keep the packages read from each catalog in DIR, a file per catalog manifest digest and
    /// package set: a catalog whose digest has not changed is not read again (its manifest is
    /// still fetched). A cache file that cannot be read is ignored, with a warning.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    #[command(flatten)]
    pub probe: RegistryProbeArgs,

    /// Leave out the header row of the tables.
    #[arg(long)]
    pub no_headers: bool,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = OperatorFormat::Table)]
    pub output: OperatorFormat,
}

/// `-o/--output` for operator-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OperatorFormat {
    /// Each Subscription's verdict, its path, every image of it, and the next steps.
    Table,
    /// The same, with where each hop's CSV was read, its dependencies, and each image's
    /// sources tried, signature and detail.
    Wide,
    Json,
    Yaml,
    /// One line per Subscription (its readiness, reason, installed CSV, head, hops, failing
    /// images) and a total.
    Summary,
}

const COLLECT_EXAMPLES: &str = "\
Examples:
  # Every node's files, for a support case or offline work
  kubectl mirrorpolicy collect-node-files --dest-dir node-files/

  # The worker pool and one master, 20 nodes at a time
  kubectl mirrorpolicy collect-node-files --pool worker --node master-0 \\
      --node-concurrency 20 --dest-dir node-files/

  # What one node holds, then compare it with the cluster's objects offline
  kubectl mirrorpolicy collect-node-files --node worker-2 \\
      --dest-dir node-files/
  ls node-files/worker-2/etc/containers/registries.conf.d

RBAC: get,list nodes; get,list pods and create,get pods/exec in namespace
openshift-machine-config-operator (an admin-level right: root on the node).
Nothing is written on the nodes and no pod is created.";

/// How node files are read live: through each node's machine-config-daemon
/// pod, a bounded number of nodes at a time, each under a timeout.
#[derive(Debug, Clone, Args)]
pub struct NodeReadArgs {
    /// How many nodes are read at one time.
    #[arg(
        long = "node-concurrency",
        value_name = "N",
        default_value_t = 10,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub concurrency: u16,

    /// The limit on reading one node (a duration such as 30s or 2m); a node that takes longer
    /// is reported as not read and the others go on.
    #[arg(long = "node-timeout", value_name = "DURATION", default_value = "60s")]
    pub timeout: String,
}

/// Arguments of `collect-node-files`.
#[derive(Debug, Args)]
pub struct CollectNodeFilesArgs {
    /// Only this node (repeatable); with neither --node nor --pool, every node.
    #[arg(long = "node", value_name = "NODE")]
    pub nodes: Vec<String>,

    /// The nodes of this pool (repeatable): the nodes whose current config is the pool's
    /// (rendered-POOL-...).
    #[arg(long = "pool", value_name = "POOL")]
    pub pools: Vec<String>,

    /// The folder to write DIR/<node>/etc/... and DIR/<node>/certs.sha256 into; created if
    /// missing. A node folder that already exists is never replaced.
    #[arg(long, value_name = "DIR")]
    pub dest_dir: PathBuf,

    #[command(flatten)]
    pub read: NodeReadArgs,
}

pub const COMPLETION_EXAMPLES: &str = "\
Examples:
  # bash, for the current shell
  source <(kubectl-mirrorpolicy completion bash)

  # zsh, installed for every new shell
  kubectl-mirrorpolicy completion zsh > \"${fpath[1]}/_kubectl-mirrorpolicy\"

  # fish
  kubectl-mirrorpolicy completion fish \\
      > ~/.config/fish/completions/kubectl-mirrorpolicy.fish";

pub const MIGRATE_EXAMPLES: &str = "\
Examples:
  # The replacements of every ICSP of the cluster, proven equivalent, on stdout
  kubectl mirrorpolicy migrate-icsp

  # From exported objects, one file per object (oc's names, no random suffix)
  kubectl mirrorpolicy migrate-icsp -f must-gather/ --dest-dir idms/

  # Apply after a server-side dry run, then delete each ICSP whose replacement
  # is confirmed on the server
  kubectl mirrorpolicy migrate-icsp --apply --delete-icsp

  # In a pipeline: no prompt
  kubectl mirrorpolicy migrate-icsp --apply --yes";

/// Arguments of `migrate-icsp`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// ImageContentSourcePolicy files, as `oc adm migrate icsp FILE...` takes them; the same as
    /// -f.
    #[arg(value_name = "FILE", conflicts_with = "apply")]
    pub files: Vec<PathBuf>,

    /// ImageContentSourcePolicies (and the other mirror objects they live with) from files,
    /// folders or `-`, instead of the live cluster. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// Write one file per object into DIR (`imagedigestmirrorset_<name>.yaml`); an existing
    /// file with other content is never overwritten.
    #[arg(long, value_name = "DIR", conflicts_with = "apply")]
    pub dest_dir: Option<PathBuf>,

    /// Also write an ImageTagMirrorSet per ICSP, so that pulls by tag use the mirrors too.
    #[arg(long)]
    pub with_tag_mirrors: bool,

    /// Apply the replacements to the live cluster (server-side apply), after a server-side dry
    /// run and a confirmation.
    #[arg(long, conflicts_with = "filenames")]
    pub apply: bool,

    /// With --apply: delete each ICSP once its replacement is read back from the server as planned.
    #[arg(long, requires = "apply")]
    pub delete_icsp: bool,

    /// With --delete-icsp: how long to wait for the deleted ICSPs to go, as `kubectl delete`
    /// waits (an ICSP that finalizers hold is only marked for deletion until they are removed);
    /// a duration such as 30s or 2m [default: 60s].
    #[arg(long, value_name = "DURATION", requires = "delete_icsp")]
    pub timeout: Option<String>,

    /// With --apply: do not ask for confirmation.
    #[arg(short = 'y', long, requires = "apply")]
    pub yes: bool,

    /// Copy the GitOps tracking labels and annotations (Argo CD `app.kubernetes.io/instance`,
    /// `argocd.argoproj.io/tracking-id`; Flux `kustomize.toolkit.fluxcd.io/*`,
    /// `helm.toolkit.fluxcd.io/*`) to the replacements; by default they stay with the ICSP, as
    /// the replacements are in no GitOps source (a tool would prune them or claim them).
    #[arg(long)]
    pub keep_labels: bool,

    /// Output format on stdout.
    #[arg(short, long, value_enum, default_value_t = MigrateFormat::Yaml)]
    pub output: MigrateFormat,
}

impl MigrateArgs {
    /// The files to read: the positional ones (oc's syntax), then those of `-f`.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.files.iter().chain(&self.filenames).cloned().collect()
    }
}

/// `-o/--output` for migrate-icsp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MigrateFormat {
    /// Multi-document YAML, as `oc adm migrate icsp` writes it.
    Yaml,
    /// One object, or a `v1` `List` of them as `kubectl get -o json` prints it.
    Json,
}

pub const AUDIT_EXAMPLES: &str = "\
Examples:
  # The images of the current namespace
  kubectl mirrorpolicy audit

  # Every namespace, with the objects behind each image
  kubectl mirrorpolicy audit -A -o wide

  # Only the workloads of one application, in every namespace
  kubectl mirrorpolicy audit -A -l 'app.kubernetes.io/part-of in (shop)'

  # In CI, on a must-gather: fail on images a disconnected cluster cannot pull
  kubectl mirrorpolicy audit -f must-gather/ --fail-on warning

  # Before disconnecting: fail on images the mirrors lack or hold unsigned
  kubectl mirrorpolicy audit -A --probe \\
      --fail-on missingOnMirror,unsignedOnMirror

  # Every operator's next update too: its bundle and images through the mirrors
  kubectl mirrorpolicy audit -A --updates

  # Two clusters at once, one section each
  kubectl mirrorpolicy audit -A --context prod-east,prod-west

  # For scripts
  kubectl mirrorpolicy audit -A -o json";

/// Arguments of `audit`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("journal_source").args(["journal", "journal_file"]))]
pub struct AuditArgs {
    /// Workloads and mirror objects from files, folders (a must-gather works as is) or `-`,
    /// instead of the live cluster; every namespace in them unless -n is given. Repeatable;
    /// each input at most 256 MiB.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// Every namespace (live: instead of the current context's namespace).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,

    /// Only the Pods, controllers, ClusterServiceVersions and CatalogSources whose labels match,
    /// in kubectl's syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key;
    /// commas join requirements that must all match.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,

    /// Exit 1 when an image is in a class of this level or worse: error (invalid, notAllowed,
    /// sourceBlocked, shortNameRefused, and with --probe missingOnMirror, unsignedOnMirror) or
    /// warning (also tagSkipsDigestMirrors, shortName); or in one of the classes named
    /// (comma-separated, camelCase or kebab-case: missingOnMirror or missing-on-mirror). An
    /// undetermined image (--probe: a source did not answer) exits 3 unless named here.
    #[arg(
        long,
        value_enum,
        value_name = "LEVEL|CLASS",
        value_delimiter = ',',
        ignore_case = true
    )]
    pub fail_on: Vec<FailOn>,

    /// Every image must be served by a mirror (a disconnected cluster): images pulled from their
    /// own registry (direct) or by tag past digest-only mirrors are errors. Implies
    /// `--fail-on error` unless --fail-on is given.
    #[arg(long)]
    pub require_mirror: bool,

    /// Also each Subscription's next update (the first hop OLM takes from its installed CSV),
    /// checked as `operator-check --max-hops 1` checks it: its catalog read through the mirrors,
    /// its bundle and operator images probed. notReady counts as an error for --fail-on,
    /// undetermined exits 3.
    #[arg(long, conflicts_with_all = ["journal", "journal_file"])]
    pub updates: bool,

    /// Leave out the header row of the table.
    #[arg(long)]
    pub no_headers: bool,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = AuditFormat::Table)]
    pub output: AuditFormat,

    /// Instead of the workloads: every pull in a CRI-O pull log (`oc adm node-logs NODE -u
    /// crio` output, several nodes' merged output too, gzip too, or a must-gather folder's
    /// journal files), grouped by image and judged against each node's pool's configuration
    /// (--pool), diverging images first: which sources served, which mirrors never did. Exit 1
    /// when a pull diverges, 3 when one cannot be judged.
    #[arg(
        long = "journal-file",
        value_name = "FILE",
        conflicts_with_all = ["probe", "fail_on", "require_mirror", "selector", "all_namespaces"]
    )]
    pub journal_file: Option<PathBuf>,

    /// Instead of the workloads: every pull in the CRI-O pull logs of the cluster's nodes, read
    /// live as `oc adm node-logs NODE -u crio` reads them (needs `get nodes/proxy`, which is
    /// effectively exec on the node), or with -f MUST_GATHER its journal files
    /// (host_service_logs/*/crio_service.log). Each node is judged against its own pool's
    /// configuration; a node whose log cannot be read or was cut is named, exit 3.
    #[arg(
        long,
        conflicts_with_all = ["probe", "fail_on", "require_mirror", "selector", "all_namespaces", "journal_file"]
    )]
    pub journal: bool,

    /// With --journal or --journal-file: the start of the window, a duration back from now (2h,
    /// 30m, 90s, 1d) or YYYY-MM-DD HH:MM:SS in UTC; only the pulls whose `Pulling image` line is
    /// in the window count. Live, default 1h (the kubelet stops journalctl after 30s: keep it
    /// short); files, default their start.
    #[arg(long, value_name = "WHEN", requires = "journal_source")]
    pub since: Option<String>,

    /// With --journal or --journal-file: the end of the window (same forms as --since); default
    /// now.
    #[arg(long, value_name = "WHEN", requires = "journal_source")]
    pub until: Option<String>,

    /// With --journal or --journal-file: only these nodes (comma-separated; the journal's host
    /// column is the node's name or its first label).
    #[arg(
        long = "node",
        value_name = "NODE",
        value_delimiter = ',',
        requires = "journal_source",
        conflicts_with = "pool"
    )]
    pub nodes: Vec<String>,

    /// With --journal or --journal-file: judge every pull against this MachineConfigPool's
    /// configuration (live --journal: read the logs of its nodes only). Default: each node
    /// against its own pool (from its rendered config, the pools' nodeSelectors, its role
    /// label), or worker when the input has no Node objects.
    #[arg(long, value_name = "POOL", requires = "journal_source")]
    pub pool: Option<String>,

    /// With --journal, live: how many nodes' logs are read at one time.
    #[arg(
        long = "node-concurrency",
        value_name = "N",
        default_value_t = 8,
        requires = "journal",
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub node_concurrency: u16,

    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `--fail-on`: a level, or an audit class (camelCase as in the JSON, or
/// the kebab-case spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Images that will not pull: every class of the error level.
    Error,
    /// Also images that reach the source or resolve a short name.
    Warning,
    Invalid,
    #[value(name = "notAllowed", alias = "not-allowed")]
    NotAllowed,
    #[value(name = "sourceBlocked", alias = "source-blocked")]
    SourceBlocked,
    #[value(name = "shortNameRefused", alias = "short-name-refused")]
    ShortNameRefused,
    /// With --probe: no source serves the image.
    #[value(name = "missingOnMirror", alias = "missing-on-mirror")]
    MissingOnMirror,
    /// With --probe: served without the sigstore signature its policy requires.
    #[value(name = "unsignedOnMirror", alias = "unsigned-on-mirror")]
    UnsignedOnMirror,
    /// With --probe: a source did not answer in time (CRI-O would keep waiting on it).
    Undetermined,
    #[value(name = "tagSkipsDigestMirrors", alias = "tag-skips-digest-mirrors")]
    TagSkipsDigestMirrors,
    #[value(name = "shortName", alias = "short-name")]
    ShortName,
    Direct,
    Mirrored,
}

impl FailOn {
    /// The audit class this value names (`None` for a level).
    pub fn class(self) -> Option<mirrorpolicy::audit::Class> {
        match self {
            FailOn::Error | FailOn::Warning => None,
            _ => self
                .to_possible_value()
                .and_then(|v| mirrorpolicy::audit::Class::parse(v.get_name())),
        }
    }
}

/// `-o/--output` for audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    Table,
    /// All the objects behind each image; with several contexts, one table with a CONTEXT column.
    Wide,
    Json,
    Yaml,
    /// With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total.
    Summary,
}

/// How audit prints its report (or its pull log's): `-o` but `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditOutput {
    Table,
    Wide,
    Json,
    Yaml,
}

impl AuditFormat {
    /// The format the report is printed in; `None` for `-o summary`, which
    /// the fleet path counts from the report instead.
    pub fn printed(self) -> Option<AuditOutput> {
        match self {
            AuditFormat::Table => Some(AuditOutput::Table),
            AuditFormat::Wide => Some(AuditOutput::Wide),
            AuditFormat::Json => Some(AuditOutput::Json),
            AuditFormat::Yaml => Some(AuditOutput::Yaml),
            AuditFormat::Summary => None,
        }
    }
}

pub const DIFF_EXAMPLES: &str = "\
Examples:
  # Is every node on what the CRs say?
  kubectl mirrorpolicy diff

  # One pool and one node, from a must-gather
  kubectl mirrorpolicy diff -f must-gather/ --pool worker --node worker-2

  # What would applying this IDMS do to the nodes: reload CRI-O, or drain?
  kubectl mirrorpolicy diff --with new-idms.yaml

  # Down to the files on the nodes' disks, read through the daemon pods
  kubectl mirrorpolicy diff --on-disk --pool worker

  # The same from a collect-node-files folder
  kubectl mirrorpolicy diff -f must-gather/ --node-files node-files/

  # For scripts
  kubectl mirrorpolicy diff -o json";

/// Arguments of `diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a
    /// must-gather, instead of the live cluster. Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// Only this pool (repeatable); default every pool.
    #[arg(long = "pool", value_name = "POOL")]
    pub pools: Vec<String>,

    /// Only this node (repeatable).
    #[arg(long = "node", value_name = "NODE")]
    pub nodes: Vec<String>,

    /// Only this node file (repeatable), e.g. /etc/containers/registries.conf.
    #[arg(long = "file", value_name = "PATH")]
    pub files: Vec<String>,

    /// Proposed CRs laid over the current ones (same kind and name replaces): shows what
    /// would change on the nodes and what the MCO would do. Repeatable.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<PathBuf>,

    /// Also compare the files on each node's disk with the rendered MachineConfig it runs:
    /// hand-edited files, drop-ins no MachineConfig writes, registry CAs missing on a node.
    #[arg(long)]
    pub on_disk: bool,

    /// The nodes' files from a folder written by `collect-node-files` (DIR/<node>/etc/...),
    /// instead of reading them from the nodes; implies --on-disk.
    #[arg(long, value_name = "DIR")]
    pub node_files: Option<PathBuf>,

    /// With --on-disk (live): how the nodes' files are read.
    #[command(flatten)]
    pub read: NodeReadArgs,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = DiffFormat::Text)]
    pub output: DiffFormat,
}

/// `-o/--output` for diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    /// With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total.
    Summary,
}

/// How diff prints its report: `-o` but `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffOutput {
    Text,
    Json,
}

impl DiffFormat {
    /// The format the report is printed in; `None` for `-o summary`, which
    /// the fleet path counts from the report instead.
    pub fn printed(self) -> Option<DiffOutput> {
        match self {
            DiffFormat::Text => Some(DiffOutput::Text),
            DiffFormat::Json => Some(DiffOutput::Json),
            DiffFormat::Summary => None,
        }
    }
}

/// Arguments of `completion`.
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Arguments of `__complete`.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    /// The words after `kubectl mirrorpolicy`; the last is the one being completed.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

/// Shells `completion` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Elvish,
    Fish,
    Powershell,
    Zsh,
}

impl Shell {
    /// The clap_complete generator.
    pub fn generator(self) -> clap_complete::Shell {
        match self {
            Self::Bash => clap_complete::Shell::Bash,
            Self::Elvish => clap_complete::Shell::Elvish,
            Self::Fish => clap_complete::Shell::Fish,
            Self::Powershell => clap_complete::Shell::PowerShell,
            Self::Zsh => clap_complete::Shell::Zsh,
        }
    }
}

/// Arguments of `explain`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("config").multiple(true))]
pub struct ExplainArgs {
    /// Image references as a pod spec or `podman pull` would give them (tag, digest or short name).
    #[arg(required = true, value_name = "IMAGE")]
    pub images: Vec<String>,

    /// Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders
    /// (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable;
    /// each input at most 256 MiB.
    #[arg(short = 'f', long = "filename", value_name = "PATH", group = "config",
          conflicts_with_all = ["registries_conf", "registries_conf_d", "policy_json"])]
    pub filenames: Vec<PathBuf>,

    /// The pool whose rendered configuration to use (cluster objects, not node files).
    #[arg(
        long,
        value_name = "POOL",
        default_value = "worker",
        conflicts_with_all = ["registries_conf", "registries_conf_d"]
    )]
    pub pool: String,

    /// Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the cluster's, same
    /// kind and name replacing: how would the image be pulled if they were applied? Repeatable.
    #[arg(long = "with", value_name = "FILE", conflicts_with_all = ["registries_conf", "registries_conf_d"])]
    pub with: Vec<PathBuf>,

    /// A registries.conf file, as /etc/containers/registries.conf on a node.
    #[arg(long, value_name = "FILE", group = "config")]
    pub registries_conf: Option<PathBuf>,

    /// A registries.conf.d folder of drop-ins (`*.conf`, read in lexical order, merged over the main file).
    #[arg(long = "registries-conf-d", value_name = "DIR", group = "config")]
    pub registries_conf_d: Option<PathBuf>,

    /// A policy.json file, as /etc/containers/policy.json on a node; without it no signature policy is shown.
    #[arg(long, value_name = "FILE")]
    pub policy_json: Option<PathBuf>,

    /// The machine-written short-name-aliases.conf, as /var/cache/containers/short-name-aliases.conf
    /// on a node (CRI-O and root podman read it; rootless podman reads
    /// ~/.cache/containers/short-name-aliases.conf): its aliases win over the registries.conf ones,
    /// `""` erasing one. With --registries-conf or --registries-conf-d.
    #[arg(long = "short-name-aliases", value_name = "FILE")]
    pub short_name_aliases: Option<PathBuf>,

    /// Explain against this node's own files (registries.conf, its drop-ins and policy.json):
    /// read through the node's machine-config-daemon pod, or from --node-files.
    /// With --node-files, -f reads the node's Node (and the ClusterVersion) for its CRI-O version.
    #[arg(long, value_name = "NODE",
          conflicts_with_all = ["registries_conf", "registries_conf_d", "policy_json", "with"])]
    pub node: Option<String>,

    /// The nodes' files from a folder written by `collect-node-files` (DIR/<node>/etc/...); with --node.
    #[arg(long, value_name = "DIR", requires = "node")]
    pub node_files: Option<PathBuf>,

    /// With --node, read live: the limit on reading the node's files (a duration such as 30s or
    /// 2m; default 60s). Refused with --node-files, which reads no node.
    #[arg(
        long = "node-timeout",
        value_name = "DURATION",
        requires = "node",
        conflicts_with = "node_files"
    )]
    pub node_timeout: Option<String>,

    /// The CRI-O version that reads the node files (1.35, 1.34.2): CRI-O 1.35 and later read
    /// registries.conf as TOML 1.1, 1.22-1.34 as TOML 1.0, 1.21 and earlier as TOML 0.4.
    /// Default with --node: the Node's containerRuntimeVersion, else the ClusterVersion's
    /// release (-f, with --node-files); when unknown, the files are read as every release reads
    /// them, and where they disagree the answer is undetermined (exit 3).
    #[arg(long, value_name = "VERSION")]
    pub crio_version: Option<String>,

    /// Override the short-name mode. Default with node files: their `short-name-mode` (permissive
    /// when unset), as podman without a terminal; with -f: CRI-O's, enforcing from OpenShift 4.21
    /// (CRI-O 1.34), disabled before, from the ClusterVersion when known.
    #[arg(long, value_enum, value_name = "MODE")]
    pub short_name_mode: Option<ShortNameModeArg>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,

    #[command(flatten)]
    pub journal: Box<JournalArgs>,

    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// The pull log replayed against the explanation.
#[derive(Debug, Clone, Args)]
#[command(group = clap::ArgGroup::new("explain_journal_source").args(["journal", "journal_file"]))]
pub struct JournalArgs {
    /// Replay a CRI-O pull log against the explanation: a file of `oc adm node-logs NODE -u crio`
    /// output (several nodes' merged output too: the host column names the node; with --node,
    /// that node's lines; gzip too), or a must-gather folder's journal files. Each pull of the image found is judged against the expected source
    /// order: exit 1 when one diverges, 3 when one cannot be judged.
    #[arg(long = "journal-file", value_name = "FILE", conflicts_with = "journal")]
    pub journal_file: Option<PathBuf>,

    /// With --node: replay the node's CRI-O pull log, read live as `oc adm node-logs NODE -u
    /// crio` reads it (needs `get nodes/proxy`, which is effectively exec on the node; when that
    /// is forbidden, the pull events of the image are read instead). With -f MUST_GATHER: the
    /// must-gather's journal files (host_service_logs/*/crio_service.log).
    #[arg(long)]
    pub journal: bool,

    /// With --journal or --journal-file: the start of the window, a duration back from now (2h,
    /// 30m, 90s, 1d) or YYYY-MM-DD HH:MM:SS in UTC; only the pulls whose `Pulling image` line is
    /// in the window count. Live, default 1h (the kubelet stops journalctl after 30s: keep it
    /// short); files, default their start.
    #[arg(long, value_name = "WHEN", requires = "explain_journal_source")]
    pub since: Option<String>,

    /// With --journal or --journal-file: the end of the window (same forms as --since); default
    /// now.
    #[arg(long, value_name = "WHEN", requires = "explain_journal_source")]
    pub until: Option<String>,
}

/// `--probe` and what it is probed with.
#[derive(Debug, Clone, Args)]
pub struct ProbeArgs {
    /// Contact the registries from this machine, as CRI-O would from a node: ping, authenticate
    /// and fetch the manifest from each pull source in order, and say which one serves the image
    /// (and, when the policy requires sigstore signatures, whether it has them).
    #[arg(long)]
    pub probe: bool,

    /// With --probe: the registry credentials (containers-auth.json or a Docker config.json),
    /// instead of REGISTRY_AUTH_FILE and containers/image's default auth files.
    #[arg(long, value_name = "FILE", requires = "probe")]
    pub authfile: Option<PathBuf>,

    /// With --probe: a folder of certificates trusted for every registry, as skopeo's and
    /// podman's --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs).
    #[arg(long, value_name = "DIR", requires = "probe")]
    pub cert_dir: Option<PathBuf>,

    /// With --probe and node files: the registries.d folder whose `use-sigstore-attachments`
    /// decides where sigstore signatures are looked up (with -f, the MCO's rendered one is used).
    #[arg(long = "registries-d", value_name = "DIR", requires = "probe")]
    pub registries_d: Option<PathBuf>,

    /// With --probe: seconds to wait for a registry's answer once connected (a connection is
    /// given up after 30s, as CRI-O gives it up). CRI-O itself waits for an answer without
    /// limit: a source that does not answer in time leaves the result undetermined (exit 3).
    #[arg(long, value_name = "SECONDS", default_value_t = 10, requires = "probe")]
    pub probe_timeout: u64,

    /// With --probe: how many images are probed at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "probe",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub probe_concurrency: u16,
}

/// Arguments of `render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin,
    /// instead of the live cluster. Repeatable; each input at most 256 MiB.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// The pool to render for (the MCO writes one generated MachineConfig per built-in pool; a
    /// custom pool's nodes get the worker's, which is rendered).
    #[arg(long, value_name = "POOL", default_value = "worker")]
    pub pool: String,

    /// Print only this node file's exact content (e.g. /etc/containers/registries.conf).
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,

    /// Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones,
    /// same kind and name replacing: what if they were applied? Repeatable.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<PathBuf>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = RenderFormat::Files)]
    pub output: RenderFormat,
}

/// `-o/--output` for render.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    /// Each file under a `==> PATH <==` header.
    Files,
    /// The generated MachineConfig object as YAML.
    Machineconfig,
    /// Files, MachineConfig and warnings as JSON.
    Json,
}

/// Arguments of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin,
    /// instead of the live cluster. Repeatable; each input at most 256 MiB.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones,
    /// same kind and name replacing: what if they were applied? Repeatable.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<PathBuf>,

    /// Output format: table, wide (each mirror's flags, conflicts in full), name (one source a
    /// line), json or yaml.
    #[arg(short, long, value_enum, default_value_t = ListFormat::Table)]
    pub output: ListFormat,

    /// Leave out the header row of the table.
    #[arg(long)]
    pub no_headers: bool,
}

/// Arguments of `lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin,
    /// instead of the live cluster. Repeatable; each input at most 256 MiB.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,

    /// Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones,
    /// same kind and name replacing: what if they were applied? Repeatable.
    #[arg(long = "with", value_name = "FILE")]
    pub with: Vec<PathBuf>,

    /// CustomResourceDefinition manifests (files or folders) whose schemas the objects' fields are
    /// checked against, in place of the live cluster's or a must-gather's. Repeatable.
    #[arg(long = "crd", value_name = "FILE|DIR")]
    pub crds: Vec<PathBuf>,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = LintFormat::Table)]
    pub output: LintFormat,
}

/// `-o/--output` for lint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    Table,
    Json,
}

/// `-o/--output` for list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    /// Each mirror's pull-from-mirror and insecure flag, and the conflicts in full; with several
    /// contexts, one table with a CONTEXT column.
    Wide,
    Name,
    Json,
    Yaml,
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
    /// With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total.
    Summary,
}

/// How explain prints its explanations: `-o` but `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainOutput {
    Table,
    Json,
    Yaml,
}

impl OutputFormat {
    /// The format the explanations are printed in; `None` for `-o
    /// summary`, which the fleet path counts from them instead.
    pub fn printed(self) -> Option<ExplainOutput> {
        match self {
            OutputFormat::Table => Some(ExplainOutput::Table),
            OutputFormat::Json => Some(ExplainOutput::Json),
            OutputFormat::Yaml => Some(ExplainOutput::Yaml),
            OutputFormat::Summary => None,
        }
    }
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

/// The clap command as `name` presents it: run as `oc mirrorpolicy`, the
/// examples say `oc mirrorpolicy` too.
pub fn command_named(name: &'static str) -> clap::Command {
    use clap::CommandFactory;
    let mut cmd = Cli::command().bin_name(name);
    if name != "kubectl mirrorpolicy" {
        let subcommands: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for sub in subcommands {
            cmd = cmd.mut_subcommand(sub, |s| {
                let help = s
                    .get_after_help()
                    .map(|h| h.to_string().replace("kubectl mirrorpolicy", name));
                match help {
                    Some(h) => s.after_help(h.clone()).after_long_help(h),
                    None => s,
                }
            });
        }
    }
    cmd
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

/// `text` as the command `name` would say it: run as `oc mirrorpolicy`,
/// the commands that messages and hints suggest are `oc ...` commands
/// (`oc mirrorpolicy migrate-icsp`, `oc config get-contexts`). A `kubectl`
/// that is not a word of its own (`kubectl.kubernetes.io/...`) is kept.
pub fn as_said_by<'a>(name: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    if name == "kubectl mirrorpolicy" || !text.contains("kubectl ") {
        return std::borrow::Cow::Borrowed(text);
    }
    let program = name.split(' ').next().unwrap_or(name);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("kubectl ") {
        let before = rest[..at].chars().next_back().or(out.chars().next_back());
        let starts_word =
            before.is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '`' | '"' | '\''));
        out.push_str(&rest[..at]);
        out.push_str(if starts_word { program } else { "kubectl" });
        out.push(' ');
        rest = &rest[at + "kubectl ".len()..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}
