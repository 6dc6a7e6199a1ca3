//! Shared by the commands that read cluster objects: load `-f` inputs,
//! check them as the API server would, and render a pool as the MCO does.

use std::path::PathBuf;

use anyhow::Result;

use mirrorpolicy::render::cluster::{render_pool, Rendered};
use mirrorpolicy::source::{load_paths, Inputs};

use crate::exit::Failure;
use crate::term;

/// Reads the objects named by `-f`; reading nothing of the tool's kinds is an error.
pub fn read_inputs(paths: &[PathBuf]) -> Result<Inputs> {
    let inputs =
        load_paths(paths, std::io::stdin().lock()).map_err(|e| Failure::input(e.to_string()))?;
    for w in &inputs.warnings {
        eprintln!("warning: {w}");
    }
    report_read(&inputs);
    if inputs.is_empty() {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::input(format!(
            "no ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image or other known object in {}",
            named.join(", ")
        ))
        .with_hint("pass YAML or JSON exported with `oc get ... -o yaml`, or a must-gather folder (-v lists what was skipped)")
        .into());
    }
    Ok(inputs)
}

/// Reads the objects named by `-f`, refusing objects the API server would refuse.
pub fn load_inputs(paths: &[PathBuf]) -> Result<Inputs> {
    let inputs = read_inputs(paths)?;
    let invalid = inputs.validate();
    if let Some(first) = invalid.first() {
        let more = match invalid.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(Failure::input(format!("{first}{more}"))
            .with_hint("the API server refuses such an object; fix the field and run again")
            .into());
    }
    Ok(inputs)
}

/// `-v`: what was read and what was skipped.
pub fn report_read(inputs: &Inputs) {
    term::verbose(|| {
        format!(
            "read {} ImageContentSourcePolicy, {} ImageDigestMirrorSet, {} ImageTagMirrorSet, {} Image, \
             {} ClusterVersion, {} ClusterImagePolicy, {} ImagePolicy, {} MachineConfig, {} MachineConfigPool, {} Node",
            inputs.icsps.len(),
            inputs.idmss.len(),
            inputs.itmss.len(),
            usize::from(inputs.image.is_some()),
            usize::from(inputs.cluster_version.is_some()),
            inputs.cluster_image_policies.len(),
            inputs.image_policies.len(),
            inputs.machine_configs.len(),
            inputs.pools.len(),
            inputs.nodes.len(),
        )
    });
    for (kind, count) in &inputs.skipped {
        term::verbose(|| format!("skipped {count} object(s) of kind {kind}"));
    }
    if inputs.skipped_files > 0 {
        term::verbose(|| {
            format!(
                "skipped {} file(s) naming no known kind",
                inputs.skipped_files
            )
        });
    }
}

/// Renders a pool; a configuration the MCO refuses is an input error with the MCO's reason.
pub fn render(inputs: &Inputs, pool: &str) -> Result<Rendered> {
    render_pool(inputs, pool).map_err(|e| {
        Failure::input(format!("the MCO refuses to render this configuration: {e}"))
            .with_hint("the MCO only logs this and keeps the previous MachineConfig; nodes do not get the change")
            .into()
    })
}

/// Prints what the MCO only logs.
pub fn print_warnings(rendered: &Rendered) {
    for w in &rendered.warnings {
        eprintln!("warning: {w}");
    }
}
