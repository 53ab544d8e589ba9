//! Value expansion: `${VAR}` substitution, the `$pagesize`-style keywords
//! and the bc-like arithmetic, on arbitrary text.
#![no_main]

use ferrio::jobfile::expand::{self, Environment};
use libfuzzer_sys::fuzz_target;

fn env() -> Environment {
    let mut env = Environment {
        page_size: 4096,
        mb_memory: 16384,
        ncpus: 8,
        ..Default::default()
    };
    for (k, v) in [
        ("BS", "4k"),
        ("SIZE", "1G"),
        ("EMPTY", ""),
        ("NESTED", "${BS}"),
        ("KW", "$ncpus*2"),
        ("EXPR", "2^10"),
    ] {
        env.vars.insert(k.to_string(), v.to_string());
    }
    env
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let env = env();

    let _ = expand::evaluate(&text);
    let substituted = expand::substitute_env(&text, &env);
    let _ = expand::replace_keywords(&text, &env);
    // The order the job-file reader uses: variables first, then keywords.
    if let Ok(out) = expand::replace_keywords(&substituted, &env) {
        let _ = expand::evaluate(&out);
    }
});
