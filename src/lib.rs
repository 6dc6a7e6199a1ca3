//! kubectl-mirrorpolicy: where CRI-O pulls an image from, and why.
//!
//! The library is the core: image references, the registries.conf engine,
//! policy.json scope selection, the MCO rendering and the explain model,
//! all synchronous and pure. Only `source` reads: files for `-f`, and the
//! live cluster (`source::cluster`, async, kube-rs). The terminal belongs
//! to the binary (`main.rs`, `commands/`).

pub mod audit;
pub mod calendar;
pub mod crd;
pub mod crio;
pub mod diff;
pub mod digest;
pub mod explain;
pub mod journal;
pub mod labels;
pub mod lint;
pub mod list;
pub mod migrate;
pub mod node_files;
pub mod node_paths;
pub mod origin;
pub mod output;
pub mod policy;
pub mod probe;
pub mod probe_result;
pub mod quote;
pub mod reference;
pub mod registries;
pub mod render;
pub mod source;
pub mod tls;
pub mod upgrade;
