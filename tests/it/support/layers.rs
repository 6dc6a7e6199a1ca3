//! Image layers for the fake registry: tar archives of small files, plain
//! or gzip-compressed. Shared by the integration tests and, through
//! `#[path]`, the benchmarks that serve generated images.

// Each user takes only some of it.
#![allow(dead_code)]

/// A tar archive of `files` (path, bytes), each a regular file, mode 0644.
pub fn tar_of<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, body) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, path, body).expect("append");
    }
    b.into_inner().expect("tar")
}

/// A tar archive of text files.
pub fn tar(files: &[(&str, &str)]) -> Vec<u8> {
    tar_of(files.iter().map(|(p, body)| (*p, body.as_bytes())))
}

/// `raw` gzip-compressed at `level`.
pub fn gzip_with(raw: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
    std::io::Write::write_all(&mut e, raw).expect("gzip");
    e.finish().expect("gzip")
}

/// `raw` gzip-compressed, fast.
pub fn gzip(raw: &[u8]) -> Vec<u8> {
    gzip_with(raw, flate2::Compression::fast())
}

/// A gzip-compressed tar archive of text files.
pub fn tar_gz(files: &[(&str, &str)]) -> Vec<u8> {
    gzip(&tar(files))
}
