//! How long a probe waits on a registry, set against how long CRI-O waits.
//!
//! containers/image's transport (`pkg/tlsclientconfig.NewTransport`) gives
//! up on a TCP connection after 30s (its `net.Dialer` `Timeout`) and on a
//! TLS handshake after 10s (`TLSHandshakeTimeout`); the pull source then
//! fails and `newImageSource` tries the next one. Once connected it sets no
//! limit at all (no `ResponseHeaderTimeout`, no `http.Client.Timeout`, and
//! CRI-O's pull context has no deadline): a registry slow to answer is
//! waited for, and the pull goes on from it.
//!
//! So the probe waits for a connection as CRI-O does, at most
//! [`CONNECT_LIMIT`] (TCP and TLS together: the HTTP client does not time
//! the handshake apart), and an abandoned connection is a refusal that
//! falls through. The wait for an answer once connected is bounded by
//! `--probe-timeout` only because the probe has to stop somewhere: an
//! answer that does not come within it is "timed out", and what CRI-O
//! would get at the end of its wait cannot be known here.
//!
//! [`ConnectWatch`] is a connector layer of the HTTP client that tells
//! when its connections are being set up and when the last one was, so
//! that [`AnswerLimit::wait`] starts counting once the connection is there.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

/// containers/image's dial timeout: a connection not set up by then is
/// abandoned and the next pull source is tried.
pub const CONNECT_LIMIT: Duration = Duration::from_secs(30);

/// How often a wait looks again while a connection is being set up.
const CONNECTING_POLL: Duration = Duration::from_millis(50);

/// The connections of one HTTP client: how many are being set up, and
/// when the last one was.
#[derive(Clone, Default)]
pub struct ConnectWatch(Arc<WatchState>);

#[derive(Default)]
struct WatchState {
    connecting: AtomicUsize,
    last_connected: Mutex<Option<Instant>>,
}

impl ConnectWatch {
    fn connecting(&self) -> bool {
        self.0.connecting.load(Ordering::SeqCst) > 0
    }

    /// `start`, or the last connection set up after it.
    fn settled_since(&self, start: Instant) -> Instant {
        let last = *self
            .0
            .last_connected
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        last.map_or(start, |t| t.max(start))
    }
}

/// Counts one connection being set up while it lives.
struct Connecting(ConnectWatch);

impl Connecting {
    fn start(watch: &ConnectWatch) -> Self {
        watch.0.connecting.fetch_add(1, Ordering::SeqCst);
        Connecting(watch.clone())
    }

    fn connected(&self) {
        *self
            .0
             .0
            .last_connected
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
    }
}

impl Drop for Connecting {
    fn drop(&mut self) {
        self.0 .0.connecting.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<S> tower_layer::Layer<S> for ConnectWatch {
    type Service = Watched<S>;

    fn layer(&self, inner: S) -> Watched<S> {
        Watched {
            inner,
            watch: self.clone(),
        }
    }
}

/// A connector that reports to a [`ConnectWatch`].
#[derive(Clone)]
pub struct Watched<S> {
    inner: S,
    watch: ConnectWatch,
}

type Connected<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, R> tower_service::Service<R> for Watched<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Connected<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> Self::Future {
        let guard = Connecting::start(&self.watch);
        let connect = self.inner.call(req);
        Box::pin(async move {
            let out = connect.await;
            if out.is_ok() {
                guard.connected();
            }
            out
        })
    }
}

/// The wait for one answer from a registry: `limit` once connected.
#[derive(Clone)]
pub struct AnswerLimit {
    pub watch: ConnectWatch,
    pub limit: Duration,
}

impl AnswerLimit {
    /// Runs `exchange` (a request, or the reading of a body); `None` when
    /// it has not finished `limit` after its connection was set up. While
    /// a connection is being set up the wait goes on: the connector gives
    /// up on its own after [`CONNECT_LIMIT`], as containers/image does.
    pub async fn wait<F: Future>(&self, exchange: F) -> Option<F::Output> {
        let start = Instant::now();
        let mut exchange = std::pin::pin!(exchange);
        loop {
            let deadline = if self.watch.connecting() {
                Instant::now() + CONNECTING_POLL
            } else {
                self.watch.settled_since(start) + self.limit
            };
            if let Ok(out) = tokio::time::timeout_at(deadline, exchange.as_mut()).await {
                return Some(out);
            }
            if !self.watch.connecting()
                && Instant::now() >= self.watch.settled_since(start) + self.limit
            {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime")
    }

    #[test]
    fn an_answer_in_time_is_returned() {
        runtime().block_on(async {
            let limit = AnswerLimit {
                watch: ConnectWatch::default(),
                limit: Duration::from_millis(300),
            };
            let out = limit
                .wait(async {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    7
                })
                .await;
            assert_eq!(out, Some(7));
        });
    }

    #[test]
    fn a_slow_answer_times_out() {
        runtime().block_on(async {
            let limit = AnswerLimit {
                watch: ConnectWatch::default(),
                limit: Duration::from_millis(200),
            };
            let started = Instant::now();
            let out = limit
                .wait(tokio::time::sleep(Duration::from_secs(3600)))
                .await;
            assert_eq!(out, None);
            let waited = started.elapsed();
            assert!(
                waited >= Duration::from_millis(200) && waited < Duration::from_secs(2),
                "{waited:?}"
            );
        });
    }

    // A connection slower than the limit (as one within containers/image's
    // 30s can be), then an answer within the limit: it counts from the
    // connection.
    #[test]
    fn the_limit_counts_from_the_connection() {
        runtime().block_on(async {
            let watch = ConnectWatch::default();
            let limit = AnswerLimit {
                watch: watch.clone(),
                limit: Duration::from_millis(300),
            };
            let exchange = async {
                let guard = Connecting::start(&watch);
                tokio::time::sleep(Duration::from_millis(500)).await;
                guard.connected();
                drop(guard);
                tokio::time::sleep(Duration::from_millis(200)).await;
                "answer"
            };
            assert_eq!(limit.wait(exchange).await, Some("answer"));
        });
    }
}
