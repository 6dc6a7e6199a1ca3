//! `render`: the files and the generated MachineConfig of a pool.

use anyhow::Result;

use crate::output;
use mirrorpolicy::diff::layers;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::render::machineconfig::generated_registries_name;
use mirrorpolicy::render::policy::{POLICY_JSON, POLICY_JSON_TEMPLATE};
use mirrorpolicy::render::pool::{generating_pool, Rendered, REGISTRIES_CONF, REGISTRIES_TEMPLATE};
use mirrorpolicy::source::api::MIRROR_CONFIG;

use crate::cli::{RenderArgs, RenderFormat};
use crate::exit::Failure;
use crate::settings::Settings;
use crate::steps::at_exit::release;
use crate::steps::inputs;

/// Runs `render`.
pub fn run(settings: &Settings, args: &RenderArgs) -> Result<()> {
    let mut inputs =
        inputs::load_for_pool(settings, &args.filenames, MIRROR_CONFIG, None, &args.pool)?;
    inputs::overlay(settings, &mut inputs, &args.with, true)?;
    // A custom pool has no generated MachineConfig of its own: its nodes get
    // that of the role its selector selects (usually the worker's), which is
    // what is rendered and named.
    let generating = generating_pool(&inputs, &args.pool).map_err(Failure::input)?;
    let rendered = inputs::render(&inputs, generating)?;
    inputs::print_warnings(settings, &inputs, &rendered);
    if generating != args.pool {
        note_custom_pool(&inputs, &args.pool, generating, args.file.as_deref());
    }
    let printed = print(settings, args, generating, &rendered);
    release((inputs, rendered));
    printed
}

/// Prints what `args` asks for of `rendered` (generated for `generating`).
fn print(
    settings: &Settings,
    args: &RenderArgs,
    generating: &str,
    rendered: &Rendered,
) -> Result<()> {
    if let Some(path) = &args.file {
        if let (None, Some(template)) = (rendered.file(path), template(path)) {
            eprintln!(
                "note: the MCO leaves {path} untouched for pool {}: the node keeps the 01-{generating}-container-runtime template, printed here",
                args.pool
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
        RenderFormat::Machineconfig => output::render::write_machine_config(out, rendered),
        RenderFormat::Json => output::render::write_json(out, rendered, &args.pool),
    })?;
    Ok(())
}

/// Says that a custom pool's nodes get the worker's generated MachineConfig,
/// and which of the pool's own MachineConfigs in the input override the
/// file asked for (they sort after it in the MCO's merge).
fn note_custom_pool(inputs: &Inputs, pool: &str, generating: &str, path: Option<&str>) {
    let generated = generated_registries_name(generating);
    eprintln!(
        "note: the MCO generates no registries MachineConfig for custom pool {pool}: its nodes get {generated}, the {generating} role's config the pool selects, printed here"
    );
    let Some(mcp) = inputs.pools.iter().find(|p| p.metadata.name == pool) else {
        return;
    };
    let configs = layers::pool_configs(&inputs.machine_configs, mcp);
    let paths: Vec<&str> = match path {
        Some(path) => vec![path],
        None => vec![REGISTRIES_CONF, POLICY_JSON],
    };
    for path in paths {
        for mc in layers::overriding(&configs, generating, &generated, path) {
            eprintln!(
                "note: MachineConfig/{} of pool {pool} also writes {path} and sorts after {generated}: the pool's nodes get its file instead",
                mc.metadata.name
            );
        }
    }
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
