use super::*;

fn plan_text(
    text: &str,
    cmdline: &[(&str, Option<&str>)],
    dry_run: bool,
) -> Result<Plan, PlanError> {
    plan_for_test(text, cmdline, &[], dry_run)
}

fn shape(p: &Plan) -> Vec<(String, u32, u32, u32)> {
    p.jobs()
        .map(|j| (j.name.clone(), j.group, j.number, j.subjob))
        .collect()
}

#[test]
fn clones_count_down_and_groups_follow_stonewalls() {
    let p = plan_text(
        "[a]\nnumjobs=3\n[b]\nstonewall\n[c]\nnew_group\n",
        &[],
        false,
    )
    .unwrap();
    assert_eq!(
        shape(&p),
        vec![
            ("a".into(), 0, 1, 0),
            ("a".into(), 0, 2, 2),
            ("a".into(), 0, 3, 1),
            ("b".into(), 1, 4, 0),
            ("c".into(), 2, 5, 0),
        ]
    );
}

#[test]
fn values_keep_where_they_came_from() {
    let p = plan_text(
        "[global]\nbs=8k\n[a]\nrw=randread\n",
        &[("iodepth", Some("4"))],
        false,
    )
    .unwrap();
    let job = p.jobs().next().unwrap();
    assert!(matches!(
        job.setting("iodepth").unwrap().origin,
        Origin::CommandLine {
            index: 0,
            global: true
        }
    ));
    assert!(
        matches!(&job.setting("bs").unwrap().origin, Origin::Global { at, .. } if at.line == 2)
    );
    assert!(matches!(&job.setting("rw").unwrap().origin, Origin::Job { at, .. } if at.line == 4));
    assert_eq!(job.num("iodepth"), Some(4));
    assert_eq!(job.num("bs"), Some(8192));
    assert_eq!(job.num("numjobs"), Some(1), "defaults resolve too");
}

#[test]
fn priority_options_apply_before_the_rest() {
    let p = plan_text("[a]\nsize=4k\nkb_base=1000\n", &[], false).unwrap();
    assert_eq!(p.jobs().next().unwrap().num("size"), Some(4000));
}

#[test]
fn wait_for_must_name_one_earlier_job() {
    let e = plan_text("[a]\nwait_for=zzz\n", &[], false).unwrap_err();
    assert_eq!(e.fio_stderr, vec!["a: waitee job zzz unknown."]);
    assert!(
        plan_text("[a]\nwait_for=zzz\n", &[], true).is_ok(),
        "--parse-only does not check"
    );
    let e = plan_text("[a]\nwait_for=a\n", &[], false).unwrap_err();
    assert!(e.fio_stderr[0].contains("cannot wait for itself"));
}

#[test]
fn numjobs_zero_fails_only_when_running() {
    assert!(plan_text("[a]\nnumjobs=0\n", &[], false).is_err());
    assert!(plan_text("[a]\nnumjobs=0\n", &[], true).is_ok());
}

#[test]
fn errors_name_the_place_and_the_nearest_option() {
    let e = plan_text("[a]\n\n  iodepht=4\n", &[], true).unwrap_err();
    assert_eq!(e.to_string(), "/t/job.fio:3:3: in 'iodepht=4'");
    assert_eq!(
        e.fio_stderr,
        vec![
            "Bad option <iodepht=4>",
            "Did you mean iodepth?",
            "fio: job a dropped"
        ]
    );
}

#[test]
fn engine_options_need_their_engine() {
    assert!(plan_text("[a]\nioengine=libaio\nuserspace_reap\n", &[], true).is_ok());
    let e = plan_text("[a]\nioengine=psync\nuserspace_reap\n", &[], true).unwrap_err();
    assert!(
        e.detail.contains("belongs to ioengine libaio"),
        "{}",
        e.detail
    );
    let p = plan_text("[a]\nioengine=aio\n", &[], true).unwrap();
    assert_eq!(p.jobs().next().unwrap().engine, "libaio");
}

#[test]
fn bssplit_sizes_use_the_kb_base_set_before_it() {
    // fio converts the sizes when it reads the option, so a kb_base
    // set later (here in the job section) does not change them.
    let p = plan_text("[global]\nbssplit=4k\n[a]\nkb_base=1000\n", &[], false).unwrap();
    let job = p.jobs().next().unwrap();
    let Some(crate::options::Value::BsSplit(splits)) = job.value("bssplit") else {
        panic!("bssplit is not read into a split");
    };
    assert_eq!(splits[0][0].bs, 4096);
    let p = plan_text("[a]\nkb_base=1000\nbssplit=4k\n", &[], false).unwrap();
    let job = p.jobs().next().unwrap();
    let Some(crate::options::Value::BsSplit(splits)) = job.value("bssplit") else {
        panic!("bssplit is not read into a split");
    };
    assert_eq!(splits[0][0].bs, 4000);
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "no option is called \"iodepht\"")]
fn a_misspelt_option_name_fails_a_debug_assertion() {
    let p = plan_text("[a]\n", &[], false).unwrap();
    let _ = p.jobs().next().unwrap().num("iodepht");
}
