fn main() {
    // Arguments that are not UTF-8 are passed on lossily so that they are
    // reported as bad input rather than crashing the program.
    if let Some(program) = std::env::args_os().next() {
        ferrio::persona::choose(&program);
    }
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = ferrio::app::run(&argv);
    if ferrio::clib::abandoned() {
        // A stop left a thread inside a C library's call (librados'
        // connect, glfs_init): exit(3) would run the library's destructors under it, so the output is flushed
        // and the process ends at once.
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: _exit ends the process; nothing runs after it.
        unsafe { libc::_exit(code) };
    }
    std::process::exit(code);
}
