//! merge_blktrace_file (with merge_blktrace_scalars and
//! merge_blktrace_iters), as fio 3.33 really behaves.
//!
//! fio 3.33 means to merge the `:`-separated blktrace files of read_iolog
//! into one trace, ordered by time. But its reader takes a pointer's
//! size (8 bytes) for each record, calls that a short read and gives up
//! before writing anything; and it takes its own failure for success, so
//! the job then replays read_iolog as if no merge had been asked for.
//! What is observable is: the parameter checks, the merge file created
//! empty, one message on stderr, and the usual replay. ferrio does
//! exactly that (the caller replays as usual afterwards).

use std::path::Path;

use crate::options::Value;
use crate::plan::JobSpec;
use crate::run::refusal::Refusal;

/// A merge parameter list's length as fio counts it (values up to the
/// first zero), when it is given and does not match the number of logs.
fn mismatch(values: &[f64], logs: usize) -> Option<usize> {
    let len = values.iter().take_while(|&&v| v != 0.0).count();
    (len != 0 && len != logs).then_some(len)
}

/// What fio 3.33 does for merge_blktrace_file before the job replays
/// `logs` (read_iolog's list): returns the message fio prints, or the
/// error creating the merge file.
pub fn merge(
    logs: &[&str],
    output: &Path,
    scalars: &[f64],
    iters: &[f64],
) -> Result<String, String> {
    for (name, values) in [
        ("merge_blktrace_scalars", scalars),
        ("merge_blktrace_iters", iters),
    ] {
        if let Some(len) = mismatch(values, logs.len()) {
            return Ok(format!("fio: {name}({len}) != nr_logs({})", logs.len()));
        }
    }
    std::fs::File::create(output).map_err(|e| {
        format!(
            "fio: cannot create merge_blktrace_file {}: {e}",
            output.display()
        )
    })?;
    let first = logs.first().copied().unwrap_or("");
    let Ok(data) = std::fs::read(first) else {
        return Ok(format!("fio: could not open file: {first}"));
    };
    if data.len() < 48 {
        return Ok(format!(
            "fio: short read on blktrace file\nfio: file is not a blktrace: {first}"
        ));
    }
    if crate::run::records::blktrace::byte_order(&data).is_none() {
        return Ok(format!("fio: file is not a blktrace: {first}"));
    }
    // A whole record is there, so fio's 8-byte read (the size of the
    // pointer it reads into) succeeds and is then judged short.
    Ok("fio: iolog short read".to_string())
}

/// merge_blktrace_file: merges read_iolog's blktrace files as fio 3.33
/// does, before the job replays them (or, under --merge-blktrace-only,
/// instead of running it); nothing when the job asks for no merge.
pub fn merge_traces(job: &JobSpec) -> Result<(), Refusal> {
    let Some(Value::Text(output)) = job.value("merge_blktrace_file") else {
        return Ok(());
    };
    let Some(Value::Text(list)) = job.value("read_iolog") else {
        return Err(Refusal(format!(
            "job '{}': merge_blktrace_file needs read_iolog (the blktrace files to merge)",
            job.name
        )));
    };
    let floats = |name| match job.value(name) {
        Some(Value::Floats { values, .. }) => values.clone(),
        _ => Vec::new(),
    };
    let logs: Vec<&str> = list.split(':').collect();
    let scalars = floats("merge_blktrace_scalars");
    let iters = floats("merge_blktrace_iters");
    match merge(&logs, std::path::Path::new(output), &scalars, &iters) {
        Ok(said) => {
            eprintln!("{said}");
            Ok(())
        }
        Err(e) => Err(Refusal(format!("job '{}': {e}", job.name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_lists_must_match_the_logs() {
        assert_eq!(mismatch(&[], 2), None);
        assert_eq!(mismatch(&[100.0, 50.0], 2), None);
        assert_eq!(mismatch(&[100.0], 2), Some(1));
        assert_eq!(mismatch(&[100.0, 0.0, 50.0], 3), Some(1));
    }
}
