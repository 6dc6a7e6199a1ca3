//! The verdict of a probed image, read from what the probe recorded on its
//! explanation: which candidate and source serve the pull, or why it fails
//! or cannot be told. The text output, the audit and `upgrade-check` judge
//! by it.

use crate::explain::{Candidate, Explanation};
use crate::objects::image::EDIT_IMAGE_CONFIG;
use crate::probe_result::{Outcome, SourceProbe, Verification};
use crate::reference::Reference;
use crate::registries::lookup::Role;

/// The verdict of a probed image, for the text output and the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Served by this source; the pull goes on.
    Served(String),
    /// This source answers with a manifest that does not match the digest
    /// asked for: the pull fails there.
    DigestMismatch(String),
    /// Served by this source without the sigstore signature the policy requires.
    Unsigned(String),
    /// Served by this source, but the policy requires sigstore signatures and
    /// `use-sigstore-attachments` does not apply to it: none is looked up.
    NoAttachments(String),
    /// Served by this source with sigstore signatures of which the policy
    /// accepts none (key, digest or signed identity): the pull fails.
    BadSignature(String),
    /// A source did not answer in time and CRI-O would keep waiting on it:
    /// what the pull gives cannot be told (the candidate's `undetermined`).
    Undetermined(String),
    /// No source serves it.
    Missing,
    /// Nothing was probed (the pull fails before any endpoint is tried).
    NotProbed,
}

impl Verdict {
    /// A failure CRI-O goes past to the next candidate (short names).
    fn passes_on(&self) -> bool {
        matches!(self, Verdict::Missing | Verdict::DigestMismatch(_))
    }
}

/// The verdict of a probed explanation. CRI-O tries the candidates in
/// order: one whose pull fails passes on to the next; the first served (or
/// whose source does not answer) decides. When every one fails, the first
/// failure that says more than "not found" is the verdict.
pub fn verdict(item: &Explanation) -> Verdict {
    let mut failed: Option<Verdict> = None;
    for v in item.candidates.iter().filter_map(candidate_verdict) {
        if !v.passes_on() {
            return v;
        }
        if failed.as_ref().is_none_or(|f| *f == Verdict::Missing) {
            failed = Some(v);
        }
    }
    failed.unwrap_or(Verdict::NotProbed)
}

/// The verdict of one probed candidate, `None` when it was not probed.
pub fn candidate_verdict(c: &Candidate) -> Option<Verdict> {
    let served_by = c.served_by.as_ref()?;
    if let Some(why) = &c.undetermined {
        return Some(Verdict::Undetermined(why.clone()));
    }
    let Some(by) = served_by else {
        let mismatch = c.sources.iter().find(|s| {
            s.probe
                .as_ref()
                .is_some_and(|p| p.outcome == Outcome::DigestMismatch)
        });
        return Some(match mismatch {
            Some(s) => Verdict::DigestMismatch(s.reference.clone()),
            None => Verdict::Missing,
        });
    };
    let source = c.sources.iter().find(|s| &s.reference == by);
    if source
        .and_then(|s| s.probe.as_ref())
        .is_some_and(|p| p.detail.contains(NO_ATTACHMENTS))
    {
        return Some(Verdict::NoAttachments(by.clone()));
    }
    if c.signature_probe.as_ref().is_some_and(|s| !s.found) {
        return Some(Verdict::Unsigned(by.clone()));
    }
    if c.signature_probe.as_ref().and_then(|s| s.verification) == Some(Verification::Rejected) {
        return Some(Verdict::BadSignature(by.clone()));
    }
    Some(Verdict::Served(by.clone()))
}

/// The words containers/image (as CRI-O runs it) fails the pull with, for
/// the verdicts whose error comes after a source answered: the manifest's
/// digest check (internal/image/unparsed.go) and the signature policy's
/// refusal (copy/single.go around signature/policy_eval_sigstore.go). The
/// other failures are in [`crio_pull_error`].
pub fn crio_words(v: &Verdict, c: &Candidate) -> Option<String> {
    match v {
        Verdict::DigestMismatch(_) => {
            let digest = c.reference.split_once('@')?.1;
            Some(format!(
                "Manifest does not match provided manifest digest {digest}"
            ))
        }
        Verdict::Unsigned(_) => Some(
            "Source image rejected: A signature was required, but no signature exists".to_string(),
        ),
        _ => None,
    }
}

