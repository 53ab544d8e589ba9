//! Human units for the page: one unit per axis, chosen from the largest
//! value it shows (bandwidth in B/s … GiB/s, latency in ns … s), and the
//! tick values of a logarithmic latency axis in that unit.

/// A unit and how many base units (bytes/s, ns) one of it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    pub name: &'static str,
    pub size: f64,
}

fn pick(max: f64, steps: &[(&'static str, f64)]) -> Unit {
    let (name, size) = steps
        .iter()
        .rev()
        .find(|(_, s)| max >= *s)
        .unwrap_or(&steps[0]);
    Unit { name, size: *size }
}

/// The binary bandwidth unit in which `max` bytes/s reads between 1 and 1024.
pub fn bandwidth(max: f64) -> Unit {
    pick(
        max,
        &[
            ("B/s", 1.0),
            ("KiB/s", 1024.0),
            ("MiB/s", 1_048_576.0),
            ("GiB/s", 1_073_741_824.0),
        ],
    )
}

/// The unit of a logarithmic latency axis from `lo` to `hi` ns: the one
/// its geometric middle reads in, so that neither end needs many digits.
pub fn log_latency(lo: f64, hi: f64) -> Unit {
    latency((lo.max(1.0) * hi.max(1.0)).sqrt())
}

/// The time unit in which `max` ns reads between 1 and 1000.
pub fn latency(max: f64) -> Unit {
    pick(max, &[("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)])
}

/// Ticks for a logarithmic axis spanning `lo..hi` (in the axis unit):
/// 1-2-5 steps per decade, or every integer step of a decade when that
/// gives fewer than four; each with its label.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let lo = lo.max(1e-12);
    let hi = hi.max(lo * 10.0);
    let within = |mantissas: &[f64]| -> Vec<(f64, String)> {
        let mut out = Vec::new();
        let mut decade = 10f64.powf(lo.log10().floor());
        while decade <= hi {
            for m in mantissas {
                let v = m * decade;
                if v >= lo * 0.999 && v <= hi * 1.001 {
                    out.push((v, label(v)));
                }
            }
            decade *= 10.0;
        }
        out
    };
    let ticks = within(&[1.0, 2.0, 5.0]);
    if ticks.len() > 10 {
        // Over more than about three decades: a tick per decade is enough
        // once that makes four; over fewer, 1-3 steps.
        for steps in [&[1.0][..], &[1.0, 3.0]] {
            let fewer = within(steps);
            if fewer.len() >= 4 {
                return fewer;
            }
        }
    }
    if ticks.len() >= 4 {
        return ticks;
    }
    within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// A tick value to three significant digits, without trailing zeros:
/// 0.05, 2, 500, 20000.
fn label(v: f64) -> String {
    let scale = 10f64.powi(2 - v.abs().log10().floor() as i32);
    format!("{}", (v * scale).round() / scale)
}

/// A latency in the largest unit that keeps it readable (the summary's).
pub fn time_text(ns: f64) -> String {
    let ns = ns.max(0.0);
    if ns < 10_000.0 {
        format!("{} ns", ns.round())
    } else if ns < 10_000_000.0 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 10_000_000_000.0 {
        format!("{:.1} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_per_axis() {
        assert_eq!(bandwidth(500.0).name, "B/s");
        assert_eq!(bandwidth(3.0 * 1_048_576.0).name, "MiB/s");
        assert_eq!(latency(999.0).name, "ns");
        assert_eq!(latency(84e6).name, "ms");
        assert_eq!(time_text(512.0), "512 ns");
        assert_eq!(time_text(51_200.0), "51.2 µs");
        assert_eq!(time_text(3_600e9), "3600.00 s");
    }

    #[test]
    fn log_ticks_are_at_least_four() {
        let t: Vec<String> = log_ticks(40.0, 700.0).into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["50", "100", "200", "500"]);
        let narrow = log_ticks(1.5, 9.0);
        assert!(narrow.len() >= 4, "{narrow:?}");
        assert_eq!(log_ticks(0.05, 0.2)[0].1, "0.05");
        let tiny: Vec<String> = log_ticks(0.00003, 3.0).into_iter().map(|t| t.1).collect();
        assert_eq!(tiny, ["0.0001", "0.001", "0.01", "0.1", "1"]);
        assert_eq!(log_latency(50.0, 3e6).name, "µs");
        assert_eq!(log_ticks(0.5, 200.0).len(), 9);
        // Three and a half decades: 1-2-5 would make 11, decades only 3.
        let mid: Vec<String> = log_ticks(0.02, 60.0).into_iter().map(|t| t.1).collect();
        assert_eq!(mid, ["0.03", "0.1", "0.3", "1", "3", "10", "30"]);
        // Every span from a tenth of a decade to twelve decades gets
        // between four and thirteen ticks (a tick a decade at most).
        for lo_exp in -12..3 {
            for span in 1..120 {
                let lo = 10f64.powf(lo_exp as f64 / 4.0);
                let hi = lo * 10f64.powf(span as f64 / 10.0);
                let n = log_ticks(lo, hi).len();
                assert!((4..=13).contains(&n), "{lo}..{hi}: {n} ticks");
            }
        }
        let wide: Vec<String> = log_ticks(0.5, 2000.0).into_iter().map(|t| t.1).collect();
        assert_eq!(wide, ["1", "10", "100", "1000"]);
    }
}
