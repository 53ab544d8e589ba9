//! Data verification as fio 3.33 does it: each written block carries, at
//! every `verify_interval` bytes, fio's 40-byte verify header (magic
//! 0xacca, verify type, length, random seed, offset, time, thread, write
//! number, CRC-32C of the header) followed by a checksum of the rest of the
//! interval; a verify pass reads the blocks back and checks them. The
//! on-disk layout is fio's, so either program can check what the other
//! wrote.
//!
//! Nothing here runs unless a job sets `verify`: the job loop only calls in
//! for jobs that verify.

pub mod checksum;
mod dump;
pub mod pattern;
pub mod state;

use checksum::Checksum;
use pattern::DataPattern;

/// fio's FIO_HDR_MAGIC.
const MAGIC: u16 = 0xacca;
/// Bytes of fio's struct verify_header.
pub const HEADER_LEN: usize = 40;
/// Where the header's own CRC-32C sits (it covers the bytes before it).
const HEADER_CRC_AT: usize = 36;

/// What a verify pass checks in each interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Header, then a checksum of the rest.
    Checksum(Checksum),
    /// `verify=meta`: the header alone (and the pattern if one is set).
    HeaderOnly,
    /// `verify_pattern` without `verify`: header, then the pattern.
    HeaderAndPattern,
    /// `verify=pattern`: the pattern alone, no header.
    PatternOnly,
    /// `verify=null`: reads the data back, checks nothing.
    Null,
}

impl Method {
    /// The number fio stores in the header's `verify_type`.
    fn number(self) -> u16 {
        match self {
            Method::Checksum(c) => c as u16,
            Method::HeaderOnly => 1,
            Method::HeaderAndPattern => 17,
            Method::PatternOnly => 18,
            Method::Null => 19,
        }
    }

    /// Bytes at the start of each interval that hold the header and the
    /// checksum field (fio's hdr_size).
    pub fn header_size(self) -> usize {
        match self {
            Method::Checksum(c) => HEADER_LEN + c.field_len(),
            Method::HeaderOnly | Method::HeaderAndPattern => HEADER_LEN,
            Method::PatternOnly | Method::Null => 0,
        }
    }
}

/// A job's verify settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySpec {
    pub method: Method,
    /// Bytes between headers (fio's verify_interval after its fix-ups).
    pub interval: usize,
    /// Where in each interval the header is stored (verify_offset).
    pub header_at: usize,
    pub pattern: Option<DataPattern>,
    /// Stop checking a block at its first bad interval (verify_fatal).
    pub fatal: bool,
    /// Run the read-back pass (do_verify).
    pub read_back: bool,
    /// Write nothing; only check (verify_only).
    pub only: bool,
    /// Check written blocks after every this many writes (verify_backlog),
    /// this many at a time (verify_backlog_batch).
    pub backlog: u64,
    pub backlog_batch: u64,
    /// Compare the header's write number with the one logged
    /// (fio does for fixed-size writes of a job that is not time based).
    pub check_numberio: bool,
    /// The job's number, stored in each header.
    pub thread: u16,
    /// Save a failing interval, read and expected, to files (verify_dump).
    pub dump: bool,
    /// Where those files, and verify state files, go (fio's
    /// `--aux-path`); the working directory when unset.
    pub dump_dir: Option<std::path::PathBuf>,
    /// verify_state_save: write fio's state file when the writes end.
    pub state_save: bool,
    /// verify_state_load: the state a previous run saved, read before the
    /// job starts; checking stops where its writes stopped.
    pub loaded: Option<std::sync::Arc<state::VerifyState>>,
    /// experimental_verify: the pass replays the loop's writes in the
    /// order they were issued, every one of them (fio resets its
    /// generators and draws the same I/Os again, turning writes into
    /// reads), instead of checking a log that keeps only each block's
    /// latest write.
    pub replay: bool,
    /// verify_async: helper threads that do the checking, and the CPUs
    /// they may run on (verify_async_cpus).
    pub offload_threads: usize,
    pub offload_cpus: Option<Vec<usize>>,
}

