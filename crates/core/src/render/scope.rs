//! The scope grammar the MCO and runtime-utils share: which strings are
//! valid mirror-set sources, mirrors and registries.conf scopes, and when
//! one scope lies inside another. Every other render module builds on it;
//! it imports none of them.

use crate::objects;

/// Whether `s` matches the mirror-set `source` pattern (the CRD's, which
/// the MCO applies to ICSP sources too).
pub fn is_valid_source(s: &str) -> bool {
    objects::is_valid_source(s)
}

/// Whether `s` matches the mirror-set `mirrors[]` pattern (the CRD's).
pub fn is_valid_mirror(s: &str) -> bool {
    objects::is_valid_mirror(s)
}

/// The MCO's `IsValidRegistriesConfScope`.
pub fn is_valid_registries_conf_scope(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    if !s.contains('*') {
        return true;
    }
    s.strip_prefix("*.")
        .is_some_and(|rest| !rest.contains(['/', '@', ':', '*']))
}

/// runtime-utils `ScopeIsNestedInsideScope`: whether `sub` is `sup` or below it.
pub fn scope_is_nested_inside_scope(sub: &str, sup: &str) -> bool {
    if sub == sup {
        return true;
    }
    if sub.len() > sup.len() && sub.starts_with(sup) && sub.as_bytes()[sup.len()] == b'/' {
        return true;
    }
    if sup.starts_with("*.") {
        let domain = &sup[1..]; // ".example.com"
        if let Some((host, _)) = sub.split_once(':') {
            return host.ends_with(domain) && !host.contains('/');
        }
        let host = sub.split('/').next().unwrap_or(sub);
        return host.ends_with(domain);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// runtime-utils registries_test.go `TestScopeIsNestedInsideScope`.
    #[test]
    fn scope_nesting_upstream_cases() {
        for (sub, sup, want) in [
            ("quay.io", "example.com", false),
            ("quay.io", "quay.io", true),
            ("quay.io:443", "quay.io", false),
            ("quay.io:443", "quay.io:444", false),
            ("quay.io.example.com", "quay.io", false),
            ("quay.io2", "quay.io", false),
            ("quay.io/ns1", "quay.io", true),
            ("quay.io/ns1/ns2/ns3", "quay.io", true),
            ("quay.io/ns1/ns2/ns3", "not-quay.io", false),
            ("bar/example.foo", "*.foo", false),
            ("example/bar.foo/quay.io", "*.foo", false),
            ("example/bar.foo:400", "*.foo", false),
            ("foo.example.com", "*.example.com", true),
            ("*.foo.example.com", "*.example.com", true),
            ("foo.example.com/bar", "*.example.com", true),
            ("foo.registry.com", "*.example.com", false),
            ("foo.example.com", "**.example.com", false),
            ("foo.example.com", "example.*.com", false),
            ("foo.example.com", "*.example.com/foo/bar", false),
            ("foo.example.com:443/bar/baz", "*.example.com", true),
            (
                "foo.example.com:443/bar/baz",
                "*.example.com/bar/baz",
                false,
            ),
            ("foo.example.com", "*example.com", false),
            ("foo.example.com", "*/example.com", false),
        ] {
            assert_eq!(
                scope_is_nested_inside_scope(sub, sup),
                want,
                "{sub} in {sup}"
            );
        }
    }

    /// runtime-utils registries_test.go `TestIsValidRegistriesConfScope`.
    #[test]
    fn registries_conf_scope_validity_upstream_cases() {
        for (s, ok) in [
            ("example.com", true),
            ("*.example.com", true),
            ("**.example.com", false),
            ("example.*.com", false),
            ("*.example.com/foo/bar", false),
            ("*.example.com:foo", false),
            ("*.example.com/foo:sha@bar", false),
            ("*.example.com.*.bar.com", false),
            ("*example.com", false),
            ("*/example.com", false),
            ("*.*example.com", false),
            ("", false),
        ] {
            assert_eq!(is_valid_registries_conf_scope(s), ok, "{s}");
        }
    }
}
