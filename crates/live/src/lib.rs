//! What kubectl-mirrorpolicy reads from the world: files and folders (`-f`,
//! must-gathers), the API server (kubeconfig, exec credentials, many
//! clusters, a hub), nodes (their files and journals through `pods/exec`
//! and the log API), registries (`--probe`, the release payload) and the
//! TLS that all of these use.
//!
//! Everything read is handed to the core (`mirrorpolicy_core`), re-exported
//! here under its own module names, which depends on nothing of this crate.

pub use mirrorpolicy_core::{
    admission, audit, crio, decode, diff, digest, duration, explain, go_yaml, journal, kinds,
    labels, lint, list, migrate, node_files, node_paths, objects, oci, olm, origin, parallel,
    policy, probe_result, quote, reference, registries, registry_error, render, tag_mirror_fix,
    upgrade, verdict, x509,
};

pub mod probe;
pub mod source;
pub mod tls;
