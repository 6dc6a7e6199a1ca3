//! The unit tests of `output::render` in the binary's library.

use kubectl_mirrorpolicy::output::render::*;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::render::machineconfig::NodeFile;
use mirrorpolicy::render::pool::render_pool;
use mirrorpolicy::render::pool::Rendered;
use std::io::{self, Write};

fn rendered() -> Rendered {
    let mut inputs = Inputs::default();
    mirrorpolicy::source::parse_documents(
        "idms.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: apps}\nspec:\n  imageDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors: [mirror.example.com/apps]\n",
        &mut inputs,
    )
    .unwrap();
    render_pool(&inputs, "worker").unwrap()
}

fn text(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn files_are_headed_and_separated() {
    let files = [
        NodeFile {
            path: "/etc/a".to_string(),
            contents: "one\n".to_string(),
        },
        NodeFile {
            path: "/etc/b".to_string(),
            contents: "two".to_string(),
        },
    ];
    assert_eq!(
        text(|out| write_files(out, &files)),
        "==> /etc/a <==\none\n\n==> /etc/b <==\ntwo\n"
    );
    assert_eq!(text(|out| write_files(out, &[])), "");
}

#[test]
fn json_carries_the_files_and_the_machine_config() {
    let rendered = rendered();
    let value: serde_json::Value =
        serde_json::from_str(&text(|out| write_json(out, &rendered, "infra"))).unwrap();
    assert_eq!(value["pool"], "infra");
    assert_eq!(value["generatedPool"], "worker");
    assert_eq!(value["files"][0]["path"], "/etc/containers/registries.conf");
    let contents = value["files"][0]["contents"].as_str().unwrap();
    assert!(contents.contains("mirror.example.com/apps"), "{contents}");
    assert_eq!(
        value["machineConfig"]["metadata"]["name"],
        "99-worker-generated-registries"
    );
    assert!(value["warnings"].is_array());
}

#[test]
fn machine_config_is_yaml() {
    let yaml = text(|out| write_machine_config(out, &rendered()));
    assert!(
        yaml.starts_with("apiVersion: machineconfiguration.openshift.io/v1\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains("name: 99-worker-generated-registries\n"),
        "{yaml}"
    );
}
