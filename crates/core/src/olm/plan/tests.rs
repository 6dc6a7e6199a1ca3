use super::*;
use crate::olm::catalog::read_file;
use crate::olm::resolve::Version;

/// Channel stable: a (0.1.0) <- b (0.2.0) <- c (0.3.0), c's skipRange
/// covering a and b: from a, OLM goes straight to c.
fn catalog() -> Catalog {
    let mut text = "schema: olm.package\nname: etcd\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: etcd\nname: stable\nentries:\n- {name: a}\n- {name: b, replaces: a}\n- {name: c, replaces: b, skipRange: '>=0.1.0 <0.3.0'}\n".to_string();
    for (name, version) in [("a", "0.1.0"), ("b", "0.2.0"), ("c", "0.3.0")] {
        text.push_str(&format!(
            "---\nschema: olm.bundle\nname: {name}\npackage: etcd\nimage: q.io/etcd/bundle:{version}\nproperties:\n- type: olm.package\n  value: {{packageName: etcd, version: {version}}}\n"
        ));
    }
    Catalog::assemble([read_file("c.yaml", &text, &|p| p == "etcd").unwrap()])
}

fn sub(installed: &str, current: Option<&str>, plan: Option<&str>) -> Subscription {
    Subscription {
        namespace: "ops".into(),
        name: "etcd".into(),
        package: "etcd".into(),
        channel: Some("stable".into()),
        source: "cat".into(),
        source_namespace: "olm".into(),
        starting_csv: None,
        approval: "Manual".into(),
        installed_csv: Some(installed.into()),
        current_csv: current.map(str::to_string),
        state: Some("UpgradePending".into()),
        install_plan: plan.map(str::to_string),
    }
}

fn plan(csvs: &[&str], phase: &str, approved: bool) -> InstallPlan {
    InstallPlan {
        namespace: "ops".into(),
        name: "install-x".into(),
        csv_names: csvs.iter().map(|c| c.to_string()).collect(),
        approval: "Manual".into(),
        approved,
        phase: phase.into(),
    }
}

fn req(installed: &str) -> Request<'_> {
    Request {
        subscription: "etcd",
        catalog: "olm/cat",
        package: "etcd",
        channel: Some("stable"),
        installed: Some((installed, Some(Version::parse("0.1.0").unwrap()))),
        starting_csv: None,
        to: None,
        max_hops: 50,
    }
}

#[test]
fn pending_csv_is_the_current_csv_of_a_plan_not_run_to_its_end() {
    let cat = catalog();
    let cases = [
        (
            "current CSV listed",
            sub("a", Some("b"), Some("install-x")),
            plan(&["dep.v1", "b"], "RequiresApproval", false),
            Some("b"),
        ),
        (
            "no current CSV: the plan's CSV of the package",
            sub("a", None, Some("install-x")),
            plan(&["dep.v1", "c"], "Installing", true),
            Some("c"),
        ),
        (
            "complete",
            sub("a", Some("b"), Some("install-x")),
            plan(&["b"], "Complete", true),
            None,
        ),
        (
            "failed",
            sub("a", Some("b"), Some("install-x")),
            plan(&["b"], "Failed", true),
            None,
        ),
        (
            "another plan",
            sub("a", Some("b"), Some("install-y")),
            plan(&["b"], "RequiresApproval", false),
            None,
        ),
        (
            "the installed CSV",
            sub("b", Some("b"), Some("install-x")),
            plan(&["b"], "Installing", true),
            None,
        ),
    ];
    for (case, s, p, want) in cases {
        assert_eq!(pending_csv(&s, &p, &cat).as_deref(), want, "{case}");
    }
}