/// The fix a user can apply when the verdict says the pull of candidate
/// `c` fails or cannot be told: what to copy where, what to trust, or
/// where to run again. `None` when the pull works, and for a mirror whose
/// signatures are not looked up (the cause is in the render, see
/// [`NO_ATTACHMENTS`]).
pub fn fix(v: &Verdict, c: &Candidate) -> Option<String> {
    let signature_copy = || {
        let sig = c.signature_probe.as_ref()?;
        let tag = sig.reference.rsplit_once(':')?.1;
        let repo = c
            .reference
            .split_once('@')
            .map_or(c.reference.as_str(), |(r, _)| r);
        Some(format!(
            "`{}`",
            skopeo_copy(&format!("{repo}:{tag}"), &sig.reference)
        ))
    };
    match v {
        Verdict::Missing => Some(missing_fix(c)),
        Verdict::DigestMismatch(by) => Some(format!(
            "copy the image again preserving digests: `{}`",
            skopeo_copy(&c.reference, by)
        )),
        Verdict::Unsigned(by) => Some(match signature_copy() {
            Some(cmd) => format!("copy its sigstore signature to {by} beside it (oc-mirror v2 mirrors them): {cmd}"),
            None => format!("copy its sigstore signature to {by} beside it (oc-mirror v2 mirrors them)"),
        }),
        Verdict::BadSignature(_) => Some(match signature_copy() {
            Some(cmd) => format!("copy the signature again from the source, and check the policy's key: {cmd}"),
            None => "copy the signature again from the source, and check the policy's key".to_string(),
        }),
        Verdict::Undetermined(_) => Some(
            "run again from a machine that reaches the registry, or with a longer --probe-timeout"
                .to_string(),
        ),
        // The MCO writes `use-sigstore-attachments: true` for every
        // ClusterImagePolicy/ImagePolicy scope and each mirror the scope's
        // registries.conf entry lists (container-runtime-config
        // `generateSigstoreRegistriesdConfig`), so an endpoint without it
        // is read from a registries.d the MCO did not render.
        Verdict::NoAttachments(by) => Some(format!(
            "give {} `use-sigstore-attachments: true` in registries.d; the MCO renders it for every signature policy scope and its mirrors, so a node without it runs files the MCO did not write: compare them with `kubectl mirrorpolicy diff --on-disk`",
            by.split('/').next().unwrap_or(by)
        )),
        Verdict::Served(_) | Verdict::NotProbed => None,
    }
}

/// What makes a pull no source served work: the image copied where
/// [`copy_target`] says; else what the first source that refused needs.
fn missing_fix(c: &Candidate) -> String {
    let tried: Vec<(&crate::explain::Source, &SourceProbe)> = c
        .sources
        .iter()
        .filter(|s| !s.blocked)
        .filter_map(|s| s.probe.as_ref().map(|p| (s, p)))
        .collect();
    let answers = tried
        .iter()
        .map(|(s, p)| (s.reference.as_str(), s.role, p.outcome));
    if let Some(t) = copy_target(answers) {
        let cmd = skopeo_copy(&c.reference, t.mirror);
        return match passed_over(&t) {
            None => format!("copy the image to the mirror CRI-O tries first (oc-mirror, or `{cmd}`)"),
            Some(why) => format!(
                "copy the image to the first mirror that answered not found (oc-mirror, or `{cmd}`); {why}"
            ),
        };
    }
    let host = host_of;
    match tried.first() {
        Some((s, p)) => match p.outcome {
            Outcome::Unauthorized => format!(
                "give the cluster's pull secret (openshift-config/pull-secret) credentials {} accepts",
                host(&s.reference)
            ),
            // Only a registry that answers HTTPS in plain HTTP is one
            // `insecureRegistries` makes CRI-O reach (over HTTP); any other
            // TLS failure is one of trust.
            Outcome::TlsError if p.plain_http => format!(
                "list {} in the Image config's spec.registrySources.insecureRegistries ({EDIT_IMAGE_CONFIG}), or serve TLS there",
                host(&s.reference)
            ),
            Outcome::TlsError => format!(
                "trust {}'s CA: a ConfigMap in openshift-config with its key, named by the Image config's spec.additionalTrustedCA ({EDIT_IMAGE_CONFIG})",
                host(&s.reference)
            ),
            Outcome::Unreachable => format!(
                "make {} reachable from the nodes (proxy, firewall, DNS), or add a mirror for it",
                host(&s.reference)
            ),
            _ => format!(
                "push the image to {}, or correct the reference",
                s.reference
            ),
        },
        None => "correct the reference".to_string(),
    }
}

