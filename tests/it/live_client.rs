//! The library's cluster client (`source::api`) against the fake API
//! server: reads, server-side apply with and without dry run, delete, and
//! the failures a write can meet. The fake's request log proves what was
//! written.

use crate::support;

use mirrorpolicy::source::api::{
    self as live, ClusterError, ClusterOptions, Connection, Preconditions, Reply,
    IMAGE_CONTENT_SOURCE_POLICIES, IMAGE_DIGEST_MIRROR_SETS, MIRROR_CONFIG,
};
use serde_json::json;
use support::apiserver::{Builder, Change, FakeApiServer, Fault};

fn connect(
    server: &FakeApiServer,
    dir: &tempfile::TempDir,
) -> (tokio::runtime::Runtime, Connection) {
    let kubeconfig = server.write_kubeconfig(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let options = ClusterOptions {
        kubeconfig: Some(kubeconfig),
        page_size: live::DEFAULT_PAGE_SIZE,
        ..ClusterOptions::default()
    };
    let connection = runtime.block_on(live::connect(&options)).unwrap();
    (runtime, connection)
}

fn idms(name: &str, mirror: &str) -> serde_json::Value {
    json!({
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImageDigestMirrorSet",
        "metadata": {"name": name, "labels": {"team": "platform"}},
        "spec": {"imageDigestMirrors": [{"source": "quay.io/x", "mirrors": [mirror]}]},
    })
}

#[test]
fn connection_reports_the_context() {
    let server = Builder::openshift().start();
    let dir = tempfile::tempdir().unwrap();
    let (_rt, connection) = connect(&server, &dir);
    assert_eq!(connection.server, server.url());
    assert_eq!(connection.default_namespace, "default");
}

#[test]
fn dry_run_apply_writes_nothing_and_apply_does() {
    let server = Builder::openshift().start();
    let dir = tempfile::tempdir().unwrap();
    let (rt, connection) = connect(&server, &dir);
    let object = idms("quay-x", "mirror.example.com/x");

    let reply = rt
        .block_on(connection.apply(&IMAGE_DIGEST_MIRROR_SETS, &object, "mirrorpolicy", true))
        .unwrap();
    let Reply::Ok(text) = reply else {
        panic!("dry run: {reply:?}")
    };
    assert!(text.contains("mirror.example.com/x"));
    assert!(server.names("imagedigestmirrorsets").is_empty());
    let log = server.log();
    assert_eq!(log.len(), 1);
    assert!(log[0].dry_run() && !log[0].writes(), "{log:?}");
    assert_eq!(
        log[0].query.get("fieldManager").map(String::as_str),
        Some("mirrorpolicy")
    );

    rt.block_on(connection.apply(&IMAGE_DIGEST_MIRROR_SETS, &object, "mirrorpolicy", false))
        .unwrap();
    assert_eq!(server.names("imagedigestmirrorsets"), ["quay-x"]);
    let stored = rt
        .block_on(connection.get(&IMAGE_DIGEST_MIRROR_SETS, "quay-x"))
        .unwrap()
        .expect("stored");
    assert_eq!(stored["spec"], object["spec"]);
    assert_eq!(stored["metadata"]["labels"]["team"], "platform");
    assert!(stored["metadata"]["resourceVersion"].is_string());

    // The read path sees it too, typed.
    let read = rt
        .block_on(live::read(&connection, MIRROR_CONFIG, None))
        .unwrap();
    assert_eq!(read.inputs.idmss.len(), 1);
    assert_eq!(read.inputs.idmss[0].metadata.name, "quay-x");
}

#[test]
fn delete_honours_dry_run_and_reports_absence() {
    let server = Builder::openshift()
        .objects_from_yaml(
            "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: old\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n",
        )
        .start();
    let dir = tempfile::tempdir().unwrap();
    let (rt, connection) = connect(&server, &dir);
    let reply = rt
        .block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "old", None, true))
        .unwrap();
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    assert_eq!(server.names("imagecontentsourcepolicies"), ["old"]);
    rt.block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "old", None, false))
        .unwrap();
    assert!(server.names("imagecontentsourcepolicies").is_empty());
    let again = rt
        .block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "old", None, false))
        .unwrap();
    assert!(matches!(again, Reply::NotFound), "{again:?}");
    assert!(rt
        .block_on(connection.get(&IMAGE_CONTENT_SOURCE_POLICIES, "old"))
        .unwrap()
        .is_none());
}

