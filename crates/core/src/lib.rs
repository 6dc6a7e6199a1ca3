//! The core of kubectl-mirrorpolicy: where CRI-O pulls an image from, and
//! why, computed from what was read.
//!
//! Image references, the cluster objects and their decoding from text,
//! registries.conf and its readers (every CRI-O release's TOML reader),
//! policy.json scope selection, the node's rules, the MCO render, and the
//! logic of every command: explain, list, lint, diff, audit, migrate, the
//! pull log and upgrade-check. Synchronous, and free of the network: no
//! async runtime, Kubernetes client, HTTP or TLS stack, nor the command
//! line, is in this crate's dependency tree. Reading (files, the API
//! server, nodes, registries) is the live crate's; printing is the
//! binary's.

pub mod admission;
pub mod audit;
pub mod crio;
pub mod decode;
pub mod diff;
pub mod digest;
pub mod duration;
pub mod explain;
pub mod go_yaml;
pub mod journal;
pub mod kinds;
pub mod labels;
pub mod lint;
pub mod list;
pub mod migrate;
pub mod node_files;
pub mod node_paths;
pub mod objects;
pub mod oci;
pub mod olm;
pub mod origin;
pub mod parallel;
pub mod policy;
pub mod probe_result;
pub mod quote;
pub mod reference;
pub mod registries;
pub mod registry_error;
pub mod render;
pub mod tag_mirror_fix;
pub mod upgrade;
pub mod verdict;
pub mod x509;
