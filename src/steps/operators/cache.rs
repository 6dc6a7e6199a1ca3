//! The catalog cache of `--cache-dir` on disk: the file of a catalog digest
//! and package set loaded (a file that cannot be used is ignored, with a
//! warning) or written (a failure to write is a warning, not an error).
//! The name and format of the files are the core's ([`mirrorpolicy::olm::cache`]).

use std::path::Path;

use mirrorpolicy::olm::cache;
use mirrorpolicy::olm::catalog::Catalog;

use crate::term;

/// The cached catalog read for `key`, when there is a usable one.
pub(super) fn load(dir: &Path, key: cache::Key) -> Option<Catalog> {
    let path = dir.join(cache::file_name(key));
    let bytes = match std::fs::File::open(&path).and_then(cache::read_capped) {
        Ok(None) => {
            term::warn(format!(
                "{} is larger than {} MiB, more than a cache this tool writes: the catalog is read again",
                path.display(),
                cache::MAX_BYTES >> 20
            ));
            return None;
        }
        Ok(Some(b)) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            term::warn(format!(
                "{}: {e}: the catalog is read again",
                path.display()
            ));
            return None;
        }
    };
    match cache::decode(&bytes, key) {
        Ok(catalog) => Some(catalog),
        Err(why) => {
            term::warn(format!(
                "{} is not a usable catalog cache ({why}): the catalog is read again",
                path.display()
            ));
            None
        }
    }
}

/// Writes the catalog read for `key` (through a temporary file renamed
/// over the old one, so a reader never sees half a file).
pub(super) fn store(dir: &Path, key: cache::Key, catalog: &Catalog) {
    let path = dir.join(cache::file_name(key));
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, cache::encode(key, catalog)))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        term::warn(format!(
            "{}: {e}: the catalog is not cached",
            path.display()
        ));
    }
}
