//! A pending InstallPlan decides a Subscription's first hop.
//!
//! OLM resolves a Subscription, writes the InstallPlan that installs the
//! chosen CSV, and points the Subscription at it (`status.installPlanRef`,
//! `status.currentCSV`, `status.state: UpgradePending`: the catalog
//! operator's `setIPReference`). While that plan has not run to its end
//! (`Complete` or `Failed`), OLM does not resolve the Subscription again
//! (`nothingToUpdate`): a Manual plan waiting for `spec.approved: true`
//! installs its CSV whatever the catalog says today. So the plan's CSV is
//! hop 1, and the catalog's path goes on from there; when the catalog would
//! have taken another first hop, the check says so.
//!
//! Left to the caller: reading the plan, and the images of the hops.

use serde::Serialize;

use super::catalog::Catalog;
use super::objects::{InstallPlan, OperatorGroup, Subscription, FAIL_FORWARD};
use super::resolve::{self, Edge, Hop, Request, Stop, UpdatePath};
use crate::upgrade::NextStep;

/// The pending InstallPlan of a Subscription, as the check reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanCheck {
    pub name: String,
    /// `status.phase`: `Planning`, `RequiresApproval` or `Installing`.
    pub phase: String,
    /// `spec.approval`: `Automatic` or `Manual`.
    pub approval: String,
    /// `spec.approved`: a Manual plan waits until it is true.
    pub approved: bool,
    /// The CSV it installs: hop 1.
    #[serde(rename = "csv")]
    pub csv: String,
    /// The first hop the catalog's update path would take from the
    /// installed CSV, when it is another CSV than the plan's (or the
    /// catalog has no path: its reason).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computed: Option<String>,
    /// Whether the catalog's first hop is the plan's CSV.
    pub agrees: bool,
    pub message: String,
}

/// The CSV a pending `plan` installs for `sub`: its `status.currentCSV`
/// when the plan lists it (the plan holds the Subscription's current CSV),
/// else the plan's one CSV of the package in `catalog`. `None` when the plan
/// is not the one the Subscription names, has run to its end, or installs
/// the CSV already installed.
pub fn pending_csv(sub: &Subscription, plan: &InstallPlan, catalog: &Catalog) -> Option<String> {
    if sub.install_plan.as_deref() != Some(plan.name.as_str()) || !plan.is_pending() {
        return None;
    }
    let listed = |csv: &String| plan.csv_names.contains(csv);
    let csv = sub.current_csv.clone().filter(listed).or_else(|| {
        let package = catalog.packages.get(&sub.package)?;
        plan.csv_names
            .iter()
            .find(|c| package.bundles.contains_key(*c))
            .cloned()
    })?;
    (sub.installed_csv.as_deref() != Some(csv.as_str())).then_some(csv)
}

/// The update path for `req` whose first hop is the pending plan's `csv`,
/// and what the check says of the plan. The path goes on from `csv` as
/// the resolver walks it; the resolver's first hop from the installed CSV
/// is compared with the plan's.
pub fn update_path(
    catalog: &Catalog,
    req: &Request<'_>,
    plan: &InstallPlan,
    csv: &str,
) -> (Result<UpdatePath, Stop>, PlanCheck) {
    let computed = resolve::update_path(catalog, req);
    let first = match &computed {
        Ok(p) => p.hops.first().map(|h| h.to.clone()),
        Err(stop) => Some(format!("{}: {}", stop.reason(), stop.message())),
    };
    let agrees = first.as_deref() == Some(csv);
    let installed = req.installed.as_ref().map_or("nothing", |i| i.0);
    let state = format!(
        "InstallPlan {} ({}, {}{}) installs {csv}",
        plan.name,
        if plan.phase.is_empty() {
            "no phase yet"
        } else {
            &plan.phase
        },
        plan.approval,
        if plan.approval == "Manual" && !plan.approved {
            ", not approved"
        } else {
            ""
        }
    );
    let message = match (&computed, agrees) {
        (_, true) => format!("{state}: hop 1, as the catalog's update path"),
        (Ok(_), false) => format!(
            "{state}, while the catalog's update path from {installed} goes to {} first: OLM follows the InstallPlan",
            first.as_deref().unwrap_or("nowhere")
        ),
        (Err(stop), false) => format!(
            "{state}, while the catalog has no update path from {installed} ({}): OLM follows the InstallPlan",
            stop.reason()
        ),
    };
    let check = PlanCheck {
        name: plan.name.clone(),
        phase: plan.phase.clone(),
        approval: plan.approval.clone(),
        approved: plan.approved,
        csv: csv.to_string(),
        computed: (!agrees).then_some(first).flatten(),
        agrees,
        message,
    };
    (from_plan(catalog, req, csv, computed), check)
}

