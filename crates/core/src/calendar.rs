//! Proleptic Gregorian dates as day numbers since 1970-01-01 (Howard
//! Hinnant's `days_from_civil` / `civil_from_days`), for the few places that
//! read or print UTC times by hand: certificate validity (`tls::x509`) and
//! CRI-O's journal lines (`journal::time`).

/// Days since 1970-01-01 of the date `year-month-day`.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month, day)` of a day number since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected day numbers from Python's `datetime.date` (the proleptic Gregorian calendar).
    #[test]
    fn known_days() {
        for (date, days) in [
            ((1970, 1, 1), 0),
            ((2000, 3, 1), 11_017),
            ((1969, 12, 31), -1),
            ((2024, 2, 29), 19_782),
            ((2026, 11, 26), 20_783),
        ] {
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
            assert_eq!(civil_from_days(days), date, "{days}");
        }
    }

    #[test]
    fn round_trip_over_four_centuries() {
        for days in -146_097..146_097 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
    }
}
