//! A local registries.conf.d or registries.d folder (`--registries-conf-d`,
//! `--registries-d`), listed and read as containers/image lists and reads
//! the node's: which names, in what order, through which links, is
//! [`DropInFolder`]'s rule; this module only touches the disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::node_paths::DropInFolder;

/// What the runtime lists in a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// The files it reads, in name order (bytes): registries.conf.d's
    /// `filepath.WalkDir` order; registries.d is read in directory order
    /// upstream, sorted here so that output does not depend on the disk.
    Files(Vec<PathBuf>),
    /// The folder is a symbolic link the runtime does not follow
    /// ([`DropInFolder::follows_link`]): nothing behind it is read.
    LinkNotFollowed { target: PathBuf },
}

/// Lists `dir` as the runtime lists `folder`: entries whose name it reads
/// (links and hidden names included), sub-folders skipped where the runtime
/// skips them (elsewhere one so named is kept, and its read fails as
/// upstream's does).
pub fn list(dir: &Path, folder: DropInFolder) -> io::Result<Listing> {
    if !folder.follows_link() && fs::symlink_metadata(dir)?.file_type().is_symlink() {
        return Ok(Listing::LinkNotFollowed {
            target: fs::read_link(dir)?,
        });
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if !folder.reads_name(&name.to_string_lossy()) {
            continue;
        }
        if entry.file_type()?.is_dir() && folder.skips_folders() {
            continue;
        }
        names.push(name);
    }
    names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    Ok(Listing::Files(
        names.into_iter().map(|name| dir.join(name)).collect(),
    ))
}

/// The text of a listed file, through its links; `None` when it is gone
/// (a link that dangles), which upstream skips as a file removed since the
/// listing. A named pipe, socket or device is refused rather than waited
/// on.
pub fn read(path: &Path) -> io::Result<Option<String>> {
    match fs::metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            return Err(io::Error::other("not a regular file"))
        }
        Ok(_) => {}
    }
    match fs::read_to_string(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        other => other.map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(listing: Listing) -> Vec<String> {
        match listing {
            Listing::Files(paths) => paths
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect(),
            Listing::LinkNotFollowed { .. } => vec!["(link)".to_string()],
        }
    }

    /// sysregistriesv2 `dropInConfigs` and docker `loadAndMergeConfig` over
    /// one folder's entries.
    #[test]
    fn lists_as_upstream() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for name in [
            "b.conf",
            ".conf",
            "a.conf",
            ".hidden.conf",
            "x.conf.bak",
            "x.yaml",
            ".yaml",
            "x.yml",
        ] {
            fs::write(d.join(name), "").unwrap();
        }
        fs::create_dir(d.join("sub.conf")).unwrap();
        fs::create_dir(d.join("sub.yaml")).unwrap();
        std::os::unix::fs::symlink(d.join("a.conf"), d.join("link.conf")).unwrap();
        std::os::unix::fs::symlink(d.join("gone"), d.join("dangling.conf")).unwrap();
        assert_eq!(
            names(list(d, DropInFolder::RegistriesConfD).unwrap()),
            [
                ".conf",
                ".hidden.conf",
                "a.conf",
                "b.conf",
                "dangling.conf",
                "link.conf"
            ]
        );
        assert_eq!(
            names(list(d, DropInFolder::RegistriesD).unwrap()),
            [".yaml", "sub.yaml", "x.yaml"]
        );
        assert_eq!(read(&d.join("dangling.conf")).unwrap(), None);
        assert_eq!(read(&d.join("link.conf")).unwrap(), Some(String::new()));
        assert!(read(&d.join("sub.yaml")).is_err());
    }

    /// `filepath.WalkDir` does not follow a linked registries.conf.d;
    /// `os.Open` follows a linked registries.d.
    #[test]
    fn linked_folders() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        fs::write(real.join("a.conf"), "").unwrap();
        fs::write(real.join("a.yaml"), "").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(
            list(&link, DropInFolder::RegistriesConfD).unwrap(),
            Listing::LinkNotFollowed { target: real }
        );
        assert_eq!(
            names(list(&link, DropInFolder::RegistriesD).unwrap()),
            ["a.yaml"]
        );
    }
}
