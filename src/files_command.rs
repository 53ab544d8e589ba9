//! The command line that ferrio's subcommands over saved results share
//! (`ferrio merge`, `ferrio report`): `FILE.json...` and `--output FILE`,
//! read through clap so that `--help` and the errors read alike, and the
//! one document each writes to the file or to stdout.

/// What such a subcommand was asked to do.
#[derive(Debug, PartialEq)]
pub struct Request {
    pub files: Vec<String>,
    pub output: Option<String>,
    /// `--repeats N`: the files are sets of N runs of one setup each
    /// (1 where the subcommand has no such option, or it is not given).
    pub repeats: usize,
}

/// How a subcommand describes itself and its arguments.
pub struct Usage {
    /// The subcommand's name (`merge`).
    pub name: &'static str,
    pub about: &'static str,
    /// What the files are.
    pub files: &'static str,
    /// What `--output` writes.
    pub output: &'static str,
    /// Whether it takes `--repeats N`.
    pub repeats: bool,
}

impl Usage {
    fn command(&self) -> clap::Command {
        use clap::{Arg, ArgAction, Command};
        let command = Command::new(self.name)
            .bin_name(format!("ferrio {}", self.name))
            .about(self.about)
            .arg(
                Arg::new("files")
                    .value_name("FILE.json")
                    .help(self.files)
                    .required(true)
                    .num_args(1..)
                    .action(ArgAction::Append),
            )
            .arg(
                Arg::new("output")
                    .long("output")
                    .value_name("FILE")
                    .help(self.output),
            );
        if !self.repeats {
            return command;
        }
        command.arg(
            Arg::new("repeats")
                .long("repeats")
                .value_name("N")
                .value_parser(clap::value_parser!(u32).range(1..))
                .help(
                    "the files are sets of N repeated runs of one setup, in order: each set shows \
                     its median, and each change from the first set says whether it is beyond \
                     the repeats' spread",
                ),
        )
    }

    /// The request `argv` (after the subcommand's name) makes; `Err`
    /// carries clap's text (help, or an error) and whether it is an error.
    pub fn request(&self, argv: &[String]) -> Result<Request, (String, bool)> {
        let matches = self
            .command()
            .try_get_matches_from(
                std::iter::once(self.name.to_string()).chain(argv.iter().cloned()),
            )
            .map_err(|e| (e.render().to_string(), e.use_stderr()))?;
        Ok(Request {
            files: matches
                .get_many::<String>("files")
                .map(|f| f.cloned().collect())
                .unwrap_or_default(),
            output: matches.get_one::<String>("output").cloned(),
            repeats: if self.repeats {
                matches.get_one::<u32>("repeats").map_or(1, |&n| n as usize)
            } else {
                1
            },
        })
    }

    /// Reads `argv` and makes the document with `make`, then writes it to
    /// `--output` or stdout; returns the exit status (0 for `--help`, 1
    /// for a bad command line or a failure, said on stderr).
    pub fn run(
        &self,
        argv: &[String],
        make: impl FnOnce(&Request) -> Result<String, String>,
    ) -> i32 {
        let request = match self.request(argv) {
            Ok(r) => r,
            Err((text, false)) => {
                print!("{text}");
                return 0;
            }
            Err((text, true)) => {
                eprint!("{text}");
                return 1;
            }
        };
        let text = match make(&request) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("ferrio {}: {e}", self.name);
                return 1;
            }
        };
        match request.output {
            Some(path) => match std::fs::write(&path, text) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("ferrio {}: cannot write {path}: {e}", self.name);
                    1
                }
            },
            None => {
                print!("{text}");
                0
            }
        }
    }
}
