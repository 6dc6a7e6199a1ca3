//! What the Machine Config Operator renders from cluster CRs: the node
//! files and the MachineConfigs that carry them.
//!
//! `registries` is the registries.conf edit (validation, mirror-set merge,
//! insecure/blocked scopes, nested mirrors), `topo` the mirror-order merge,
//! `encode` the byte-exact TOML writer, `policy` policy.json and the
//! per-namespace CRI-O policies, `sigstore` the `registries.d` file that
//! turns on sigstore attachments.

pub mod cluster;
pub mod encode;
pub mod machineconfig;
pub mod node;
pub mod payload;
pub mod policy;
pub mod registries;
pub mod sigstore;
pub mod topo;
