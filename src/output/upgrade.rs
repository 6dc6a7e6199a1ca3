//! The `upgrade-check` report: the summary first, then the failing images
//! (`wide`: every image), then the next step for each class of failure.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color};

use super::table::{Layout, TextTable};
use mirrorpolicy::upgrade::{ImageCheck, ImageOutcome, Readiness, Report};

/// Writes the report as text.
pub fn write_text(
    out: &mut dyn Write,
    report: &Report,
    wide: bool,
    layout: &Layout,
) -> io::Result<()> {
    write_summary(out, report)?;
    let shown: Vec<&ImageCheck> = report
        .images
        .iter()
        .filter(|i| wide || i.outcome != ImageOutcome::Served)
        .collect();
    if !shown.is_empty() {
        writeln!(out)?;
        let head = ["OUTCOME", "NAME", "REFERENCE", "SERVED BY", "DETAIL"];
        let mut t = TextTable::new(layout, &head, &[0, 1, 2, 3]);
        for i in shown {
            t.row(row(i));
        }
        t.write(out)?;
    }
    if !report.next_steps.is_empty() {
        writeln!(out, "\nNext steps:")?;
        for s in &report.next_steps {
            writeln!(out, "  {}: {}", s.outcome, s.step)?;
            for c in &s.commands {
                writeln!(out, "    {c}")?;
            }
        }
    }
    Ok(())
}

fn write_summary(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let t = &report.target;
    let version = t.version.as_deref().unwrap_or("unknown");
    writeln!(out, "Target:    {version} ({})", t.image)?;
    if let Some(listed) = &t.listed_in {
        writeln!(out, "Offered:   in ClusterVersion status.{listed}")?;
    }
    if let Some(r) = &t.recommended {
        writeln!(out, "Recommended: {r}")?;
    }
    for r in &t.risks {
        writeln!(out, "Risk:      {}: {}", r.name, r.message)?;
    }
    if let Some(d) = &t.digest {
        writeln!(out, "Digest:    {d}")?;
    }
    if let Some(a) = &t.architecture {
        writeln!(out, "Arch:      {a} (from the multi-architecture index)")?;
    }
    match &t.served_by {
        Some(by) if t.outcome == ImageOutcome::MissingArchitecture => writeln!(
            out,
            "Payload:   {} (served by {by}): {}",
            t.outcome.as_str(),
            t.detail
        )?,
        Some(by) => writeln!(out, "Payload:   {} by {by}", t.outcome.as_str())?,
        None => writeln!(out, "Payload:   {}: {}", t.outcome.as_str(), t.detail)?,
    }
    let c = &report.summary;
    writeln!(
        out,
        "Images:    {} (served {}, missing {}, unsigned {}, other failures {}, undetermined {})",
        c.images, c.served, c.missing, c.unsigned, c.failing, c.undetermined
    )?;
    write_checks(out, report)?;
    if let Some(m) = &report.mco_refusal {
        writeln!(out, "MCO:       refuses: {} ({})", m.message, m.detail)?;
    }
    let images_fail = std::iter::once(t.outcome)
        .chain(report.images.iter().map(|i| i.outcome))
        .any(ImageOutcome::fails);
    let verdict = match report.readiness {
        Readiness::Ready => "ready: every image is served through the cluster's pull sources",
        Readiness::NotReady if t.outcome == ImageOutcome::MissingArchitecture => {
            "NOT READY: the payload has no image for the control plane's architecture"
        }
        Readiness::NotReady if images_fail => {
            "NOT READY: the update would stall on the images below"
        }
        Readiness::NotReady if report.mco_refusal.is_some() => {
            "NOT READY: the target's MCO would refuse the release's signature policy (see above)"
        }
        Readiness::NotReady => {
            "NOT READY: the cluster-version operator would not start the update (see above)"
        }
        Readiness::Undetermined => {
            "undetermined: a registry did not answer, nothing failed otherwise"
        }
    };
    match (&t.oc_refusal, &t.oc_target) {
        (Some(_), Some(to)) => writeln!(
            out,
            "Verdict:   {verdict}; and not recommended: `oc adm upgrade {to}` refuses it without --allow-not-recommended"
        ),
        _ => writeln!(out, "Verdict:   {verdict}"),
    }
}

/// The OpenPGP signature and the gates, one line each.
fn write_checks(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    if let Some(p) = &report.signatures.openpgp {
        writeln!(out, "OpenPGP:   {}: {}", p.outcome.as_str(), p.detail)?;
    }
    if let Some(s) = &report.signatures.sigstore {
        write_sigstore(out, s)?;
    }
    for g in &report.gates {
        let message = if g.outcome.fails() && !g.message.is_empty() {
            format!(" ({})", g.message)
        } else {
            String::new()
        };
        writeln!(
            out,
            "Gate:      {} {}: {}{message}",
            g.name,
            g.outcome.as_str(),
            g.detail
        )?;
    }
    Ok(())
}

/// The release's signature policies and the sigstore signature counts.
fn write_sigstore(out: &mut dyn Write, s: &mirrorpolicy::upgrade::Sigstore) -> io::Result<()> {
    for p in &s.release_policies {
        let state = if p.applied { "applied" } else { "not applied" };
        writeln!(
            out,
            "Policy:    {} ({}, {}) from the release, {state}: {}; scopes {}",
            p.name,
            p.file,
            p.policy_type,
            p.detail,
            p.scopes.join(", ")
        )?;
    }
    if s.required == 0 {
        if !s.release_policies.is_empty() {
            writeln!(out, "Sigstore:  no image needs a signature")?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "Sigstore:  {} image(s) need a signature: verified {}, present (not verified) {}, missing {}, rejected {}, undetermined {}",
        s.required, s.verified, s.presence_only, s.missing, s.rejected, s.undetermined
    )
}

fn row(i: &ImageCheck) -> Vec<Cell> {
    let outcome = Cell::new(i.outcome.as_str());
    let outcome = match i.outcome {
        ImageOutcome::Served => outcome.fg(Color::Green),
        ImageOutcome::Undetermined => outcome.fg(Color::Yellow),
        _ => outcome.fg(Color::Red).add_attribute(Attribute::Bold),
    };
    vec![
        outcome,
        Cell::new(&i.name),
        Cell::new(&i.reference),
        Cell::new(i.served_by.as_deref().unwrap_or("-")),
        Cell::new(&i.detail),
    ]
}
