use super::*;
use crate::options::find;
use crate::options::parsed::SplitEntry;

fn ctx() -> ParseContext {
    ParseContext {
        kb_base: 1024,
        ncpus: 2,
        dry_run: false,
        previous: [0; 3],
    }
}

fn parse_opt(name: &str, raw: Option<&str>) -> Parsed {
    parse(find(name).unwrap(), raw, &ctx())
}

#[test]
fn per_direction_values_fill_the_remaining_directions() {
    assert_eq!(
        parse_opt("bs", Some("4k")).value,
        Some(Value::Nums([4096; 3]))
    );
    assert_eq!(
        parse_opt("bs", Some("4k,8k")).value,
        Some(Value::Nums([4096, 8192, 8192]))
    );
    assert_eq!(
        parse_opt("bs", Some("4k,8k,16k")).value,
        Some(Value::Nums([4096, 8192, 16384]))
    );
    assert_eq!(
        parse_opt("bs", Some("4k,")).value,
        Some(Value::Nums([4096; 3]))
    );
}

#[test]
fn a_direction_left_out_keeps_its_previous_value() {
    let def = find("bs").unwrap();
    let c = ParseContext {
        previous: [512, 512, 512],
        ..ctx()
    };
    assert_eq!(
        parse(def, Some(",8k"), &c).value,
        Some(Value::Nums([512, 8192, 8192]))
    );
}

#[test]
fn words_match_whole_and_keep_their_tail() {
    let v = parse_opt("rw", Some("randrw:8")).value.unwrap();
    assert_eq!(
        v,
        Value::Word {
            word: "randrw",
            tail: Some("8".to_string())
        }
    );
    assert!(parse_opt("rw", Some("rand")).show_words);
    assert!(parse_opt("rw", Some("readx")).show_words);
}

#[test]
fn range_and_requirement_messages_read_as_fio_prints_them() {
    assert_eq!(
        parse_opt("iodepth", Some("0")).messages,
        vec!["iodepth: min value out of range: 0 (1 min)"]
    );
    assert_eq!(
        parse_opt("rwmixread", Some("150")).messages,
        vec!["rwmixread: max value out of range: 150 (100 max)"]
    );
    assert_eq!(
        parse_opt("direct", None).messages,
        vec!["Option direct requires an argument"]
    );
    let p = parse_opt("iodepth", Some("-5"));
    assert!(p.value.is_some(), "a later piece parses, so fio accepts");
}

#[test]
fn flags_take_no_value_or_zero_or_one() {
    assert_eq!(parse_opt("time_based", None).value, Some(Value::Bool(true)));
    assert_eq!(
        parse_opt("time_based", Some("0")).value,
        Some(Value::Bool(false))
    );
}

#[test]
fn ranges_are_ordered_low_to_high() {
    let v = parse_opt("bsrange", Some("64k:4k")).value.unwrap();
    assert_eq!(v, Value::Ranges([(4096, 65536); 3]));
}

#[test]
fn float_lists_keep_their_precision() {
    let v = parse_opt("percentile_list", Some("1:99.5:99.99"))
        .value
        .unwrap();
    assert_eq!(
        v,
        Value::Floats {
            values: vec![1.0, 99.5, 99.99],
            precision: 2
        }
    );
}

#[test]
fn deprecated_options_fail_with_a_stdout_notice() {
    let p = parse_opt("rwmixcycle", Some("10"));
    assert!(p.value.is_none());
    assert_eq!(p.notices, vec!["Option rwmixcycle is deprecated"]);
}

#[test]
fn lists_and_patterns_are_read_into_their_run_types() {
    let split = |percent| SplitEntry { bs: 4096, percent };
    assert_eq!(
        parse_opt("bssplit", Some("4k/100")).value,
        Some(Value::BsSplit([
            vec![split(100)],
            vec![split(100)],
            vec![split(100)]
        ]))
    );
    assert_eq!(
        parse_opt("ignore_error", Some("EIO:5,,22")).value,
        Some(Value::ErrorLists([vec![5, 5], vec![], vec![22]]))
    );
    assert_eq!(
        parse_opt("cpus_allowed", Some("1,0-1")).value,
        Some(Value::CpuList(vec![0, 1]))
    );
    assert!(matches!(
        parse_opt("verify_pattern", Some("0xaa%o")).value,
        Some(Value::Pattern(_))
    ));
}

#[test]
fn a_list_given_without_a_value_reads_as_an_empty_one() {
    assert_eq!(
        parse_opt("bssplit", None).value,
        Some(Value::BsSplit(Default::default()))
    );
    assert_eq!(
        parse_opt("ignore_error", None).value,
        Some(Value::ErrorLists(Default::default()))
    );
    // Blank CPU lists and patterns stay text: the run tells them apart.
    assert_eq!(
        parse_opt("cpus_allowed", None).value,
        Some(Value::Text(String::new()))
    );
    assert_eq!(
        parse_opt("verify_pattern", None).value,
        Some(Value::Text(String::new()))
    );
}

#[test]
fn values_checked_only_at_run_stay_text_under_parse_only() {
    let dry = ParseContext {
        dry_run: true,
        ..ctx()
    };
    let read = |name, raw| parse(find(name).unwrap(), Some(raw), &dry).value;
    assert_eq!(
        read("ignore_error", "EBOGUS"),
        Some(Value::Text("EBOGUS".into()))
    );
    assert_eq!(read("cpus_allowed", "7"), Some(Value::Text("7".into())));
    assert!(parse_opt("cpus_allowed", Some("7")).value.is_none());
}
