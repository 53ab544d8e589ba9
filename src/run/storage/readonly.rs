//! --readonly beyond fio's own check (a job that writes or trims is
//! refused): ferrio also refuses, before any job starts, what would change
//! the job's files by other means. fio 3.33 deletes files under
//! --readonly (unlink, unlink_each_loop, ioengine=filedelete), creates or
//! allocates them (filecreate, falloc), and, for a file that is missing or
//! short, fails the job only after it began laying the file out.

use crate::engine::kind::caps;
use crate::run::refusal::Refusal;
use crate::run::storage::layout::short_files;
use crate::run::storage::parts::StorageParts;

/// The first job that --readonly must refuse, and why.
pub fn check<'a>(jobs: impl IntoIterator<Item = StorageParts<'a>>) -> Result<(), Refusal> {
    for job in jobs {
        let refuse = |why: String| {
            Err(Refusal(format!(
                "job '{}': {why}, and --readonly is set",
                job.name
            )))
        };
        if job.kind.has(caps::CHANGES_FILES) {
            return refuse(format!(
                "ioengine={} changes its files (creates, deletes or allocates them)",
                job.kind.name
            ));
        }
        if job.files.unlink || job.files.unlink_each_loop {
            let option = if job.files.unlink {
                "unlink"
            } else {
                "unlink_each_loop"
            };
            return refuse(format!("{option}=1 deletes its files"));
        }
        if let Some((path, _, needed)) = short_files(&job).next() {
            // fio's own words for it, then ferrio's.
            eprintln!("fio: refusing extend of file due to read-only");
            return refuse(format!(
                "its file {} is missing or shorter than the {needed} bytes it uses, so it would be \
                 laid out (written) first",
                path.display()
            ));
        }
    }
    Ok(())
}
