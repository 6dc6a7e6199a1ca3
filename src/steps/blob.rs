//! Blobs fetched from the registry that served their manifest, their
//! digest checked as containers/image checks it: [`stream`] hands a layer
//! to a synchronous reader on a blocking thread (the whole blob is hashed
//! even when the reader stops early, so a blob served with other content
//! is that); [`read_small`] takes a small blob (an image configuration)
//! whole, up to a cap. `upgrade-check` reads the payload's configuration
//! and last layer with them, `operator-check` a catalog's or a bundle's.

use std::io::Read;
use std::sync::mpsc;

use anyhow::Result;

use crate::exit::Failure;
use mirrorpolicy::probe::client::Blob;
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::reference::Reference;

/// Streams blob `digest` of `physical` into `read` (on a blocking thread)
/// and returns what it gave; `what` names the image in messages.
pub async fn stream<T: Send + 'static>(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    digest: &str,
    what: &str,
    read: impl FnOnce(ChannelReader) -> T + Send + 'static,
) -> Result<T> {
    let name = physical.name();
    let mut blob = open(ctx, physical, insecure, digest).await?;
    let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(16);
    let reader = tokio::task::spawn_blocking(move || read(ChannelReader::new(rx)));
    // Whether the reader still takes chunks (it stops at its first error).
    let mut reading = true;
    let received = receive(&mut blob, |chunk| {
        if reading && tx.send(chunk).is_err() {
            reading = false;
        }
        true
    })
    .await;
    drop(tx);
    let read = reader
        .await
        .map_err(|e| Failure::cluster(format!("reading the layer: {e}")))?;
    let got = match received {
        Ok(got) => got,
        Err(e) => return Err(Failure::cluster(format!(
            "{name}: receiving blob {digest}: {e}: whether {what} can be read from here is undetermined"
        ))
        .into()),
    };
    check_digest(physical, digest, &got)?;
    Ok(read)
}

/// Why [`read_small`] gave no blob.
pub enum SmallBlob {
    /// The blob is larger than the cap: its first bytes were read, no more.
    TooLarge,
    /// It could not be fetched, was cut short or served with other content.
    Failed(anyhow::Error),
}

/// Blob `digest` of `physical`, whole, when it is at most `max` bytes
/// (its digest checked); `what` names the image in messages.
pub async fn read_small(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    digest: &str,
    what: &str,
    max: usize,
) -> std::result::Result<Vec<u8>, SmallBlob> {
    let mut blob = open(ctx, physical, insecure, digest)
        .await
        .map_err(SmallBlob::Failed)?;
    let mut body = Vec::new();
    let received = receive(&mut blob, |chunk| {
        body.extend_from_slice(&chunk);
        body.len() <= max
    })
    .await;
    if body.len() > max {
        return Err(SmallBlob::TooLarge);
    }
    let hash = received.map_err(|e| {
        SmallBlob::Failed(
            Failure::cluster(format!(
                "{}: receiving blob {digest}: {e}: whether {what} can be read from here is undetermined",
                physical.name()
            ))
            .into(),
        )
    })?;
    check_digest(physical, digest, &hash).map_err(SmallBlob::Failed)?;
    Ok(body)
}

async fn open(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    digest: &str,
) -> Result<Blob> {
    ctx.prober
        .open_blob(physical, insecure, digest)
        .await
        .map_err(|a| Failure::cluster(format!("{}: {}", physical.name(), a.detail)).into())
}

/// Receives `blob` chunk by chunk, each hashed and handed to `take` until
/// it says stop (`false`); the SHA-256 of what was received, or the
/// receiving error.
async fn receive(
    blob: &mut Blob,
    mut take: impl FnMut(Vec<u8>) -> bool,
) -> std::result::Result<String, String> {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    loop {
        match blob.chunk().await {
            Ok(Some(chunk)) => {
                hash.update(&chunk);
                if !take(chunk) {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => return Err(e),
        }
    }
    let bytes = hash.finish();
    Ok(format!("sha256:{}", hex(bytes.as_ref())))
}

/// A sha256 `digest` served with other content is refused, as containers/image refuses it.
fn check_digest(physical: &Reference, digest: &str, got: &str) -> Result<()> {
    if digest.starts_with("sha256:") && got != digest {
        return Err(Failure::cluster(format!(
            "{}: blob {digest} was served with content {got}: containers/image refuses it",
            physical.name()
        ))
        .into());
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A [`Read`] over the chunks of a channel.
pub struct ChannelReader {
    rx: mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl ChannelReader {
    fn new(rx: mpsc::Receiver<Vec<u8>>) -> Self {
        ChannelReader {
            rx,
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at >= self.chunk.len() {
            match self.rx.recv() {
                Ok(c) => {
                    self.chunk = c;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
