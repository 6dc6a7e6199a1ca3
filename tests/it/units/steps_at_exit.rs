//! The unit tests of `steps::at_exit` in the binary's library.

use std::rc::Rc;

use kubectl_mirrorpolicy::steps::at_exit::*;
use std::sync::atomic::Ordering;

#[test]
fn released_values_are_dropped_until_the_exit_follows() {
    let shared = Rc::new(());
    release(Rc::clone(&shared));
    assert_eq!(Rc::strong_count(&shared), 1, "dropped");
    exit_follows_command();
    release(Rc::clone(&shared));
    assert_eq!(Rc::strong_count(&shared), 2, "left to the exit");
    EXIT_FOLLOWS.store(false, Ordering::Relaxed);
}
