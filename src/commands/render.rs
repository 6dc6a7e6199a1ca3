//! `render`: the files and the generated MachineConfig of a pool.

use anyhow::Result;

use mirrorpolicy::output;
use mirrorpolicy::render::cluster::{REGISTRIES_CONF, REGISTRIES_TEMPLATE};
use mirrorpolicy::render::policy::{POLICY_JSON, POLICY_JSON_TEMPLATE};
use mirrorpolicy::source::cluster::MIRROR_CONFIG;

use crate::cli::{RenderArgs, RenderFormat};
use crate::commands::cluster;
use crate::exit::Failure;
use crate::settings::Settings;

/// Runs `render`.
pub fn run(settings: &Settings, args: &RenderArgs) -> Result<()> {
    let mut inputs =
        cluster::load_for_pool(settings, &args.filenames, MIRROR_CONFIG, None, &args.pool)?;
    cluster::overlay(settings, &mut inputs, &args.with, true)?;
    let rendered = cluster::render(&inputs, &args.pool)?;
    cluster::print_warnings(settings, &rendered);
    if let Some(path) = &args.file {
        if let (None, Some(template)) = (rendered.file(path), template(path)) {
            eprintln!(
                "note: the MCO leaves {path} untouched for pool {}: the node keeps the 01-{}-container-runtime template, printed here",
                args.pool, args.pool
            );
            return Ok(settings.print_bytes(template.as_bytes())?);
        }
        let Some(contents) = rendered.file(path) else {
            let written: Vec<&str> = rendered.files.iter().map(|f| f.path.as_str()).collect();
            return Err(Failure::input(format!(
                "the MCO does not write {path} for pool {} from these objects",
                args.pool
            ))
            .with_hint(if written.is_empty() {
                "nothing is rendered: no object touches the node's registries or policy files"
                    .to_string()
            } else {
                format!("it writes: {}", written.join(", "))
            })
            .into());
        };
        return Ok(settings.print_bytes(contents.as_bytes())?);
    }
    settings.print(|out| match args.output {
        RenderFormat::Files => output::render::write_files(out, &rendered.files),
        RenderFormat::Machineconfig => output::render::write_machine_config(out, &rendered),
        RenderFormat::Json => output::render::write_json(out, &rendered),
    })?;
    Ok(())
}

/// The file a node has from the `01-<pool>-container-runtime` template when
/// the generated MachineConfig does not write it.
fn template(path: &str) -> Option<&'static str> {
    match path {
        REGISTRIES_CONF => Some(REGISTRIES_TEMPLATE),
        POLICY_JSON => Some(POLICY_JSON_TEMPLATE),
        _ => None,
    }
}
