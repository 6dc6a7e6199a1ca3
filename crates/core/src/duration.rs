//! Durations as every message of the tool prints them: `30s` for whole
//! seconds, `1500ms` otherwise (the forms `--request-timeout`,
//! `--node-timeout` and `--wait` accept back).

use std::time::Duration;

/// `d` as `30s`, or in milliseconds when it is not whole seconds (`1500ms`).
pub fn text(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_seconds_and_milliseconds() {
        for (d, want) in [
            (Duration::from_secs(0), "0s"),
            (Duration::from_secs(90), "90s"),
            (Duration::from_millis(1500), "1500ms"),
            (Duration::from_millis(200), "200ms"),
            // A fraction below a millisecond is not printed.
            (Duration::from_micros(2_000_300), "2s"),
            (Duration::from_micros(2_001_300), "2001ms"),
        ] {
            assert_eq!(text(d), want, "{d:?}");
        }
    }
}
