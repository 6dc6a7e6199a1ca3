//! Where the cluster objects come from, gathered into one
//! [`crate::objects::Inputs`].
//!
//! `file` reads exported YAML/JSON (`-f`): single objects, multi-document
//! streams, `List`s, folders and must-gather / `oc adm inspect` trees.
//! `cluster` lists the same kinds from a live cluster and stages them
//! through `file`'s code. The core only ever sees `Inputs`, so it cannot
//! tell files from a live cluster. Validation of what was read is left to
//! [`crate::objects`] and the rendering modules.

pub mod api;
pub mod drop_in_dir;
mod exec;
pub mod file;
pub mod hub;
pub mod journal_files;
pub mod journal_text;
mod kubeconfig;
pub mod node_dir;
pub mod node_exec;
pub mod node_live;
pub mod node_logs;
mod transport;

pub use crate::decode::{parse_documents, parse_documents_with, SourceError};
pub use file::{load_paths, load_paths_checked, load_paths_with};

pub use crate::objects::Inputs;
