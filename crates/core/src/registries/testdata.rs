//! The registries.conf files of containers/image's own tests, as text, so
//! the ported test cases run against the same configurations.
//!
//! Each constant names the upstream file it reproduces: under
//! `pkg/sysregistriesv2/testdata/` unless it says `pkg/shortnames/testdata/`.

use super::{load, ConfigFile, RegistriesConf, RegistriesError};

/// Loads `main` and `drop_ins`, each a `(name, text)` pair.
pub(super) fn load_files(
    main: (&str, &str),
    drop_ins: &[(&str, &str)],
) -> Result<RegistriesConf, RegistriesError> {
    let main = ConfigFile {
        name: main.0,
        text: main.1,
    };
    let drop_ins: Vec<ConfigFile<'_>> = drop_ins
        .iter()
        .map(|&(name, text)| ConfigFile { name, text })
        .collect();
    load(Some(&main), &drop_ins)
}

/// Every file above, for tests that run over all of them.
pub(super) const ALL: &[&str] = &[
    FIND_REGISTRY,
    DROP_IN_CONFIG_1,
    DROP_IN_CONFIG_2,
    DROP_IN_CONFIG_3,
    SUBDOMAIN_OVERRIDE_1,
    SUBDOMAIN_OVERRIDE_2,
    SUBDOMAIN_OVERRIDE_3,
    BASE_FOR_REGISTRIES_D,
    BLOCKED_CONFLICTS,
    INSECURE_CONFLICTS,
    MISSING_MIRROR_LOCATION,
    INVALID_PREFIX,
    INVALID_SEARCH,
    INVALID_SHORT_NAME_MODE,
    INVALID_CONFIG_LEVEL_MIRROR,
    INVALID_CONFLICT_MIRROR,
    INVALID_VALUE_MIRROR,
    INVALID_ALIASES,
    MIRRORS,
    INVALIDATE_CACHE,
    UNQUALIFIED_SEARCH,
    V1_COMPATIBILITY,
    V1_INVALID_BLOCK,
    V1_INVALID_INSECURE,
    V1_INVALID_SEARCH,
    MIXING_V1_V2,
    MIXING_V1_V2_EMPTY,
    PULL_SOURCES_FROM_REFERENCE,
    CRED_HELPER,
    EMPTY_HELPERS_DROP_IN,
    NO_USR_DROP_IN,
    EMPTY_USR_DROP_IN,
    ALIASES,
    TRY_UPDATE_CACHE_VALID,
    TRY_UPDATE_CACHE_INVALID,
    SHORTNAMES_CONFIG_1,
    SHORTNAMES_CONFIG_2,
    NO_REG,
    ONE_REG,
    TWO_REG,
];

/// `registries.conf.d/`: the `*.conf` files in lexical order (`config-3.ignore` is not read).
pub(super) const REGISTRIES_CONF_D: &[(&str, &str)] = &[
    ("registries.conf.d/config-1.conf", DROP_IN_CONFIG_1),
    ("registries.conf.d/config-2.conf", DROP_IN_CONFIG_2),
    ("registries.conf.d/config-3.conf", DROP_IN_CONFIG_3),
    (
        "registries.conf.d/subdomain-override-1.conf",
        SUBDOMAIN_OVERRIDE_1,
    ),
    (
        "registries.conf.d/subdomain-override-2.conf",
        SUBDOMAIN_OVERRIDE_2,
    ),
    (
        "registries.conf.d/subdomain-override-3.conf",
        SUBDOMAIN_OVERRIDE_3,
    ),
];

/// `pkg/shortnames/testdata/registries.conf.d/`, in lexical order.
pub(super) const SHORTNAMES_CONF_D: &[(&str, &str)] = &[
    ("registries.conf.d/config-1.conf", SHORTNAMES_CONFIG_1),
    ("registries.conf.d/config-2.conf", SHORTNAMES_CONFIG_2),
    ("registries.conf.d/config-3.conf", ""),
];

/// `find-registry.conf`.
pub(super) const FIND_REGISTRY: &str = r#"[[registry]]
location = "registry.com:5000"
prefix = "simple-prefix.com"

