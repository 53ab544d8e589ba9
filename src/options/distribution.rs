//! `random_distribution`, read once when the option is parsed: fio's
//! checks of its parameters (with fio's messages), then the typed
//! [`Shape`] that the run's offset generator follows.

use super::number::{self, SizeValue, c_atoi, directions};

/// What `random_distribution` asked for, before the file size is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Uniform,
    Zipf {
        theta: f64,
        center: Option<f64>,
    },
    Pareto {
        h: f64,
        center: Option<f64>,
    },
    Normal {
        deviation: f64,
        center: Option<f64>,
    },
    /// Per direction: (share of accesses, share of the region), percent.
    Zoned([Vec<(u32, u32)>; 3]),
    /// Per direction: (share of accesses, size of the zone in bytes).
    ZonedAbs([Vec<(u32, u64)>; 3]),
}

/// The shape of `random_distribution=word[:tail]`, or fio's refusal of
/// its parameters. `kb_base` is the one in force where the option was
/// written (it reads zoned_abs sizes). Parameters left out take fio's
/// defaults.
pub fn shape(word: &str, tail: Option<&str>, kb_base: u64) -> Result<Shape, String> {
    Ok(match word {
        "zipf" | "pareto" | "normal" => {
            let (value, center) = parameters(word, tail)?;
            match word {
                "zipf" => Shape::Zipf {
                    theta: value.unwrap_or(1.1),
                    center,
                },
                "pareto" => Shape::Pareto {
                    h: value.unwrap_or(0.2),
                    center,
                },
                _ => Shape::Normal {
                    deviation: value.unwrap_or(0.0),
                    center,
                },
            }
        }
        "zoned" => Shape::Zoned(
            parse_zoned(tail.unwrap_or(""), false, kb_base)?
                .map(|d| d.into_iter().map(|(a, s)| (a, s as u32)).collect()),
        ),
        "zoned_abs" => Shape::ZonedAbs(parse_zoned(tail.unwrap_or(""), true, kb_base)?),
        // The table's one other word.
        _ => Shape::Uniform,
    })
}

/// zipf's, pareto's and normal's `value[:center]`, read once and checked
/// as fio checks them (zoned shares are checked as they are read); `None`
/// for what was left out.
fn parameters(word: &str, tail: Option<&str>) -> Result<(Option<f64>, Option<f64>), String> {
    let Some(tail) = tail else {
        return Ok((None, None));
    };
    let mut parts = tail.trim().splitn(2, ':');
    let val = parts
        .next()
        .and_then(number::c_float)
        .ok_or("fio: random postfix parsing failed")?;
    let center = match parts.next() {
        None => None,
        Some(center) => {
            let c = number::c_float(center).ok_or("fio: random postfix parsing failed")?;
            if !(0.0..=1.0).contains(&c) {
                return Err("fio: distribution center out of range (0 <= center <= 1.0)".into());
            }
            Some(c)
        }
    };
    match word {
        "zipf" if val == 1.0 => Err("fio: zipf theta must different than 1.0".into()),
        "pareto" if val <= 0.0 || val >= 1.0 => {
            Err("fio: pareto input out of range (0 < input < 1.0)".into())
        }
        "normal" if !(0.0..100.0).contains(&val) => {
            Err("fio: normal deviation out of range (0 <= input < 100.0)".into())
        }
        _ => Ok((Some(val), center)),
    }
}

/// One zone of a zoned distribution: its share of the accesses, in
/// percent, and its share of the region in percent (`zoned`) or its size
/// in bytes (`zoned_abs`).
pub type ZoneSplit = (u32, u64);

/// fio's limit on the zones of one direction.
const MAX_ZONES: usize = 256;

/// Reads `random_distribution=zoned:…` or `zoned_abs:…` (the part after
/// the colon) per direction, split at commas as bssplit is, with fio
/// 3.33's rules: each `access/size` entry's access share is a number with
/// suffixes stored in 8 bits (300 is 44, and 255 counts as not given), the
/// size share is read like `atoi`, capped at 100, 0 meaning not given
/// (`zoned_abs`: a size with suffixes); the access shares must add up to
/// 100 before the missing ones share what is left.
pub fn parse_zoned(
    tail: &str,
    absolute: bool,
    kb_base: u64,
) -> Result<[Vec<ZoneSplit>; 3], String> {
    let text = tail.trim();
    let (read, write, trim) = directions(text);
    // fio reads the write split first, then trim, then read.
    let write = zone_direction(write, absolute, kb_base)?;
    let trim = zone_direction(trim, absolute, kb_base)?;
    let read = zone_direction(read, absolute, kb_base)?;
    Ok([read, write, trim])
}

