//! The `operator-check` report as text: per Subscription its catalog, its
//! verdict, the update path hop by hop, every image of the path (the
//! failing ones stand out), and the next steps; `-o wide` adds where each
//! hop's CSV was read, its dependencies, and each image's digest, sources
//! tried, signature and detail; `-o summary` is one line per Subscription.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color};

use super::many::summary_line;
use super::table::{Layout, TextTable};
use mirrorpolicy::olm::check::{
    CheckedKind, DependencyBundle, HopImage, ImageClass, ImageRole, SubscriptionCheck,
};
use mirrorpolicy::reference::Reference;
use mirrorpolicy::upgrade::{ImageOutcome, Readiness};

/// Writes every Subscription's check, a blank line between them (`wide`: more columns).
pub fn write_text(
    out: &mut dyn Write,
    checks: &[SubscriptionCheck],
    layout: &Layout,
    wide: bool,
) -> io::Result<()> {
    for (i, c) in checks.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_one(out, c, layout, wide)?;
    }
    Ok(())
}

/// `-o summary`: one line per Subscription (`namespace/name`, its
/// readiness, then `key=value`s), and a total of each kind checked, of
/// each readiness, and the exit code.
pub fn write_summary(
    out: &mut dyn Write,
    checks: &[SubscriptionCheck],
    exit: i32,
) -> io::Result<()> {
    let count = |r: Readiness| checks.iter().filter(|c| c.readiness == r).count();
    for c in checks {
        let name = super::operator_name(c.kind, &c.namespace, &c.name);
        let failing = c
            .hops
            .iter()
            .flat_map(|h| &h.images)
            .filter(|m| m.fails())
            .count();
        let mut counts = vec![
            ("reason", c.reason.clone()),
            ("package", c.package.clone()),
            (
                "installed",
                c.installed_csv.clone().unwrap_or_else(|| "-".into()),
            ),
            ("head", c.head.clone().unwrap_or_else(|| "-".into())),
            ("hops", c.hops.len().to_string()),
            ("failing", failing.to_string()),
        ];
        counts.retain(|(_, v)| !v.is_empty());
        writeln!(
            out,
            "{}",
            summary_line(&name, c.readiness.as_str(), &counts)
        )?;
    }
    let kind = |k: CheckedKind| checks.iter().filter(|c| c.kind == k).count();
    writeln!(
        out,
        "total subscriptions={} clusterextensions={} ready={} notReady={} undetermined={} exit={exit}",
        kind(CheckedKind::Subscription),
        kind(CheckedKind::ClusterExtension),
        count(Readiness::Ready),
        count(Readiness::NotReady),
        count(Readiness::Undetermined)
    )
}

fn write_one(
    out: &mut dyn Write,
    c: &SubscriptionCheck,
    layout: &Layout,
    wide: bool,
) -> io::Result<()> {
    write_header(out, c)?;
    if !c.hops.is_empty() {
        writeln!(out)?;
        write_hops(out, c, layout, wide)?;
    }
    if !c.next_steps.is_empty() {
        writeln!(out, "\nNext steps:")?;
        for s in &c.next_steps {
            writeln!(out, "  {}: {}", s.outcome, s.step)?;
            for command in &s.commands {
                writeln!(out, "    {command}")?;
            }
        }
    }
    Ok(())
}

/// The Subscription, its catalog, what is installed, the head and the verdict.
fn write_header(out: &mut dyn Write, c: &SubscriptionCheck) -> io::Result<()> {
    let name = super::operator_name(c.kind, &c.namespace, &c.name);
    let source = match &c.extension {
        Some(ext) => {
            write_extension(out, c, ext)?;
            c.catalog
                .source
                .as_deref()
                .map(|s| format!(" (ClusterCatalog {s}, pulled by catalogd)"))
        }
        None => {
            let channel = c
                .channel
                .as_deref()
                .unwrap_or("(every channel, default first)");
            writeln!(
                out,
                "Subscription: {name} (package {}, channel {channel})",
                c.package
            )?;
            c.catalog
                .source
                .as_deref()
                .map(|s| format!(" (CatalogSource {s})"))
        }
    }
    .unwrap_or_default();
    if !c.catalog.image.is_empty() {
        writeln!(out, "Catalog:      {}{source}", c.catalog.image)?;
    }
    if let Some(p) = &c.catalog.check {
        let by = p
            .served_by
            .as_deref()
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
        let digest = c
            .catalog
            .digest
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        writeln!(out, "              {}{by}{digest}", p.outcome.as_str())?;
    }
    if let Some(pool) = &c.catalog.pool {
        let why = c.catalog.pool_reason.as_deref().unwrap_or_default();
        writeln!(out, "Pool:         {pool} ({why})")?;
    }
    for (i, secret) in c.catalog.pull_secrets.iter().enumerate() {
        let label = if i == 0 { "Secrets:" } else { "" };
        writeln!(out, "{label:<14}{}", secret.message)?;
    }
    let installed = c
        .installed_csv
        .as_deref()
        .or(c.starting_csv.as_deref().map(|_| "nothing (startingCSV)"))
        .unwrap_or("nothing");
    writeln!(out, "Installed:    {installed}")?;
    if let Some(plan) = &c.install_plan {
        writeln!(out, "Pending:      {}", plan.message)?;
    }
    if let Some(head) = &c.head {
        writeln!(out, "Head:         {head}")?;
    }
    let verdict = match c.readiness {
        Readiness::Ready => "ready",
        Readiness::NotReady => "NOT READY",
        Readiness::Undetermined => "undetermined",
    };
    writeln!(out, "Verdict:      {verdict} ({}): {}", c.reason, c.message)
}

