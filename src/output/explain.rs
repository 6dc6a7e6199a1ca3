//! The human view of `explain`: one block per image, one pull-order table
//! per candidate.
//!
//! Colour follows `colored`'s global switch, which the command layer sets
//! from `--color`, `NO_COLOR` and the terminal; the text reads the same
//! without it (blocked endpoints say "blocked", not just red).

use std::io::{self, Write};

use colored::Colorize;
use comfy_table::{Cell, Color};

use super::table::{Layout, TextTable};

use mirrorpolicy::explain::{
    Candidate, Explanation, RegistryMatch, ResolvedBy, Signature, Skipped,
};
use mirrorpolicy::journal::record::{Attempt, Outcome};
use mirrorpolicy::journal::{PullRecord, Verdict};
use mirrorpolicy::registries::lookup::Role;
use mirrorpolicy::tag_mirror_fix::TagMirrorFix;

/// Writes the explanations as text blocks separated by a blank line.
pub fn write_table(out: &mut dyn Write, items: &[Explanation], layout: &Layout) -> io::Result<()> {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_one(out, e, layout)?;
    }
    Ok(())
}

fn label(text: &str) -> String {
    format!("{:<11}", format!("{text}:")).bold().to_string()
}

fn write_one(out: &mut dyn Write, e: &Explanation, layout: &Layout) -> io::Result<()> {
    writeln!(out, "{}{}", label("Image"), e.image.bold())?;
    if let Some(ns) = &e.namespace {
        writeln!(out, "{}{ns}", label("Namespace"))?;
    }
    let n = e.candidates.len();
    for (i, c) in e.candidates.iter().enumerate() {
        if n > 1 {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                format!("Candidate {} of {n} (short-name mode {})", i + 1, mode(e)).bold()
            )?;
        }
        write_candidate(out, c, layout)?;
    }
    if !e.warnings.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", "Warnings:".bold())?;
        for w in &e.warnings {
            writeln!(out, "  {} {w}", "!".yellow().bold())?;
        }
    }
    if let Some(err) = &e.error {
        if !e.candidates.is_empty() {
            writeln!(out)?;
        }
        let result = if e.undetermined {
            format!("undetermined: {err}").yellow().bold()
        } else {
            format!("the pull fails: {err}").red().bold()
        };
        writeln!(out, "{}{result}", label("Result"))?;
    }
    if let Some(records) = &e.journal {
        write_journal(out, &e.image, records)?;
    }
    Ok(())
}

/// The "Journal:" section: one block per pull the log shows.
fn write_journal(out: &mut dyn Write, image: &str, records: &[PullRecord]) -> io::Result<()> {
    writeln!(out)?;
    if records.is_empty() {
        return writeln!(out, "{}no pull of {image} in the log", label("Journal"));
    }
    let n = records.len();
    let s = if n == 1 { "" } else { "s" };
    writeln!(out, "{}{n} pull{s} of {image} in the log", label("Journal"))?;
    for r in records {
        let outcome = match (r.outcome, &r.result) {
            (Outcome::Pulled, Some(res)) => format!("pulled {res}"),
            (Outcome::Pulled, None) => "pulled".to_string(),
            (Outcome::Failed, _) => "failed".red().to_string(),
            (Outcome::Unfinished, _) => "unfinished: the log ends before the pull does".to_string(),
        };
        writeln!(out, "  {}  {}  {} {outcome}", r.time, r.node, r.image)?;
        if let Some(how) = &r.short_name {
            writeln!(out, "    {how}")?;
        }
        if let Some(t) = r.shared_with {
            writeln!(
                out,
                "    shared the identical pull of {t} (CRI-O de-duplicates concurrent pulls)"
            )?;
        }
        for a in &r.pulls {
            write_attempt(out, a)?;
        }
    }
    Ok(())
}

fn write_attempt(out: &mut dyn Write, a: &Attempt) -> io::Result<()> {
    let verdict = match a.verdict {
        Verdict::AsExpected => "asExpected".green().to_string(),
        Verdict::Diverges => "diverges".red().bold().to_string(),
        Verdict::Undetermined => "undetermined".yellow().to_string(),
    };
    let artifact = if a.oci_artifact {
        " (as an OCI artifact)"
    } else {
        ""
    };
    writeln!(out, "    {}{artifact}: {verdict}", a.candidate)?;
    for (i, t) in a.tried.iter().enumerate() {
        let note = if a.served_by.as_ref() == Some(t) {
            "  served".to_string()
        } else {
            match a.errors.iter().find(|e| &e.reference == t) {
                Some(e) => format!("  failed: {}", e.error.replace('\n', " ")),
                None => String::new(),
            }
        };
        writeln!(out, "      {}. {t}{note}", i + 1)?;
    }
    if let Some(d) = &a.divergence {
        writeln!(out, "    {} {}", "!".yellow().bold(), d.message)?;
    }
    if let Some(note) = &a.note {
        writeln!(out, "    {} {note}", "?".yellow().bold())?;
    }
    Ok(())
}

