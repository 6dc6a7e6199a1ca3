//! logrus' `time=` field in CRI-O's two formats: `2006-01-02
//! 15:04:05.000000000Z07:00` up to CRI-O 1.31 (OpenShift 4.18), RFC3339Nano
//! (`2006-01-02T15:04:05.999999999Z07:00`) from 1.32. Kept as nanoseconds
//! since the Unix epoch, shown as RFC3339 in UTC.

use std::fmt;

use serde::{Serialize, Serializer};

/// An instant, in nanoseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i128);

const NANOS_PER_SEC: i128 = 1_000_000_000;

impl Timestamp {
    /// Parses either of CRI-O's formats (date and time separated by `T` or a
    /// space; 0 to 9 fraction digits; `Z` or `±hh:mm`).
    pub fn parse(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        if b.len() < 20 || !matches!(b[10], b'T' | b' ') {
            return None;
        }
        let num = |from: usize, to: usize| -> Option<i64> {
            let part = s.get(from..to)?;
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        let (year, month, day) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
        let (hour, min, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
        if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        if !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
            || hour > 23
            || min > 59
            || sec > 60
        {
            return None;
        }
        let mut rest = &s[19..];
        let mut nanos: i128 = 0;
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return None;
            }
            let value: i128 = frac[..digits].parse().ok()?;
            nanos = value * 10i128.pow(9 - digits as u32);
            rest = &frac[digits..];
        }
        let offset_secs: i64 = match rest {
            "Z" => 0,
            _ => {
                let ob = rest.as_bytes();
                if ob.len() != 6 || ob[3] != b':' || !matches!(ob[0], b'+' | b'-') {
                    return None;
                }
                let h: i64 = rest[1..3].parse().ok()?;
                let m: i64 = rest[4..6].parse().ok()?;
                let v = h * 3600 + m * 60;
                if ob[0] == b'-' {
                    -v
                } else {
                    v
                }
            }
        };
        let date = jiff::civil::Date::new(
            i16::try_from(year).ok()?,
            i8::try_from(month).ok()?,
            i8::try_from(day).ok()?,
        )
        .ok()?;
        let midnight = jiff::tz::Offset::UTC
            .to_timestamp(date.to_datetime(jiff::civil::Time::midnight()))
            .ok()?
            .as_second();
        let secs = midnight + hour * 3600 + min * 60 + sec - offset_secs;
        Some(Timestamp(i128::from(secs) * NANOS_PER_SEC + nanos))
    }

    /// The instant `secs` seconds since the epoch.
    pub fn from_unix_secs(secs: i64) -> Timestamp {
        Timestamp(i128::from(secs) * NANOS_PER_SEC)
    }

    /// Whole seconds since the epoch (rounded down).
    pub fn unix_secs(self) -> i64 {
        self.0.div_euclid(NANOS_PER_SEC) as i64
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC, as journalctl's `--since` takes it.
    pub fn journalctl(self) -> String {
        let (date, time, _) = self.parts();
        format!("{date} {time}")
    }

    /// Date, time of day, nanoseconds.
    fn parts(self) -> (String, String, i128) {
        let secs = self.0.div_euclid(NANOS_PER_SEC) as i64;
        let nanos = self.0.rem_euclid(NANOS_PER_SEC);
        let tod = secs.rem_euclid(86_400);
        let date = jiff::Timestamp::from_second(secs - tod)
            .map(|t| jiff::tz::Offset::UTC.to_datetime(t).date())
            .map_or_else(
                // Beyond the years 9999: the day as seconds since the epoch.
                |_| format!("@{}", secs - tod),
                |d| format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
            );
        (
            date,
            format!("{:02}:{:02}:{:02}", tod / 3600, tod % 3600 / 60, tod % 60),
            nanos,
        )
    }
}

/// RFC3339 in UTC, the fraction without trailing zeros (Go's RFC3339Nano).
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (date, time, nanos) = self.parts();
        write!(f, "{date}T{time}")?;
        if nanos != 0 {
            let frac = format!("{nanos:09}");
            write!(f, ".{}", frac.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_crio_formats() {
        for (input, want) in [
            // CRI-O <= 1.31: fixed nine fraction digits, space separator.
            (
                "2024-05-01 10:00:00.123456789Z",
                "2024-05-01T10:00:00.123456789Z",
            ),
            ("2024-05-01 10:00:00.000000000Z", "2024-05-01T10:00:00Z"),
            (
                "2024-05-01 12:00:00.500000000+02:00",
                "2024-05-01T10:00:00.5Z",
            ),
            // CRI-O >= 1.32: RFC3339Nano, trailing zeros dropped.
            ("2025-06-30T23:59:59.1Z", "2025-06-30T23:59:59.1Z"),
            ("2025-06-30T23:59:59Z", "2025-06-30T23:59:59Z"),
            ("2024-02-29T00:00:00-01:30", "2024-02-29T01:30:00Z"),
            ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"),
        ] {
            let t = Timestamp::parse(input).unwrap_or_else(|| panic!("{input}"));
            assert_eq!(t.to_string(), want, "{input}");
        }
        assert_eq!(
            Timestamp::parse("2024-05-01 10:00:00.5Z")
                .unwrap()
                .journalctl(),
            "2024-05-01 10:00:00"
        );
    }

    #[test]
    fn refuses_what_is_not_a_time() {
        for input in [
            "",
            "2024-05-01",
            "2024-13-01T00:00:00Z",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00.Z",
            "2024-05-01T10:00:00.1234567891Z",
            "2024-05-01X10:00:00Z",
            "2024-05-01T10:00:00+0200",
        ] {
            assert_eq!(Timestamp::parse(input), None, "{input}");
        }
    }
}