#[test]
fn the_plan_is_hop_one_and_a_disagreement_is_said() {
    let cat = catalog();
    let computed = resolve::update_path(&cat, &req("a")).unwrap();
    let first = computed.hops[0].to.clone();
    assert_eq!(first, "c");
    let p = plan(&[first.as_str()], "RequiresApproval", false);
    let (path, check) = update_path(&cat, &req("a"), &p, &first);
    let path = path.unwrap();
    assert_eq!(path.hops[0].edge, Edge::InstallPlan);
    assert_eq!(path.hops.len(), computed.hops.len());
    assert!(check.agrees && check.computed.is_none(), "{check:?}");
    assert!(
        check
            .message
            .contains("(RequiresApproval, Manual, not approved)"),
        "{}",
        check.message
    );
    // A plan made before c was in the catalog: hop 1 to b, then b -> c.
    let other = "b";
    let p = plan(&[other], "RequiresApproval", true);
    let (path, check) = update_path(&cat, &req("a"), &p, other);
    let path = path.unwrap();
    let hops: Vec<(&str, Edge)> = path.hops.iter().map(|h| (h.to.as_str(), h.edge)).collect();
    assert_eq!(hops, [("b", Edge::InstallPlan), ("c", Edge::Replaces)]);
    assert!(!check.agrees);
    assert_eq!(check.computed.as_deref(), Some(first.as_str()));
    assert!(
        check.message.contains(&format!(
            "goes to {first} first: OLM follows the InstallPlan"
        )),
        "{}",
        check.message
    );
}

#[test]
fn a_catalog_without_the_package_stops_whatever_the_plan() {
    let cat = catalog();
    let mut r = req("a");
    r.package = "other";
    let (path, check) = update_path(&cat, &r, &plan(&["x"], "RequiresApproval", false), "x");
    assert_eq!(path.unwrap_err().reason(), "packageNotFound");
    assert!(!check.agrees);
}

/// catalog/operator.go `nothingToUpdate` and `ensureSubscriptionCSVState`,
/// fail_forward.go `IsFailForwardEnabled`: a failed plan whose CSV was not
/// created stops the Subscription; a plan of another name, another phase,
/// a created CSV or fail-forward (with exactly one OperatorGroup) do not.
#[test]
fn a_failed_plan_stops_the_subscription() {
    use crate::olm::objects::OperatorGroup;
    let group = |strategy: &str| {
        OperatorGroup::from_value(&serde_json::json!({
            "metadata": {"name": "og", "namespace": "ops"},
            "spec": {"upgradeStrategy": {"name": strategy}}
        }))
    };
    let failed = plan(&["b"], "Failed", false);
    let s = sub("a", Some("b"), Some("install-x"));
    let (stop, step) = failed_plan(&s, &failed, false, None).unwrap();
    assert_eq!(stop.reason(), "installPlanFailed");
    assert_eq!(step.commands[1], "oc delete installplan install-x -n ops");
    let ff = [group(FAIL_FORWARD)];
    let default = [group("Default")];
    let two = [group(FAIL_FORWARD), group(FAIL_FORWARD)];
    for (case, sub, plan, created, groups, stops) in [
        (
            "default strategy",
            &s,
            &failed,
            false,
            Some(&default[..]),
            true,
        ),
        ("fail forward", &s, &failed, false, Some(&ff[..]), false),
        (
            "two groups: not fail forward",
            &s,
            &failed,
            false,
            Some(&two[..]),
            true,
        ),
        ("CSV created", &s, &failed, true, None, false),
        (
            "another plan",
            &sub("a", Some("b"), Some("other")),
            &failed,
            false,
            None,
            false,
        ),
        (
            "no current CSV",
            &sub("a", None, Some("install-x")),
            &failed,
            false,
            None,
            false,
        ),
        (
            "complete",
            &s,
            &plan(&["b"], "Complete", false),
            false,
            None,
            false,
        ),
        (
            "installing",
            &s,
            &plan(&["b"], "Installing", true),
            false,
            None,
            false,
        ),
    ] {
        assert_eq!(
            failed_plan(sub, plan, created, groups).is_some(),
            stops,
            "{case}"
        );
    }
}
