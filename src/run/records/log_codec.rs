//! fio's compressed logs (log_compression, log_store_compressed,
//! `--inflate-log`). fio does not compress the text of a log: it deflates
//! its in-memory samples, fixed-size little-endian records, into zlib
//! streams, one per batch of samples, and turns them into text only when
//! it writes the log (or when `--inflate-log` reads a stored `.fz` file).
//! To be read by fio, and to read fio's `.fz` files, ferrio keeps the same
//! records and the same stream-after-stream layout.

use std::fmt::Write as _;
use std::io::{self, Read, Write};

/// A record's flag bits, kept in its direction word: an offset follows
/// the record, and the priority is written out in full.
const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;

/// Record sizes: time, value, direction word, priority (and padding),
/// block size; plus the offset when the log has offsets.
const RECORD: usize = 32;
const RECORD_WITH_OFFSET: usize = 40;

/// One log entry, as a record is built from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub time_ms: u64,
    pub value: u64,
    pub dir: u8,
    pub bs: u64,
    pub offset: u64,
    pub prio: u16,
}

/// How a log's records look: with or without offsets, and with the
/// priority in full or only as "real-time or not".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    pub offset: bool,
    pub prio: bool,
}

impl Layout {
    fn size(self) -> usize {
        if self.offset {
            RECORD_WITH_OFFSET
        } else {
            RECORD
        }
    }

    /// The records of `samples`, `epoch_ms` added to their time stamps
    /// (fio stores them so).
    pub fn records(self, samples: &[Sample], epoch_ms: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(samples.len() * self.size());
        for s in samples {
            let stamped = Sample {
                time_ms: s.time_ms + epoch_ms,
                ..*s
            };
            self.encode(&stamped, &mut out);
        }
        out
    }

    /// Appends one sample's record to `out`.
    pub fn encode(self, s: &Sample, out: &mut Vec<u8>) {
        let mut word = u32::from(s.dir);
        if self.offset {
            word |= OFFSET_BIT;
        }
        if self.prio {
            word |= PRIO_BIT;
        }
        out.extend_from_slice(&s.time_ms.to_le_bytes());
        out.extend_from_slice(&s.value.to_le_bytes());
        out.extend_from_slice(&word.to_le_bytes());
        out.extend_from_slice(&s.prio.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&s.bs.to_le_bytes());
        if self.offset {
            out.extend_from_slice(&s.offset.to_le_bytes());
        }
    }
}

/// Appends one log line in fio's format: `time, value, dir, bs, [offset,]
/// prio`. Without log_prio the last field only tells whether the
/// priority class is real-time; the value is printed signed, as fio does.
pub fn line(out: &mut String, s: &Sample, layout: Layout) {
    let _ = write!(
        out,
        "{}, {}, {}, {}, ",
        s.time_ms, s.value as i64, s.dir, s.bs
    );
    if layout.offset {
        let _ = write!(out, "{}, ", s.offset);
    }
    if layout.prio {
        let _ = writeln!(out, "0x{:04x}", s.prio);
    } else {
        let rt = crate::sys::sched::class_and_level(s.prio).0 == 1;
        out.push_str(if rt { "1\n" } else { "0\n" });
    }
}

/// The text of one stream's records: the first record's flag bits decide
/// the layout of all, and a partial record at the end is left out.
pub fn records_text(records: &[u8], out: &mut String) {
    let u64_at = |r: &[u8], at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
    if records.len() < 20 {
        return;
    }
    let word = u32::from_le_bytes(records[16..20].try_into().unwrap());
    let layout = Layout {
        offset: word & OFFSET_BIT != 0,
        prio: word & PRIO_BIT != 0,
    };
    for r in records.chunks_exact(layout.size()) {
        let word = u32::from_le_bytes(r[16..20].try_into().unwrap());
        let sample = Sample {
            time_ms: u64_at(r, 0),
            value: u64_at(r, 8),
            dir: (word & !(OFFSET_BIT | PRIO_BIT)) as u8,
            prio: u16::from_le_bytes(r[20..22].try_into().unwrap()),
            bs: u64_at(r, 24),
            offset: if layout.offset { u64_at(r, 32) } else { 0 },
        };
        line(out, &sample, layout);
    }
}

/// Deflates a batch of records into one zlib stream (fio's default
/// compression level).
pub fn deflate(records: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(records.len() / 4 + 64),
        flate2::Compression::default(),
    );
    // Writing into a Vec cannot fail.
    let _ = z.write_all(records);
    z.finish().unwrap_or_default()
}

/// How reading a stored log ended badly: zlib's "data error", which fio
/// reports by its number and exits with.
const Z_DATA_ERROR: i32 = -3;

