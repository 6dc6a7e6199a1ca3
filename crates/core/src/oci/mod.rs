//! Container images as registries serve them: the OCI and Docker schema 2
//! manifests and indexes with the image configuration ([`manifest`]), and
//! the layers put together as a root file system ([`layer`]: compression,
//! the tar walk, whiteouts). What a command looks for inside an image (a
//! catalog's configs, a bundle's CSV, a release payload's manifests) is
//! its own module's: [`crate::olm`] and [`crate::upgrade::payload`].

pub mod layer;
pub mod manifest;