/// What a written block was stamped with, kept for its read-back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub numberio: u16,
}

/// What a written block's headers record of it: where it is, the seed
/// of its random bytes, its write number and when it was written.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub offset: u64,
    pub seed: u64,
    pub numberio: u16,
    pub now: (u32, u32),
}

/// The block a verify read is checking.
pub struct Block<'a> {
    pub file_name: &'a str,
    pub offset: u64,
    pub numberio: u16,
    /// Whether the read came from the log of writes (fio flags such an
    /// I/O IO_U_F_VER_LIST, which its failure report shows).
    pub logged: bool,
    /// Whether a verify_async helper checks it (fio's report then shows
    /// IO_U_F_NO_FILE_PUT in place of IO_U_F_IN_CUR_DEPTH).
    pub offloaded: bool,
    /// The random seed the headers must hold, when fio compares it: a job
    /// that reads and writes without verify_backlog expects each block of
    /// its pass to hold the next draw of its reseeded generator (fio
    /// otherwise takes the seed from the header).
    pub seed: Option<u64>,
}

impl VerifySpec {
    /// The distance between headers in a block of `len` bytes.
    fn step(&self, len: usize) -> usize {
        if self.interval > 0 && self.interval <= len {
            self.interval
        } else {
            len
        }
    }

    /// Fills a write buffer for the block `stamp` describes: pattern or
    /// random bytes from its seed, then a header and checksum at every
    /// interval. `scratch` holds the pattern for the block between calls.
    pub fn fill(&self, buf: &mut [u8], stamp: &Stamp, scratch: &mut Vec<u8>) {
        self.fill_as(buf, stamp, scratch, true);
    }

    /// `fill`, with the headers moved to `verify_offset` or, for the
    /// expected copy of a dump, left where fio regenerates them (at the
    /// start of each interval, as a read block is once swapped back).
    fn fill_as(&self, buf: &mut [u8], stamp: &Stamp, scratch: &mut Vec<u8>, swap: bool) {
        let Stamp {
            offset,
            seed,
            numberio,
            now,
        } = *stamp;
        match &self.pattern {
            Some(p) => {
                p.for_block(offset, scratch);
                pattern::repeat_into(scratch, buf);
            }
            None => fill_from_seed(buf, seed),
        }
        let size = self.method.header_size();
        if size == 0 {
            return;
        }
        let step = self.step(buf.len());
        for (n, chunk) in buf.chunks_mut(step).enumerate() {
            if chunk.len() <= size {
                break;
            }
            let header = Header {
                magic: MAGIC,
                verify_type: self.method.number(),
                len: step as u32,
                rand_seed: seed,
                offset: offset + (n * self.interval) as u64,
                time_sec: now.0,
                time_nsec: now.1,
                thread: self.thread,
                numberio,
            };
            header.write(&mut chunk[..HEADER_LEN]);
            if let Method::Checksum(c) = self.method {
                let (head, data) = chunk.split_at_mut(size);
                c.fill(data, &mut head[HEADER_LEN..]);
            }
            if swap && self.header_at > 0 && self.header_at + size <= chunk.len() {
                swap_header(chunk, self.header_at, size);
            }
        }
    }