/// Inflates one zlib stream from the start of `data` into `out`; returns
/// the bytes it took. A stream cut short simply ends where the input
/// does, as in fio.
fn inflate_zlib(data: &[u8], out: &mut Vec<u8>) -> Result<usize, i32> {
    let mut z = flate2::Decompress::new(true);
    loop {
        if out.capacity() - out.len() < 64 * 1024 {
            out.reserve(256 * 1024);
        }
        let taken = z.total_in() as usize;
        let made = z.total_out();
        let status = z
            .decompress_vec(&data[taken..], out, flate2::FlushDecompress::None)
            .map_err(|_| Z_DATA_ERROR)?;
        let taken_now = z.total_in() as usize;
        if status == flate2::Status::StreamEnd || taken_now == data.len() {
            return Ok(taken_now);
        }
        if taken_now == taken && z.total_out() == made {
            return Err(Z_DATA_ERROR);
        }
    }
}

/// Inflates one gzip member (fio reads those too, though it writes
/// none).
fn inflate_gzip(mut data: &[u8], out: &mut Vec<u8>) -> Result<usize, i32> {
    let before = data.len();
    let read = flate2::bufread::GzDecoder::new(&mut data).read_to_end(out);
    match read {
        Ok(_) => Ok(before - data.len()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(before),
        Err(_) => Err(Z_DATA_ERROR),
    }
}

/// Inflates the streams of a stored log, one after the other, into text
/// (each stream's records decoded on their own, as fio does). Decoding
/// stops at the first damaged stream: the text so far is kept and zlib's
/// error number returned beside it.
pub fn inflate_streams(mut data: &[u8]) -> (String, Option<i32>) {
    let mut text = String::new();
    let mut records = Vec::new();
    while !data.is_empty() {
        records.clear();
        let taken = if data.starts_with(&[0x1f, 0x8b]) {
            inflate_gzip(data, &mut records)
        } else {
            inflate_zlib(data, &mut records)
        };
        records_text(&records, &mut text);
        match taken {
            Ok(0) => break,
            Ok(n) => data = &data[n..],
            Err(code) => return (text, Some(code)),
        }
    }
    (text, None)
}

/// ferrio's `--inflate-log=FILE`: the log's text on stdout, and fio's
/// exit status (1 when the file cannot be read; zlib's error number as
/// fio exits with it when a stream is damaged).
pub fn inflate_file(path: &str) -> i32 {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fopen: {}", crate::strerror(&e));
            return 1;
        }
    };
    let mut data = Vec::new();
    if let Err(e) = file.read_to_end(&mut data) {
        eprintln!("fread: {}", crate::strerror(&e));
        return 1;
    }
    // fio reads the file in one piece and takes nothing as a short read.
    if data.is_empty() {
        eprintln!("fio: short read on reading log");
        return 1;
    }
    let (text, error) = inflate_streams(&data);
    let mut stdout = io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    match error {
        Some(code) => {
            eprintln!("fio: failed inflating log: {code}");
            code & 0xff
        }
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: u64) -> Sample {
        Sample {
            time_ms: i,
            value: 1000 + i,
            dir: (i % 2) as u8,
            bs: 4096,
            offset: i * 4096,
            prio: 0x2004,
        }
    }

    #[test]
    fn records_round_trip_through_streams() {
        for layout in [
            Layout::default(),
            Layout {
                offset: true,
                prio: true,
            },
        ] {
            let mut expected = String::new();
            let mut file = Vec::new();
            for batch in 0..3 {
                let mut records = Vec::new();
                for i in batch * 10..batch * 10 + 10 {
                    layout.encode(&sample(i), &mut records);
                    line(&mut expected, &sample(i), layout);
                }
                assert_eq!(records.len(), 10 * layout.size());
                file.extend(deflate(&records));
            }
            let (text, err) = inflate_streams(&file);
            assert!(err.is_none());
            assert_eq!(text, expected);
        }
    }

    #[test]
    fn a_stream_cut_short_gives_its_whole_records() {
        let mut records = Vec::new();
        let mut expected = String::new();
        for i in 0..2000 {
            Layout::default().encode(&sample(i), &mut records);
            line(&mut expected, &sample(i), Layout::default());
        }
        let file = deflate(&records);
        let (text, err) = inflate_streams(&file[..file.len() / 2]);
        assert!(err.is_none());
        assert!(!text.is_empty() && expected.starts_with(&text));
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn an_empty_stream_adds_nothing() {
        let (text, err) = inflate_streams(&deflate(&[]));
        assert!(err.is_none());
        assert_eq!(text, "");
    }

    #[test]
    fn damage_keeps_the_text_before_it() {
        let mut records = Vec::new();
        Layout::default().encode(&sample(1), &mut records);
        let mut file = deflate(&records);
        file.extend_from_slice(b"not a stream");
        let (text, err) = inflate_streams(&file);
        assert_eq!(err, Some(-3));
        let mut expected = String::new();
        line(&mut expected, &sample(1), Layout::default());
        assert_eq!(text, expected);
    }
}