/// An 8-bit share that fio reads as "not given".
const UNSET: u32 = 0xff;

fn zone_direction(text: &str, absolute: bool, kb_base: u64) -> Result<Vec<ZoneSplit>, String> {
    let decimal = |s: &str| match number::size(s, kb_base) {
        Some(SizeValue::Bytes(v)) => Ok(v),
        _ => Err("fio: split conversion failed".to_string()),
    };
    let mut zones: Vec<ZoneSplit> = Vec::new();
    for entry in text.split(':') {
        if entry.is_empty() {
            break;
        }
        let (access, size) = match entry.split_once('/') {
            Some((a, s)) if absolute => (a, decimal(s)?),
            Some((a, s)) => (
                a,
                match c_atoi(s) {
                    0 => u64::from(u32::MAX),
                    p => p.min(100),
                },
            ),
            None if absolute => (entry, 0),
            None => (entry, u64::from(u32::MAX)),
        };
        // Stored in fio's 8-bit fields (the size share too, unless absolute).
        let access = (decimal(access)? & 0xff) as u32;
        let size = if absolute { size } else { size & 0xff };
        zones.push((access, size));
        if zones.len() == MAX_ZONES {
            break;
        }
    }
    if zones.is_empty() {
        return Ok(zones);
    }
    let given = |shares: &mut dyn Iterator<Item = u32>| {
        let (mut sum, mut missing) = (0u32, 0u32);
        for share in shares {
            if share == UNSET {
                missing += 1;
            } else {
                sum += share;
            }
        }
        (sum, missing)
    };
    let (access_sum, access_missing) = given(&mut zones.iter().map(|z| z.0));
    let (size_sum, size_missing) = if absolute {
        (0, 0)
    } else {
        given(&mut zones.iter().map(|z| z.1 as u32))
    };
    if access_sum > 100 || size_sum > 100 {
        return Err("fio: zone_split percentages add to more than 100%".to_string());
    }
    if access_sum < 100 {
        return Err(format!(
            "fio: access percentage don't add up to 100 for zoned random distribution (got={access_sum})"
        ));
    }
    let one = zones.len() == 1;
    let fill = |sum: u32, missing: u32| {
        let base = if missing == 1 && one { 100 } else { sum };
        100u32
            .saturating_sub(base)
            .checked_div(missing)
            .unwrap_or(0)
    };
    let (access_fill, size_fill) = (
        fill(access_sum, access_missing),
        fill(size_sum, size_missing),
    );
    for zone in &mut zones {
        if zone.0 == UNSET {
            zone.0 = access_fill;
        }
        if !absolute && zone.1 == u64::from(UNSET) {
            zone.1 = u64::from(size_fill);
        }
    }
    Ok(zones)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_into_the_shape_with_fios_defaults() {
        assert_eq!(
            shape("zipf", None, 1024),
            Ok(Shape::Zipf {
                theta: 1.1,
                center: None
            })
        );
        assert_eq!(
            shape("pareto", Some("0.5:0.25"), 1024),
            Ok(Shape::Pareto {
                h: 0.5,
                center: Some(0.25)
            })
        );
        assert_eq!(shape("random", None, 1024), Ok(Shape::Uniform));
    }

    #[test]
    fn zones_fill_each_direction_and_read_sizes_with_the_kb_base() {
        let zoned = vec![(60, 10), (30, 20), (10, 70)];
        assert_eq!(
            shape("zoned", Some("60/10:30/20:10/70"), 1024),
            Ok(Shape::Zoned([zoned.clone(), zoned.clone(), zoned]))
        );
        let abs = vec![(50, 1000), (50, 3000)];
        assert_eq!(
            shape("zoned_abs", Some("50/1k:50/3k"), 1000),
            Ok(Shape::ZonedAbs([abs.clone(), abs.clone(), abs]))
        );
    }

    #[test]
    fn bad_parameters_are_refused_in_fios_words() {
        assert_eq!(
            shape("zipf", Some("1"), 1024),
            Err("fio: zipf theta must different than 1.0".to_string())
        );
        assert_eq!(
            shape("zoned", Some("60/10:30/20"), 1024),
            Err(
                "fio: access percentage don't add up to 100 for zoned random distribution (got=90)"
                    .to_string()
            )
        );
    }
}
