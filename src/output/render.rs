//! `render`: the files of a pool as `==> path <==` sections, the generated
//! MachineConfig, or both as one JSON object.

use std::io::{self, Write};

use serde_json::json;

use mirrorpolicy::render::machineconfig::NodeFile;
use mirrorpolicy::render::pool::Rendered;

/// Each file under a `==> PATH <==` header (as `head` prints several
/// files), separated by a blank line; a file is ended by a newline.
pub fn write_files(out: &mut dyn Write, files: &[NodeFile]) -> io::Result<()> {
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "==> {} <==", f.path)?;
        out.write_all(f.contents.as_bytes())?;
        if !f.contents.ends_with('\n') {
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The generated MachineConfig, as YAML.
pub fn write_machine_config(out: &mut dyn Write, rendered: &Rendered) -> io::Result<()> {
    super::write_yaml(out, &[&rendered.machine_config()])
}

/// `{"pool", "generatedPool", "files": [{"path", "contents"}], "machineConfig", "warnings"}`:
/// `pool` is the pool asked for, `generatedPool` the one whose generated
/// MachineConfig its nodes get (`worker` for a custom pool).
pub fn write_json(out: &mut dyn Write, rendered: &Rendered, pool: &str) -> io::Result<()> {
    let files: Vec<_> = rendered
        .files
        .iter()
        .map(|f| json!({"path": f.path, "contents": f.contents}))
        .collect();
    super::write_json(
        out,
        &[json!({
            "pool": pool,
            "generatedPool": rendered.pool,
            "files": files,
            "machineConfig": rendered.machine_config(),
            "warnings": rendered.warnings,
        })],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirrorpolicy::objects::Inputs;
    use mirrorpolicy::render::pool::render_pool;

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
}
