//! The checksums fio 3.33 stores after each verify header, byte for byte
//! as fio lays them out on disk, quirks included, so that data written by
//! one program checks out in the other.
//!
//! Where fio's routine is a textbook one the well-known crate computes it;
//! where fio's differs (its CRC-32C is not inverted at the end, its SHA-1
//! words are kept in host order, its "sha256" and "sha512" fields hold the
//! routine's working buffer) the difference is reproduced here.

use md5::Digest as _;

/// The checksum kinds, numbered as fio's VERIFY_* constants (the number is
/// stored in each header's `verify_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    Md5 = 2,
    Crc64 = 3,
    Crc32 = 4,
    Crc32c = 5,
    Crc16 = 7,
    Crc7 = 8,
    Sha256 = 9,
    Sha512 = 10,
    Sha3_224 = 11,
    Sha3_256 = 12,
    Sha3_384 = 13,
    Sha3_512 = 14,
    Xxhash = 15,
    Sha1 = 16,
}

impl Checksum {
    /// The kind fio's `verify=` word names.
    pub fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "md5" => Self::Md5,
            "crc64" => Self::Crc64,
            "crc32" => Self::Crc32,
            // fio stores crc32c-intel as plain crc32c.
            "crc32c" | "crc32c-intel" => Self::Crc32c,
            "crc16" => Self::Crc16,
            "crc7" => Self::Crc7,
            "sha256" => Self::Sha256,
            "sha512" => Self::Sha512,
            "sha3-224" => Self::Sha3_224,
            "sha3-256" => Self::Sha3_256,
            "sha3-384" => Self::Sha3_384,
            "sha3-512" => Self::Sha3_512,
            "xxhash" => Self::Xxhash,
            "sha1" => Self::Sha1,
            _ => return None,
        })
    }

    /// The name fio prints (at most 8 characters) when a check fails.
    pub fn name(self) -> &'static str {
        match self {
            Self::Md5 => "md5",
            Self::Crc64 => "crc64",
            Self::Crc32 => "crc32",
            Self::Crc32c => "crc32c",
            Self::Crc16 => "crc16",
            Self::Crc7 => "crc7",
            Self::Sha256 => "sha256",
            Self::Sha512 => "sha512",
            Self::Sha3_224 => "sha3-224",
            Self::Sha3_256 => "sha3-256",
            Self::Sha3_384 => "sha3-384",
            Self::Sha3_512 => "sha3-512",
            Self::Xxhash => "xxhash",
            Self::Sha1 => "sha1",
        }
    }

    /// Bytes of the checksum field that follows the header (the sizes of
    /// fio's vhdr_* structures).
    pub fn field_len(self) -> usize {
        match self {
            Self::Md5 => 16,
            Self::Crc64 => 8,
            Self::Crc32 | Self::Crc32c | Self::Xxhash => 4,
            Self::Crc16 => 2,
            Self::Crc7 => 1,
            Self::Sha256 => 64,
            Self::Sha512 => 128,
            Self::Sha3_224 => 28,
            Self::Sha3_256 => 32,
            Self::Sha3_384 => 48,
            Self::Sha3_512 => 64,
            Self::Sha1 => 20,
        }
    }

    /// Writes the checksum of `data` into `field` (`field_len` bytes). Some
    /// of fio's routines only overwrite part of the field; the rest keeps
    /// what was there, exactly as on fio's side.
    pub fn fill(self, data: &[u8], field: &mut [u8]) {
        match self {
            Self::Md5 => field.copy_from_slice(&md5::Md5::digest(data)),
            Self::Crc64 => field.copy_from_slice(&crc64(data).to_le_bytes()),
            Self::Crc32 => field.copy_from_slice(&crc32(data).to_le_bytes()),
            Self::Crc32c => field.copy_from_slice(&crc32c(data).to_le_bytes()),
            Self::Crc16 => field.copy_from_slice(&crc16(data).to_le_bytes()),
            Self::Crc7 => field[0] = crc7(data),
            Self::Xxhash => {
                field.copy_from_slice(&xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes())
            }
            Self::Sha1 => {
                // fio keeps the five state words in host (little-endian)
                // order rather than the digest's big-endian bytes.
                let digest = sha1::Sha1::digest(data);
                for (out, word) in field.chunks_mut(4).zip(digest.chunks(4)) {
                    out.copy_from_slice(&[word[3], word[2], word[1], word[0]]);
                }
            }
            Self::Sha256 => fio_sha256(data, field),
            Self::Sha512 => fio_sha512(data, field),
            Self::Sha3_224 => field.copy_from_slice(&sha3::Sha3_224::digest(data)),
            Self::Sha3_256 => field.copy_from_slice(&sha3::Sha3_256::digest(data)),
            Self::Sha3_384 => field.copy_from_slice(&sha3::Sha3_384::digest(data)),
            Self::Sha3_512 => field.copy_from_slice(&sha3::Sha3_512::digest(data)),
        }
    }
}

