//! `upgrade-check`: the target release resolved (`--to` through the
//! ClusterVersion, or `--to-image`), its payload pulled through the pull
//! sources of a control-plane node (the master pool's registries.conf and
//! policy), its last layer read for the component images, and each of
//! them probed as `explain --probe` probes, concurrently.

use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use futures_util::StreamExt;

use crate::output;
use mirrorpolicy::digest::sha256_hex;
use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::oci::manifest::{self, Descriptor, Manifest};
use mirrorpolicy::probe::{self, ProbeContext};
use mirrorpolicy::reference::Reference;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::render::{self, node::NodeView, pool::Rendered};
use mirrorpolicy::source::api::{Read as ClusterRead, MIRROR_CONFIG, NODES};
use mirrorpolicy::source::file;
use mirrorpolicy::upgrade::checks::{self, ConfigMap, ConfigMaps};
use mirrorpolicy::upgrade::payload::{self, ReleaseFiles};
use mirrorpolicy::upgrade::{
    self, release_policy, ImageCheck, ImageOutcome, ImageSignature, McoRefusal, Offered, Report,
    Target,
};

use crate::cli::{UpgradeCheckArgs, UpgradeOutput};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::probe as probe_cmd;
use crate::steps::{blob, inputs};
use crate::term;

/// The pool whose nodes run the release's operators first: its
/// registries.conf and policy decide the pulls of the update.
const CONTROL_PLANE_POOL: &str = "master";

