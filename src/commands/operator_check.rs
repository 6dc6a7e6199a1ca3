//! `operator-check`: for each Subscription (or `--package`), the catalog
//! image pulled through the mirrors as CRI-O on its registry pod's node
//! pulls it, its file-based configs read layer by layer for the wanted
//! packages, OLM's update path walked from the installed CSV, and every
//! image of every hop probed as `upgrade-check` probes images (with the
//! policy of the namespace its pod runs in); a verdict per Subscription.

use anyhow::Result;

use crate::output;
use mirrorpolicy::olm::check::SubscriptionCheck;
use mirrorpolicy::upgrade::Readiness;

use crate::cli::{OperatorCheckArgs, OperatorFormat};
use crate::exit::ExitCode;
use crate::settings::Settings;
use crate::steps::operators::{self, OperatorPlan};
use crate::term;

/// Runs `operator-check`, printing one verdict per Subscription.
pub fn run(settings: &Settings, args: &OperatorCheckArgs) -> Result<ExitCode> {
    let checks = operators::check(settings, &plan_of(args))?;
    let exit = exit_code(&checks);
    let sink = match args.output {
        OperatorFormat::Table | OperatorFormat::Wide | OperatorFormat::Summary => term::Sink::Text,
        OperatorFormat::Json | OperatorFormat::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    let wide = args.output == OperatorFormat::Wide;
    settings.print_to(sink, |out| match args.output {
        OperatorFormat::Table | OperatorFormat::Wide => {
            output::operator::write_text(out, &checks, &layout, wide)
        }
        OperatorFormat::Summary => output::operator::write_summary(out, &checks, exit as i32),
        OperatorFormat::Json => output::write_json(out, &checks),
        OperatorFormat::Yaml => output::write_yaml(out, &checks),
    })?;
    Ok(exit)
}

/// Exit 1 when a Subscription is not ready, else 3 when one is undetermined, else 0.
fn exit_code(checks: &[SubscriptionCheck]) -> ExitCode {
    let any = |r: Readiness| checks.iter().any(|c| c.readiness == r);
    if any(Readiness::NotReady) {
        ExitCode::Findings
    } else if any(Readiness::Undetermined) {
        ExitCode::Cluster
    } else {
        ExitCode::Success
    }
}

/// The flags of `operator-check`, as the pipeline's options.
fn plan_of(args: &OperatorCheckArgs) -> OperatorPlan {
    OperatorPlan {
        filenames: args.filenames.clone(),
        all_namespaces: args.all_namespaces,
        subscriptions: args.subscriptions.clone(),
        catalog_image: args.catalog_image.clone(),
        package: args.package.clone(),
        channel: args.channel.clone(),
        installed: args.installed.clone(),
        starting_csv: args.starting_csv.clone(),
        to: args.to.clone(),
        max_hops: args.max_hops,
        operands: args.operands,
        arch: args.arch.clone(),
        cache_dir: args.cache_dir.clone(),
        require_mirror: args.require_mirror,
        probe: super::registry_probe_setup(&args.probe),
        require_subscriptions: true,
    }
}
