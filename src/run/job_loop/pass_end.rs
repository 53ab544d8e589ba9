//! The end of a pass over the job's files, and the start of the next.

#[allow(unused_imports)]
use super::*;

/// unlink_each_loop between two loops: fio removes the job's regular
/// files, then opens them as any loop does, which creates a writing job's
/// files empty (nothing is laid out again) and fails a reading job's.
/// Only the `first` files are opened (openfiles); the rest as the job
/// comes to them.
pub(super) fn unlink_and_reopen(
    cfg: &JobConfig,
    eng: &mut dyn Engine,
    mode: OpenMode,
    files: &mut [usize],
    first: usize,
) -> Result<(), (i32, String, String)> {
    // fio closes the files before it removes them.
    for file in files.iter_mut() {
        if *file != UNOPENED {
            eng.close(*file);
            *file = UNOPENED;
        }
    }
    for path in &cfg.paths {
        if std::fs::metadata(path).is_ok_and(|m| m.is_file())
            && let Err(e) = std::fs::remove_file(path)
        {
            let text = format!("fio: unlink of {} failed: {e}", path.display());
            return Err((errno(&e), "unlink_all_files".to_string(), text));
        }
    }
    // fio opens a writing job's files with O_CREAT when it may create them.
    let mode = OpenMode {
        create: mode.create || (cfg.pattern.write && cfg.allow_file_create),
        ..mode
    };
    for (file, path) in files.iter_mut().zip(&cfg.paths).take(first) {
        match eng.open(path, mode) {
            Ok(f) => *file = f,
            Err(e) => {
                // fio says no more than its error line does.
                let func = format!("open({})", path.display());
                return Err((errno(&e), func, String::new()));
            }
        }
    }
    Ok(())
}
