//! One module per subcommand: load the input, call the core, pick the renderer.

pub mod audit;
pub mod collect;
pub mod complete;
pub mod diff;
pub mod explain;
pub mod lint;
pub mod list;
pub mod migrate;
pub mod render;
pub mod upgrade;
