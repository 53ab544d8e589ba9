//! `--memcpytest[=LIST]`: how fast memory is copied in pieces of 8 bytes
//! to 512 KiB, through a 32 MiB buffer 64 times, by fio's four ways:
//! `memcpy`, `memmove`, `simple` (a byte at a time) and `hybrid` (fio's
//! mix: byte at a time from 64-byte pieces up, memcpy below).

use std::time::Instant;

use super::Selection;

const FIO_NAMES: &[&str] = &["memcpy", "memmove", "simple", "hybrid"];
const SIZES: &[usize] = &[8, 16, 96, 128, 256, 512, 2048, 8192, 131072, 262144, 524288];
const BUF: usize = 32 * 1024 * 1024;
const PASSES: usize = 64;

/// The whole buffer `PASSES` times in pieces of `size`, with `copy`
/// (generic, so that each way is inlined as fio's direct calls are).
fn pass(src: &[u8], dst: &mut [u8], size: usize, copy: impl Fn(&[u8], &mut [u8])) {
    for _ in 0..PASSES {
        for (s, d) in src.chunks(size).zip(dst.chunks_mut(size)) {
            copy(s, d);
        }
        std::hint::black_box(&mut *dst);
    }
}

fn memcpy(s: &[u8], d: &mut [u8]) {
    d.copy_from_slice(s);
}

fn memmove(s: &[u8], d: &mut [u8]) {
    // SAFETY: both slices have s.len() bytes; `copy` allows overlap, as
    // memmove does (here they never overlap).
    unsafe { std::ptr::copy(s.as_ptr(), d.as_mut_ptr(), s.len()) }
}

/// One byte at a time: volatile, so that the compiler cannot turn the
/// loop back into a memcpy.
fn simple(s: &[u8], d: &mut [u8]) {
    for (from, to) in s.iter().zip(d.iter_mut()) {
        // SAFETY: both references are valid for one byte.
        unsafe { std::ptr::write_volatile(to, std::ptr::read_volatile(from)) }
    }
}

/// One pass of fio's test `name` in pieces of `size`.
fn pass_by(name: &str, src: &[u8], dst: &mut [u8], size: usize) {
    match name {
        "memcpy" => pass(src, dst, size, memcpy),
        "memmove" => pass(src, dst, size, memmove),
        "hybrid" if size < 64 => pass(src, dst, size, memcpy),
        _ => pass(src, dst, size, simple),
    }
}

/// Runs the test for `list` (None: all); returns fio's exit status.
pub fn run(list: Option<&str>) -> i32 {
    let names = match super::select(list, FIO_NAMES) {
        Selection::List => return super::list(FIO_NAMES),
        Selection::Nothing => return super::unknown(list.unwrap_or_default(), FIO_NAMES),
        Selection::All => FIO_NAMES.to_vec(),
        Selection::Some(names) => names,
    };
    let src = super::noise(BUF);
    let mut dst = vec![0u8; BUF];
    for name in names {
        // Warm up, and touch the destination, with the smallest pieces.
        super::spin_up();
        pass_by(name, &src, &mut dst, SIZES[0]);
        println!("{name}");
        for &size in SIZES {
            let start = Instant::now();
            pass_by(name, &src, &mut dst, size);
            let bytes = (PASSES * BUF) as u64;
            match super::mib_per_sec(bytes, start.elapsed()) {
                Some(rate) => println!("\t{size} bytes:\t{rate:8.2} MiB/sec"),
                None => println!("\t{size} bytes:inf MiB/sec"),
            }
        }
    }
    0
}
