//! What the Machine Config Operator renders from cluster CRs: the node
//! files and the MachineConfigs that carry them.
//!
//! `scope` is the scope grammar everything else builds on, `findings` the
//! render layer's one error enum, its validation findings and warnings;
//! `registries` is the registries.conf edit (validation, mirror-set merge,
//! insecure/blocked scopes, nested mirrors), `topo` the mirror-order merge,
//! `encode` the byte-exact TOML writer, `payload` the MCO's payload
//! protection, `policy` the MCO's edits of policy.json and the
//! per-namespace CRI-O policies, `sigstore` the `registries.d` file that
//! turns on sigstore attachments. `cluster` composes them into one sync;
//! `node` reads a render back as a node sees it. `release` names what
//! differs between the MCO releases modelled (4.4–4.22), which the others
//! apply.
//!
//! Arrows point one way: `cluster` → `policy`, `sigstore`, `payload`,
//! `registries` → `scope`, `findings`; `node` → `cluster`.

pub mod encode;
pub mod findings;
pub mod machineconfig;
pub mod node;
pub mod payload;
pub mod policy;
pub mod pool;
pub mod registries;
pub mod release;
pub mod scope;
pub mod sigstore;
pub mod topo;
