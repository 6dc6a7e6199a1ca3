//! One module per subcommand: load the input, call the core, pick the renderer.

pub mod explain;
