//! CRI-O journal files on disk: a saved `oc adm node-logs NODE -u crio`
//! output (plain, or gzip as must-gather's `compress_service_logs` writes
//! it), and the ones a must-gather keeps. openshift/must-gather's
//! `gather_service_logs` runs `oc adm node-logs --role=ROLE -u crio` into
//! `host_service_logs/masters/crio_service.log` (the default gather: the
//! control plane only) and `host_service_logs/workers/crio_service.log`
//! (`gather_service_logs worker`), or `host_service_logs/NODE/` for one
//! node; `.log.gz` when compressed. `oc adm must-gather` puts the tree one
//! folder down (`must-gather.local.N/<image>/`).

use std::fs;
use std::path::{Path, PathBuf};

use super::journal_text::{self, Budget, LongLines, Text, TextError};

/// The service log's name in each `host_service_logs/<role or node>/` folder.
const NAMES: [&str; 2] = ["crio_service.log", "crio_service.log.gz"];

/// How deep under the given folder `host_service_logs` is looked for.
const MAX_DEPTH: usize = 3;

/// Every CRI-O journal file of the must-gather tree at `root`, sorted.
pub fn must_gather_journals(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    find(root, 0, &mut out);
    out.sort();
    out
}

fn find(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        if d.file_name().is_some_and(|n| n == "host_service_logs") {
            for role in fs::read_dir(&d).into_iter().flatten().flatten() {
                for name in NAMES {
                    let file = role.path().join(name);
                    if file.is_file() {
                        out.push(file);
                    }
                }
            }
        } else if depth < MAX_DEPTH {
            find(&d, depth + 1, out);
        }
    }
}

/// A journal file's text, gunzipped when it starts with gzip's magic
/// bytes, streamed through the bounded reader ([`journal_text`]): its long
/// lines left out, its text charged to `budget`. `name` is what messages
/// call the file.
pub fn read_text(path: &Path, name: &str, budget: &Budget) -> Result<Text, TextError> {
    let file = fs::File::open(path).map_err(|e| TextError::Read {
        name: name.to_string(),
        detail: e.to_string(),
    })?;
    journal_text::read_from(name, budget, file)
}

/// Streams a journal file (gunzipped when it starts with gzip's magic
/// bytes), handing each line to `each` as it is read: memory stays at one
/// line whatever the file's size (see [`journal_text::stream_from`]).
pub fn stream(
    path: &Path,
    name: &str,
    each: impl FnMut(&str) + Send,
) -> Result<Option<LongLines>, TextError> {
    let file = fs::File::open(path).map_err(|e| TextError::Read {
        name: name.to_string(),
        detail: e.to_string(),
    })?;
    journal_text::stream_from(name, file, each)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_must_gather_journals_one_folder_down_plain_and_gzip() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir
            .path()
            .join("must-gather.local.1/quay-io-openshift-must-gather-sha256");
        let masters = root.join("host_service_logs/masters");
        let workers = root.join("host_service_logs/workers");
        fs::create_dir_all(&masters).unwrap();
        fs::create_dir_all(&workers).unwrap();
        fs::write(masters.join("crio_service.log"), "a\n").unwrap();
        fs::write(masters.join("kubelet_service.log"), "k\n").unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, b"b\n").unwrap();
        fs::write(workers.join("crio_service.log.gz"), gz.finish().unwrap()).unwrap();
        let found = must_gather_journals(dir.path());
        assert_eq!(
            found,
            [
                masters.join("crio_service.log"),
                workers.join("crio_service.log.gz")
            ]
        );
        let budget = Budget::default();
        assert_eq!(read_text(&found[1], "w", &budget).unwrap().text, "b\n");
        assert_eq!(read_text(&found[0], "m", &budget).unwrap().text, "a\n");
        assert!(must_gather_journals(&masters).is_empty());
        let mut lines = Vec::new();
        stream(&found[1], "w", |l| lines.push(l.to_string())).unwrap();
        assert_eq!(lines, ["b"]);
    }
}