[[registry]]
location = "another-registry.com:5000"
prefix = "complex-prefix.com:4000/with/path"

[[registry]]
location = "registry.com:5000"
prefix = "another-registry.com"

[[registry]]
location = "no-prefix.com"

[[registry]]
location = "empty-prefix.com"
prefix = ""

[[registry]]
location = "subdomain-prefix.com"
prefix = "*.so.simple-prefix.com"

[[registry]]
location = "subdomain-prefix-2.com"
prefix = "*.simple-prefix.com"

# For subdomain override using dropin registries.conf.d/subdomain-override-1.conf
[[registry]]
location = "subdomain-prefix-1.com"
prefix = "*.not.quite.simple-prefix.com"

# For subdomain override failure using registries.conf.d/subdomain-override-2.conf
# with unmatched prefix = "*.example.com"
[[registry]]
location = "subdomain-prefix-2.com"
prefix = "*.docker.io"

# For subdomain override using dropin registries.conf.d/subdomain-override-3.conf
[[registry]]
location = "subdomain-prefix-3.com"
prefix = "*.bar.example.com"

# For longest wildcarded prefix match in comparison with "*.docker.io"
[[registry]]
location = "subdomain-prefix-4.com"
prefix = "*.bar.docker.io"

# For longest prefix match in comparison with *.bar.example.com
[[registry]]
location = "subdomain-prefix-5.com"
prefix = "foo.bar.example.com:5000"

# For empty location with wildcard prefix
[[registry]]
prefix="*.internal.registry.com"

[[registry]]
prefix="*.com"

[[registry]]
prefix="*.foobar.io"
"#;

/// `registries.conf.d/config-1.conf`.
pub(super) const DROP_IN_CONFIG_1: &str = r#"unqualified-search-registries = ["example-overwrite.com"]
credential-helpers = ["we", "will", "be", "overridden", "later"]

[[registry]]
location = "1.com"

[aliases]
docker="docker.io/library/config1"
config1="config1.com/image"
barz="barz.com/image/config1"
"#;

/// `registries.conf.d/config-2.conf`.
pub(super) const DROP_IN_CONFIG_2: &str = r#"short-name-mode="permissive"

credential-helpers=["dropin-1", "dropin-2"]

[[registry]]
location = "1.com"

[[registry]]
location = "2.com"

[[registry]]
location = "base.com"
blocked = true

[aliases]
config2="config2.com/image"
barz="barz.com/config2"
added3="xxx.com/image"
example=""
"#;

/// `registries.conf.d/config-3.conf`.
pub(super) const DROP_IN_CONFIG_3: &str = r#""#;

/// `registries.conf.d/subdomain-override-1.conf`.
pub(super) const SUBDOMAIN_OVERRIDE_1: &str = r#"[[registry]]
location = "subdomain-prefix-1-overridden-by-dropin-location.com"
prefix = "*.not.quite.simple-prefix.com"
"#;

/// `registries.conf.d/subdomain-override-2.conf`.
pub(super) const SUBDOMAIN_OVERRIDE_2: &str = r#"[[registry]]
location = "subdomain-prefix-2-overridden-by-dropin-location.com"
prefix = "*.docker.com"
"#;

/// `registries.conf.d/subdomain-override-3.conf`.
pub(super) const SUBDOMAIN_OVERRIDE_3: &str = r#"[[registry]]
location = "subdomain-prefix-3-overridden-by-dropin-location.com"
prefix = "*.bar.example.com"
"#;

/// `base-for-registries.d.conf`.
pub(super) const BASE_FOR_REGISTRIES_D: &str = r#"unqualified-search-registries = ["example.com"]

[[registry]]
location = "base.com"
insecure = true"#;

/// `blocked-conflicts.conf`.
pub(super) const BLOCKED_CONFLICTS: &str = r#"[[registry]]
location = "registry.com"

[[registry.mirror]]
location = "mirror-1.registry.com"

[[registry.mirror]]
location = "mirror-2.registry.com"


[[registry]]
location = "registry.com"
blocked = true
"#;

