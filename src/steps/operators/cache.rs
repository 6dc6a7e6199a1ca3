//! The catalog cache of `--cache-dir` on disk: the file of a catalog digest
//! and package set loaded (a file that cannot be used is ignored, with a
//! warning) or written (a failure to write is a warning, not an error).
//! The name and format of the files are the core's ([`mirrorpolicy::olm::cache`]).

use std::path::Path;

use mirrorpolicy::olm::cache;
use mirrorpolicy::olm::catalog::Catalog;

use crate::term;

/// The most of a cache file read: the packages kept from a catalog, which a
/// catalog file itself may hold at most (the core's per-file cap).
const MAX_CACHE_BYTES: u64 = 256 << 20;

/// The file at `path`, read up to one byte past [`MAX_CACHE_BYTES`].
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_CACHE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The cached catalog read for `key`, when there is a usable one.
pub(super) fn load(dir: &Path, key: cache::Key) -> Option<Catalog> {
    let path = dir.join(cache::file_name(key));
    let bytes = match read_capped(&path) {
        Ok(b) if b.len() as u64 > MAX_CACHE_BYTES => {
            term::warn(format!(
                "{} is larger than {} MiB, more than a cache this tool writes: the catalog is read again",
                path.display(),
                MAX_CACHE_BYTES >> 20
            ));
            return None;
        }
        Ok(b) => b,
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
