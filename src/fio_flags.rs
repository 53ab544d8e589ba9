//! fio's command-line flags that act on their own, before any job is
//! read, taken in command-line order as fio's getopt loop takes them:
//! the speed tests, `--debug`, `--alloc-size` and `--idle-prof`.

use crate::cli::Args;

/// fio 3.33's debug areas, in its order (`all` is added when listed).
const DEBUG_AREAS: &[&str] = &[
    "process",
    "file",
    "io",
    "mem",
    "blktrace",
    "verify",
    "random",
    "parse",
    "diskutil",
    "job",
    "mutex",
    "profile",
    "time",
    "net",
    "rate",
    "compress",
    "steadystate",
    "helperthread",
    "zbd",
];

/// Acts on those flags; `Some(status)` when ferrio is to exit now.
pub fn act(args: &Args) -> Option<i32> {
    args.flags.iter().find_map(|(name, value)| {
        let value = value.as_deref();
        match name.as_str() {
            "debug" => debug(value.unwrap_or_default()),
            "alloc-size" => alloc_size(value.unwrap_or_default()),
            "idle-prof" => Some(idle_prof(value.unwrap_or_default())),
            "crctest" => Some(crate::selftest::crc::run(value)),
            "memcpytest" => Some(crate::selftest::memcpy::run(value)),
            "cpuclock-test" => {
                eprintln!(
                    "ferrio: --cpuclock-test (fio's check of the CPU's time stamp counter) \
                     is not supported; ferrio's clocksource=cpu reads that counter only \
                     where the kernel keeps time with it (see \
                     /sys/devices/system/clocksource/clocksource0/current_clocksource), \
                     and CLOCK_MONOTONIC elsewhere"
                );
                Some(1)
            }
            _ => None,
        }
    })
}

/// `--debug=LIST`. fio lists its areas for `help`; it names each word of
/// the list it does not know, and goes on. `parse` turns on fio's trace
/// of the job files and options read (see parse_trace.rs), which fio's
/// tests and scripts read. Any other area (or `all`) would turn on fio's
/// traces of the run, which ferrio does not have: that is refused.
/// `job:N` only chooses whose traces are shown, so on its own it is
/// accepted as fio accepts it.
fn debug(list: &str) -> Option<i32> {
    if list == "?" || list == "help" {
        println!("fio: dumping debug options:{},all", DEBUG_AREAS.join(","));
        return Some(0);
    }
    let mut traced = Vec::new();
    for word in list.split(',') {
        if word.starts_with("all") {
            traced.push(word);
            continue;
        }
        match DEBUG_AREAS.iter().find(|area| word.starts_with(*area)) {
            Some(&"job") => match word.split_once(':') {
                Some((_, n)) => println!("fio: set debug jobno {}", c_atoi(n)),
                None => eprintln!("fio: missing job number"),
            },
            Some(&"parse") => {
                println!("fio: set debug option parse");
                crate::parse_trace::enable();
            }
            Some(_) => traced.push(word),
            None => eprintln!("fio: debug mask {word} not found"),
        }
    }
    if traced.is_empty() {
        return None;
    }
    eprintln!(
        "ferrio: --debug={}: ferrio traces only the parse area (--debug=parse); to see \
         what a job does, use \
         --explain (the plan, with where each value came from), write_iolog=FILE (every \
         I/O issued) or write_lat_log=NAME with log_offset=1 (each I/O's offset and latency)",
        traced.join(",")
    );
    Some(1)
}

/// `--alloc-size=KiB`: the size of fio's shared memory pool. ferrio has no
/// such pool, so the value changes nothing; but fio reads it as C's atoi,
/// in 32 bits, and the sizes whose arithmetic wraps past 4 GiB make it
/// abort or crash, so ferrio refuses those rather than run what fio cannot.
fn alloc_size(value: &str) -> Option<i32> {
    let bytes = (c_atoi(value) as u32) << 10;
    // fio's pool adds a 20-byte header and red zone, takes at least
    // 16 MiB, rounds up to 1 KiB blocks and adds 4 bytes per block.
    let sized = bytes.wrapping_add(20).max(16 << 20);
    let rounded = ((u64::from(sized) + 1023) & !1023) as u32;
    let total = u64::from(rounded) + u64::from(rounded / 1024) * 4;
    if rounded != 0 && total <= u64::from(u32::MAX) {
        return None;
    }
    eprintln!(
        "ferrio: --alloc-size={value}: fio 3.33 cannot allocate a pool of this size \
         (its size wraps past 4 GiB and fio crashes); expected at most 4177982 (KiB). \
         ferrio itself has no such pool"
    );
    Some(1)
}

/// `--idle-prof=system|percpu|calibrate`: refused, as ferrio does not
/// measure CPU idleness; any other value gets fio's error.
fn idle_prof(value: &str) -> i32 {
    match value {
        "system" | "percpu" | "calibrate" => eprintln!(
            "ferrio: --idle-prof={value} (fio's CPU idleness profiling) is not supported; \
             each job's cpu line (usr/sys, context switches) is reported as fio reports it"
        ),
        _ => eprintln!("fio: incorrect idle-prof option: {value}"),
    }
    1
}

/// C's `atoi` as glibc computes it: `strtol`'s value, saturated to 64
/// bits, then cut to an `int`.
fn c_atoi(text: &str) -> i32 {
    let t = text.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let limit = i128::from(i64::MAX) + 1;
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i128, |v, d| (v * 10 + i128::from(d - b'0')).min(limit));
    let value = if negative { -magnitude } else { magnitude };
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64 as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_reads_as_glibc_does() {
        assert_eq!(c_atoi(" 12abc"), 12);
        assert_eq!(c_atoi("+3"), 3);
        assert_eq!(c_atoi("-5"), -5);
        assert_eq!(c_atoi("abc"), 0);
        // strtol's 64-bit value, cut to 32 bits.
        assert_eq!(c_atoi("99999999999"), 99_999_999_999i64 as i32);
        assert_eq!(c_atoi("99999999999999999999"), -1);
    }

    #[test]
    fn alloc_sizes_fio_cannot_allocate_are_refused() {
        // Values fio 3.33 was seen to run with, and to abort or crash on.
        for ok in [
            "0",
            "abc",
            "1",
            "8k",
            "3000000",
            "4177982",
            "4194304",
            "-4194304",
            "99999999999",
        ] {
            assert_eq!(alloc_size(ok), None, "{ok}");
        }
        for bad in ["-1", "-2", "-5", "-100", "4177983", "4194303", "2147483647"] {
            assert_eq!(alloc_size(bad), Some(1), "{bad}");
        }
    }
}
