//! Generates registries.conf files at the scale oc-mirror produces: many
//! `[[registry]]` entries with digest-only mirrors, as the MCO renders
//! them from ImageDigestMirrorSets, plus some tag mirrors and wildcards.
//!
//! Shared by the benchmarks and the generator examples; each uses only part of it.
#![allow(dead_code)]

use std::fmt::Write;

/// A registries.conf with `n` `[[registry]]` entries.
///
/// Entry `i` is `source.example.com/team{i / 100}/app{i}`: every third entry
/// has a second mirror, every tenth is tag-mirrored (`pull-from-mirror`),
/// and every fiftieth blocks its source.
pub fn registries_conf(n: usize) -> String {
    let mut s = String::with_capacity(n * 200);
    s.push_str("unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"\"\n");
    for i in 0..n {
        let team = i / 100;
        let _ = write!(
            s,
            "\n[[registry]]\n  prefix = \"\"\n  location = \"source.example.com/team{team}/app{i}\"\n"
        );
        let tag_mirrored = i % 10 == 0;
        if !tag_mirrored {
            s.push_str("  mirror-by-digest-only = true\n");
        }
        if i % 50 == 0 {
            s.push_str("  blocked = true\n");
        }
        let _ = write!(
            s,
            "\n  [[registry.mirror]]\n    location = \"mirror.example.net:5000/team{team}/app{i}\"\n"
        );
        if tag_mirrored {
            s.push_str("    pull-from-mirror = \"tag-only\"\n");
        }
        if i % 3 == 0 {
            let _ = write!(
                s,
                "\n  [[registry.mirror]]\n    location = \"backup.example.org/team{team}/app{i}\"\n"
            );
            if tag_mirrored {
                s.push_str("    pull-from-mirror = \"tag-only\"\n");
            }
        }
    }
    s
}

/// A reference that matches the last generated entry, by digest.
pub fn last_reference(n: usize) -> String {
    let i = n.saturating_sub(1);
    format!(
        "source.example.com/team{}/app{i}/image@sha256:{}",
        i / 100,
        "0123456789abcdef".repeat(4)
    )
}

/// ImageDigestMirrorSets at oc-mirror scale: `n` sources spread over
/// objects of `per_object` sources each, as multi-document YAML. Every
/// tenth object also gets a matching ImageTagMirrorSet entry, and an
/// `Image/cluster` blocks one registry and marks one insecure.
pub fn mirror_sets_yaml(n: usize, per_object: usize) -> String {
    let mut s = String::with_capacity(n * 160);
    s.push_str("apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    blockedRegistries:\n    - untrusted.example.com\n    insecureRegistries:\n    - registry.lab.example.com:5000\n");
    let objects = n.div_ceil(per_object.max(1));
    for o in 0..objects {
        let _ = write!(
            s,
            "---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: idms-{o}\nspec:\n  imageDigestMirrors:\n"
        );
        for i in (o * per_object)..((o + 1) * per_object).min(n) {
            let team = i / 100;
            let _ = write!(
                s,
                "  - source: source.example.com/team{team}/app{i}\n    mirrors:\n    - mirror.example.net:5000/team{team}/app{i}\n"
            );
            if i % 3 == 0 {
                let _ = writeln!(s, "    - backup.example.org/team{team}/app{i}");
            }
        }
    }
    s
}
