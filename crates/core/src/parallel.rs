//! The one parallel map of the tool: indexes handed out to a few scoped
//! threads, results back in index order. Used where one command reads many
//! files (`-f` folders, must-gathers) and where one large YAML stream is
//! parsed in runs of documents.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The cores this process may use (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `run(i)` for every `i` in `0..count` on up to `threads` scoped
/// threads, each taking the next index, and returns the results in index
/// order up to and including the first one for which `stop` holds; indexes
/// after it may not have been run. One thread (or one index) runs on the
/// calling thread. A panic in `run` is resumed on the caller.
pub fn map_until<R: Send>(
    count: usize,
    threads: usize,
    run: impl Fn(usize) -> R + Sync,
    stop: impl Fn(&R) -> bool + Sync,
) -> Vec<R> {
    let threads = threads.min(count);
    if threads <= 1 {
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let result = run(i);
            let stopped = stop(&result);
            out.push(result);
            if stopped {
                break;
            }
        }
        return out;
    }
    let mut results = run_on_threads(count, threads, &run, &stop);
    results.sort_by_key(|(i, _)| *i);
    let end = results
        .iter()
        .position(|(_, r)| stop(r))
        .map_or(results.len(), |at| at + 1);
    results.truncate(end);
    results.into_iter().map(|(_, r)| r).collect()
}

/// The results of `run` with their indexes, in no particular order; no
/// index is started after one for which `stop` held below it.
fn run_on_threads<R: Send>(
    count: usize,
    threads: usize,
    run: &(impl Fn(usize) -> R + Sync),
    stop: &(impl Fn(&R) -> bool + Sync),
) -> Vec<(usize, R)> {
    let next = AtomicUsize::new(0);
    let first_stop = AtomicUsize::new(usize::MAX);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= count || i > first_stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let result = run(i);
                        if stop(&result) {
                            first_stop.fetch_min(i, Ordering::Relaxed);
                        }
                        mine.push((i, result));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_order_on_any_number_of_threads() {
        for threads in [0, 1, 2, 3, 8] {
            let got = map_until(100, threads, |i| i * 2, |_| false);
            assert_eq!(
                got,
                (0..100).map(|i| i * 2).collect::<Vec<_>>(),
                "{threads}"
            );
        }
        assert!(map_until(0, 4, |i| i, |_| false).is_empty());
    }

    /// Up to and including the first result that stops, whatever thread
    /// ran the later ones; nothing after it is kept.
    #[test]
    fn stops_at_the_first_stop_by_index() {
        for threads in [1, 2, 4] {
            let got = map_until(50, threads, |i| i, |r| *r == 7 || *r == 30);
            assert_eq!(got, (0..=7).collect::<Vec<_>>(), "{threads}");
        }
    }

    #[test]
    fn every_index_runs_once() {
        let runs = AtomicUsize::new(0);
        let got = map_until(
            1000,
            4,
            |i| {
                runs.fetch_add(1, Ordering::Relaxed);
                i
            },
            |_| false,
        );
        assert_eq!(got.len(), 1000);
        assert_eq!(runs.load(Ordering::Relaxed), 1000);
    }
}