/// `insecure-conflicts.conf`.
pub(super) const INSECURE_CONFLICTS: &str = r#"[[registry]]
location = "registry.com"

[[registry.mirror]]
location = "mirror-1.registry.com"

[[registry.mirror]]
location = "mirror-2.registry.com"


[[registry]]
location = "registry.com"
insecure = true
"#;

/// `missing-mirror-location.conf`.
pub(super) const MISSING_MIRROR_LOCATION: &str = r#"unqualified-search-registries = ["registry-a.com"]

[[registry]]
location = "registry-a.com"

[[registry]]
location = "registry-b.com"
[[registry.mirror]]
location = "mirror-b.com"
[[registry.mirror]]
"#;

/// `invalid-prefix.conf`.
pub(super) const INVALID_PREFIX: &str = r#"[[registry]]
location = "registry.com:5000"
prefix = "http://schema-is-invalid.com"

[[registry]]
location = "another-registry.com:5000"
prefix = "complex-prefix.com:4000/with/path"

[[registry]]
location = "registry.com:5000"
prefix = "another-registry.com"

[[registry]]
location = "no-prefix.com"

[[registry]]
location = "empty-prefix.com"
prefix = ""
"#;

/// `invalid-search.conf`.
pub(super) const INVALID_SEARCH: &str = r#"unqualified-search-registries = ["registry-a.com/namespace-is-forbidden"]
"#;

/// `invalid-short-name-mode.conf`.
pub(super) const INVALID_SHORT_NAME_MODE: &str = r#"short-name-mode="invalid"
"#;

/// `invalid-config-level-mirror.conf`.
pub(super) const INVALID_CONFIG_LEVEL_MIRROR: &str = r#"[[registry]]
prefix = "registry-a.com/foo"
location = "registry-a.com/bar"
pull-from-mirror = "digest-only"

[[registry.mirror]]
location = "mirror-1.registry-a.com"

[[registry.mirror]]
location = "mirror-2.registry-a.com"
insecure = true"#;

/// `invalid-conflict-mirror.conf`.
pub(super) const INVALID_CONFLICT_MIRROR: &str = r#"[[registry]]
prefix = "registry-a.com/foo"
location = "registry-a.com/bar"
mirror-by-digest-only = true

[[registry.mirror]]
pull-from-mirror = "digest-only"
location = "mirror-1.registry-a.com"

[[registry.mirror]]
location = "mirror-2.registry-a.com"
insecure = true"#;

/// `invalid-value-mirror.conf`.
pub(super) const INVALID_VALUE_MIRROR: &str = r#"[[registry]]
prefix = "registry-a.com/foo"
location = "registry-a.com/bar"

[[registry.mirror]]
pull-from-mirror = "notvalid"
location = "mirror-1.registry-a.com"

[[registry.mirror]]
location = "mirror-2.registry-a.com"
insecure = true"#;

/// `invalid-aliases.conf`.
pub(super) const INVALID_ALIASES: &str = r#"[aliases]
image1="quay.io/repo/image:1"
image2="image:1"
"#;

/// `mirrors.conf`.
pub(super) const MIRRORS: &str = r#"[[registry]]
location = "registry.com"

[[registry.mirror]]
location = "mirror-1.registry.com"

[[registry.mirror]]
location = "mirror-2.registry.com"
insecure = true

[[registry]]
location = "blocked.registry.com"
blocked = true
"#;

/// `invalidate-cache.conf` and `unmarshal.conf`.
pub(super) const INVALIDATE_CACHE: &str = r#"[[registry]]
location = "registry.com"

[[registry.mirror]]
location = "mirror-1.registry.com"

[[registry.mirror]]
location = "mirror-2.registry.com"


[[registry]]
location = "blocked.registry.com"
blocked = true


[[registry]]
location = "insecure.registry.com"
insecure = true


[[registry]]
location = "untrusted.registry.com"
insecure = true
"#;

/// `unqualified-search.conf`.
pub(super) const UNQUALIFIED_SEARCH: &str = r#"unqualified-search-registries = ["registry-a.com", "registry-c.com", "registry-d.com"]

[[registry]]
location = "registry-a.com"

[[registry]]
location = "registry-b.com"

