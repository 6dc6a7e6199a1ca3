//! A blob streamed from the registry that served its manifest into a
//! synchronous reader on a blocking thread, its digest checked as
//! containers/image checks it: the whole blob is hashed even when the
//! reader stops early, so a blob served with other content is that.
//! `upgrade-check` reads the payload's last layer with it, `operator-check`
//! a catalog's config and layers.

use std::io::Read;
use std::sync::mpsc;

use anyhow::Result;

use crate::exit::Failure;
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
    let mut blob = ctx
        .prober
        .open_blob(physical, insecure, digest)
        .await
        .map_err(|a| Failure::cluster(format!("{name}: {}", a.detail)))?;
    let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(16);
    let reader = tokio::task::spawn_blocking(move || read(ChannelReader::new(rx)));
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    let mut receive_error = None;
    // Whether the reader still takes chunks (it stops at its first error).
    let mut reading = true;
    loop {
        match blob.chunk().await {
            Ok(Some(chunk)) => {
                hash.update(&chunk);
                if reading && tx.send(chunk).is_err() {
                    reading = false;
                }
            }
            Ok(None) => break,
            Err(e) => {
                receive_error = Some(e);
                break;
            }
        }
    }
    drop(tx);
    let read = reader
        .await
        .map_err(|e| Failure::cluster(format!("reading the layer: {e}")))?;
    if let Some(e) = receive_error {
        return Err(Failure::cluster(format!(
            "{name}: receiving blob {digest}: {e}: whether {what} can be read from here is undetermined"
        ))
        .into());
    }
    let got = format!("sha256:{}", hex(hash.finish().as_ref()));
    if digest.starts_with("sha256:") && got != digest {
        return Err(Failure::cluster(format!(
            "{name}: blob {digest} was served with content {got}: containers/image refuses it"
        ))
        .into());
    }
    Ok(read)
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