/// The path whose first hop is `csv`, then the resolver's from there.
fn from_plan(
    catalog: &Catalog,
    req: &Request<'_>,
    csv: &str,
    computed: Result<UpdatePath, Stop>,
) -> Result<UpdatePath, Stop> {
    // A catalog without the package or channel stops OLM whatever the plan.
    if let Err(stop @ (Stop::PackageNotFound(_) | Stop::ChannelNotFound(_))) = computed {
        return Err(stop);
    }
    let hop = Hop {
        from: req.installed.as_ref().map(|i| i.0.to_string()),
        to: csv.to_string(),
        edge: Edge::InstallPlan,
    };
    let version = catalog
        .packages
        .get(req.package)
        .and_then(|p| resolve::version_of(p, csv));
    let rest = Request {
        installed: Some((csv, version)),
        starting_csv: None,
        max_hops: req.max_hops.saturating_sub(1),
        ..req.clone()
    };
    let mut path = resolve::update_path(catalog, &rest)?;
    path.hops.insert(0, hop);
    Ok(path)
}

/// A Subscription OLM leaves where it is: its InstallPlan `plan` failed and
/// the CSV it was to install (`status.currentCSV`) was never created, so
/// the catalog operator keeps it `UpgradePending` on that plan
/// (`ensureSubscriptionCSVState`) and skips it at every resolution
/// (`nothingToUpdate`: an InstallPlan referenced and `UpgradePending`),
/// whatever the catalog offers today. `created` says whether a CSV of
/// that name exists in the namespace. With the namespace's one
/// OperatorGroup's `upgradeStrategy` [`FAIL_FORWARD`] the state becomes
/// `Failed` and OLM resolves again: no stop. Deleting the plan clears the
/// reference of an `UpgradePending` Subscription (`InstallPlanNotFound` in
/// `subscription/state.go`), after which OLM resolves it again.
pub fn failed_plan(
    sub: &Subscription,
    plan: &InstallPlan,
    created: bool,
    groups: Option<&[OperatorGroup]>,
) -> Option<(Stop, NextStep)> {
    let current = sub.current_csv.as_deref()?;
    let fail_forward = matches!(groups, Some([one]) if one.fail_forward);
    if sub.install_plan.as_deref() != Some(plan.name.as_str())
        || plan.phase != "Failed"
        || created
        || fail_forward
    {
        return None;
    }
    let message = format!(
        "InstallPlan {}/{} failed before it created CSV {current}: OLM does not resolve Subscription {} again while it points at that plan, whatever the catalog offers",
        plan.namespace, plan.name, sub.name
    );
    let step = NextStep {
        outcome: "installPlanFailed".into(),
        step: format!(
            "read why the plan failed (its status.conditions and the bundle unpack Job's events: often an image not mirrored), mend that, then delete the InstallPlan: OLM clears the Subscription's reference and resolves it again; or set spec.upgradeStrategy.name: {FAIL_FORWARD} in the namespace's OperatorGroup, so that OLM resolves past a failed plan"
        ),
        commands: vec![
            format!(
                "oc get installplan {} -n {} -o jsonpath='{{.status.conditions}}'",
                plan.name, plan.namespace
            ),
            format!("oc delete installplan {} -n {}", plan.name, plan.namespace),
        ],
    };
    Some((Stop::InstallPlanFailed(message), step))
}

#[cfg(test)]
mod tests;
