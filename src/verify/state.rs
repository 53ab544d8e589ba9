//! fio's verify state files (`verify_state_save`, `verify_state_load`).
//!
//! When a writing job that verifies ends, fio records how far its writes
//! got in `<prefix>-<job name>-<thread index>-verify.state`: how many
//! writes it issued and the offsets of the last `iodepth` writes that
//! completed. A later verify run that loads the file stops checking where
//! the writes stopped, so an interrupted write does not read as corrupt
//! data. The layout here is fio 3.33's, byte for byte (little-endian), so
//! either program can load the other's file:
//!
//! - a 24-byte header: format version 3, size of the rest, CRC-32C of it;
//! - fio's thread_io_list: completions listed, iodepth, number of files,
//!   writes issued, thread index, the random-offset generator's state,
//!   a 64-byte job name, then `iodepth * files` (file, offset) slots.

use std::path::{Path, PathBuf};

use super::checksum::crc32c;

/// fio's VSTATE_HDR_VERSION.
const VERSION: u64 = 3;
/// Bytes of the header (version, size, crc).
const HEADER_LEN: usize = 24;
/// Bytes of thread_io_list before its completion slots.
const LIST_LEN: usize = 152;
/// Bytes of the job name field (fio cuts a longer name to 63).
const NAME_LEN: usize = 64;
/// Bytes of one completion slot (file number, offset).
const COMP_LEN: usize = 16;

/// The random-offset generator's state as fio stores it: taus88's three
/// words, or taus258's five (`use64`). A job without random offsets never
/// seeds it, and stores zeros.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RandState {
    Narrow([u32; 3]),
    Wide([u64; 5]),
}

/// One job's verify state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyState {
    /// iodepth and the number of files, which size the slot area.
    pub depth: u32,
    pub files: u32,
    /// Writes issued (fio's io_issues for writes).
    pub issued: u64,
    /// The job's thread index (its number minus one).
    pub index: u64,
    pub rand: RandState,
    pub name: String,
    /// The (file number, offset) of the latest completed writes, newest
    /// first per file, as many as were listed.
    pub comps: Vec<(u64, u64)>,
}

/// Where fio keeps state files: `<aux_path>/local`, or `local` in the
/// working directory (the part before the job name).
pub fn prefix(aux_path: Option<&Path>) -> PathBuf {
    match aux_path {
        Some(dir) => dir.join("local"),
        None => PathBuf::from("local"),
    }
}

