//! Wall-clock helpers: Unix seconds and the ISO 8601 timestamps the Xbox, PlayFab and Minecraft
//! services use (`2026-11-30T16:22:56.1234567Z`), without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch (0 if the clock is before 1970).
pub fn now_unix() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (inverse of [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]` to Unix seconds (fraction dropped).
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let s = s.trim();
    let num = |range: std::ops::Range<usize>| s.get(range)?.parse::<i64>().ok();
    if s.len() < 19 || s.as_bytes().get(4) != Some(&b'-') || s.as_bytes().get(10).is_none_or(|c| !b"Tt ".contains(c)) {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hh = rest.get(1..3)?.parse::<i64>().ok()?;
            let mm = rest.get(rest.len().checked_sub(2)?..)?.parse::<i64>().ok()?;
            sign * (hh * 3600 + mm * 60)
        }
    };
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_iso8601(unix: i64) -> String {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_service_formats() {
        for t in [0, 951_782_400, 1_796_005_072, 4_102_444_800, 1_709_251_199] {
            assert_eq!(parse_iso8601(&format_iso8601(t)), Some(t), "{t}");
        }
        assert_eq!(parse_iso8601("2026-11-30T16:22:56.1234567Z"), Some(1_796_055_776));
        assert_eq!(parse_iso8601("2026-11-30T17:22:56+01:00"), Some(1_796_055_776));
        assert_eq!(parse_iso8601("2000-02-29T00:00:00Z"), Some(951_782_400));
        for bad in ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-30 16:22", "2026-11-30T16:22:56Q"] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }
}
