//! One module per subcommand: load the input, call the core, pick the renderer.

pub mod audit;
pub mod cluster;
pub mod collect;
pub mod complete;
pub mod diff;
pub mod explain;
pub mod journal;
pub mod lint;
pub mod list;
pub mod many;
pub mod migrate;
pub mod probe;
pub mod pull_log;
pub mod render;
pub mod upgrade;
