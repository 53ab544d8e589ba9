//! A mounted file system on a loop device, for the tests of the
//! mounted-device guard (root, losetup, mkfs.ext4 and mount).

use std::path::PathBuf;
use std::process::Command;

use super::Scratch;

/// A loop device holding a mounted ext4 file system, removed on drop.
pub struct MountedLoop {
    pub device: String,
    pub mountpoint: PathBuf,
    _dir: Scratch,
}

impl MountedLoop {
    /// An 8 MiB ext4 file system at the start of a 16 MiB image, so that
    /// writes at 12 MiB touch the device but not the file system.
    pub fn new() -> MountedLoop {
        let dir = Scratch::new("mounted");
        let image = dir.0.join("disk.img");
        std::fs::File::create(&image)
            .unwrap()
            .set_len(16 << 20)
            .unwrap();
        let ok = |cmd: &mut Command| {
            let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
            assert!(
                out.status.success(),
                "{cmd:?}: {} (this test needs root, losetup and mkfs.ext4)",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        ok(Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&image)
            .arg("8M"));
        let device = ok(Command::new("losetup").args(["-f", "--show"]).arg(&image));
        let mountpoint = dir.0.join("mnt");
        std::fs::create_dir(&mountpoint).unwrap();
        let mounted = MountedLoop {
            device,
            mountpoint,
            _dir: dir,
        };
        ok(Command::new("mount")
            .arg(&mounted.device)
            .arg(&mounted.mountpoint));
        mounted
    }
}

impl Drop for MountedLoop {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mountpoint).status();
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}
