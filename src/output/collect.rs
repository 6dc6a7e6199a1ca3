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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_node_with_its_counts() {
        let mut a = NodeFiles {
            node: "worker-0".to_string(),
            ..NodeFiles::default()
        };
        a.files
            .insert("/etc/containers/registries.conf".to_string(), b"x".to_vec());
        a.certs
            .insert("/etc/docker/certs.d/m/ca.crt".to_string(), "0".repeat(64));
        let b = NodeFiles {
            node: "worker-1".to_string(),
            ..NodeFiles::default()
        };
        let mut out = Vec::new();
        write_collected(&mut out, Path::new("out"), &[&a, &b]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "collected worker-0 into out/worker-0 (1 file(s), 1 certificate digest(s))\ncollected worker-1 into out/worker-1 (0 file(s), 0 certificate digest(s))\n"
        );
    }
}