/// Runs `upgrade-check`, printing its report in `format`.
pub fn run(
    settings: &Settings,
    args: &UpgradeCheckArgs,
    format: UpgradeOutput,
) -> Result<ExitCode> {
    let (report, code) = collect(settings, args)?;
    let sink = match format {
        UpgradeOutput::Table | UpgradeOutput::Wide => term::Sink::Text,
        UpgradeOutput::Json | UpgradeOutput::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    settings.print_to(sink, |out| match format {
        UpgradeOutput::Table => output::upgrade::write_text(out, &report, false, &layout),
        UpgradeOutput::Wide => output::upgrade::write_text(out, &report, true, &layout),
        UpgradeOutput::Json => output::write_json(out, std::slice::from_ref(&report)),
        UpgradeOutput::Yaml => output::write_yaml(out, std::slice::from_ref(&report)),
    })?;
    Ok(code)
}

/// The report for the cluster of `settings` (or `-f` files), and its exit
/// code, without printing it: what [`run`] prints and `-o summary` counts.
pub fn collect(settings: &Settings, args: &UpgradeCheckArgs) -> Result<(Report, ExitCode)> {
    let inputs = inputs::load_objects(settings, &args.filenames, MIRROR_CONFIG, None)?;
    let (image, offered) = target_image(args, &inputs)?;
    let (rendered, view) = inputs::render_view(settings, &inputs, CONTROL_PLANE_POOL, None)?;
    let config = Config::from(&view);
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let setup = super::registry_probe_setup(&args.probe);
    let mut ctx =
        probe_cmd::context_for_objects(settings, &setup, &args.filenames, &rendered, &inputs)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context(Failure::cluster("cannot start the network runtime"))?;
    let pulled = runtime.block_on(pull_payload(&ctx, &config, &image, mode))?;
    let mut target = target_of(&image, offered.as_ref(), &pulled.check);
    let Some(served) = pulled.served else {
        let report = upgrade::report(target, Vec::new());
        return finish(settings, args, &inputs, report);
    };
    target.digest = Some(format!("sha256:{}", sha256_hex(&served.manifest)));
    let (arch, missing) = payload_architecture(settings, args, &inputs, &runtime, &ctx, &served)?;
    target.architecture = arch.clone();
    if let Some(why) = missing {
        target.outcome = ImageOutcome::MissingArchitecture;
        target.detail = why;
        return finish(settings, args, &inputs, upgrade::report(target, Vec::new()));
    }
    let files = runtime.block_on(read_release(&ctx, &served, arch.as_deref()))?;
    let release = payload::components(&files).map_err(payload_failure(&image))?;
    let version = payload::metadata_version(&files).map_err(payload_failure(&image))?;
    if target.version.is_none() {
        target.version = version.or(Some(release.version.clone()).filter(|v| !v.is_empty()));
    }
    let (policies, applied) = release_policy::read(&files).map_err(payload_failure(&image))?;
    let after = release_policy::after_update(&inputs, &applied, target.version.as_deref(), &image);
    let after_render = render_after(settings, &after)?;
    // Refused, the nodes keep today's configuration (and registries.d).
    let (config_after, mode_after, refusal) = match &after_render {
        Ok((rendered_after, view_after)) => {
            let sigstore_d = mirrorpolicy::render::sigstore::SIGSTORE_REGISTRIES_D;
            ctx.registries_d =
                probe_cmd::registries_d_from_text(sigstore_d, rendered_after.file(sigstore_d))?;
            let mode = mirrorpolicy::crio::short_name_mode(after.cluster_version.as_ref());
            (Config::from(view_after), mode, None)
        }
        Err(refusal) => (Config::from(&view), mode, Some(refusal.clone())),
    };
    let payload_after = runtime.block_on(check_after(&ctx, &config_after, &image, mode_after));
    target.outcome = payload_after.outcome;
    target.served_by = payload_after.served_by.clone();
    target.detail = payload_after.detail.clone();
    target.signature = payload_after.signature.clone();
    let items: Vec<Explanation> = release
        .components
        .iter()
        .map(|c| explain_one(&config_after, &c.reference, mode_after))
        .collect();
    let concurrency = usize::from(args.probe.probe_concurrency);
    let probed = runtime.block_on(probe_components(&ctx, items, concurrency));
    let images: Vec<ImageCheck> = release
        .components
        .iter()
        .zip(probed)
        .map(|(c, (item, sig))| upgrade::with_signature(upgrade::check_image(&c.name, &item), sig))
        .collect();
    let sigstore = upgrade::sigstore_summary(policies, &target, &images);
    let mut report = upgrade::report(target, images);
    report.signatures.sigstore = Some(sigstore);
    if let Some(refusal) = refusal {
        report = upgrade::with_mco_refusal(report, refusal);
    }
    finish(settings, args, &inputs, report)
}

/// The control plane's configuration once the update is done, as the
/// target's MCO renders it with the release's policies; or, when the MCO
/// refuses to render it (it then keeps the previous MachineConfig), why.
fn render_after(
    settings: &Settings,
    after: &Inputs,
) -> Result<Result<(Rendered, NodeView), McoRefusal>> {
    let rendered = inputs::render_view_quietly(settings, after, CONTROL_PLANE_POOL);
    let error = match rendered {
        Ok(r) => return Ok(Ok(r)),
        Err(e) => e,
    };
    let generating = render::pool::generating_pool(after, CONTROL_PLANE_POOL).ok();
    match generating.and_then(|g| render::pool::render_pool(after, g).err()) {
        Some(refused) => Ok(Err(upgrade::mco_refusal(&refused, after))),
        None => Err(error.context(Failure::input(
            "cannot read back the configuration rendered with the release's policies",
        ))),
    }
}

/// The payload checked again as CRI-O pulls it once the update is done
/// (the release's own signature policies applied), its signature verified.
async fn check_after(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
) -> ImageCheck {
    let mut item = explain_one(config, image, mode);
    probe::probe_explanation(ctx, &mut item).await;
    let sig = probe::signature::check(ctx, &item).await;
    upgrade::with_signature(upgrade::check_image("payload", &item), sig)
}

/// The report with the cluster-version operator's checks (the OpenPGP
/// signature and the admin gates), and its exit code.
fn finish(
    settings: &Settings,
    args: &UpgradeCheckArgs,
    inputs: &Inputs,
    report: Report,
) -> Result<(Report, ExitCode)> {
    let maps = if args.filenames.is_empty() {
        live_config_maps(settings)?
    } else {
        file_config_maps(&args.filenames)?
    };
    let custom = inputs
        .cluster_version
        .as_ref()
        .and_then(|cv| cv.spec.signature_stores.as_deref());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let openpgp = checks::openpgp(report.target.digest.as_deref(), &maps, custom, now);
    let current = inputs
        .cluster_version
        .as_ref()
        .and_then(checks::current_version);
    let gates = checks::gates(current, report.target.version.as_deref(), &maps);
    let report = upgrade::with_checks(report, openpgp, gates);
    let code = exit_code(&report);
    Ok((report, code))
}

/// The ConfigMaps of the checks in the files and folders of `-f`.
fn file_config_maps(paths: &[std::path::PathBuf]) -> Result<ConfigMaps> {
    let found = file::config_maps(paths, &[checks::CONFIG_MANAGED, checks::CONFIG])
        .map_err(|e| Failure::input(e.to_string()))?;
    let maps: Vec<ConfigMap> = found
        .iter()
        .map(|(_, v)| ConfigMap::from_value(v))
        .collect();
    Ok(ConfigMaps {
        managed_read: maps.iter().any(|m| m.namespace == checks::CONFIG_MANAGED),
        config_read: maps.iter().any(|m| m.namespace == checks::CONFIG),
        maps,
    })
}

/// The ConfigMaps of the checks, from the cluster: the labelled signature
/// ConfigMaps (listed as the CVO lists them), `release-verification`,
/// `admin-gates` and `admin-acks`.
fn live_config_maps(settings: &Settings) -> Result<ConfigMaps> {
    use mirrorpolicy::source::api::{self as live, CONFIG_MAPS};
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let values = runtime
        .block_on(async {
            let c = live::connect(&options).await?;
            let (managed, config) = (checks::CONFIG_MANAGED, checks::CONFIG);
            let (listed, verification, gates, acks) = tokio::try_join!(
                c.list_items(&CONFIG_MAPS, managed, checks::SIGNATURES_LABEL),
                c.get_in(&CONFIG_MAPS, managed, checks::VERIFICATION),
                c.get_in(&CONFIG_MAPS, managed, checks::ADMIN_GATES),
                c.get_in(&CONFIG_MAPS, config, checks::ADMIN_ACKS),
            )?;
            let mut all = listed.unwrap_or_default();
            all.extend([verification, gates, acks].into_iter().flatten());
            Ok::<_, live::ClusterError>(all)
        })
        .map_err(inputs::cluster_failure)?;
    Ok(ConfigMaps {
        maps: values.iter().map(ConfigMap::from_value).collect(),
        managed_read: true,
        config_read: true,
    })
}

/// Exit 0 ready, 1 not ready, 3 undetermined.
fn exit_code(report: &Report) -> ExitCode {
    match report.readiness {
        upgrade::Readiness::Ready => ExitCode::Success,
        upgrade::Readiness::NotReady => ExitCode::Findings,
        upgrade::Readiness::Undetermined => ExitCode::Cluster,
    }
}

/// The payload pull spec, and the update `--to` found.
fn target_image(args: &UpgradeCheckArgs, inputs: &Inputs) -> Result<(String, Option<Offered>)> {
    if let Some(image) = &args.to_image {
        Reference::parse_normalized_named(image).map_err(|e| {
            Failure::input(format!(
                "--to-image {image:?} is not a valid pull spec: {e}"
            ))
        })?;
        // An update the cluster offers under that image carries its
        // version, risks and oc's refusal, as `oc adm upgrade --to-image`.
        let offered = upgrade::find_update_by_image(inputs.cluster_version.as_ref(), image);
        return Ok((image.clone(), offered));
    }
    let version = args.to.as_deref().unwrap_or_default();
    let offered = upgrade::find_update(inputs.cluster_version.as_ref(), version).map_err(|e| {
        Failure::input(e.to_string()).with_hint(
            "to check a release the cluster does not offer (as `oc adm upgrade --to-image --allow-explicit-upgrade` would apply it), pass its payload by digest: --to-image quay.io/openshift-release-dev/ocp-release@sha256:<digest>",
        )
    })?;
    Ok((offered.image.clone(), Some(offered)))
}

/// An image explained against the control plane's configuration; one
/// that cannot be explained carries its error.
fn explain_one(config: &Config<'_>, image: &str, mode: ShortNameMode) -> Explanation {
    core::explain(config, image, mode, None)
        .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e))
}

