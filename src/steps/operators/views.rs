//! The configurations images are explained with: each pool's rendered
//! registries.conf and policy (the pool of a CatalogSource's registry pod,
//! the workers for the rest), and a namespace's own CRI-O policy
//! (`/etc/crio/policies/<namespace>.json`, from its ImagePolicies) for the
//! pods of that namespace: the registry pod and the bundle unpack Job in
//! the CatalogSource's, the operator in the Subscription's.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use mirrorpolicy::explain::Config;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::render::node::NodeView;
use mirrorpolicy::render::pool::Rendered;

use super::WORKER_POOL;
use crate::settings::Settings;
use crate::steps::inputs;

/// A pool, and the namespace whose own policy applies (`None`: the
/// cluster-wide policy.json).
pub(super) type ViewKey = (String, Option<String>);

/// The rendered pools and their views.
pub(super) struct Views {
    rendered: BTreeMap<String, Rendered>,
    views: BTreeMap<ViewKey, NodeView>,
}

impl Views {
    /// The views of `pools` (the workers' always), each with the own
    /// policies of `namespaces` that have one.
    pub fn build(
        settings: &Settings,
        inputs: &Inputs,
        pools: &BTreeSet<String>,
        namespaces: &BTreeSet<String>,
    ) -> Result<Views> {
        let mut rendered = BTreeMap::new();
        let mut views = BTreeMap::new();
        let others = pools.iter().filter(|p| *p != WORKER_POOL);
        for pool in std::iter::once(&WORKER_POOL.to_string()).chain(others) {
            // The workers' render says its warnings; the others' would repeat them.
            let (r, view) = if pool == WORKER_POOL {
                inputs::render_view(settings, inputs, pool, None)?
            } else {
                inputs::render_view_quietly(settings, inputs, pool)?
            };
            let own = inputs::namespace_views(inputs, &r, pool, |ns| namespaces.contains(ns))?;
            views.insert((pool.clone(), None), view);
            for (ns, v) in own {
                views.insert((pool.clone(), Some(ns)), v);
            }
            rendered.insert(pool.clone(), r);
        }
        Ok(Views { rendered, views })
    }

    /// Adds the view of `pool` (rendered quietly, when it is not yet) with
    /// the own policy of `namespace`, when it has one: the registry pod of
    /// a CatalogSource read for a dependency.
    pub fn ensure(
        &mut self,
        settings: &Settings,
        inputs: &Inputs,
        pool: &str,
        namespace: &str,
    ) -> Result<()> {
        if !self.rendered.contains_key(pool) {
            let (r, view) = inputs::render_view_quietly(settings, inputs, pool)?;
            self.views.insert((pool.to_string(), None), view);
            self.rendered.insert(pool.to_string(), r);
        }
        let key = (pool.to_string(), Some(namespace.to_string()));
        if !self.views.contains_key(&key) {
            let own =
                inputs::namespace_views(inputs, &self.rendered[pool], pool, |ns| ns == namespace)?;
            self.views.extend(
                own.into_iter()
                    .map(|(ns, v)| ((pool.to_string(), Some(ns)), v)),
            );
        }
        Ok(())
    }

    /// The key of a pod of `namespace` on a node of `pool`: its own policy
    /// when the MCO wrote one for it.
    pub fn key(&self, pool: &str, namespace: &str) -> ViewKey {
        let own = self
            .views
            .contains_key(&(pool.to_string(), Some(namespace.to_string())));
        (pool.to_string(), own.then(|| namespace.to_string()))
    }

    pub fn config(&self, key: &ViewKey) -> Config<'_> {
        Config::from(&self.views[key])
    }

    /// The workers' rendered files (their sigstore registries.d is the probe's).
    pub fn workers(&self) -> &Rendered {
        &self.rendered[WORKER_POOL]
    }
}
