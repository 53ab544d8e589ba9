//! Whether, and where, a job's description line (`a: (g=0): rw=read, ...`)
//! is printed.
//!
//! fio prints that line while it adds the job, with the output format and
//! the `--output` file in effect at that moment, not those of the whole
//! command line. A job written on the command line is added when the next
//! `--name` is read; the last such job, and every job from a job file,
//! once the whole command line has been read. So `--name=a --name=b
//! --output-format=json` describes `a` (added before the format changed)
//! on stdout ahead of the JSON document, and `b` not at all.

use crate::cli::Args;
use crate::plan::{JobSpec, Origin};
use crate::report::Formats;

/// What was in effect when fio added a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Added {
    /// The normal format was on: the job gets its description line.
    pub normal: bool,
    /// Which `--output` flag (counting from 0) was the latest one then:
    /// the line goes to that file; `None`, to stdout.
    pub output: Option<usize>,
}

/// The flags fio had read when it added `spec`.
pub fn added(spec: &JobSpec, args: &Args) -> Added {
    let flags = match spec.setting("name").map(|s| &s.origin) {
        Some(Origin::CommandLine {
            index,
            global: false,
        }) => match args.job_options[index + 1..]
            .iter()
            .position(|o| o.name == "name")
        {
            Some(next) => args.flags_before(index + 1 + next),
            None => &args.flags[..],
        },
        _ => &args.flags[..],
    };
    Added {
        normal: Formats::from_flags(flags).normal,
        output: flags
            .iter()
            .filter(|(name, _)| name == "output")
            .count()
            .checked_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_and_args(argv: &[&str]) -> (crate::plan::Plan, Args) {
        let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        let args = crate::cli::parse(&argv).unwrap();
        let input = crate::plan::Input {
            cmdline: args.job_options.clone(),
            files: Vec::new(),
            sections: Vec::new(),
            env: crate::jobfile::expand::Environment::capture(),
            loader: &crate::jobfile::MemLoader::default(),
            dry_run: true,
            showcmd: false,
            max_jobs: 4096,
        };
        (crate::plan::plan(&input).unwrap(), args)
    }

    fn normal(argv: &[&str]) -> Vec<(String, bool)> {
        let (plan, args) = plan_and_args(argv);
        plan.jobs()
            .map(|j| (j.name.clone(), added(j, &args).normal))
            .collect()
    }

    #[test]
    fn each_job_sees_the_format_set_before_the_next_name() {
        let got = normal(&[
            "--ioengine=null",
            "--name=a",
            "--output-format=json",
            "--name=b",
            "--output-format=normal",
            "--name=c",
            "--minimal",
            "--name=d",
            "--output-format=json,normal",
        ]);
        let want = [("a", false), ("b", true), ("c", false), ("d", true)];
        let want: Vec<_> = want.iter().map(|(n, b)| (n.to_string(), *b)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_global_name_also_adds_the_job_before_it() {
        let got = normal(&[
            "--name=a",
            "--name=global",
            "--output-format=json",
            "--name=b",
        ]);
        assert_eq!(got, vec![("a".to_string(), true), ("b".to_string(), false)]);
    }

    #[test]
    fn the_output_file_counts_from_where_it_is_named() {
        let (plan, args) = plan_and_args(&[
            "--name=a",
            "--name=b",
            "--output=x",
            "--name=c",
            "--output=y",
            "--name=d",
        ]);
        let to: Vec<_> = plan.jobs().map(|j| added(j, &args).output).collect();
        assert_eq!(to, vec![None, Some(0), Some(1), Some(1)]);
    }
}
