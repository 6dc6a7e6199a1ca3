//! One Subscription or OLM v1 ClusterExtension to check, as the stages
//! of the pipeline pass it on: the skeleton of its verdict, the catalogs it
//! reads and the configurations its images are pulled with.

use mirrorpolicy::olm::catalog::{Catalog, Provider};
use mirrorpolicy::olm::check::PullSecretNote;
use mirrorpolicy::olm::objects::{CatalogSource, InstallPlan, OperatorGroup, Subscription};
use mirrorpolicy::olm::placement::Placement;
use mirrorpolicy::olm::resolve::Stop;
use mirrorpolicy::olm::v1::{ClusterCatalog, ClusterExtension};
use mirrorpolicy::upgrade::NextStep;

use super::views::ViewKey;

/// One Subscription (or OLM v1 ClusterExtension) to check: the skeleton
/// of its verdict, and the catalog it reads.
pub(super) struct Wanted {
    pub sub: Subscription,
    pub catalog: Result<(Option<String>, String), (Option<String>, String)>,
    pub installed_version: Option<String>,
    /// The InstallPlan its status names, when it was read.
    pub plan: Option<InstallPlan>,
    /// The operators installed in its namespace, which satisfy its
    /// bundles' requirements before any bundle of the catalog.
    pub installed: Vec<Provider>,
    /// The pool whose nodes run its catalog's registry pod.
    pub pool: Placement,
    /// The configuration its catalog image is explained with (set once
    /// the pools are rendered).
    pub catalog_view: ViewKey,
    /// Its CatalogSource's `spec.secrets`.
    pub secrets: Vec<String>,
    /// What the output says of each (set once they are read).
    pub secret_notes: Vec<PullSecretNote>,
    /// The pool whose configuration its bundle images are pulled with:
    /// the workers (OLM's unpack Job), or for OLM v1 the control plane
    /// (operator-controller).
    pub bundle_pool: String,
    /// The namespace its operator's pods run in (whose own image policy
    /// their images follow).
    pub operator_namespace: String,
    /// An OLM v1 ClusterExtension, and the ClusterCatalogs it resolves over.
    pub v1: Option<V1>,
    /// Its CatalogSource, when it was read.
    pub source: Option<CatalogSource>,
    /// The other CatalogSources its namespace's resolution sees (of its
    /// namespace and the global one), which a dependency its own catalog
    /// lacks may come from, and each of which must be listable: those of
    /// the files read; `None` live, where both namespaces' are listed for
    /// every Subscription.
    pub visible: Option<Vec<CatalogSource>>,
    /// Why OLM resolves nothing in its namespace (a CatalogSource it
    /// resolves over cannot be listed), and the fix.
    pub prevented: Option<(Stop, NextStep)>,
    /// The OperatorGroups of its namespace (`None`: not read).
    pub operator_groups: Option<Vec<OperatorGroup>>,
    /// Why OLM cannot read the properties of CSVs of its namespace, each
    /// an error of the namespace's virtual catalog of installed operators.
    pub unreadable: Vec<String>,
    /// The error the resolver meets first in its namespace's installed
    /// CSVs: a package requirement whose range does not parse.
    pub installed_error: Option<String>,
}

/// A catalog a Subscription's dependencies may come from besides its own:
/// its CatalogSource's `namespace/name`, and what was read of it (`None`:
/// the Subscription's own catalog, in its place in the resolver's order).
pub(super) type Other = (String, Option<Catalog>);

/// A catalog read: its image, the configuration it is explained with and
/// the pull secrets (`namespace/name`) looked up first.
pub(super) type CatalogKey = (String, ViewKey, Vec<String>);

impl Wanted {
    /// The key of its catalog image `image`.
    pub fn catalog_key(&self, image: &str) -> CatalogKey {
        let ns = &self.sub.source_namespace;
        let secrets = self.secrets.iter().map(|s| format!("{ns}/{s}")).collect();
        (image.to_string(), self.catalog_view.clone(), secrets)
    }
}

/// A ClusterExtension and the ClusterCatalogs its selector picks (or why
/// operator-controller cannot pick any).
pub(super) struct V1 {
    pub ext: ClusterExtension,
    pub catalogs: Result<Vec<ClusterCatalog>, Stop>,
}

impl V1 {
    /// The catalog images to read.
    pub fn images(&self) -> impl Iterator<Item = &str> {
        self.catalogs
            .iter()
            .flatten()
            .filter_map(|c| c.image.as_deref())
    }
}
