//! Memory a command leaves to the process exit.
//!
//! A single command's objects (hundreds of thousands of strings at
//! oc-mirror scale) are freed one by one when they go out of scope, a
//! measurable share of a render (BENCHMARKS.md). When the process exits as
//! soon as the command returns, the exit returns all of it at once. A
//! command run once per cluster of a fleet frees its objects as usual, so
//! that memory does not grow with the fleet.

use std::sync::atomic::{AtomicBool, Ordering};

pub static EXIT_FOLLOWS: AtomicBool = AtomicBool::new(false);

/// Marks that the process exits as soon as the command returns.
pub fn exit_follows_command() {
    EXIT_FOLLOWS.store(true, Ordering::Relaxed);
}

/// Drops `value`, unless the process exits as soon as the command returns:
/// then its memory is left to the exit.
pub fn release<T>(value: T) {
    if EXIT_FOLLOWS.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}