    /// Checks a block read back; on a mismatch returns fio's report of it
    /// (the lines fio writes to stderr). As in fio, a block's verdict is
    /// its last interval's: a bad interval followed by good ones is only
    /// reported, through `superseded`, and does not fail the block
    /// (unless `fatal` stops at it).
    pub fn check(
        &self,
        buf: &mut [u8],
        block: &Block<'_>,
        scratch: &mut Vec<u8>,
        superseded: &mut dyn FnMut(String),
    ) -> Result<(), String> {
        if self.method == Method::Null {
            return Ok(());
        }
        let size = self.method.header_size();
        let step = self.step(buf.len());
        let block_len = buf.len();
        let mut outcome = Ok(());
        for (n, chunk) in buf.chunks_mut(step).enumerate() {
            if self.fatal && outcome.is_err() {
                break;
            }
            if let Err(text) = std::mem::replace(&mut outcome, Ok(())) {
                superseded(text);
            }
            if self.header_at > 0 && size > 0 && self.header_at + size <= chunk.len() {
                swap_header(chunk, self.header_at, size);
            }
            let at = block.offset + (n * step) as u64;
            let whereabouts = format!(
                " at file {} offset {at}, length {step} (requested block: offset={}, length={block_len})",
                block.file_name, block.offset
            );
            if size > 0 {
                let wanted_offset = block.offset + (n * self.interval) as u64;
                let numberio = self.check_numberio.then_some(block.numberio);
                let wanted = Wanted {
                    len: step as u32,
                    seed: block.seed,
                    offset: wanted_offset,
                    block_offset: block.offset,
                    numberio,
                };
                if let Err(what) = check_header(chunk, &wanted) {
                    let mut text = format!("{what}{whereabouts}");
                    if self.dump {
                        text.push('\n');
                        text.push_str(&self.save(block.file_name, at, "hdr_fail", chunk));
                    }
                    return Err(text);
                }
            }
            // fio reports a failure with the length and type the header
            // claims, read from the data even where there is no header.
            let field = |i: usize, n: usize| {
                chunk.get(i..i + n).map_or(0, |b| {
                    b.iter().rev().fold(0u32, |v, &x| (v << 8) | u32::from(x))
                })
            };
            let (media_type, media_len) = (field(2, 2), field(4, 4));
            // fio's IO_U_F_IN_CUR_DEPTH (IO_U_F_NO_FILE_PUT in a helper),
            // and IO_U_F_VER_LIST for logged blocks.
            let flags =
                if block.logged { 0x80 } else { 0 } | if block.offloaded { 0x04 } else { 0x08 };
            let failed = |name: &str, lines: String, crcs: String| {
                let mut text = lines;
                let shown_at = block.offset + u64::from((n as u32).wrapping_mul(media_len));
                text.push_str(&format!(
                    "{name:.8}: verify failed at file {} offset {shown_at}, length {media_len} (requested block: offset={}, length={block_len}, flags={:x})",
                    block.file_name, block.offset, flags
                ));
                text.push_str(&crcs);
                text
            };
            outcome = match self.method {
                Method::Checksum(c) => {
                    let (head, data) = chunk.split_at_mut(size);
                    let stored = &head[HEADER_LEN..];
                    // The field as fio would compute it over what was read;
                    // fields fio only partly overwrites start from the stored one.
                    scratch.clear();
                    scratch.extend_from_slice(stored);
                    c.fill(data, scratch);
                    if scratch[..] == *stored {
                        Ok(())
                    } else {
                        let crcs = format!(
                            "\n       Expected CRC: {}\n       Received CRC: {}",
                            hex(stored),
                            hex(scratch)
                        );
                        Err(failed(c.name(), String::new(), crcs))
                    }
                }
                Method::HeaderOnly | Method::HeaderAndPattern | Method::PatternOnly => {
                    match &self.pattern {
                        Some(p) => self
                            .check_pattern(p, chunk, n * step, block.offset, scratch)
                            .map_err(|lines| failed("pattern", lines, String::new())),
                        None => Ok(()),
                    }
                }
                Method::Null => Ok(()),
            };
            if let Err(text) = &mut outcome {
                if self.dump {
                    self.dump_interval(text, chunk, n, block, block_len);
                }
                let given = u32::from(self.method.number());
                if media_type != given {
                    text.push_str(&format!(
                        "\nfio: verify type mismatch ({media_type} media, {given} given)"
                    ));
                }
            }
        }
        outcome
    }

