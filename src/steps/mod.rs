//! What several commands share, below them all: reading the cluster objects
//! (files or the live cluster) and rendering a pool (`inputs`), the probe's
//! client set-up (`probe`), the live reading of a node's CRI-O pull log
//! (`journal`) and the operator update pipeline of `operator-check` and
//! `audit --updates` (`operators`). Nothing here imports a command.

pub mod at_exit;
pub mod blob;
pub mod inputs;
pub mod journal;
pub mod operators;
pub mod probe;