[[registry]]
location = "registry-c.com"

[[registry]]
location = "registry-d.com"
"#;

/// `v1-compatibility.conf`.
pub(super) const V1_COMPATIBILITY: &str = r#"[registries.search]
registries = ["registry-a.com////", "registry-c.com", "registry-d.com"]

[registries.block]
registries = ["registry-b.com"]

[registries.insecure]
registries = ["registry-b.com////", "registry-d.com", "registry-e.com", "registry-a.com"]
"#;

/// `v1-invalid-block.conf`.
pub(super) const V1_INVALID_BLOCK: &str = r#"[registries.search]
registries = ["registry-a.com////", "registry-c.com", "registry-d.com", "http://schema-is-invalid.com"]

[registries.block]
registries = ["registry-b.com", "http://schema-is-invalid.com"]

[registries.insecure]
registries = ["registry-b.com////", "registry-d.com", "registry-e.com", "registry-a.com"]
"#;

/// `v1-invalid-insecure.conf`.
pub(super) const V1_INVALID_INSECURE: &str = r#"[registries.search]
registries = ["registry-a.com////", "registry-c.com", "registry-d.com"]

[registries.block]
registries = ["registry-b.com"]

[registries.insecure]
registries = ["registry-b.com////", "registry-d.com", "registry-e.com", "registry-a.com", "http://schema-is-invalid.com"]
"#;

/// `v1-invalid-search.conf`.
pub(super) const V1_INVALID_SEARCH: &str = r#"[registries.search]
registries = ["registry-a.com////", "registry-c.com", "registry-d.com", "http://schema-is-invalid.com"]

[registries.block]
registries = ["registry-b.com"]

[registries.insecure]
registries = ["registry-b.com////", "registry-d.com", "registry-e.com", "registry-a.com"]
"#;

/// `mixing-v1-v2.conf`.
pub(super) const MIXING_V1_V2: &str = r#"unqualified-search-registries = ["registry-a.com", "registry-c.com"]

[registries.search]
registries = ["registry-a.com", "registry-c.com"]

[registries.block]
registries = ["registry-b.com"]

[registries.insecure]
registries = ["registry-d.com", "registry-e.com", "registry-a.com"]

[[registry]]
location = "registry-a.com"

[[registry]]
location = "registry-b.com"

[[registry]]
location = "registry-c.com""#;

/// `mixing-v1-v2-empty.conf`.
pub(super) const MIXING_V1_V2_EMPTY: &str = r#"unqualified-search-registries = []

[registries.search]
registries = []

[registries.block]
registries = []

[registries.insecure]
registries = []
"#;

/// `pull-sources-from-reference.conf`.
pub(super) const PULL_SOURCES_FROM_REFERENCE: &str = r#"[[registry]]
prefix = "registry-a.com/foo"
location = "registry-a.com/bar"

[[registry.mirror]]
location = "mirror-1.registry-a.com"

[[registry.mirror]]
location = "mirror-2.registry-a.com"
insecure = true

[[registry]]
prefix = "registry-b.com/foo"
location = "registry-b.com/bar"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror-1.registry-b.com"

[[registry.mirror]]
location = "mirror-2.registry-b.com"

[[registry]]
prefix = "registry-a.com/baz"
location = "registry-a.com/bar"

[[registry.mirror]]
location = "mirror-1.registry-a.com"

[[registry.mirror]]
location = "mirror-2.registry-a.com"
insecure = true

[[registry]]
prefix = "registry-b.com/baz"
location = "registry-b.com/bar"

[[registry.mirror]]
pull-from-mirror = "digest-only"
location = "mirror-1.registry-b.com"

[[registry.mirror]]
pull-from-mirror = "digest-only"
location = "mirror-2.registry-b.com"

[[registry]]
prefix = "registry-c.com/baz"
location = "registry-c.com/bar"

[[registry.mirror]]
location = "mirror-1.registry-c.com"

[[registry.mirror]]
pull-from-mirror = "digest-only"
location = "mirror-2.registry-c.com"

[[registry]]
prefix = "registry-d.com/baz"
location = "registry-d.com/bar"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror-1.registry-d.com"

