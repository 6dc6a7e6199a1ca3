//! `collect-node-files`: one line per node written.

use std::io::{self, Write};
use std::path::Path;

use mirrorpolicy::node_files::NodeFiles;

/// `collected NODE into DIR/NODE (N file(s), M certificate digest(s))`.
pub fn write_collected(out: &mut dyn Write, dir: &Path, nodes: &[&NodeFiles]) -> io::Result<()> {
    for files in nodes {
        writeln!(
            out,
            "collected {} into {} ({} file(s), {} certificate digest(s))",
            files.node,
            dir.join(&files.node).display(),
            files.files.len(),
            files.certs.len()
        )?;
    }
    Ok(())
}