    /// verify_dump for a bad interval `n` (`chunk`, as read): saves it and
    /// the interval regenerated from the random seed its header holds, as
    /// fio does, and adds fio's lines about both to `text`. Without a
    /// header (verify=pattern) fio treats the whole block as the interval.
    fn dump_interval(
        &self,
        text: &mut String,
        chunk: &[u8],
        n: usize,
        block: &Block<'_>,
        block_len: usize,
    ) {
        let headed = self.method.header_size() > 0;
        let seed = match chunk.get(8..16) {
            Some(b) if headed => u64::from_le_bytes(b.try_into().unwrap_or_default()),
            _ => 0,
        };
        let at = block.offset + (n * chunk.len()) as u64;
        text.push('\n');
        text.push_str(&self.save(block.file_name, at, "received", chunk));
        // The whole block is regenerated, as the interval's bytes depend
        // on where it sits in the block's random or pattern stream.
        let mut want = vec![0u8; block_len];
        let mut pattern = Vec::new();
        let stamp = Stamp {
            offset: block.offset,
            seed,
            numberio: block.numberio,
            now: now(),
        };
        self.fill_as(&mut want, &stamp, &mut pattern, false);
        let from = (n * chunk.len()).min(block_len);
        let to = (from + chunk.len()).min(block_len);
        text.push('\n');
        text.push_str(&self.save(block.file_name, at, "expected", &want[from..to]));
    }

    fn save(&self, file_name: &str, at: u64, kind: &str, bytes: &[u8]) -> String {
        dump::save(self.dump_dir.as_deref(), file_name, at, kind, bytes)
    }

    /// Compares the part of an interval after its header with the pattern,
    /// which runs on from the start of the block.
    fn check_pattern(
        &self,
        p: &DataPattern,
        chunk: &[u8],
        chunk_at: usize,
        offset: u64,
        scratch: &mut Vec<u8>,
    ) -> Result<(), String> {
        p.for_block(offset, scratch);
        let size = self.method.header_size();
        let data = &chunk[size.min(chunk.len())..];
        let start = chunk_at + size;
        for (i, &got) in data.iter().enumerate() {
            let wanted = scratch[(start + i) % scratch.len()];
            if got != wanted {
                return Err(format!(
                    "fio: got pattern '{got:02x}', wanted '{wanted:02x}'. Bad bits {}\nfio: bad pattern block offset {i}\n",
                    (got ^ wanted).count_ones()
                ));
            }
        }
        Ok(())
    }
}

/// fio's 64-bit golden-ratio multiplier (its __hash_u64).
const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;
/// The seed streams fio's Debian build interleaves (CONFIG_SEED_BUCKETS).
const SEED_BUCKETS: usize = 4;
/// The multipliers that start each stream from the header's seed.
const BUCKET_PRIMES: [u64; SEED_BUCKETS] = [1, 2, 3, 5];

/// The random data fio writes behind verify headers for a seed (its
/// __fill_random_buf): interleaved multiplicative streams, one word per
/// stream in turn, the tail from the first stream. Using fio's stream
/// makes a block's data a function of the seed its header stores, so a
/// dump's expected copy can be regenerated from the header, whichever
/// program wrote the block.
fn fill_from_seed(buf: &mut [u8], seed: u64) {
    let mut streams = BUCKET_PRIMES.map(|p| seed.wrapping_mul(p));
    let whole = buf.len() / (8 * SEED_BUCKETS) * (8 * SEED_BUCKETS);
    let (head, tail) = buf.split_at_mut(whole);
    for group in head.chunks_exact_mut(8 * SEED_BUCKETS) {
        for (word, s) in group.chunks_exact_mut(8).zip(streams.iter_mut()) {
            word.copy_from_slice(&s.to_ne_bytes());
            *s = s.wrapping_mul(GOLDEN_RATIO_64);
        }
    }
    let mut s = streams[0];
    for word in tail.chunks_mut(8) {
        let n = word.len();
        word.copy_from_slice(&s.to_ne_bytes()[..n]);
        s = s.wrapping_mul(GOLDEN_RATIO_64);
    }
}