/// Where a copy of an image that no source served belongs, and the
/// mirrors the pull goes past to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyTarget<'a> {
    /// The mirror's pull spec (the rewritten reference).
    pub mirror: &'a str,
    /// The mirrors tried before it that failed for another reason than
    /// "not found", with what they answered.
    pub passed_over: Vec<(&'a str, Outcome)>,
}

/// The one rule for where a missing image is copied to, for every command:
/// the first mirror, in the order CRI-O tries them, that answered "not
/// found". containers/image tries the pull sources in registries.conf's
/// order (sysregistriesv2 `PullSourcesFromReference`) and keeps the first
/// that works, going on past any error (docker/docker_image_src.go
/// `newImageSource`), so the image copied there is what the next pull
/// gets. A mirror that failed otherwise (credentials, TLS, no answer) is
/// not one a copy fixes: it is passed over, and named
/// ([`passed_over`]). Blocked endpoints are neither. `None` when no mirror
/// answered "not found" (the fix is then the refusing source's own).
/// `sources` are each source's pull spec, role and probe outcome, in
/// CRI-O's order.
pub fn copy_target<'a>(
    sources: impl IntoIterator<Item = (&'a str, Role, Outcome)>,
) -> Option<CopyTarget<'a>> {
    let mut passed_over = Vec::new();
    for (reference, role, outcome) in sources {
        if role != Role::Mirror || outcome == Outcome::Blocked {
            continue;
        }
        if outcome == Outcome::NotFound {
            return Some(CopyTarget {
                mirror: reference,
                passed_over,
            });
        }
        passed_over.push((reference, outcome));
    }
    None
}

/// Why the copy goes past the mirrors CRI-O tries before it, `None` when
/// there are none: it goes to the mirror CRI-O tries first.
pub fn passed_over(t: &CopyTarget) -> Option<String> {
    passed_over_by(t, "CRI-O", "this mirror")
}

/// [`passed_over`] for the component `puller` that pulls the image
/// (containers/image orders the mirrors the same way in each), going to
/// the mirror named `to`.
fn passed_over_by(t: &CopyTarget, puller: &str, to: &str) -> Option<String> {
    if t.passed_over.is_empty() {
        return None;
    }
    let said: Vec<String> = t
        .passed_over
        .iter()
        .map(|(r, o)| {
            let why = match o {
                Outcome::Unauthorized => "refused the credentials",
                Outcome::TlsError => "TLS failed",
                Outcome::Unreachable => "not reached",
                Outcome::TimedOut => "no answer in time",
                Outcome::DigestMismatch => "another manifest under the digest",
                other => other.as_str(),
            };
            format!("{} ({why})", host_of(r))
        })
        .collect();
    Some(format!(
        "{puller} goes past {} to {to}: a copy there would not be pulled before that is fixed",
        said.join(", ")
    ))
}

/// Where the copy lines of a next step go, in the words [`fix`] gives one
/// image's: "the mirror CRI-O tries first"; or, when a mirror before the
/// destination of any of them was passed over, "the first mirror that
/// answered not found" and, once for each, which mirrors the pull goes past
/// to which. `copies` are each copied image's puller (`CRI-O`, or OLM v1's
/// `operator-controller`) and [`copy_target`], in the step's order.
pub fn copies_go_to(copies: &[(&str, CopyTarget)]) -> String {
    let mut notes: Vec<String> = Vec::new();
    for (puller, t) in copies {
        let note = passed_over_by(t, puller, &host_of(t.mirror));
        if let Some(n) = note.filter(|n| !notes.contains(n)) {
            notes.push(n);
        }
    }
    if !notes.is_empty() {
        return format!(
            "the first mirror that answered not found; {}",
            notes.join("; ")
        );
    }
    let mut pullers: Vec<&str> = Vec::new();
    for (p, _) in copies {
        if !pullers.contains(p) {
            pullers.push(p);
        }
    }
    match pullers.as_slice() {
        [] => "the mirror CRI-O tries first".to_string(),
        [one] => format!("the mirror {one} tries first"),
        several => format!(
            "the mirror its puller ({}) tries first",
            several.join(" or ")
        ),
    }
}

