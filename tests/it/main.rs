//! The integration tests, as one test binary: a module per area (each was
//! a test target of its own), with [`support`] (fake API server, fake
//! registry, kubeconfigs, certificates) compiled once. Tests that need
//! root, Go or the Debian 13 root are `#[ignore = "why"]`; `.ci/run` runs
//! them with `--ignored`.

mod support;

/// The fuzz targets' checks (`fuzz/fuzz_targets/checks.rs`), shared by
/// `fuzz_seeds` and `properties`.
#[path = "../../fuzz/fuzz_targets/checks.rs"]
mod checks;

mod burntsushi_oracle;
mod cimage_oracle;
mod cli_audit;
mod cli_audit_operators;
mod cli_client_flags;
mod cli_cluster;
mod cli_diff;
mod cli_errors;
mod cli_explain;
mod cli_help;
mod cli_install_config;
mod cli_journal;
mod cli_kubeconfig;
mod cli_layers;
mod cli_lint;
mod cli_lint_crd;
mod cli_lint_metadata;
mod cli_list;
mod cli_live;
mod cli_many;
mod cli_migrate;
mod cli_node_files;
mod cli_node_parsers;
mod cli_node_paths;
mod cli_oc_mirror;
mod cli_operator;
mod cli_operator_catalogs;
mod cli_operator_served;
mod cli_operator_v1;
mod cli_operator_wide;
mod cli_pool;
mod cli_probe;
mod cli_terminal;
mod cli_upgrade;
mod cli_with;
mod cli_yaml;
mod crd_upstream;
mod fuzz_seeds;
mod generated;
mod golden;
mod krew;
mod kubectl_plugin;
mod live_client;
mod properties;
mod readme;
mod release_workflows;
mod structure;
mod units;
