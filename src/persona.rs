//! Who ferrio answers as. Run through a link named `fio` (`ferrio
//! --install-alias` makes one), ferrio behaves as fio 3.33 wherever a
//! script can tell: `--version` prints fio's line alone, the explanatory
//! `ferrio:` line after each of fio's error messages and the tool-limited
//! warnings are not printed, JSON jobs carry no `ferrio` object, and
//! ferrio's own flags (`--explain`, `--demo`, `--output-format=html`) are
//! unknown, as they are to fio. What ferrio cannot run is still refused
//! with its message: nothing is skipped silently.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The program name fio's getopt messages start with, when answering as
/// fio (argv[0] as given, e.g. `/usr/local/bin/fio`).
static AS_FIO: OnceLock<Option<String>> = OnceLock::new();

/// Takes the persona from the program's name (argv[0]).
pub fn choose(program: &std::ffi::OsStr) {
    let name = Path::new(program).file_name().unwrap_or_default();
    let as_fio = (name == "fio").then(|| program.to_string_lossy().into_owned());
    let _ = AS_FIO.set(as_fio);
}

/// Whether ferrio answers as fio.
pub fn as_fio() -> bool {
    AS_FIO.get().is_some_and(Option::is_some)
}

/// The name getopt's messages carry: argv[0] when answering as fio,
/// else `fio`, as fio prints it when run from PATH.
pub fn program() -> &'static str {
    AS_FIO.get().and_then(Option::as_deref).unwrap_or("fio")
}

/// Prints ferrio's explanation of an error fio has just reported, unless
/// ferrio answers as fio.
pub fn explain(detail: &str) {
    if !as_fio() {
        eprintln!("ferrio: {detail}");
    }
}

/// Makes `dir/fio` a symbolic link to this executable, so that scripts
/// that run `fio` from a `PATH` with `dir` first run ferrio. An existing
/// `fio` there is never replaced, unless it is already such a link.
/// What `--install-alias` did, for the lines it prints.
#[derive(Debug)]
pub struct Alias {
    pub link: PathBuf,
    /// The link's directory did not exist and was made.
    pub made_dir: bool,
    /// The link was already there (nothing was changed).
    pub existed: bool,
}

pub fn install_alias(dir: Option<&str>) -> Result<Alias, String> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find ferrio's own executable: {e}"))?;
    let dir = match dir {
        Some(d) => PathBuf::from(d),
        None => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".local/bin"))
            .ok_or("no directory given and HOME is not set")?,
    };
    let made_dir = !dir.is_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let link = dir.join("fio");
    match std::fs::read_link(&link) {
        Ok(target) if target == exe => {
            return Ok(Alias {
                link,
                made_dir,
                existed: true,
            });
        }
        Ok(target) => {
            return Err(format!(
                "{} already links to {}; remove it first",
                link.display(),
                target.display()
            ));
        }
        Err(_) if link.exists() => {
            return Err(format!(
                "{} exists and is not a link to ferrio; it is left alone",
                link.display()
            ));
        }
        Err(_) => {}
    }
    std::os::unix::fs::symlink(&exe, &link)
        .map_err(|e| format!("cannot create {}: {e}", link.display()))?;
    Ok(Alias {
        link,
        made_dir,
        existed: false,
    })
}

/// What a shell would run as `fio` with `path` (a PATH value): the first
/// `fio` file in its directories, or where `link` is not reached first,
/// a warning to print; `None` when `link` is what runs.
pub fn alias_warning(link: &std::path::Path, path: &str) -> Option<String> {
    let dir = link.parent()?;
    let same = |d: &std::path::Path| {
        d == dir || matches!((d.canonicalize(), dir.canonicalize()), (Ok(a), Ok(b)) if a == b)
    };
    for d in std::env::split_paths(path) {
        if same(&d) {
            return None;
        }
        let candidate = d.join("fio");
        if candidate.is_file() {
            return Some(format!(
                "warning: {} comes before {} in PATH, so `fio` still runs {}; put {} first in PATH",
                d.display(),
                dir.display(),
                candidate.display(),
                dir.display()
            ));
        }
    }
    Some(format!(
        "warning: {} is not in PATH, so `fio` does not run ferrio yet; add it to PATH",
        dir.display()
    ))
}