#[test]
fn write_failures() {
    let server = Builder::openshift()
        .forbid("delete", "imagecontentsourcepolicies")
        .fault(
            Some(hyper::Method::PATCH),
            "/imagedigestmirrorsets/conflicted",
            0,
            None,
            Fault::Status(409),
        )
        .fault(
            Some(hyper::Method::PATCH),
            "/imagedigestmirrorsets/broken",
            0,
            Some(1),
            Fault::Reset,
        )
        .start();
    let dir = tempfile::tempdir().unwrap();
    let (rt, connection) = connect(&server, &dir);
    let conflict = rt
        .block_on(connection.apply(
            &IMAGE_DIGEST_MIRROR_SETS,
            &idms("conflicted", "m.example.com/x"),
            "mirrorpolicy",
            false,
        ))
        .unwrap();
    assert!(matches!(conflict, Reply::Conflict(_)), "{conflict:?}");
    let reset = rt.block_on(connection.apply(
        &IMAGE_DIGEST_MIRROR_SETS,
        &idms("broken", "m.example.com/x"),
        "mirrorpolicy",
        false,
    ));
    // A failed write says what was being written, not "reading".
    match &reset {
        Err(e @ ClusterError::Write { action, .. }) => {
            assert_eq!(action, "applying ImageDigestMirrorSet/broken");
            let text = e.to_string();
            assert!(
                text.starts_with("applying ImageDigestMirrorSet/broken on https://127.0.0.1:"),
                "{text}"
            );
            assert!(
                text.contains("(PATCH /apis/config.openshift.io/v1/imagedigestmirrorsets/broken?fieldManager=mirrorpolicy)"),
                "{text}"
            );
            assert!(!text.contains("reading"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // The fault fired once: a retry goes through.
    rt.block_on(connection.apply(
        &IMAGE_DIGEST_MIRROR_SETS,
        &idms("broken", "m.example.com/x"),
        "mirrorpolicy",
        false,
    ))
    .unwrap();
    assert_eq!(server.names("imagedigestmirrorsets"), ["broken"]);
    let denied = rt.block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "any", None, false));
    match denied {
        Err(ClusterError::Forbidden(list)) => {
            assert_eq!(list[0].verb, "delete");
            assert!(list[0].to_string().contains("verbs: [\"delete\"]"));
        }
        other => panic!("{other:?}"),
    }
}

const OLD_ICSP: &str = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: old\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n";

/// A delete with preconditions carries them in a `DeleteOptions` body and
/// deletes only the version they name; another version is a 409 Conflict
/// (the fake answers as the API server's storage does) and stays.
#[test]
fn issue_12_delete_with_preconditions_deletes_only_that_version() {
    let server = Builder::openshift().objects_from_yaml(OLD_ICSP).start();
    let dir = tempfile::tempdir().unwrap();
    let (rt, connection) = connect(&server, &dir);
    let read = rt
        .block_on(connection.get(&IMAGE_CONTENT_SOURCE_POLICIES, "old"))
        .unwrap()
        .unwrap();
    let proven = Preconditions {
        uid: read["metadata"]["uid"].as_str().unwrap().to_string(),
        resource_version: read["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string(),
    };
    // Someone edits it: the resourceVersion moves on.
    server.change(&Change::merge_patch(
        "imagecontentsourcepolicies",
        "old",
        json!({"spec": {"repositoryDigestMirrors": [{"source": "quay.io/y", "mirrors": ["m.example.com/y"]}]}}),
    ));
    for dry_run in [true, false] {
        let reply = rt
            .block_on(connection.delete(
                &IMAGE_CONTENT_SOURCE_POLICIES,
                "old",
                Some(&proven),
                dry_run,
            ))
            .unwrap();
        let Reply::Conflict(message) = reply else {
            panic!("{reply:?}")
        };
        assert!(
            message.starts_with("Operation cannot be fulfilled on imagecontentsourcepolicies.operator.openshift.io \"old\": ")
                && message.contains(&format!(
                    "Precondition failed: ResourceVersion in precondition: {}, ResourceVersion in object meta: ",
                    proven.resource_version
                )),
            "{message}"
        );
    }
    assert_eq!(server.names("imagecontentsourcepolicies"), ["old"]);
    let deletes: Vec<_> = server
        .log()
        .into_iter()
        .filter(|l| l.method == "DELETE")
        .collect();
    assert_eq!(deletes.len(), 2);
    for d in &deletes {
        assert_eq!(d.status, 409);
        assert_eq!(d.json()["kind"], "DeleteOptions");
        assert_eq!(d.json()["preconditions"]["uid"], proven.uid.as_str());
        assert_eq!(
            d.json()["preconditions"]["resourceVersion"],
            proven.resource_version.as_str()
        );
    }
    // Recreated with the same content: the uid differs.
    let current = rt
        .block_on(connection.get(&IMAGE_CONTENT_SOURCE_POLICIES, "old"))
        .unwrap()
        .unwrap();
    let current = Preconditions {
        uid: current["metadata"]["uid"].as_str().unwrap().to_string(),
        resource_version: current["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string(),
    };
    server.change(&Change::recreate("imagecontentsourcepolicies", "old"));
    let reply = rt
        .block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "old", Some(&current), false))
        .unwrap();
    let Reply::Conflict(message) = reply else {
        panic!("{reply:?}")
    };
    assert!(
        message.contains(&format!(
            "Precondition failed: UID in precondition: {}",
            current.uid
        )),
        "{message}"
    );
    // The version as it is now is deleted.
    let now = rt
        .block_on(connection.get(&IMAGE_CONTENT_SOURCE_POLICIES, "old"))
        .unwrap()
        .unwrap();
    let now = Preconditions {
        uid: now["metadata"]["uid"].as_str().unwrap().to_string(),
        resource_version: now["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string(),
    };
    let reply = rt
        .block_on(connection.delete(&IMAGE_CONTENT_SOURCE_POLICIES, "old", Some(&now), false))
        .unwrap();
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    assert!(server.names("imagecontentsourcepolicies").is_empty());
}
