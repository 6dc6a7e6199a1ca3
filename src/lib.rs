//! kubectl-mirrorpolicy: where CRI-O pulls an image from, and why.
//!
//! The library is the pure core: image references, the registries.conf
//! engine, policy.json scope selection and the explain model. It never
//! touches the network, the terminal or the filesystem; `main.rs` and
//! `commands/` do that.

pub mod crd;
pub mod explain;
pub mod lint;
pub mod list;
pub mod origin;
pub mod output;
pub mod policy;
pub mod reference;
pub mod registries;
pub mod render;
pub mod source;
