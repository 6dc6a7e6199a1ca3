//! One module per subcommand: load the input, call the core, pick the renderer.

pub mod audit;
pub mod collect;
pub mod complete;
pub mod diff;
pub mod explain;
pub mod lint;
pub mod list;
pub mod migrate;
pub mod operator_check;
pub mod render;
pub mod upgrade;

use crate::cli::{ProbeArgs, RegistryProbeArgs};
use crate::steps::probe::ProbeSetup;

/// The probe set-up the `--probe` flags of `explain` and `audit` ask for,
/// resolved once at the top of the command.
pub fn probe_setup(args: &ProbeArgs) -> ProbeSetup {
    ProbeSetup {
        enabled: args.probe,
        authfile: args.authfile.clone(),
        cert_dir: args.cert_dir.clone(),
        registries_d: args.registries_d.clone(),
        timeout: std::time::Duration::from_secs(args.probe_timeout.max(1)),
        concurrency: usize::from(args.probe_concurrency),
    }
}

/// The probe set-up of `upgrade-check` and `operator-check`: always on,
/// with the rendered registries.d.
pub fn registry_probe_setup(args: &RegistryProbeArgs) -> ProbeSetup {
    ProbeSetup {
        enabled: true,
        authfile: args.authfile.clone(),
        cert_dir: args.cert_dir.clone(),
        registries_d: None,
        timeout: std::time::Duration::from_secs(args.probe_timeout.max(1)),
        concurrency: usize::from(args.probe_concurrency),
    }
}
