//! What the Machine Config Daemon does on a node when a rendered config
//! changes managed files: the default node-disruption policy of
//! openshift/machine-config-operator (pkg/apihelpers) and the drain rule for
//! registries.conf (pkg/daemon/drain.go `isSafeContainerRegistryConfChanges`).
//!
//! - registries.conf: reload CRI-O ("Special"); drain first unless the
//!   change is safe (only digest-only mirrors or registries added, search
//!   registries only appended, nothing removed, no flag changed).
//! - policy.json, registries.d/, /etc/crio/policies/: reload CRI-O.
//! - Any other path (the search-registries drop-in among them): drain and
//!   reboot.
//!
//! The daemon decodes both registries.conf texts into containers/image's
//! `V2RegistriesConf` with BurntSushi/toml (keys matched exactly or
//! case-insensitively, unknown keys ignored): they are read here through the
//! registries module's one model of that reader,
//! [`RegistriesFile`](crate::registries::RegistriesFile).

use std::collections::BTreeMap;

use crate::registries::{MirrorTable, RegistriesFile, RegistryTable};

/// What the daemon does, least disruptive first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Nothing changes on the node.
    None,
    /// `systemctl reload crio`, no drain.
    ReloadCrio,
    /// Drain the node, then reload CRI-O (no reboot).
    DrainReloadCrio,
    /// Drain and reboot.
    DrainReboot,
}

impl Action {
    /// A sentence for the text output.
    pub fn describe(self) -> &'static str {
        match self {
            Action::None => "nothing",
            Action::ReloadCrio => "reload CRI-O without draining",
            Action::DrainReloadCrio => "drain the node, then reload CRI-O",
            Action::DrainReboot => "drain and reboot the node",
        }
    }
}

/// Why the daemon's registries.conf decision cannot be told from the texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// The daemon's `toml.Decode` refuses one of the files: it returns the
    /// error and the update fails.
    Refused(String),
    /// What the daemon reads from one of the files is not known (the TOML
    /// its BurntSushi/toml reads, or two keys of one table that select one
    /// field, decoded in Go map order).
    Undetermined(String),
}

/// The daemon's action for a set of changed files, with the reasons.
/// `registries` holds the old and new registries.conf when it changed.
pub fn action_for(changed: &[String], registries: Option<(&str, &str)>) -> (Action, Vec<String>) {
    let mut action = Action::None;
    let mut reasons = Vec::new();
    for path in changed {
        let this = if path == "/etc/containers/registries.conf" {
            match registries.map(|(old, new)| unsafe_registries_change(old, new)) {
                Some(Ok(None)) | None => {
                    reasons.push(format!(
                        "{path}: only digest-only mirrors or registries added: reload CRI-O"
                    ));
                    Action::ReloadCrio
                }
                Some(Ok(Some(why))) => {
                    reasons.push(format!("{path}: {why}: drain first"));
                    Action::DrainReloadCrio
                }
                Some(Err(Unreadable::Refused(why))) => {
                    reasons.push(format!("{path}: {why}: the daemon fails on it"));
                    Action::DrainReloadCrio
                }
                Some(Err(Unreadable::Undetermined(why))) => {
                    reasons.push(format!(
                        "{path}: {why}: whether the daemon drains first is undetermined"
                    ));
                    Action::DrainReloadCrio
                }
            }
        } else if path == "/etc/containers/policy.json"
            || path.starts_with("/etc/containers/registries.d/")
            || path.starts_with("/etc/crio/policies/")
        {
            reasons.push(format!("{path}: reload CRI-O"));
            Action::ReloadCrio
        } else {
            reasons.push(format!(
                "{path}: no node-disruption policy for this path: drain and reboot"
            ));
            Action::DrainReboot
        };
        action = action.max(this);
    }
    (action, reasons)
}

const DIGEST_ONLY: &str = "digest-only";

/// The `[[registry]]` tables by scope; a later table of one scope replaces
/// an earlier one, as in the daemon's Go map.
fn by_scope(conf: &RegistriesFile) -> BTreeMap<&str, RegistryTable<'_>> {
    conf.registries().map(|r| (r.scope(), r)).collect()
}

fn all_digest_only(r: &RegistryTable<'_>) -> bool {
    if r.mirrors().next().is_none() {
        return r.mirror_by_digest_only();
    }
    r.mirrors().all(|m| m.pull_from_mirror() == DIGEST_ONLY)
}

/// The first mirror of `r` at `location` (upstream `searchRegistryMirror`).
fn mirror<'a>(r: &RegistryTable<'a>, location: &str) -> Option<MirrorTable<'a>> {
    r.mirrors().find(|m| m.location() == location)
}