/// The file for job `name` at thread index `index`; fio turns each `/` of
/// the name into `.` so that the name stays one path component.
pub fn file_name(prefix: &Path, name: &str, index: u64) -> PathBuf {
    let name = name.replace('/', ".");
    let mut out = prefix.as_os_str().to_os_string();
    out.push(format!("-{name}-{index}-verify.state"));
    PathBuf::from(out)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl VerifyState {
    /// The file's bytes: header, then the list with every slot (unused
    /// slots zero, as fio's zeroed buffer leaves them).
    pub fn encode(&self) -> Vec<u8> {
        let slots = self.depth as usize * self.files as usize;
        let size = LIST_LEN + slots * COMP_LEN;
        let mut body = vec![0u8; size];
        let put = |b: &mut [u8], at: usize, v: &[u8]| b[at..at + v.len()].copy_from_slice(v);
        put(&mut body, 0, &(self.comps.len() as u64).to_le_bytes());
        put(&mut body, 8, &self.depth.to_le_bytes());
        put(&mut body, 12, &self.files.to_le_bytes());
        put(&mut body, 16, &self.issued.to_le_bytes());
        put(&mut body, 24, &self.index.to_le_bytes());
        match &self.rand {
            RandState::Narrow(s) => {
                for (i, w) in s.iter().enumerate() {
                    put(&mut body, 40 + 4 * i, &w.to_le_bytes());
                }
            }
            RandState::Wide(s) => {
                put(&mut body, 32, &1u64.to_le_bytes());
                for (i, w) in s.iter().enumerate() {
                    put(&mut body, 40 + 8 * i, &w.to_le_bytes());
                }
            }
        }
        let name = self.name.as_bytes();
        let name = &name[..name.len().min(NAME_LEN - 1)];
        put(&mut body, 88, name);
        for (i, (file, offset)) in self.comps.iter().take(slots).enumerate() {
            put(&mut body, LIST_LEN + COMP_LEN * i, &file.to_le_bytes());
            put(
                &mut body,
                LIST_LEN + COMP_LEN * i + 8,
                &offset.to_le_bytes(),
            );
        }
        let mut out = Vec::with_capacity(HEADER_LEN + size);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(size as u64).to_le_bytes());
        out.extend_from_slice(&u64::from(crc32c(&body)).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Reads a state file's bytes; the error is fio's message for the
    /// fault (short file, other version, bad CRC).
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() < HEADER_LEN {
            return Err("fio: failed reading verify state header".into());
        }
        let version = u64_at(bytes, 0);
        if version != VERSION {
            return Err(format!(
                "fio: unsupported ({}) version in verify state header",
                version as u32
            ));
        }
        let size = u64_at(bytes, 8);
        let body = &bytes[HEADER_LEN..];
        if (body.len() as u64) < size || size < LIST_LEN as u64 {
            return Err("fio: failed reading verity state".into());
        }
        let body = &body[..size as usize];
        if u64::from(crc32c(body)) != u64_at(bytes, 16) {
            return Err("fio: verify state is corrupt".into());
        }
        let listed = u64_at(body, 0);
        let slots = (body.len() - LIST_LEN) / COMP_LEN;
        let comps = (0..(listed as usize).min(slots))
            .map(|i| {
                let at = LIST_LEN + COMP_LEN * i;
                (u64_at(body, at), u64_at(body, at + 8))
            })
            .collect();
        let rand = if u64_at(body, 32) != 0 {
            RandState::Wide(std::array::from_fn(|i| u64_at(body, 40 + 8 * i)))
        } else {
            RandState::Narrow(std::array::from_fn(|i| u32_at(body, 40 + 4 * i)))
        };
        let name = &body[88..88 + NAME_LEN];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN)];
        Ok(VerifyState {
            depth: u32_at(body, 8),
            files: u32_at(body, 12),
            issued: u64_at(body, 16),
            index: u64_at(body, 24),
            rand,
            name: String::from_utf8_lossy(name).into_owned(),
            comps,
        })
    }

    /// fio's verify_state_should_stop: whether the verify read of `offset`
    /// in file `file` goes past the writes the state recorded, given
    /// `reads_done` reads completed so far. Only within the last `depth`
    /// writes can a block be unwritten; there only blocks listed as
    /// completed are checked.
    pub fn should_stop(&self, reads_done: u64, file: u64, offset: u64) -> bool {
        let depth = u64::from(self.depth);
        let before_window = reads_done < depth || self.issued.wrapping_sub(reads_done) > depth;
        if before_window && self.issued > depth {
            return false;
        }
        !self.comps.contains(&(file, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> VerifyState {
        VerifyState {
            depth: 4,
            files: 1,
            issued: 16,
            index: 0,
            rand: RandState::Narrow([0xccb9_ad3d, 0x05a3_27f8, 0x137e_67c8]),
            name: "job1".into(),
            comps: vec![(0, 0xc000), (0, 0x9000), (0, 0x4000), (0, 0x3000)],
        }
    }

    #[test]
    fn encodes_what_fio_wrote_for_the_same_state() {
        // The first 32 bytes of the file fio 3.33 wrote for this state.
        let bytes = sample().encode();
        assert_eq!(bytes.len(), 240);
        assert_eq!(&bytes[..8], &3u64.to_le_bytes());
        assert_eq!(&bytes[8..16], &0xd8u64.to_le_bytes());
        assert_eq!(&bytes[16..24], &0x6bbd_0433u64.to_le_bytes());
        assert_eq!(VerifyState::decode(&bytes).unwrap(), sample());
    }

    #[test]
    fn a_changed_byte_is_corrupt() {
        let mut bytes = sample().encode();
        bytes[100] ^= 1;
        assert_eq!(
            VerifyState::decode(&bytes).unwrap_err(),
            "fio: verify state is corrupt"
        );
    }

    #[test]
    fn names_escape_slashes() {
        let p = file_name(&prefix(Some(Path::new("/tmp/a"))), "x/y", 2);
        assert_eq!(p, PathBuf::from("/tmp/a/local-x.y-2-verify.state"));
    }

    #[test]
    fn stops_at_a_block_not_listed_within_the_last_depth_writes() {
        let mut s = sample();
        s.depth = 1;
        s.issued = 8;
        s.comps = vec![(0, 28672)];
        assert!(!s.should_stop(6, 0, 24576));
        assert!(!s.should_stop(7, 0, 28672));
        assert!(s.should_stop(8, 0, 32768));
    }
}
