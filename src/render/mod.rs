//! What the Machine Config Operator renders from cluster CRs: the node
//! files and the MachineConfigs that carry them.
//!
//! `registries` is the registries.conf edit (validation, mirror-set merge,
//! insecure/blocked scopes, nested mirrors), `topo` the mirror-order merge,
//! `encode` the byte-exact TOML writer.

pub mod cluster;
pub mod encode;
pub mod machineconfig;
pub mod payload;
pub mod registries;
pub mod topo;
