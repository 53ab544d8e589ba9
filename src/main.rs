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
    std::process::exit(ferrio::app::run(&argv));
}