/// Reads one side as the daemon does: containers/image's
/// `V2RegistriesConf` through BurntSushi/toml, the node's own reading.
fn read(side: &str, text: &str) -> Result<RegistriesFile, Unreadable> {
    RegistriesFile::read("/etc/containers/registries.conf", text).map_err(|e| {
        let at = match e.context.as_str() {
            "" => e.message.clone(),
            context => format!("{context}: {}", e.message),
        };
        match e.undetermined {
            Some(_) => Unreadable::Undetermined(format!(
                "what the daemon reads from the {side} file is undetermined ({at})"
            )),
            None => Unreadable::Refused(format!("the {side} file does not load ({at})")),
        }
    })
}

/// Why a registries.conf change needs a drain, or `None` when it is safe:
/// `isSafeContainerRegistryConfChanges`, rule for rule.
pub fn unsafe_registries_change(old: &str, new: &str) -> Result<Option<String>, Unreadable> {
    let (old, new) = (read("current", old)?, read("next", new)?);
    let (old_search, new_search) = (
        old.unqualified_search_registries(),
        new.unqualified_search_registries(),
    );
    if old_search.len() > new_search.len() {
        return Ok(Some(
            "an unqualified-search-registries entry was removed".into(),
        ));
    }
    if old_search.iter().zip(new_search).any(|(a, b)| a != b) {
        return Ok(Some("unqualified-search-registries were reordered".into()));
    }
    let (olds, news) = (by_scope(&old), by_scope(&new));
    if let Some(gone) = olds.keys().find(|k| !news.contains_key(*k)) {
        return Ok(Some(format!("registry {gone} was removed")));
    }
    for (scope, n) in &news {
        let Some(o) = olds.get(scope) else {
            if !all_digest_only(n) {
                return Ok(Some(format!(
                    "registry {scope} was added with mirrors that are not digest-only"
                )));
            }
            continue;
        };
        if o == n {
            continue;
        }
        if o.prefix() != n.prefix() {
            return Ok(Some(format!("the prefix of registry {scope} changed")));
        }
        if o.location() != n.location() {
            return Ok(Some(format!("the location of registry {scope} changed")));
        }
        if o.blocked() != n.blocked() {
            return Ok(Some(format!("blocked of registry {scope} changed")));
        }
        if o.insecure() != n.insecure() {
            return Ok(Some(format!("insecure of registry {scope} changed")));
        }
        if let Some(m) = o.mirrors().find(|m| mirror(n, m.location()).is_none()) {
            return Ok(Some(format!(
                "mirror {} of registry {scope} was removed",
                m.location()
            )));
        }
        for m in n.mirrors() {
            let pull = m.pull_from_mirror();
            match mirror(o, m.location()) {
                Some(before) if pull != before.pull_from_mirror() && pull != DIGEST_ONLY => {
                    return Ok(Some(format!(
                        "pull-from-mirror of mirror {} in registry {scope} changed from \"{}\" to \"{pull}\"",
                        m.location(),
                        before.pull_from_mirror()
                    )))
                }
                None if pull != DIGEST_ONLY && !n.mirror_by_digest_only() => {
                    return Ok(Some(format!(
                        "mirror {} was added to registry {scope} for pulls by tag",
                        m.location()
                    )))
                }
                _ => {}
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The daemon's decision: the actions of calculatePostConfigChangeAction
    /// plus isDrainRequired's registries rule.
    fn drain_required(actions: &[&str], old: &str, new: &str) -> bool {
        if actions.contains(&"reboot") {
            return true;
        }
        if actions.contains(&"reloadcrio") {
            return unsafe_registries_change(old, new).unwrap().is_some();
        }
        false
    }

    #[test]
    fn is_drain_required_matches_mco() {
        for (case, actions, old, new, want) in DRAIN_CASES {
            let got = drain_required(actions, mco_registries(old), mco_registries(new));
            assert_eq!(got, *want, "{case} ({old} -> {new})");
        }
    }

    #[test]
    fn actions_per_path() {
        let (a, _) = action_for(&["/etc/containers/policy.json".into()], None);
        assert_eq!(a, Action::ReloadCrio);
        let (a, _) = action_for(
            &[
                "/etc/crio/policies/payments.json".into(),
                "/etc/containers/registries.d/sigstore-registries.yaml".into(),
            ],
            None,
        );
        assert_eq!(a, Action::ReloadCrio);
        let (a, r) = action_for(
            &["/etc/containers/registries.conf.d/01-image-searchRegistries.conf".into()],
            None,
        );
        assert_eq!(a, Action::DrainReboot, "{r:?}");
        let old = "[[registry]]\nlocation = \"quay.io/x\"\n\n  [[registry.mirror]]\n    location = \"m1/x\"\n    pull-from-mirror = \"digest-only\"\n";
        let added = format!("{old}\n  [[registry.mirror]]\n    location = \"m2/x\"\n    pull-from-mirror = \"digest-only\"\n");
        let (a, _) = action_for(
            &["/etc/containers/registries.conf".into()],
            Some((old, &added)),
        );
        assert_eq!(a, Action::ReloadCrio);
        let (a, r) = action_for(
            &["/etc/containers/registries.conf".into()],
            Some((&added, old)),
        );
        assert_eq!(a, Action::DrainReloadCrio);
        assert!(
            r[0].contains("mirror m2/x of registry quay.io/x was removed"),
            "{r:?}"
        );
    }

    /// Issue 35: both texts are read as the daemon's BurntSushi/toml reads
    /// them, so a key's case or an unknown key decides nothing.
    #[test]
    fn issue_35_the_daemon_reads_keys_as_burntsushi_does() {
        let base = "[[registry]]\nlocation = \"quay.io/x\"\n[[registry.mirror]]\nlocation = \"m1/x\"\npull-from-mirror = \"digest-only\"\n";
        for (old, new, want) in [
            // The key's case: the same registry for the daemon.
            (base, base.replace("location", "Location"), None),
            (base, base.replace("registry", "Registry"), None),
            (base, base.replace("pull-from-mirror", "Pull-From-Mirror"), None),
            (base, base.replace("location", "LOCATION").replace("pull-from-mirror", "PULL-FROM-MIRROR"), None),
            // A digest-only mirror added under a case variant.
            (
                base,
                format!("{}[[registry.mirror]]\nLocation = \"m2/x\"\nPull-From-Mirror = \"digest-only\"\n", base.replace("location", "Location")),
                None,
            ),
            // An unknown key is ignored.
            (base, format!("{base}mirror_by_digest_only = false\n"), None),
            // A real change under a case variant still drains.
            (
                base,
                base.replace("\"quay.io/x\"\n", "\"quay.io/x\"\nBlocked = true\n"),
                Some("blocked of registry quay.io/x changed"),
            ),
        ] {
            let got = unsafe_registries_change(old, &new).unwrap();
            assert_eq!(got.as_deref(), want, "{old:?} -> {new:?}");
        }
    }

    /// Issue 35: a text the node's reader refuses, or reads undeterminably,
    /// is said so, for either side.
    #[test]
    fn issue_35_unreadable_texts_are_named() {
        let base = "[[registry]]\nlocation = \"quay.io/x\"\n";
        for (old, new, want) in [
            (
                base,
                "[[registry]]\nlocation = \"quay.io/x\"\nLocation = \"quay.io/y\"\n",
                "U:what the daemon reads from the next file is undetermined (line 1: keys ",
            ),
            // Two arrays of tables for one field are decoded over each other.
            (
                base,
                "[[registry]]\nlocation = \"quay.io/x\"\n[[registry.mirror]]\nlocation = \"m1/x\"\n[[registry.Mirror]]\nlocation = \"m2/x\"\n",
                "U:what the daemon reads from the next file is undetermined (line 1: keys ",
            ),
            (
                "[[registry]]\nlocation = \"quay.io/x\"\ninsecure = \"yes\"\n",
                base,
                "R:the current file does not load (",
            ),
            (
                base,
                "[[registry]]\nlocation = \"quay.io/\\x78\"\n",
                "U:what the daemon reads from the next file is undetermined (",
            ),
            (base, "[[registry]\n", "R:the next file does not load ("),
        ] {
            let got = match unsafe_registries_change(old, new) {
                Err(Unreadable::Refused(why)) => format!("R:{why}"),
                Err(Unreadable::Undetermined(why)) => format!("U:{why}"),
                Ok(other) => format!("{other:?}"),
            };
            assert!(got.starts_with(want), "{old:?} -> {new:?}: {got}");
        }
        let (a, r) = action_for(
            &["/etc/containers/registries.conf".into()],
            Some((base, "[[registry]]\nlocation = 1\n")),
        );
        assert_eq!(a, Action::DrainReloadCrio);
        assert!(r[0].ends_with(": the daemon fails on it"), "{r:?}");
    }

    /// The registries.conf files of openshift/machine-config-operator
    /// pkg/daemon/drain_test.go TestIsDrainRequired (`mc1` ... `mc14`).
    fn mco_registries(name: &str) -> &'static str {
        match name {
            "mc1" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
  prefix = ""
  location = "example.com/repo/test-img"

  [[registry.mirror]]
    location = "mirror.com/repo/test-img"

[[registry]]
  prefix = ""
  location = "example.com/repo1/test-img1"

  [[registry.mirror]]
    location = "mirror.com/repo1/test-img1"
	pull-from-mirror= "digest-only"				
"#
            }
            "mc2" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
	location = "mirror.com/repo/test-img"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"

[[registry.mirror]]
	location = "mirror.com/repo1/test-img1"
	pull-from-mirror = "digest-only"

[[registry.mirror]]
	location = "mirror1.com/repo1/test-img1"
	pull-from-mirror = "digest-only"
"#
            }
            "mc3" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
	prefix = ""
	location = "example.com/repo/test-img"

	[[registry.mirror]]
	location = "mirror.com/repo/test-img"
"#
            }
            "mc4" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com", "bar.com"]

[[registry]]
	prefix = ""
	location = "example.com/repo/test-img"

	[[registry.mirror]]
	location = "mirror.com/repo/test-img"
	pull-from-mirror = "digest-only"
"#
            }
            "mc5" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
	prefix = ""
	location = "example.com/repo/test-img"

	[[registry.mirror]]
	location = "mirror.com/repo/test-img"
	pull-from-mirror = "digest-only"
"#
            }
            "mc6" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
