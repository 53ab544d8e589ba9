//! Runs spread over many hosts without a coordinator of ferrio's own: an
//! existing launcher (pdsh/ssh, `mpirun`, Slurm's `srun`, a Kubernetes
//! indexed Job) starts one ferrio per host; each reads its rank from the
//! launcher's environment, waits for a common wall-clock instant
//! (`--start-at`), and writes its own JSON, which `ferrio merge` combines.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where launchers put the instance's rank, in the order they are read:
/// ferrio's own (for ssh loops), Open MPI, MPICH/PMI, Slurm, Kubernetes
/// indexed Jobs.
pub const RANK_VARIABLES: [&str; 5] = [
    "FERRIO_RANK",
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "SLURM_PROCID",
    "JOB_COMPLETION_INDEX",
];

/// The rank from the first of [`RANK_VARIABLES`] that `lookup` finds;
/// 0 when none is set.
pub fn rank_from(lookup: impl Fn(&str) -> Option<String>) -> Result<u64, String> {
    for name in RANK_VARIABLES {
        if let Some(value) = lookup(name) {
            return value.trim().parse().map_err(|_| {
                format!("{name}={value}: expected a whole number (the launcher's rank)")
            });
        }
    }
    Ok(0)
}

/// This process's rank (see [`rank_from`]).
pub fn rank() -> Result<u64, String> {
    rank_from(|name| std::env::var(name).ok())
}

/// Reads `--start-at`: Unix time in seconds, fractions allowed.
pub fn parse_start_at(text: &str) -> Result<SystemTime, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| {
            format!(
                "--start-at={text}: expected a Unix time in seconds, e.g. $(date -d '+10 sec' +%s.%N)"
            )
        })?;
    Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| UNIX_EPOCH.checked_add(d))
        .ok_or_else(|| format!("--start-at={text}: the time is out of range"))
}

/// Sleeps until the wall clock reaches `at` (at once for a past instant)
/// or a stop signal comes. Sleeps are cut short near the end so that a
/// late wake-up of the scheduler does not delay the start.
pub fn wait_until(at: SystemTime) {
    while let Ok(left) = at.duration_since(SystemTime::now()) {
        if left.is_zero() {
            break;
        }
        let nap = if left > Duration::from_millis(5) {
            left - Duration::from_millis(2)
        } else {
            left.min(Duration::from_micros(200))
        };
        if !crate::sys::signals::sleep_or_stop(nap, || false) {
            break;
        }
    }
}

/// When this process's jobs began (after any `--start-at` wait).
static STARTED: OnceLock<SystemTime> = OnceLock::new();

/// Records that the jobs begin now.
pub fn mark_started() {
    let _ = STARTED.set(SystemTime::now());
}

/// Milliseconds since the Unix epoch at which the jobs began (0 before).
pub fn started_ms() -> u64 {
    STARTED
        .get()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}

/// This host's name, as the kernel holds it (empty when unreadable).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_rank_variable_found_wins() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(rank_from(env(&[])), Ok(0));
        assert_eq!(rank_from(env(&[("SLURM_PROCID", "7")])), Ok(7));
        assert_eq!(
            rank_from(env(&[("SLURM_PROCID", "7"), ("OMPI_COMM_WORLD_RANK", "2")])),
            Ok(2)
        );
        assert_eq!(rank_from(env(&[("JOB_COMPLETION_INDEX", "3")])), Ok(3));
        assert!(
            rank_from(env(&[("PMI_RANK", "x")]))
                .unwrap_err()
                .contains("PMI_RANK=x")
        );
    }

    #[test]
    fn start_at_takes_fractional_unix_seconds() {
        let t = parse_start_at("1700000000.25").unwrap();
        assert_eq!(
            t.duration_since(UNIX_EPOCH).unwrap(),
            Duration::from_millis(1_700_000_000_250)
        );
        for bad in ["", "soon", "-1", "inf", "NaN"] {
            assert!(parse_start_at(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_past_instant_does_not_wait() {
        let before = std::time::Instant::now();
        wait_until(UNIX_EPOCH);
        assert!(before.elapsed() < Duration::from_millis(100));
    }
}