/// The [`Target`] of the payload check.
fn target_of(image: &str, offered: Option<&Offered>, check: &ImageCheck) -> Target {
    Target {
        version: offered.map(|o| o.version.clone()),
        image: image.to_string(),
        digest: None,
        architecture: None,
        served_by: check.served_by.clone(),
        outcome: check.outcome,
        signature: check.signature.clone(),
        listed_in: offered.map(|o| o.listed_in.to_string()),
        risks: offered.map(|o| o.risks.clone()).unwrap_or_default(),
        recommended: offered
            .and_then(|o| o.recommended.as_ref())
            .map(|(status, why)| format!("{status} ({why})")),
        oc_refusal: offered.and_then(Offered::oc_refusal),
        oc_target: offered.map(|o| o.oc_target.clone()),
        detail: check.detail.clone(),
    }
}

/// The payload as probed, and the source that serves it.
struct Pulled {
    check: ImageCheck,
    served: Option<Served>,
}

/// The source that serves the payload, and the manifest it served (as
/// served, and parsed once).
struct Served {
    physical: Reference,
    insecure: bool,
    manifest: Vec<u8>,
    parsed: Manifest,
}

/// Probes the payload on its pull sources; when one serves it (with or
/// without the signature the current policy requires), fetches its manifest
/// there.
async fn pull_payload(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
) -> Result<Pulled> {
    let mut item = explain_one(config, image, mode);
    probe::probe_explanation(ctx, &mut item).await;
    let check = upgrade::check_image("payload", &item);
    // A payload served without the signature the current policy requires is
    // still read: the check after the update decides its outcome, and the
    // components are checked all the same.
    let readable = matches!(
        check.outcome,
        ImageOutcome::Served | ImageOutcome::Unsigned | ImageOutcome::BadSignature
    );
    if !readable || check.served_by.is_none() {
        return Ok(Pulled {
            check,
            served: None,
        });
    }
    let by = check.served_by.clone().unwrap_or_default();
    let insecure = item.source_is_insecure(&by);
    let physical = Reference::parse(&by)
        .map_err(|e| Failure::input(format!("the serving pull spec {by:?} is invalid: {e}")))?;
    let attempt = ctx.prober.attempt(&physical, insecure).await;
    let Some(manifest) = attempt.manifest else {
        return Err(Failure::cluster(format!(
            "{by} served the payload manifest once, then: {}",
            attempt.detail
        ))
        .into());
    };
    let parsed = payload::parse_manifest(&manifest).map_err(payload_failure(&physical.name()))?;
    Ok(Pulled {
        check,
        served: Some(Served {
            physical,
            insecure,
            manifest,
            parsed,
        }),
    })
}