location = "mirror.com/repo/test-img"
pull-from-mirror = "digest-only"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"
"#
            }
            "mc7" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"

[[registry.mirror]]
location = "mirror.com/repo/test-img"
pull-from-mirror= "digest-only"

[[registry]]
prefix = ""
location = "example.com/repo1/test-img1"

[[registry.mirror]]
location = "mirror.com/repo1/test-img1"
"#
            }
            "mc8" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
"#
            }
            "mc9" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
blocked = true
"#
            }
            "mc10" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
"#
            }
            "mc11" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo1/test-img"

[[registry.mirror]]
location = "mirror.com/repo1/test-img"
pull-from-mirror= "digest-only"

[[registry]]
prefix = "bar.com"
location = "example.com/repo/test-img"
blocked = true
"#
            }
            "mc12" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror.com/repo/test-img"
"#
            }
            "mc13" => {
                r#"
unqualified-search-registries = ["example.com", "foo.com"]

[[registry]]
prefix = ""
location = "example.com/repo/test-img"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror.com/repo/test-img"
[[registry.mirror]]
location = "mirror.com/repo/test-img-13"
"#
            }
            other => panic!("no registries.conf {other}"),
        }
    }

    /// openshift/machine-config-operator pkg/daemon/drain_test.go
    /// TestIsDrainRequired: (case, actions, old, new, drain expected).
    const DRAIN_CASES: &[(&str, &[&str], &str, &str, bool)] = &[
        ("skip drain: only None action is present", &["none"], "mc1", "mc1", false),
        ("perform drain: reboot action is present", &["none", "reboot"], "mc1", "mc1", true),
        ("skip drain: no changes in registry config", &["reloadcrio"], "mc1", "mc1", false),
        ("skip drain: only new registry added with pull-from-mirror=digest-only", &["reloadcrio"], "mc3", "mc1", false),
        ("perform drain: only new registry added with mirror-by-digest-only set to false", &["reloadcrio"], "mc5", "mc6", true),
        ("perform drain: one or more registry has been removed", &["reloadcrio"], "mc1", "mc3", true),
        ("skip drain: only new mirrors got added to the registry with pull-from-mirror=digest-only", &["reloadcrio"], "mc1", "mc2", false),
        ("skip drain: only new mirrors are added to registry with pull-from-mirror=digest-only while existing registries with mirror-by-digest-only=false are unchanged", &["reloadcrio"], "mc9", "mc11", false),
        ("perform drain: only new mirrors got added to the registry with mirror-by-digest-only set to false for registry", &["reloadcrio"], "mc6", "mc7", true),
        ("perform drain: one or more mirror has been removed from a registry", &["reloadcrio"], "mc2", "mc1", true),
        ("perform drain: either item from unqualified-search-registries has been removed or ordering has been changed", &["reloadcrio"], "mc4", "mc3", true),
        ("skip drain: only additional unqualified-search-registries has been added", &["reloadcrio"], "mc3", "mc4", false),
        ("perform drain: prefix value of one or more registry has changed", &["reloadcrio"], "mc8", "mc10", true),
        ("perform drain: blocked value of one or more registry has changed", &["reloadcrio"], "mc8", "mc9", true),
        ("perform drain:  mirror-by-digest-only value of one or more registry has changed", &["reloadcrio"], "mc1", "mc6", true),
        ("skip drain: only new mirror added to registry with mirror-by-digest-only set to true", &["reloadcrio"], "mc12", "mc13", false),
    ];
}