fn host_of(r: &str) -> String {
    Reference::parse(r)
        .map(|r| r.domain().to_string())
        .unwrap_or_else(|_| r.to_string())
}

/// The `skopeo copy` line that copies `from` to `to`, every architecture of
/// it. A digest-pinned image is copied with `--preserve-digests`: skopeo then
/// refuses any change to the manifest (a conversion, a recompression) that
/// would give it another digest, instead of pushing an image no pull by
/// that digest finds.
pub fn skopeo_copy(from: &str, to: &str) -> String {
    let preserve = if from.contains('@') {
        " --preserve-digests"
    } else {
        ""
    };
    format!("skopeo copy --all{preserve} docker://{from} docker://{to}")
}

/// The detail of a served source whose signatures are not looked up.
pub const NO_ATTACHMENTS: &str = "use-sigstore-attachments does not apply to this endpoint";

/// The error CRI-O returns when every source of candidate `c` failed, as
/// containers/image builds it: `copy.Image` says `initializing source
/// docker://FAMILIAR: `, then `newImageSource` (docker/docker_image_src.go)
/// gives the one source's error alone, or, with more tried, the last one's
/// after the others' (`(Mirrors also failed: [REF: ERR]` joined by a
/// newline`): REF: ERR`). A blocked endpoint is one of the attempts; a
/// source not tried is not. Each source's error is its `words` where the
/// probe has containers/image's own, else its detail (the probe's wording
/// of a transport error). `None` when no source was tried.
pub fn crio_pull_error(c: &Candidate) -> Option<String> {
    let tried: Vec<(&str, &SourceProbe)> = c
        .sources
        .iter()
        .filter_map(|s| s.probe.as_ref().map(|p| (s.reference.as_str(), p)))
        .filter(|(_, p)| p.outcome != Outcome::NotTried)
        .collect();
    let said = |p: &SourceProbe| {
        let seen = format!(", {}", crate::probe_result::SEEN_FROM);
        p.words.clone().unwrap_or_else(|| {
            p.detail
                .strip_suffix(&seen)
                .unwrap_or(&p.detail)
                .to_string()
        })
    };
    let ((last_ref, last), others) = tried.split_last()?;
    let why = if others.is_empty() {
        said(last)
    } else {
        let extras: Vec<String> = others
            .iter()
            .map(|(r, p)| format!("[{r}: {}]", said(p)))
            .collect();
        format!(
            "(Mirrors also failed: {}): {last_ref}: {}",
            extras.join("\n"),
            said(last)
        )
    };
    let name = Reference::parse(&c.reference)
        .map(|r| r.familiar_string())
        .unwrap_or_else(|_| c.reference.clone());
    Some(format!("initializing source docker://{name}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::{ResolvedBy, Source};
    use crate::registries::lookup::Role;

    const IMAGE: &str = "registry.example.com/apps/web@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e";

    /// A candidate for IMAGE whose sources answered `answers` in pull order
    /// (mirrors `m1.example.com`, `m2.example.com`..., then the source).
    fn candidate(answers: &[(Role, Outcome)]) -> Candidate {
        let mut mirrors = 0;
        let sources = answers
            .iter()
            .map(|(role, outcome)| {
                let reference = match role {
                    Role::Mirror => {
                        mirrors += 1;
                        IMAGE.replace("registry.example.com", &format!("m{mirrors}.example.com"))
                    }
                    Role::Source => IMAGE.to_string(),
                };
                Source {
                    reference,
                    role: *role,
                    insecure: false,
                    blocked: false,
                    blocked_by: None,
                    origins: Vec::new(),
                    probe: Some(SourceProbe::not_contacted(*outcome, "")),
                }
            })
            .collect();
        Candidate {
            reference: IMAGE.to_string(),
            by_digest: true,
            resolved_by: ResolvedBy::Qualified,
            registry: None,
            sources,
            skipped: Vec::new(),
            fix: None,
            allowed: true,
            signature: None,
            error: None,
            namespace_policies: Vec::new(),
            served_by: Some(None),
            undetermined: None,
            crio_error: None,
            signature_probe: None,
        }
    }

    /// Issue 36: the fix of a pull no source serves names what the first
    /// source that fails needs, or the mirror to copy the image to.
    #[test]
    fn issue_36_the_fix_of_a_missing_image() {
        use Outcome::*;
        use Role::{Mirror, Source};
        for (answers, want) in [
            (
                &[(Mirror, NotFound), (Source, NotFound)][..],
                "copy the image to the mirror CRI-O tries first (oc-mirror, or `skopeo copy --all --preserve-digests docker://registry.example.com/apps/web@sha256:",
            ),
            (
                &[(Mirror, Unauthorized), (Mirror, NotFound), (Source, Unreachable)],
                "copy the image to the first mirror that answered not found (oc-mirror, or `skopeo copy --all --preserve-digests docker://registry.example.com/apps/web@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e docker://m2.example.com/",
            ),
            (
                &[(Mirror, Unauthorized), (Source, NotFound)],
                "give the cluster's pull secret (openshift-config/pull-secret) credentials m1.example.com accepts",
            ),
            (
                &[(Mirror, TlsError), (Source, NotFound)],
                "trust m1.example.com's CA: a ConfigMap in openshift-config",
            ),
            (
                &[(Mirror, Unreachable), (Source, Unreachable)],
                "make m1.example.com reachable from the nodes",
            ),
            (
                &[(Source, NotFound)],
                "push the image to registry.example.com/apps/web@sha256:",
            ),
        ] {
            let got = fix(&Verdict::Missing, &candidate(answers)).unwrap();
            assert!(got.starts_with(want), "{answers:?}: {got}");
        }
        // A TLS error is one of trust; `insecureRegistries` is named only
        // for a registry that answered HTTPS in plain HTTP.
        let tls = fix(
            &Verdict::Missing,
            &candidate(&[(Role::Mirror, Outcome::TlsError)]),
        )
        .unwrap();
        assert!(!tls.contains("insecureRegistries"), "{tls}");
        let mut plain = candidate(&[(Role::Mirror, Outcome::TlsError)]);
        if let Some(p) = plain.sources[0].probe.as_mut() {
            p.plain_http = true;
        }
        assert_eq!(
            fix(&Verdict::Missing, &plain).unwrap(),
            "list m1.example.com in the Image config's spec.registrySources.insecureRegistries (oc edit image.config.openshift.io cluster), or serve TLS there"
        );
        let served = candidate(&[(Role::Source, Outcome::Served)]);
        assert_eq!(fix(&Verdict::Served(IMAGE.to_string()), &served), None);
        assert_eq!(
            crio_words(&Verdict::DigestMismatch(IMAGE.to_string()), &served).as_deref(),
            Some("Manifest does not match provided manifest digest sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e")
        );
    }

    /// The one copy destination: the first mirror, in CRI-O's order, that
    /// answered "not found"; blocked endpoints and the source are never it,
    /// and a mirror that failed otherwise is passed over and named.
    #[test]
    fn the_copy_goes_to_the_first_mirror_that_answered_not_found() {
        use Outcome::*;
        use Role::{Mirror, Source};
        type Answers<'a> = &'a [(&'a str, Role, Outcome)];
        let cases: &[(Answers, Option<&str>, Option<&str>)] = &[
            (&[("m1.io/a", Mirror, NotFound), ("m2.io/a", Mirror, NotFound)], Some("m1.io/a"), None),
            (&[("m1.io/a", Mirror, Blocked), ("m2.io/a", Mirror, NotFound)], Some("m2.io/a"), None),
            (
                &[("m1.io/a", Mirror, Unauthorized), ("m2.io/a", Mirror, NotFound), ("q.io/a", Source, NotFound)],
                Some("m2.io/a"),
                Some("CRI-O goes past m1.io (refused the credentials) to this mirror: a copy there would not be pulled before that is fixed"),
            ),
            (
                &[("m1.io/a", Mirror, TlsError), ("m2.io/a", Mirror, Unreachable), ("m3.io/a", Mirror, NotFound)],
                Some("m3.io/a"),
                Some("CRI-O goes past m1.io (TLS failed), m2.io (not reached) to this mirror: a copy there would not be pulled before that is fixed"),
            ),
            (&[("m1.io/a", Mirror, Unauthorized), ("q.io/a", Source, NotFound)], None, None),
            (&[("q.io/a", Source, NotFound)], None, None),
        ];
        for (answers, mirror, why) in cases {
            let got = copy_target(answers.iter().copied());
            assert_eq!(got.as_ref().map(|t| t.mirror), *mirror, "{answers:?}");
            assert_eq!(
                got.as_ref().and_then(passed_over).as_deref(),
                *why,
                "{answers:?}"
            );
        }
    }

    /// The copy lines of a next step say where they go as one image's fix
    /// does, naming each mirror passed over (once) and its puller.
    #[test]
    fn the_copies_of_a_step_go_where_one_images_fix_says() {
        use Outcome::*;
        use Role::Mirror;
        let past = |m1: &'static str, o| CopyTarget {
            mirror: "m2.io/a",
            passed_over: vec![(m1, o)],
        };
        let first = CopyTarget {
            mirror: "m1.io/a",
            passed_over: Vec::new(),
        };
        let cases: Vec<(Vec<(&str, CopyTarget)>, &str)> = vec![
            (vec![("CRI-O", first.clone())], "the mirror CRI-O tries first"),
            (
                vec![("operator-controller", first.clone()), ("CRI-O", first.clone())],
                "the mirror its puller (operator-controller or CRI-O) tries first",
            ),
            (
                vec![
                    ("CRI-O", first.clone()),
                    ("CRI-O", past("m1.io/a", Unauthorized)),
                    ("CRI-O", past("m1.io/a", Unauthorized)),
                ],
                "the first mirror that answered not found; CRI-O goes past m1.io (refused the credentials) to m2.io: a copy there would not be pulled before that is fixed",
            ),
            (
                vec![
                    ("operator-controller", past("m1.io/a", TlsError)),
                    ("CRI-O", past("m1.io/a", TlsError)),
                ],
                "the first mirror that answered not found; operator-controller goes past m1.io (TLS failed) to m2.io: a copy there would not be pulled before that is fixed; CRI-O goes past m1.io (TLS failed) to m2.io: a copy there would not be pulled before that is fixed",
            ),
        ];
        for (copies, want) in cases {
            assert_eq!(copies_go_to(&copies), want, "{copies:?}");
        }
        // One image's fix and a step's words agree on where the copy goes.
        let c = candidate(&[(Mirror, Unauthorized), (Mirror, NotFound)]);
        let one = fix(&Verdict::Missing, &c).unwrap();
        assert!(
            one.starts_with("copy the image to the first mirror that answered not found"),
            "{one}"
        );
    }

    /// A copy of an image pinned by digest preserves it; a copy by tag (a
    /// `.sig` attachment) has no digest to keep.
    #[test]
    fn skopeo_copy_preserves_the_digest_it_is_pinned_to() {
        for (from, to, want) in [
            (
                "quay.io/a/b@sha256:00",
                "m.io/a/b@sha256:00",
                "skopeo copy --all --preserve-digests docker://quay.io/a/b@sha256:00 docker://m.io/a/b@sha256:00",
            ),
            (
                "quay.io/a/b:sha256-00.sig",
                "m.io/a/b:sha256-00.sig",
                "skopeo copy --all docker://quay.io/a/b:sha256-00.sig docker://m.io/a/b:sha256-00.sig",
            ),
            (
                "quay.io/a/b:v1",
                "m.io/a/b:v1",
                "skopeo copy --all docker://quay.io/a/b:v1 docker://m.io/a/b:v1",
            ),
        ] {
            assert_eq!(skopeo_copy(from, to), want, "{from}");
        }
    }
}
