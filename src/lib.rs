//! kubectl-mirrorpolicy: where CRI-O pulls an image from, and why.
//!
//! Three crates, each depending only on the one below it: this package
//! (the command line, settings, output, terminal and exit codes) on
//! `mirrorpolicy_live` (files, the API server, nodes, registries, TLS) on
//! `mirrorpolicy_core` (the synchronous, network-free rules). This library
//! is the output layer, with the two crates below re-exported under their
//! module names.

pub use mirrorpolicy_live::*;

pub mod output;