fn mode(e: &Explanation) -> &'static str {
    e.short_name_mode.as_str()
}

fn origins(list: &[mirrorpolicy::origin::Origin]) -> String {
    list.iter()
        .map(|o| o.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One candidate: its reference, how it was resolved, the registry entry
/// it matched, its pull-order table (or why the pull fails), the probe's
/// verdict, the mirrors skipped and the signature policy.
fn write_candidate(out: &mut dyn Write, c: &Candidate, layout: &Layout) -> io::Result<()> {
    let how = if c.by_digest { "by digest" } else { "by tag" };
    writeln!(out, "{}{} ({how})", label("Reference"), c.reference)?;
    write_resolved(out, &c.resolved_by)?;
    write_registry(out, c.registry.as_ref())?;
    let probed = c.sources.iter().any(|s| s.probe.is_some());
    if let (Some(err), false) = (&c.error, probed) {
        writeln!(out, "{}{}", label("Pull"), err.red().bold())?;
    } else {
        writeln!(out)?;
        sources_table(c, layout).write(out)?;
    }
    if let Some(v) = mirrorpolicy::probe::candidate_verdict(c) {
        write_probe_verdict(out, c, &v)?;
    }
    write_skipped(out, &c.skipped)?;
    if let Some(fix) = &c.fix {
        write_fix(out, fix)?;
    }
    writeln!(out)?;
    write_policies(out, c)
}

/// The "Resolved:" line of a short name (nothing for a qualified input).
fn write_resolved(out: &mut dyn Write, resolved_by: &ResolvedBy) -> io::Result<()> {
    match resolved_by {
        ResolvedBy::Qualified => {}
        ResolvedBy::Alias { alias, origins: o } => writeln!(
            out,
            "{}short-name alias \"{alias}\" ({})",
            label("Resolved"),
            origins(o)
        )?,
        ResolvedBy::SearchRegistry {
            registry,
            origins: o,
        } => writeln!(
            out,
            "{}unqualified-search-registries entry \"{registry}\"{}",
            label("Resolved"),
            if o.is_empty() {
                String::new()
            } else {
                format!(" ({})", origins(o))
            }
        )?,
    }
    Ok(())
}

/// The "Registry:" line: the `[[registry]]` entry that won, its flags and
/// the prefixes it won over, or that none matches.
fn write_registry(out: &mut dyn Write, registry: Option<&RegistryMatch>) -> io::Result<()> {
    let Some(r) = registry else {
        return writeln!(
            out,
            "{}no [[registry]] entry matches: pulled from its own registry, no mirrors",
            label("Registry")
        );
    };
    let kind = if r.prefix.starts_with("*.") {
        "wildcard prefix"
    } else {
        "prefix"
    };
    let mut flags = Vec::new();
    if r.mirror_by_digest_only {
        flags.push("mirror-by-digest-only");
    }
    if r.blocked {
        flags.push("blocked");
    }
    if r.insecure {
        flags.push("insecure");
    }
    let flags = if flags.is_empty() {
        String::new()
    } else {
        format!(" [{}]", flags.join(", "))
    };
    writeln!(
        out,
        "{}[[registry]] {kind} \"{}\"{flags} ({})",
        label("Registry"),
        r.prefix,
        origins(&r.origins)
    )?;
    if !r.also_matched.is_empty() {
        let lost: Vec<String> = r.also_matched.iter().map(|p| format!("\"{p}\"")).collect();
        writeln!(
            out,
            "{:11}won as the most specific prefix; also matched: {}",
            "",
            lost.join(", ")
        )?;
    }
    Ok(())
}

/// The "Skipped mirrors:" list, when there is one.
fn write_skipped(out: &mut dyn Write, skipped: &[Skipped]) -> io::Result<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", "Skipped mirrors:".bold())?;
    for s in skipped {
        writeln!(
            out,
            "  - {}: {} ({})",
            s.reference,
            s.reason,
            origins(&s.origins)
        )?;
    }
    Ok(())
}

/// The "Fix:" section of a pull by tag that skips every mirror as
/// digest-only: the ImageTagMirrorSet, the ICSP migration, what the probe
/// found on each mirror, the caveat and the other way out.
fn write_fix(out: &mut dyn Write, fix: &TagMirrorFix) -> io::Result<()> {
    let pad = format!("{:11}", "");
    writeln!(out)?;
    let locations: Vec<&str> = fix.mirrors.iter().map(|m| m.location.as_str()).collect();
    writeln!(
        out,
        "{}tag pulls use these mirrors ({}) once an ImageTagMirrorSet lists them for {}",
        label("Fix"),
        locations.join(", "),
        fix.source
    )?;
    if let Some(yaml) = &fix.image_tag_mirror_set {
        match &fix.check {
            Some(check) => writeln!(
                out,
                "{pad}mirror the tags, then apply (check it first: {check}):"
            )?,
            None => writeln!(out, "{pad}mirror the tags, then apply:")?,
        }
        for line in yaml.lines() {
            writeln!(out, "{pad}  {line}")?;
        }
    }
    if let Some(m) = &fix.migrate_icsp {
        writeln!(
            out,
            "{pad}or, for {}: {} (an ImageDigestMirrorSet and an ImageTagMirrorSet of the same mirrors in its place)",
            origins(&m.objects),
            m.command
        )?;
    }
    if let Some(edit) = &fix.registries_conf {
        writeln!(out, "{pad}{edit}")?;
    }
    for m in &fix.mirrors {
        if let Some(found) = m.probe_summary() {
            writeln!(out, "{pad}probe: {}: {found}", m.reference)?;
        }
    }
    for note in &fix.notes {
        writeln!(out, "{pad}{} {note}", "!".yellow().bold())?;
    }
    writeln!(out, "{pad}{}", fix.caveat)?;
    writeln!(out, "{pad}or {}", fix.alternative)
}

/// The "Policy:" verdict and one line per namespace's own policy, or that
/// the policy was not evaluated.
fn write_policies(out: &mut dyn Write, c: &Candidate) -> io::Result<()> {
    match &c.signature {
        Some(sig) => {
            write_policy(out, &label("Policy"), 11, c.allowed, sig)?;
            for ns in &c.namespace_policies {
                let head = format!("{:11}in namespace {}: ", "", ns.namespace);
                write_policy(out, &head, 13, ns.allowed, &ns.signature)?;
            }
        }
        None => writeln!(
            out,
            "{}not evaluated (pass --policy-json to see the signature policy)",
            label("Policy")
        )?,
    }
    Ok(())
}

/// One policy verdict line, then its requirements.
fn write_policy(
    out: &mut dyn Write,
    head: &str,
    indent: usize,
    allowed: bool,
    sig: &Signature,
) -> io::Result<()> {
    let verdict = if !allowed {
        "rejected".red().bold().to_string()
    } else if sig.verifies_signatures {
        "allowed if signed".yellow().to_string()
    } else {
        "allowed".green().to_string()
    };
    let scope = match &sig.scope {
        None => "the global default".to_string(),
        Some(s) if s.is_empty() => "the docker transport default".to_string(),
        Some(s) => format!("scope \"{s}\""),
    };
    writeln!(
        out,
        "{head}{verdict} by {scope} ({})",
        origins(&sig.origins)
    )?;
    for r in &sig.requirements {
        writeln!(out, "{:indent$}- {}", "", r.summary())?;
    }
    Ok(())
}

fn sources_table(c: &Candidate, layout: &Layout) -> TextTable {
    let probed = c.served_by.is_some();
    let head: &[&str] = if probed {
        &["#", "ROLE", "PULL SPEC", "FLAGS", "PROBE", "ORIGIN"]
    } else {
        &["#", "ROLE", "PULL SPEC", "FLAGS", "ORIGIN"]
    };
    // Everything but the origins is an identifier: never wrapped.
    let fixed: &[usize] = if probed {
        &[0, 1, 2, 3, 4]
    } else {
        &[0, 1, 2, 3]
    };
    let mut t = TextTable::new(layout, head, fixed);
    let first_usable = c.sources.iter().position(|s| !s.blocked);
    for (i, s) in c.sources.iter().enumerate() {
        let mut flags = Vec::new();
        if s.blocked {
            flags.push("blocked");
        }
        if s.insecure {
            flags.push("insecure");
        }
        let role = match s.role {
            Role::Mirror => "mirror",
            Role::Source => "source",
        };
        let mut spec = Cell::new(&s.reference);
        if s.blocked {
            spec = spec.fg(Color::Red);
        } else if Some(i) == first_usable {
            spec = spec.fg(Color::Green);
        }
        let mut row = vec![
            Cell::new(i + 1),
            Cell::new(role),
            spec,
            Cell::new(if flags.is_empty() {
                "-".to_string()
            } else {
                flags.join(",")
            }),
        ];
        if probed {
            row.push(probe_cell(s.probe.as_ref()));
        }
        row.push(Cell::new(origins(&s.origins)));
        t.row(row);
    }
    t
}

/// The PROBE cell: the outcome and the HTTP status.
fn probe_cell(p: Option<&mirrorpolicy::probe::SourceProbe>) -> Cell {
    let Some(p) = p else {
        return Cell::new("-");
    };
    let text = match p.status {
        Some(status) => format!("{} ({status})", p.outcome.as_str()),
        None => p.outcome.as_str().to_string(),
    };
    let cell = Cell::new(text);
    match p.outcome {
        mirrorpolicy::probe::Outcome::Served => cell.fg(Color::Green),
        mirrorpolicy::probe::Outcome::NotTried => cell,
        mirrorpolicy::probe::Outcome::TimedOut => cell.fg(Color::Yellow),
        _ => cell.fg(Color::Red),
    }
}

/// CRI-O's error for a pull that failed at every source, as its log and the
/// kubelet's event carry it (its newlines kept, each line indented).
fn write_crio_error(out: &mut dyn Write, said: &str) -> io::Result<()> {
    let mut lines = said.lines();
    writeln!(
        out,
        "{:11}CRI-O's error: {}",
        "",
        lines.next().unwrap_or("")
    )?;
    for l in lines {
        writeln!(out, "{:11}  {l}", "")?;
    }
    Ok(())
}

/// The one-line probe verdict of a candidate, then why each tried source
/// did not serve it.
fn write_probe_verdict(
    out: &mut dyn Write,
    c: &Candidate,
    v: &mirrorpolicy::probe::Verdict,
) -> io::Result<()> {
    use mirrorpolicy::probe::Verdict;
    writeln!(out)?;
    let line = match v {
        Verdict::Served(by) => format!("served by {by}").green().to_string(),
        Verdict::DigestMismatch(by) => {
            format!("{by} answers with a manifest that does not match the digest: the pull fails")
                .red()
                .bold()
                .to_string()
        }
        Verdict::Unsigned(by) => {
            let sig = c
                .signature_probe
                .as_ref()
                .map(|s| s.reference.as_str())
                .unwrap_or("");
            format!("served by {by}, but it has no sigstore signature {sig}: the policy requires one, the pull fails")
                .red()
                .bold()
                .to_string()
        }
        Verdict::NoAttachments(by) => format!(
            "served by {by}, but no sigstore signature is looked up there (use-sigstore-attachments) and the policy requires one: the pull fails"
        )
        .red()
        .bold()
        .to_string(),
        Verdict::BadSignature(by) => format!(
            "served by {by}, but the policy accepts none of its sigstore signatures: the pull fails"
        )
        .red()
        .bold()
        .to_string(),
        Verdict::Missing => "no source serves the image: the pull fails"
            .red()
            .bold()
            .to_string(),
        Verdict::Undetermined(why) => format!("undetermined: {why}")
            .yellow()
            .bold()
            .to_string(),
        Verdict::NotProbed => "nothing probed".to_string(),
    };
    writeln!(out, "{}{line}", label("Probe"))?;
    if let Some(said) = &c.crio_error {
        write_crio_error(out, said)?;
    } else if let Some(said) = mirrorpolicy::verdict::crio_words(v, c) {
        write_crio_error(out, &said)?;
    }
    if let Some(fix) = mirrorpolicy::verdict::fix(v, c) {
        writeln!(out, "{:11}fix: {fix}", "")?;
    }
    if let Some(sig) = &c.signature_probe {
        if sig.found {
            writeln!(out, "{:11}signature {} found", "", sig.reference)?;
        }
        if let Some(detail) = &sig.detail {
            writeln!(out, "{:11}{detail}", "")?;
        }
    }
    for (i, s) in c.sources.iter().enumerate() {
        if let Some(p) = &s.probe {
            if p.outcome != mirrorpolicy::probe::Outcome::NotTried {
                let suffix = format!(", {}", mirrorpolicy::probe::SEEN_FROM);
                let detail = p.detail.strip_suffix(&suffix).unwrap_or(&p.detail);
                writeln!(out, "{:11}#{}: {detail}", "", i + 1)?;
            }
        }
    }
    writeln!(out, "{:11}results {}", "", mirrorpolicy::probe::SEEN_FROM)?;
    Ok(())
}
