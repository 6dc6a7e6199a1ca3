//! `audit --journal-file`: every pull of a CRI-O pull log, image by image,
//! replayed against the worker pool's configuration rendered from the
//! cluster objects (live or `-f`).

use std::path::Path;

use anyhow::{Context, Result};

use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::journal::fleet::{self, Fleet};
use mirrorpolicy::journal::{Expected, PullRecord};
use mirrorpolicy::output;
use mirrorpolicy::render::node::node_view;
use mirrorpolicy::source::cluster::MIRROR_CONFIG;

use crate::cli::{AuditArgs, AuditFormat};
use crate::commands::{cluster, journal};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::term;

/// The pool whose rendered configuration the pulls are judged against, as
/// `audit` renders it.
const POOL: &str = "worker";

/// Runs `audit --journal-file FILE`.
pub fn run(settings: &Settings, args: &AuditArgs, path: &Path) -> Result<ExitCode> {
    let (name, lines) = journal::read_file(path)?;
    let inputs = cluster::load_selected(settings, &args.filenames, MIRROR_CONFIG, None, None)?;
    let rendered = cluster::render(&inputs, POOL)?;
    cluster::print_warnings(settings, &rendered);
    let view = node_view(&rendered, None).context(Failure::input(
        "cannot read back the rendered configuration",
    ))?;
    let config = Config {
        registries: &view.registries,
        policy: Some(&view.policy),
        scope_origins: Some(&view.scope_origins),
    };
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let expected: Vec<(Expected, Option<String>)> = fleet::images(&lines)
        .iter()
        .map(|image| {
            let item = core::explain(&config, image, mode, None)
                .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e));
            (item.expected(), item.error.clone())
        })
        .collect();
    let fleet = fleet::fleet(&lines, &expected);
    if fleet.pulls == 0 {
        eprintln!("no pull in {name}: no `Pulling image` line of CRI-O");
    }
    print(settings, args, &fleet, &name)?;
    Ok(code(&fleet))
}

/// 1 when a pull diverges, else 3 when one is undetermined, else 0.
fn code(fleet: &Fleet) -> ExitCode {
    let records: Vec<&PullRecord> = fleet.images.iter().flat_map(|v| &v.journal).collect();
    journal::journal_code(&records, ExitCode::Success)
}

fn print(settings: &Settings, args: &AuditArgs, fleet: &Fleet, name: &str) -> Result<()> {
    let sink = match args.output {
        AuditFormat::Table | AuditFormat::Wide => term::Sink::Text,
        AuditFormat::Json | AuditFormat::Yaml | AuditFormat::Summary => term::Sink::Exact,
    };
    settings.print_to(sink, |out| match args.output {
        AuditFormat::Table | AuditFormat::Wide => {
            output::pull_log::write_text(out, fleet, name, POOL)
        }
        AuditFormat::Json | AuditFormat::Summary => {
            output::write_json(out, std::slice::from_ref(fleet))
        }
        AuditFormat::Yaml => output::write_yaml(out, std::slice::from_ref(fleet)),
    })?;
    Ok(())
}