/// An OLM v1 ClusterExtension's first lines: what it asks, and the
/// catalogs its selector picks.
fn write_extension(
    out: &mut dyn Write,
    c: &SubscriptionCheck,
    ext: &mirrorpolicy::olm::check::ExtensionCheck,
) -> io::Result<()> {
    let channels = if ext.channels.is_empty() {
        "every channel".to_string()
    } else {
        format!("channels {}", ext.channels.join(","))
    };
    let version = ext
        .version
        .as_deref()
        .map(|v| format!(", version {v}"))
        .unwrap_or_default();
    writeln!(
        out,
        "ClusterExtension: {} (package {}, {channels}{version}, {}, namespace {})",
        c.name, c.package, ext.upgrade_constraint_policy, ext.install_namespace
    )?;
    let catalogs: Vec<String> = ext
        .catalogs
        .iter()
        .map(|k| format!("{} (priority {})", k.name, k.priority))
        .collect();
    let catalogs = if catalogs.is_empty() {
        "none selected".to_string()
    } else {
        catalogs.join(", ")
    };
    writeln!(out, "Catalogs:     {catalogs}")
}

/// The hops, then every image of every hop.
fn write_hops(
    out: &mut dyn Write,
    c: &SubscriptionCheck,
    layout: &Layout,
    wide: bool,
) -> io::Result<()> {
    let mut head = vec!["HOP", "FROM", "TO", "EDGE", "APPROVAL", "IMAGES", "FAILING"];
    if wide {
        head.extend(["CSV SOURCE", "DEPENDENCIES"]);
    }
    let mut t = TextTable::new(layout, &head, &[0, 1, 2, 3, 4, 5, 6]);
    for (i, h) in c.hops.iter().enumerate() {
        let failing = h.images.iter().filter(|m| m.fails()).count();
        let mut row = vec![
            Cell::new(i + 1),
            Cell::new(h.from.as_deref().unwrap_or("-")),
            Cell::new(&h.to),
            Cell::new(camel(h.edge)),
            Cell::new(&h.approval),
            Cell::new(h.images.len()),
            Cell::new(failing),
        ];
        if wide {
            let deps: Vec<String> = h
                .dependencies
                .iter()
                .map(|d| match (&d.satisfied_by, other_catalog(c, d)) {
                    (Some(by), _) => format!("{} ({by})", d.package),
                    (None, Some(from)) => format!("{} (from {from})", d.name),
                    (None, None) => d.name.clone(),
                })
                .collect();
            row.push(Cell::new(camel(h.csv_source)));
            row.push(Cell::new(if deps.is_empty() {
                "-".to_string()
            } else {
                deps.join(", ")
            }));
        }
        t.row(row);
    }
    t.write(out)?;
    writeln!(out)?;
    let mut head = vec!["HOP", "OUTCOME", "ROLE", "CLASS", "REFERENCE", "SERVED BY"];
    if wide {
        head.extend(["DIGEST", "TRIED", "SIGNATURE", "DETAIL"]);
    }
    let fixed: &[usize] = if wide {
        &[0, 1, 2, 3, 6]
    } else {
        &[0, 1, 2, 3]
    };
    let mut t = TextTable::new(layout, &head, fixed);
    for (i, h) in c.hops.iter().enumerate() {
        for m in &h.images {
            let from = h
                .dependencies
                .iter()
                .find(|d| m.role == ImageRole::Dependency && is_image_of(d, m))
                .and_then(|d| other_catalog(c, d));
            let mut row = image_row(i + 1, m, from);
            if wide {
                row.extend(wide_cells(m));
            }
            t.row(row);
        }
    }
    t.write(out)?;
    for (i, h) in c.hops.iter().enumerate() {
        if let Some(why) = &h.deployment_images_unknown {
            writeln!(out, "\nHop {}: deployment images unknown: {why}", i + 1)?;
        }
    }
    Ok(())
}