/// fio's CRC-32C: the Castagnoli CRC started at all ones but, unlike the
/// usual definition, not inverted at the end. It also guards every header.
pub fn crc32c(data: &[u8]) -> u32 {
    !crc32c::crc32c(data)
}

/// fio's CRC-32: polynomial 0x04C11DB7, most significant bit first,
/// starting at zero, no final inversion: the catalogue's CRC-32/CKSUM
/// without its final inversion.
fn crc32(data: &[u8]) -> u32 {
    static CKSUM: crc::Crc<u32, crc::Table<16>> =
        crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_CKSUM);
    !CKSUM.checksum(data)
}

/// fio's CRC-64: the Jones polynomial, least significant bit first
/// (reflected 0x95AC9329AC4BC9B5), starting at zero, no final inversion:
/// the catalogue's CRC-64/REDIS.
fn crc64(data: &[u8]) -> u64 {
    static JONES: crc::Crc<u64, crc::Table<16>> =
        crc::Crc::<u64, crc::Table<16>>::new(&crc::CRC_64_REDIS);
    JONES.checksum(data)
}

/// fio's CRC-16: polynomial 0x8005 least significant bit first
/// (reflected 0xA001), starting at zero, no final inversion: CRC-16/ARC.
fn crc16(data: &[u8]) -> u16 {
    static ARC: crc::Crc<u16, crc::Table<16>> =
        crc::Crc::<u16, crc::Table<16>>::new(&crc::CRC_16_ARC);
    ARC.checksum(data)
}

/// fio's CRC-7: polynomial x^7 + x^3 + 1, most significant bit first,
/// starting at zero, the 7-bit remainder in the low bits: CRC-7/MMC.
fn crc7(data: &[u8]) -> u8 {
    static MMC: crc::Crc<u8, crc::Table<16>> = crc::Crc::<u8, crc::Table<16>>::new(&crc::CRC_7_MMC);
    MMC.checksum(data)
}

/// fio's "sha256" field: its routine runs SHA-256 rounds over the data but
/// appends the bit count in little-endian order, uses the 64-byte field as
/// its block buffer, and at the end stores only the low byte of each of
/// the eight state words in the field's first eight bytes.
fn fio_sha256(data: &[u8], field: &mut [u8]) {
    use sha2::digest::generic_array::GenericArray;
    let mut state: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let whole = data.len() / 64 * 64;
    for block in data[..whole].chunks_exact(64) {
        sha2::compress256(&mut state, &[*GenericArray::from_slice(block)]);
    }
    // The tail, the 0x80 marker, zeros up to byte 56 of a block, then the
    // bit count: the buffer ends up holding the last block compressed.
    let tail = &data[whole..];
    let block = &mut field[..64];
    block[..tail.len()].copy_from_slice(tail);
    let at = tail.len();
    if at >= 56 {
        // The padding spills into a block of its own; fio's buffer holds
        // the second one.
        block[at] = 0x80;
        block[at + 1..].fill(0);
        sha2::compress256(&mut state, &[*GenericArray::from_slice(block)]);
        block[..56].fill(0);
    } else {
        block[at] = 0x80;
        block[at + 1..56].fill(0);
    }
    block[56..64].copy_from_slice(&((data.len() as u64) << 3).to_le_bytes());
    sha2::compress256(&mut state, &[*GenericArray::from_slice(block)]);
    for (byte, word) in block.iter_mut().zip(state) {
        *byte = word as u8;
    }
}

/// fio's "sha512" field: fio stores only its routine's input buffer (it
/// never finishes the hash): the first 128 bytes of the data, then the
/// data's last `len % 128` bytes copied over the start.
fn fio_sha512(data: &[u8], field: &mut [u8]) {
    if data.len() < 128 {
        field[..data.len()].copy_from_slice(data);
        return;
    }
    field[..128].copy_from_slice(&data[..128]);
    let rest = data.len() % 128;
    field[..rest].copy_from_slice(&data[data.len() - rest..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_tables_match_fios_published_entries() {
        // Entries 1 of fio's crc32 table and 128 of its crc64 table are
        // the polynomials themselves.
        assert_eq!(crc32(&[1]), 0x04C1_1DB7);
        assert_eq!(crc64(&[128]), 0x95AC_9329_AC4B_C9B5);
    }

    #[test]
    fn crc16_and_crc7_match_their_check_values() {
        // The catalogued check values for "123456789": CRC-16/ARC 0xBB3D;
        // CRC-7 (MMC, unreflected 0x09 from zero) 0x75.
        assert_eq!(crc16(b"123456789"), 0xBB3D);
        assert_eq!(crc7(b"123456789"), 0x75);
        // Entries of fio's tables: crc7's 255th, crc16's first.
        assert_eq!(crc7(&[0xff]), 0x79);
        assert_eq!(crc16(&[1]), 0xC0C1);
    }

    #[test]
    fn crc32c_is_the_uninverted_castagnoli_crc() {
        // CRC-32C("123456789") is 0xE3069283; fio's lacks the final inversion.
        assert_eq!(crc32c(b"123456789"), !0xE306_9283);
    }
}