/// Moves the header to (or back from) `at` in its interval.
fn swap_header(chunk: &mut [u8], at: usize, size: usize) {
    let (head, rest) = chunk.split_at_mut(at);
    if at >= size {
        head[..size].swap_with_slice(&mut rest[..size]);
    } else {
        // Overlapping ranges: fio swaps through a copy.
        let first: Vec<u8> = chunk[..size].to_vec();
        let second: Vec<u8> = chunk[at..at + size].to_vec();
        chunk[..size].copy_from_slice(&second);
        chunk[at..at + size].copy_from_slice(&first);
    }
}

/// The wall-clock time stored in headers (fio stores the I/O's start).
pub fn now() -> (u32, u32) {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (t.as_secs() as u32, t.subsec_nanos())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// fio's struct verify_header, little-endian on disk.
struct Header {
    magic: u16,
    verify_type: u16,
    len: u32,
    rand_seed: u64,
    offset: u64,
    time_sec: u32,
    time_nsec: u32,
    thread: u16,
    numberio: u16,
}

impl Header {
    fn write(&self, out: &mut [u8]) {
        out[0..2].copy_from_slice(&self.magic.to_le_bytes());
        out[2..4].copy_from_slice(&self.verify_type.to_le_bytes());
        out[4..8].copy_from_slice(&self.len.to_le_bytes());
        out[8..16].copy_from_slice(&self.rand_seed.to_le_bytes());
        out[16..24].copy_from_slice(&self.offset.to_le_bytes());
        out[24..28].copy_from_slice(&self.time_sec.to_le_bytes());
        out[28..32].copy_from_slice(&self.time_nsec.to_le_bytes());
        out[32..34].copy_from_slice(&self.thread.to_le_bytes());
        out[34..36].copy_from_slice(&self.numberio.to_le_bytes());
        let crc = checksum::crc32c(&out[..HEADER_CRC_AT]);
        out[36..40].copy_from_slice(&crc.to_le_bytes());
    }
}

/// What an interval's header must say.
struct Wanted {
    len: u32,
    /// Compared only when fio compares it (see `Block::seed`).
    seed: Option<u64>,
    offset: u64,
    /// The block's own offset, which fio names as the one wanted.
    block_offset: u64,
    /// Compared only when asked.
    numberio: Option<u16>,
}

/// Checks an interval's header as fio's verify_header does, in its order:
/// magic, length, random seed (when compared), offset, write number (when
/// asked), then the header's CRC.
fn check_header(b: &[u8], wanted: &Wanted) -> Result<(), String> {
    let Wanted {
        len,
        seed,
        offset,
        block_offset,
        numberio,
    } = *wanted;
    let mut h = [0u8; HEADER_LEN];
    let n = b.len().min(HEADER_LEN);
    h[..n].copy_from_slice(&b[..n]);
    let u16_at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    let u64_at = |i: usize| (u64::from(u32_at(i + 4)) << 32) | u64::from(u32_at(i));
    if u16_at(0) != MAGIC {
        return Err(format!(
            "verify: bad magic header {:x}, wanted {MAGIC:x}",
            u16_at(0)
        ));
    }
    // The decimal fields in fio's order: name, what the header holds, and
    // (when compared) what it must hold with what fio prints as wanted.
    let fields = [
        (
            "length",
            u64::from(u32_at(4)),
            Some((len.into(), len.into())),
        ),
        ("rand_seed", u64_at(8), seed.map(|s| (s, s))),
        // fio names the block's offset as the one wanted.
        ("offset", u64_at(16), Some((offset, block_offset))),
        (
            "numberio",
            u16_at(34).into(),
            numberio.map(|n| (n.into(), n.into())),
        ),
    ];
    for (name, held, wanted) in fields {
        if let Some((must, shown)) = wanted
            && held != must
        {
            return Err(format!("verify: bad header {name} {held}, wanted {shown}"));
        }
    }
    let crc = checksum::crc32c(&h[..HEADER_CRC_AT]);
    if u32_at(HEADER_CRC_AT) != crc {
        return Err(format!(
            "verify: bad header crc {:x}, calculated {crc:x}",
            u32_at(HEADER_CRC_AT)
        ));
    }
    Ok(())
}