/// The architecture to read from an index (`None` for an image), and why
/// the payload has no image for the control plane's architecture, when it
/// has none: an index without it, or a single-architecture image of
/// another (checked when `--arch` or the control-plane Nodes name one).
fn payload_architecture(
    settings: &Settings,
    args: &UpgradeCheckArgs,
    inputs: &Inputs,
    runtime: &tokio::runtime::Runtime,
    ctx: &ProbeContext,
    served: &Served,
) -> Result<(Option<String>, Option<String>)> {
    let manifest = &served.parsed;
    let (index_arch, wanted) = match manifest {
        Manifest::Index(_) => {
            let a = architecture(settings, args, inputs)?;
            (Some(a.clone()), Some(a))
        }
        Manifest::Image { .. } => (None, architecture(settings, args, inputs).ok()),
    };
    let Some(wanted) = wanted else {
        return Ok((index_arch, None));
    };
    // A configuration that cannot be read (at most 4 MiB, its digest
    // checked) leaves the platform unknown rather than failing the check.
    const MAX_CONFIG: usize = 4 << 20;
    let config = match manifest {
        Manifest::Image {
            config: Some(c), ..
        } => runtime
            .block_on(blob::read_small(
                ctx,
                &served.physical,
                served.insecure,
                &c.digest,
                "the payload",
                MAX_CONFIG,
            ))
            .ok(),
        _ => None,
    };
    let platform = config.as_deref().and_then(manifest::config_platform);
    let missing = payload::missing_architecture(manifest, platform.as_ref(), &wanted);
    Ok((index_arch, missing))
}

