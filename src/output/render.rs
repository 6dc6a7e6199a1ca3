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
