//! Durations as every message of the tool prints them: `30s` for whole
//! seconds, `1.5s` with a fraction, `200ms` under a second, to the
//! millisecond (forms `--request-timeout`, `--node-timeout` and `--timeout`
//! accept back).

use std::time::Duration;

/// `d` as `30s`, `1.5s` or `200ms` (to the millisecond).
pub fn text(d: Duration) -> String {
    let millis = d.subsec_millis();
    match (d.as_secs(), millis) {
        (secs, 0) => format!("{secs}s"),
        (0, ms) => format!("{ms}ms"),
        (secs, ms) => {
            let fraction = format!("{ms:03}");
            format!("{secs}.{}s", fraction.trim_end_matches('0'))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_fractions_and_milliseconds() {
        for (d, want) in [
            (Duration::from_secs(0), "0s"),
            (Duration::from_secs(90), "90s"),
            (Duration::from_millis(1500), "1.5s"),
            (Duration::from_millis(2050), "2.05s"),
            (Duration::from_millis(200), "200ms"),
            // A fraction below a millisecond is not printed.
            (Duration::from_micros(2_000_300), "2s"),
            (Duration::from_micros(2_001_300), "2.001s"),
            (Duration::from_micros(300), "0s"),
        ] {
            assert_eq!(text(d), want, "{d:?}");
        }
    }
}
