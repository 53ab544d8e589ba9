use super::*;

fn mem(files: &[(&str, &str)]) -> MemLoader {
    let mut m = MemLoader::default();
    for (p, t) in files {
        m.0.insert(PathBuf::from(p), t.as_bytes().to_vec());
    }
    m
}

fn all(_: &str) -> bool {
    true
}

#[test]
fn sections_keep_their_lines_and_locations() {
    let m = mem(&[(
        "/j/a.fio",
        "; c\n[global]\nbs=4k\n\n[one]\n  rw = read ; x\n",
    )]);
    let out = read(&m, "/j/a.fio", &all);
    assert!(out.error.is_none());
    assert_eq!(out.sections.len(), 2);
    assert!(out.sections[0].is_global());
    let e = &out.sections[1].entries[0];
    assert_eq!((e.key.as_str(), e.value.as_deref()), ("rw", Some(" read")));
    assert_eq!(e.line, "rw = read");
    assert_eq!((e.location.line, e.location.column), (6, 3));
    assert_eq!(e.location.to_string(), "/j/a.fio:6:3");
}

#[test]
fn includes_resolve_next_to_the_including_file_and_keep_both_places() {
    let m = mem(&[
        ("/j/a.fio", "[one]\ninclude sub/b.fio\niodepth=2\n"),
        ("/j/sub/b.fio", "bs=8k\n"),
    ]);
    let out = read(&m, "/j/a.fio", &all);
    let entries = &out.sections[0].entries;
    assert_eq!(entries[0].key, "bs");
    assert_eq!(entries[0].location.file.as_ref(), "/j/sub/b.fio");
    assert_eq!(entries[0].included_from.as_ref().unwrap().line, 2);
    assert_eq!(entries[1].key, "iodepth");
}

#[test]
fn include_cycles_are_an_error_not_a_crash() {
    let m = mem(&[
        ("/j/a.fio", "[one]\ninclude b.fio\n"),
        ("/j/b.fio", "include a2.fio\n"),
        ("/j/a2.fio", "include b.fio\n"),
    ]);
    let out = read(&m, "/j/a.fio", &all);
    let err = out.error.expect("cycle");
    assert!(err.detail.contains("include cycle"), "{}", err.detail);
}

#[test]
fn a_failed_include_is_reported_and_later_lines_stand_outside() {
    let m = mem(&[("/j/a.fio", "[one]\ninclude none.fio\nbs=4k\n")]);
    let out = read(&m, "/j/a.fio", &all);
    let notes = &out.sections[0].include_errors;
    assert_eq!(
        notes.stderr,
        vec![
            "fio: unable to open '/j/none.fio' job file",
            "Error 1 while parsing include file /j/none.fio"
        ]
    );
    assert!(notes.stdout.contains("func=job file open"));
    let err = out.error.expect("bs=4k is now outside a section");
    assert_eq!(
        err.fio_message,
        "fio: option <bs=4k> outside of [] job section"
    );
}

#[test]
fn non_utf8_bytes_are_kept() {
    let mut m = MemLoader::default();
    m.0.insert(
        PathBuf::from("/j/a.fio"),
        b"[one]\nbs=4k\nname=caf\xe9\n".to_vec(),
    );
    let out = read(&m, "/j/a.fio", &all);
    assert!(out.error.is_none());
    let entry = &out.sections[0].entries[1];
    assert_eq!(&*crate::raw_text::to_bytes(&entry.line), b"name=caf\xe9");
}

#[test]
fn missing_files_and_lines_outside_sections() {
    let out = read(&MemLoader::default(), "/nope.fio", &all);
    assert_eq!(
        out.error.unwrap().fio_message,
        "fio: unable to open '/nope.fio' job file"
    );
    let m = mem(&[("/j/a.fio", "bs=4k\n[one]\n")]);
    let err = read(&m, "/j/a.fio", &all).error.unwrap();
    assert_eq!(err.location.unwrap().line, 1);
}

#[test]
fn section_filter_skips_whole_sections_but_keeps_globals() {
    let m = mem(&[("/j/a.fio", "[global]\nbs=4k\n[a]\nrw=read\n[b]\nrw=write\n")]);
    let out = read(&m, "/j/a.fio", &|n| n == "b");
    let names: Vec<&str> = out.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["global", "b"]);
}

#[test]
fn long_section_names_are_cut_as_fio_cuts_them() {
    let long = "x".repeat(300);
    let m = mem(&[("/j/a.fio", &format!("[{long}]\n"))]);
    let out = read(&m, "/j/a.fio", &all);
    assert_eq!(out.sections[0].name.len(), 254);
}
