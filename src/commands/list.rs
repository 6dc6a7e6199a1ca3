//! `list`: the effective mirror rules after merging.

use anyhow::Result;

use crate::output;
use mirrorpolicy::list::{rules, Rule};

use crate::cli::{ListArgs, ListFormat};
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

/// Runs `list`.
pub fn run(settings: &Settings, args: &ListArgs) -> Result<()> {
    let rules = collect(settings, args)?;
    let sink = match args.output {
        ListFormat::Table | ListFormat::Wide | ListFormat::Name => term::Sink::Text,
        ListFormat::Json | ListFormat::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    settings.print_to(sink, |out| match args.output {
        ListFormat::Table => output::list::write_table(out, &rules, false, &layout),
        ListFormat::Wide => output::list::write_table(out, &rules, true, &layout),
        ListFormat::Name => output::list::write_names(out, &rules),
        ListFormat::Json => output::write_json(out, &[&output::List::new(&rules)]),
        ListFormat::Yaml => output::write_yaml(out, &[&output::List::new(&rules)]),
    })?;
    Ok(())
}

/// The merged mirror rules of the cluster (or `-f` files) of `settings`.
pub fn collect(settings: &Settings, args: &ListArgs) -> Result<Vec<Rule>> {
    let mut inputs = inputs::load_inputs(settings, &args.filenames)?;
    inputs::overlay(settings, &mut inputs, &args.with, true)?;
    let rendered = inputs::render(&inputs, "worker")?;
    inputs::print_warnings(settings, &inputs, &rendered);
    let rules = rendered
        .registries
        .as_ref()
        .map(|conf| rules(conf, &rendered.order_conflicts))
        .unwrap_or_default();
    Ok(rules)
}