[[registry.mirror]]
location = "mirror-2.registry-d.com"

[[registry]]
prefix = "registry-e.com/baz"
location = "registry-e.com/bar"

[[registry.mirror]]
pull-from-mirror = "tag-only"
location = "mirror-1.registry-e.com"

[[registry.mirror]]
pull-from-mirror = "tag-only"
location = "mirror-2.registry-e.com"

[[registry]]
prefix = "registry-f.com/baz"
location = "registry-f.com/bar"

[[registry.mirror]]
location = "mirror-1.registry-f.com"

[[registry.mirror]]
pull-from-mirror = "tag-only"
location = "mirror-2.registry-f.com"

[[registry]]
prefix = "registry-g.com/baz"
location = "registry-g.com/bar"

[[registry.mirror]]
pull-from-mirror = "digest-only"
location = "mirror-1.registry-g.com"

[[registry.mirror]]
pull-from-mirror = "tag-only"
location = "mirror-2.registry-g.com"

[[registry.mirror]]
location = "mirror-3.registry-g.com"

[[registry.mirror]]
pull-from-mirror = "all"
location = "mirror-4.registry-g.com"
"#;

/// `cred-helper.conf`.
pub(super) const CRED_HELPER: &str = r#"credential-helpers = ["helper-1", "helper-2"]
[[registry]]
location = "registry-a.com"

[[registry]]
location = "registry-b.com"

[[registry]]
location = "registry-c.com/foo"
prefix = "registry-c.com"
"#;

/// `registries.conf.d-empty-helpers/empty.conf`.
pub(super) const EMPTY_HELPERS_DROP_IN: &str = r#"credential-helpers=[]
"#;

/// `registries.conf.d-usr1/no-usr.conf`.
pub(super) const NO_USR_DROP_IN: &str = r#"# unqualified-search-registries is not set
"#;

/// `registries.conf.d-usr2/empty-usr.conf`.
pub(super) const EMPTY_USR_DROP_IN: &str = r#"unqualified-search-registries = []
"#;

/// `aliases.conf` and `pkg/shortnames/testdata/aliases.conf`.
pub(super) const ALIASES: &str = r#"short-name-mode="enforcing"

[aliases]
docker="docker.io/library/foo"
"quay/foo"="quay.io/library/foo"
example="example.com/library/foo"
empty=""
"#;

/// `try-update-cache-valid.conf`.
pub(super) const TRY_UPDATE_CACHE_VALID: &str = r#"[[registry]]
location = "registry.com"
"#;

/// `try-update-cache-invalid.conf`.
pub(super) const TRY_UPDATE_CACHE_INVALID: &str = r#"invalid
"#;

/// `pkg/shortnames/testdata/registries.conf.d/config-1.conf`.
pub(super) const SHORTNAMES_CONFIG_1: &str = r#"unqualified-search-registries = ["example-overwrite.com"]

[[registry]]
location = "1.com"

[aliases]
docker="docker.io/library/config1"
config1="config1.com/image"
barz="barz.com/image/config1"
"#;

/// `pkg/shortnames/testdata/registries.conf.d/config-2.conf`.
pub(super) const SHORTNAMES_CONFIG_2: &str = r#"short-name-mode="permissive"

[[registry]]
location = "2.com"

[[registry]]
location = "base.com"
blocked = true

[aliases]
config2="config2.com/image"
barz="barz.com/config2"
added3="xxx.com/image"
example=""
"#;

/// `pkg/shortnames/testdata/no-reg.conf`.
pub(super) const NO_REG: &str = r#"[aliases]
"repo/image"="quay.io/repo/image"
"#;

/// `pkg/shortnames/testdata/one-reg.conf`.
pub(super) const ONE_REG: &str = r#"unqualified-search-registries=["quay.io"]

[aliases]
"repo/image"="quay.io/repo/image"
"#;

/// `pkg/shortnames/testdata/two-reg.conf`.
pub(super) const TWO_REG: &str = r#"unqualified-search-registries=["quay.io", "registry.com"]

[aliases]
"repo/image"="quay.io/repo/image"
"#;