/// The CatalogSource `d` was taken from, when it is not the
/// Subscription's own (the JSON's `catalog`, `NAMESPACE/NAME`).
fn other_catalog<'c>(c: &SubscriptionCheck, d: &'c DependencyBundle) -> Option<&'c str> {
    d.catalog
        .as_deref()
        .filter(|from| c.catalog.source.as_deref() != Some(*from))
}

/// Whether `m` is the bundle (`NAME`) or an image (`NAME/...`) of `d`.
fn is_image_of(d: &DependencyBundle, m: &HopImage) -> bool {
    m.name
        .strip_prefix(d.name.as_str())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The digest `m` resolves to: the one its reference pins (a bundle's,
/// an image of a bundle built with `--use-image-digests`), else the one
/// the source that served its tag answered with (`pullSources[].digest`
/// in the JSON); `-` when neither is known.
fn resolved_digest(m: &HopImage) -> String {
    let pinned = Reference::parse(&m.reference)
        .ok()
        .and_then(|r| r.digest().map(str::to_string));
    let seen = || {
        let c = m.check.as_ref()?;
        let by = c.served_by.as_deref()?;
        c.pull_sources
            .iter()
            .find(|s| s.reference == by)
            .and_then(|s| s.digest.clone())
    };
    pinned.or_else(seen).unwrap_or_else(|| "-".to_string())
}

/// `-o wide`'s image columns: the digest the image resolves to, every
/// source tried in CRI-O's order with its answer, the signature's
/// verification, the deciding detail.
fn wide_cells(m: &HopImage) -> Vec<Cell> {
    let digest = Cell::new(resolved_digest(m));
    let Some(c) = &m.check else {
        return vec![digest, Cell::new("-"), Cell::new("-"), Cell::new("-")];
    };
    let tried: Vec<String> = c
        .pull_sources
        .iter()
        .map(|s| format!("{} ({})", s.reference, s.outcome.as_str()))
        .collect();
    let signature = c
        .signature
        .as_ref()
        .map_or_else(|| "-".to_string(), |s| camel(s.verification));
    let detail = if c.detail.is_empty() {
        "-"
    } else {
        c.detail.as_str()
    };
    vec![
        digest,
        Cell::new(if tried.is_empty() {
            "-".to_string()
        } else {
            tried.join(", ")
        }),
        Cell::new(signature),
        Cell::new(detail),
    ]
}

/// A value's JSON spelling (`skipRange`, `tagSkipsDigestMirrors`).
fn camel(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// One image's row; `from` is the other CatalogSource a dependency's
/// image comes from.
fn image_row(hop: usize, m: &HopImage, from: Option<&str>) -> Vec<Cell> {
    let outcome = match (&m.check, m.class) {
        (_, ImageClass::EmptyReference) => "empty".to_string(),
        (Some(c), _) => c.outcome.as_str().to_string(),
        (None, _) => "-".to_string(),
    };
    let mut outcome = Cell::new(if m.counted {
        outcome
    } else {
        format!("{outcome} (not counted)")
    });
    outcome = if m.fails() {
        outcome.fg(Color::Red).add_attribute(Attribute::Bold)
    } else if m
        .check
        .as_ref()
        .is_some_and(|c| c.outcome == ImageOutcome::Served)
    {
        outcome.fg(Color::Green)
    } else {
        outcome.fg(Color::Yellow)
    };
    let role = match m.role {
        ImageRole::Bundle => "bundle".to_string(),
        ImageRole::Operator => "operator".to_string(),
        ImageRole::Related if m.name.is_empty() => "related".to_string(),
        ImageRole::Related => format!("related ({})", m.name),
        ImageRole::Dependency => match from {
            Some(from) => format!("dependency ({}, from {from})", m.name),
            None => format!("dependency ({})", m.name),
        },
    };
    let class = camel(m.class);
    let by = m
        .check
        .as_ref()
        .and_then(|c| c.served_by.as_deref())
        .unwrap_or("-");
    vec![
        Cell::new(hop),
        outcome,
        Cell::new(role),
        Cell::new(class),
        Cell::new(&m.reference),
        Cell::new(by),
    ]
}