/// The architecture to read from an index: `--arch`, else the control-plane Nodes'.
fn architecture(settings: &Settings, args: &UpgradeCheckArgs, inputs: &Inputs) -> Result<String> {
    if let Some(a) = &args.arch {
        return Ok(a.clone());
    }
    let live;
    let nodes = if args.filenames.is_empty() {
        const NODE_READ: &[ClusterRead] = &[ClusterRead::one(&[NODES])];
        live = inputs::load_objects(settings, &[], NODE_READ, None)?;
        &live.nodes
    } else {
        &inputs.nodes
    };
    let control_plane = |n: &&mirrorpolicy::objects::Node| {
        let labels = &n.metadata.labels;
        labels.contains_key("node-role.kubernetes.io/master")
            || labels.contains_key("node-role.kubernetes.io/control-plane")
    };
    let mut arches: Vec<&str> = nodes
        .iter()
        .filter(control_plane)
        .filter_map(|n| n.metadata.labels.get("kubernetes.io/arch"))
        .map(String::as_str)
        .collect();
    arches.sort();
    arches.dedup();
    match arches.as_slice() {
        [one] => Ok(one.to_string()),
        _ => Err(Failure::input(format!(
            "the payload is a multi-architecture index and the control plane's architecture is not known ({})",
            if arches.is_empty() { "no control-plane Node with a kubernetes.io/arch label was read".to_string() } else { format!("control-plane Nodes are {}", arches.join(", ")) }
        ))
        .with_hint("pass --arch amd64 (or arm64, ppc64le, s390x)")
        .into()),
    }
}

/// Reads the release files from the payload's last layer, on the source that served it.
async fn read_release(
    ctx: &ProbeContext,
    served: &Served,
    arch: Option<&str>,
) -> Result<ReleaseFiles> {
    let manifest = &served.parsed;
    let name = served.physical.name();
    let fail = payload_failure(&name);
    let layer = match manifest {
        Manifest::Image { .. } => payload::last_layer(manifest).cloned(),
        Manifest::Index(entries) => {
            let digest = manifest::pick_arch(entries, arch)
                .map_err(|e| fail(payload::PayloadError::Arch(e)))?;
            let attempt = ctx
                .prober
                .fetch_manifest(&served.physical, served.insecure, &digest)
                .await;
            let body = attempt
                .manifest
                .ok_or_else(|| Failure::cluster(format!("{name}@{digest}: {}", attempt.detail)))?;
            let child = payload::parse_manifest(&body).map_err(&fail)?;
            if matches!(child, Manifest::Index(_)) {
                return Err(fail(payload::PayloadError::MediaType(
                    "an index inside an index".to_string(),
                )));
            }
            payload::last_layer(&child).cloned()
        }
    };
    let layer = layer.ok_or_else(|| fail(payload::PayloadError::NoLayers))?;
    stream_layer(ctx, served, &layer).await
}

/// Streams the `layer` into the tar reader (see [`blob::stream`]): a blob
/// served right that the tool cannot read (zstd, a file too large) says
/// so, with the layer's digest and media type.
async fn stream_layer(
    ctx: &ProbeContext,
    served: &Served,
    layer: &Descriptor,
) -> Result<ReleaseFiles> {
    let name = served.physical.name();
    let described = layer.clone();
    let read = blob::stream(
        ctx,
        &served.physical,
        served.insecure,
        &layer.digest,
        "the payload",
        move |r| payload::read_layer(r, &described, &payload::wanted),
    )
    .await?;
    read.map_err(payload_failure(&name))
}

/// A payload that is not a release, named after its pull spec.
fn payload_failure(image: &str) -> impl Fn(payload::PayloadError) -> anyhow::Error + '_ {
    move |e| {
        let arch = matches!(
            e,
            payload::PayloadError::Arch(manifest::ArchError::Unknown { .. })
        );
        let f = Failure::input(format!("release payload {image}: {e}"));
        if arch {
            f.with_hint("pass --arch amd64 (or arm64, ppc64le, s390x)")
                .into()
        } else {
            f.into()
        }
    }
}

/// Probes the components, at most `concurrency` at a time, in order; a
/// progress line on stderr when it is a terminal.
async fn probe_components(
    ctx: &ProbeContext,
    items: Vec<Explanation>,
    concurrency: usize,
) -> Vec<(Explanation, Option<ImageSignature>)> {
    use std::io::IsTerminal;
    let total = items.len();
    let done = AtomicUsize::new(0);
    let progress = std::io::stderr().is_terminal();
    let probed = futures_util::stream::iter(items.into_iter().map(|mut item| {
        let done = &done;
        async move {
            probe::probe_explanation(ctx, &mut item).await;
            let sig = probe::signature::check(ctx, &item).await;
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if progress {
                eprint!("\rprobing component images: {n}/{total}");
            }
            (item, sig)
        }
    }))
    .buffered(concurrency.max(1))
    .collect::<Vec<_>>()
    .await;
    if progress && total > 0 {
        eprintln!();
    }
    probed
}
