//! ferrio's HTML report (the page of a run, and `ferrio report` of saved
//! results), loaded in headless Chromium with every host name unresolvable
//! (so nothing can come from a network): screenshots of a one-job, a
//! two-job mixed and a two-run comparison page are written to
//! `target/html-screenshots/`, and each page's drawn charts are measured
//! from the rendered element boxes: at least four tick labels on every
//! axis, a unit on every axis title, legend swatches in the colours of
//! their series, and no two text boxes overlapping. Chromium comes from
//! Debian's `chromium` package, which scripts/test installs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrio-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ferrio(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new("timeout")
        .args(["-k", "5", "60", env!("CARGO_BIN_EXE_ferrio")])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ferrio {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Where the screenshots go: `target/html-screenshots/`.
fn shots() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_ferrio"));
    let target = exe.parent().and_then(Path::parent).unwrap();
    let dir = target.join("html-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A script added to a copy of the page: once every chart is drawn it
/// measures them and writes the result, as JSON, into the document, which
/// Chromium's --dump-dom then prints.
const PROBE: &str = r#"<script>
function measure() {
  const box = e => e.getBoundingClientRect();
  const shown = t => t.textContent.trim() !== '' && box(t).width > 0;
  const stroke = p => p ? getComputedStyle(p).stroke : null;
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
    const axes = ['x', 'y', 'y2'].map(a => {
      const title = gd.querySelector('text.' + a + 'title');
      if (!title) return null;
      const ticks = [...gd.querySelectorAll('g.' + a + 'tick text')].filter(shown);
      return {axis: a, title: title.textContent, ticks: ticks.map(t => t.textContent)};
    }).filter(a => a);
    const lines = [...gd.querySelectorAll('.scatterlayer .trace')]
      .map(t => stroke(t.querySelector('path.js-line')));
    const legend = [...gd.querySelectorAll('g.legend g.traces')].map(t => ({
      text: t.querySelector('text.legendtext').textContent,
      colour: stroke(t.querySelector('.legendlines path')),
    }));
    const texts = [...gd.querySelectorAll('svg text')].filter(shown).map(t => {
      const b = box(t);
      return {text: t.textContent, l: b.left, t: b.top, r: b.right, b: b.bottom};
    });
    const overlaps = [];
    texts.forEach((a, i) => texts.slice(i + 1).forEach(b => {
      const w = Math.min(a.r, b.r) - Math.max(a.l, b.l);
      const h = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (w > 1 && h > 1) overlaps.push(a.text + ' / ' + b.text);
    }));
    return {id: gd.id, width: box(gd).width, axes, lines, legend, overlaps};
  });
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({
    drawn: Number(document.body.dataset.drawn || -1),
    resources: performance.getEntriesByType('resource').map(r => r.name),
    height: document.documentElement.scrollHeight,
    charts,
  });
  document.body.appendChild(out);
}
const wait = () => document.body.dataset.drawn ? measure() : setTimeout(wait, 50);
window.addEventListener('load', wait);
</script>"#;

fn chromium(page: &Path, extra: &[String]) -> Output {
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
        .expect("headless Chromium is needed: apt-get install chromium (scripts/test does)");
    Command::new("timeout")
        .args(["-k", "5", "90", browser])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--window-size=1400,1000",
            "--virtual-time-budget=20000",
        ])
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium")
}

/// Measures `page` in Chromium, writes its full-height screenshot as
/// `NAME.png`, and checks every chart; returns the measures.
fn check_page(page: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(page).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>"));
    for external in ["<script src", "<link", "<img", "<iframe"] {
        assert!(!text.contains(external), "self-contained: found {external}");
    }
    let probed = page.with_extension("probed.html");
    std::fs::write(&probed, text.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let dom = chromium(&probed, &["--dump-dom".to_string()]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    let json = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no probe output; chromium printed: {dom:.400}"));
    let m: Value = serde_json::from_str(
        &json
            .replace("&amp;", "&")
            .replace("&lt;", "<")
            .replace("&gt;", ">"),
    )
    .unwrap();
    assert_eq!(
        m["resources"],
        serde_json::json!([]),
        "the page loads nothing"
    );
    let charts = m["charts"].as_array().unwrap();
    assert_eq!(
        m["drawn"].as_u64(),
        Some(charts.len() as u64),
        "every figure drawn"
    );
    for c in charts {
        let id = c["id"].as_str().unwrap();
        assert!(c["width"].as_f64().unwrap() > 600.0, "{id}: {c}");
        let axes = c["axes"].as_array().unwrap();
        assert!(axes.len() >= 2, "{id}: axes {axes:?}");
        for a in axes {
            let title = a["title"].as_str().unwrap();
            assert!(
                title.contains('(') && title.ends_with(')'),
                "{id}: axis title without its unit: {title}"
            );
            let ticks = a["ticks"].as_array().unwrap();
            assert!(ticks.len() >= 4, "{id}: {title}: ticks {ticks:?}");
            // A value in its axis unit carries no SI fraction ("500m" GiB/s).
            for t in ticks {
                let t = t.as_str().unwrap();
                assert!(
                    !t.ends_with(['m', 'µ', 'n', 'p']),
                    "{id}: {title}: tick {t}"
                );
            }
        }
        let lines: Vec<&Value> = c["lines"].as_array().unwrap().iter().collect();
        let legend = c["legend"].as_array().unwrap();
        assert_eq!(legend.len(), lines.len(), "{id}: a legend entry per series");
        for (entry, line) in legend.iter().zip(&lines) {
            assert_eq!(
                &entry["colour"], *line,
                "{id}: legend {} not in its series' colour",
                entry["text"]
            );
        }
        let overlaps = c["overlaps"].as_array().unwrap();
        assert!(overlaps.is_empty(), "{id}: overlapping text: {overlaps:?}");
    }
    let height = m["height"].as_u64().unwrap().clamp(800, 16_000);
    let png = shots().join(format!("{name}.png"));
    let shot = chromium(
        page,
        &[
            format!("--window-size=1400,{height}"),
            format!("--screenshot={}", png.display()),
        ],
    );
    assert!(
        png.metadata().is_ok_and(|m| m.len() > 10_000),
        "no screenshot: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    m
}

fn ids(m: &Value) -> Vec<String> {
    m["charts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// One psync job, its page written by the run itself: bandwidth, IOPS,
/// latency over time (from the latency log it writes) and latency
/// distribution per direction; no queue-depth chart (synchronous).
#[test]
fn one_job_page() {
    let dir = scratch("one");
    let job = "[h]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=2\ntime_based\nwrite_lat_log=h\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    ferrio(
        &dir,
        &["--output-format=html", "--output=report.html", "job.fio"],
    );
    let m = check_page(&dir.join("report.html"), "one-job");
    let mut want = Vec::new();
    for d in ["read", "write"] {
        for kind in ["bandwidth", "iops", "clat", "distribution"] {
            want.push(format!("r0-g0-{d}-{kind}"));
        }
    }
    // The scratch folder's disk, busy over time (its file is on one).
    want.push("r0-disks".to_string());
    assert_eq!(ids(&m), want, "the scratch folder must be on a disk");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two jobs of one group, a queued mixed job and a synchronous writer,
/// saved as json+ with their logs and drawn by `ferrio report`: overlays
/// of both jobs, latency over time from the logs, the queue depth of the
/// queued job only.
#[test]
fn two_job_mixed_page_from_saved_results() {
    let dir = scratch("mixed");
    let job = "[global]\nfilename=data\nsize=16m\nruntime=3\ntime_based\n\
        write_bw_log=l\nwrite_iops_log=l\nwrite_lat_log=l\n\
        [mix]\nioengine=posixaio\niodepth=4\nrw=randrw\nbs=4k\n\
        [writer]\nioengine=psync\nrw=write\nbs=64k\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    ferrio(
        &dir,
        &["--output-format=json+", "--output=run.json", "job.fio"],
    );
    ferrio(&dir, &["report", "run.json", "--output", "report.html"]);
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("<td>mix</td><td>posixaio</td><td>randrw</td><td>4k</td><td>4</td>"));
    assert!(page.contains("<tr class=\"total\"><th>group total</th><th>write</th>"));
    let m = check_page(&dir.join("report.html"), "two-job-mixed");
    let ids = ids(&m);
    for kind in ["bandwidth", "iops", "clat", "distribution"] {
        assert!(
            ids.contains(&format!("r0-g0-write-{kind}")),
            "{kind}: {ids:?}"
        );
        assert!(
            ids.contains(&format!("r0-g0-read-{kind}")),
            "{kind}: {ids:?}"
        );
    }
    assert!(ids.contains(&"r0-g0-depth".to_string()), "{ids:?}");
    // Disk utilisation over time, read back from the saved document.
    assert!(ids.contains(&"r0-disks".to_string()), "{ids:?}");
    let chart = |id: &str| {
        m["charts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    let legend = |id: &str| -> Vec<String> {
        chart(id)["legend"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(legend("r0-g0-write-bandwidth"), ["mix", "writer"]);
    assert_eq!(legend("r0-g0-depth"), ["mix held", "mix requested (4)"]);
    assert_eq!(legend("r0-g0-read-clat"), ["mix p50", "mix p99", "mix max"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two saved runs of one job at two block sizes (their bandwidth logs in
/// separate folders), side by side: the comparison table holds each run's
/// values and the change from the first; their latency curves and
/// bandwidth over time are overlaid.
#[test]
fn two_run_comparison_page() {
    let dir = scratch("compare");
    for bs in ["4k", "64k"] {
        let job = format!(
            "[j]\nioengine=null\nsize=256m\nrw=randread\nbs={bs}\nruntime=2\ntime_based\nwrite_bw_log=j\n"
        );
        std::fs::create_dir_all(dir.join(bs)).unwrap();
        std::fs::write(dir.join(bs).join("job.fio"), job).unwrap();
        ferrio(
            &dir.join(bs),
            &["--output-format=json+", "--output=run.json", "job.fio"],
        );
    }
    ferrio(
        &dir,
        &[
            "report",
            "4k/run.json",
            "64k/run.json",
            "--output",
            "report.html",
        ],
    );
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let table = page.split("<table class=\"compare\">").nth(1).unwrap();
    assert!(table.starts_with("<tr><th>job</th><th>direction</th><th>measure</th><th>4k/run.json</th><th>64k/run.json</th></tr>"));
    let docs: Vec<Value> = ["4k/run.json", "64k/run.json"]
        .iter()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap())
        .collect();
    let iops: Vec<f64> = docs
        .iter()
        .map(|d| d["jobs"][0]["read"]["iops"].as_f64().unwrap())
        .collect();
    let row = table
        .split("<tr><td>j</td><td>read</td><td>IOPS</td>")
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap();
    let change = (iops[1] - iops[0]) / iops[0] * 100.0;
    assert!(
        row.ends_with(&format!(" ({change:+.1}%)</td>")),
        "IOPS row {row}: change {change:+.1}%"
    );
    let m = check_page(&dir.join("report.html"), "two-run-comparison");
    let ids = ids(&m);
    assert_eq!(ids[..2], ["compare-0", "compare-0-bandwidth"]);
    assert!(
        ids.contains(&"r1-g0-read-distribution".to_string()),
        "{ids:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// HTML and another format in one stream would be neither: refused.
#[test]
fn html_shares_no_stream() {
    let dir = scratch("stream");
    std::fs::write(dir.join("job.fio"), "[j]\nioengine=null\nsize=1m\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args(["--output-format=json+,html", "job.fio"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ferrio: --output-format=html cannot share one stream with another format: the page \
         would be neither; write json+ (--output-format=json+ --output=run.json) and render \
         the page from it with `ferrio report run.json`\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A number the page shows with its unit (`2720k`, `10.4GiB/s`,
/// `98.7 µs`), in base units, and the value of one unit of its last
/// digit: a printed value stands for anything within that step of it.
fn shown(text: &str) -> (f64, f64) {
    let units: [(&str, f64); 12] = [
        ("GiB/s", 1_073_741_824.0),
        ("MiB/s", 1_048_576.0),
        ("KiB/s", 1024.0),
        ("B/s", 1.0),
        (" ns", 1.0),
        (" µs", 1e3),
        (" ms", 1e6),
        (" s", 1e9),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("", 1.0),
    ];
    let (digits, scale) = units
        .iter()
        .find_map(|(u, s)| text.strip_suffix(u).map(|d| (d, *s)))
        .unwrap();
    let decimals = digits.split_once('.').map_or(0, |(_, f)| f.len());
    let value: f64 = digits
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {text}"));
    (value * scale, scale / 10f64.powi(decimals as i32))
}

/// The page's results rows, in order: [job, direction, cells...].
fn summaries(page: &str) -> Vec<Vec<String>> {
    page.split("<table class=\"results\">")
        .skip(1)
        .flat_map(|section| {
            let table = section.split("</table>").next().unwrap();
            table
                .split("<tr><td>")
                .skip(1)
                .map(|row| {
                    row.split("</tr>")
                        .next()
                        .unwrap()
                        .trim_end_matches("</td>")
                        .split("</td><td>")
                        .map(str::to_string)
                        .collect()
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Checks every results row of `page` against the JSON document `doc`:
/// the row of each job and direction, in order, shows the document's
/// values as printed: IOPS and bandwidth within one step of their last
/// digit, clat max likewise, and each clat percentile within the fio
/// histogram bucket (1/64 of its value, 6 bits of precision) around the
/// JSON's. Returns how many rows were compared.
fn rows_match(page: &str, doc: &Value) -> usize {
    let jobs = doc["jobs"].as_array().unwrap();
    let rows = summaries(page);
    let mut rows = rows.iter();
    let mut compared = 0;
    for (n, job) in jobs.iter().enumerate() {
        let name = job["jobname"].as_str().unwrap();
        // Jobs of one name (numjobs clones) are told apart by their place.
        let same: Vec<usize> = (0..jobs.len())
            .filter(|i| jobs[*i]["jobname"] == name)
            .collect();
        let label = if same.len() > 1 {
            format!("{name}.{}", same.iter().position(|i| *i == n).unwrap())
        } else {
            name.to_string()
        };
        for dir in ["read", "write", "trim"] {
            if job[dir]["total_ios"].as_u64().unwrap() == 0 {
                continue;
            }
            let row = rows.next().expect("a row per job and direction");
            assert_eq!((row[0].as_str(), row[1].as_str()), (label.as_str(), dir));
            let d = &job[dir];
            let clat = &d["clat_ns"];
            let near = |cell: &str, want: f64, slack: f64, what: &str| {
                let (value, step) = shown(cell);
                assert!(
                    (value - want).abs() <= step + slack,
                    "{label} {dir} {what}: page {cell}, JSON {want}"
                );
            };
            near(&row[2], d["iops"].as_f64().unwrap().floor(), 0.0, "IOPS");
            near(&row[3], d["bw_bytes"].as_f64().unwrap(), 0.0, "bandwidth");
            for (cell, p) in [(4, "50.000000"), (5, "99.000000"), (6, "99.990000")] {
                let want = clat["percentile"][p].as_f64().unwrap();
                near(&row[cell], want, want / 64.0, p);
            }
            near(&row[7], clat["max"].as_f64().unwrap(), 0.0, "clat max");
            compared += 1;
        }
    }
    assert!(rows.next().is_none());
    compared
}

/// One run writes json+; every number of the results tables of the page
/// `ferrio report` makes of it is the JSON document's (`rows_match`).
#[test]
fn html_summary_values_are_the_json_values_of_the_same_run() {
    let dir = scratch("values");
    let job = "[h]\nioengine=null\nsize=64m\nbs=4k\nrw=randrw\nnumjobs=2\n\
        [g]\nstonewall\nioengine=null\nsize=16m\nrw=write\nbs=64k\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    ferrio(
        &dir,
        &["--output-format=json+", "--output=run.json", "job.fio"],
    );
    let page = String::from_utf8(ferrio(&dir, &["report", "run.json"]).stdout).unwrap();
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    // h's two clones read and write, g writes.
    assert_eq!(rows_match(&page, &doc), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ferrio report` of real fio 3.33's own json+ and logs: the page shows
/// fio's values, draws the logged series, and passes every chart check.
#[test]
fn report_of_fios_own_json_plus_and_logs() {
    let dir = scratch("fio");
    let job = "[global]\nfilename=data\nsize=16m\nruntime=2\ntime_based\n\
        write_bw_log=l\nwrite_iops_log=l\nwrite_lat_log=l\n\
        [mix]\nioengine=posixaio\niodepth=4\nrw=randrw\n\
        [writer]\nioengine=psync\nrw=write\nbs=64k\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let fio = Command::new("timeout")
        .args([
            "-k",
            "5",
            "60",
            "fio",
            "--output-format=json+",
            "--output=run.json",
            "job.fio",
        ])
        .current_dir(&dir)
        .output()
        .expect("fio 3.33 is needed: apt-get install fio (scripts/test does)");
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    ferrio(&dir, &["report", "run.json", "--output", "report.html"]);
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(doc["fio version"], "fio-3.33");
    assert_eq!(rows_match(&page, &doc), 3);
    assert!(page.contains("Queue depth over time: not in these results"));
    let m = check_page(&dir.join("report.html"), "fio-saved-run");
    let ids = ids(&m);
    for kind in ["bandwidth", "iops", "clat", "distribution"] {
        assert!(
            ids.contains(&format!("r0-g0-write-{kind}")),
            "{kind}: {ids:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ferrio report --repeats N`: the files are sets of N runs of one
/// setup; the comparison shows each set's median (the median of the
/// runs' own JSON values) and says of each change whether it is beyond
/// the repeats' spread. Files that are not whole sets are refused.
#[test]
fn repeated_runs_compare_as_medians_with_their_spread() {
    let dir = scratch("repeats");
    let mut names = Vec::new();
    for (set, bs) in [("a", "4k"), ("b", "64k")] {
        for n in 1..=3 {
            let name = format!("{set}{n}.json");
            ferrio(
                &dir,
                &[
                    "--name=j",
                    "--ioengine=null",
                    "--rw=read",
                    &format!("--bs={bs}"),
                    "--size=64m",
                    "--output-format=json+",
                    &format!("--output={name}"),
                ],
            );
            names.push(name);
        }
    }
    let mut args: Vec<&str> = vec!["report", "--repeats", "3"];
    args.extend(names.iter().map(String::as_str));
    args.extend(["--output", "page.html"]);
    ferrio(&dir, &args);
    let page = std::fs::read_to_string(dir.join("page.html")).unwrap();
    assert!(page.contains("<th>a1.json (median of 3)</th><th>b1.json (median of 3)</th>"));
    // The IOPS row: each set's median of its runs' JSON IOPS.
    let iops = |name: &str| {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
        doc["jobs"][0]["read"]["iops"].as_f64().unwrap()
    };
    let median = |set: &[String]| {
        let mut v: Vec<f64> = set.iter().map(|n| iops(n)).collect();
        v.sort_by(f64::total_cmp);
        v[1]
    };
    let (a, b) = (median(&names[..3]), median(&names[3..]));
    let row = page
        .split("<tr>")
        .find(|r| r.starts_with("<td>j</td><td>read</td><td>IOPS</td>"))
        .expect("no IOPS row");
    let cells: Vec<&str> = row
        .split("<td>")
        .skip(4)
        .map(|c| c.split("</td>").next().unwrap())
        .collect();
    // The first set shows its median alone; the second its change from
    // the first's, which the two medians give to the printed digit.
    assert_eq!(cells.len(), 2, "{row}");
    assert!(!cells[0].contains('('), "{row}");
    let change = (b - a) / a * 100.0;
    assert!(
        cells[1].contains(&format!("({change:+.1}%, ")),
        "{row}: {a} {b}"
    );
    assert!(cells[1].ends_with("the spread)"), "{row}");
    // Five files are not sets of three.
    let out = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args(["report", "--repeats", "3"])
        .args(&names[..5])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "ferrio report: 5 files are not whole sets of --repeats 3"
    );
}

/// ferrio's `disk_util_over_time` beside fio's `disk_util`: a point every
/// 500 ms (the last at the run's end), each share within 0-100 %, and
/// the shares, weighted by their intervals, add up to the busy time that
/// fio's `util` is made of (both come from the same io_ticks counter),
/// short of at most the last 100 ms.
#[test]
fn disk_utilisation_over_time_adds_up_to_the_runs_figure() {
    let dir = scratch("disk-series");
    let job = "[d]\nioengine=psync\nfilename=data\nsize=16m\nrw=randwrite\nbs=4k\ndirect=1\nruntime=2\ntime_based\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let out = ferrio(&dir, &["--output-format=json", "job.fio"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = &doc["disk_util"][0];
    let name = total["name"]
        .as_str()
        .expect("the scratch folder must be on a disk (disk_util names none)");
    let series = &doc["ferrio"]["disk_util_over_time"][0];
    assert_eq!(series["name"], name);
    assert_eq!(series["interval_ms"], 500);
    let ms: Vec<u64> = series["ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let util: Vec<f64> = series["util"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(ms.len(), util.len());
    // At least 2 s of run: points at 0.5, 1, 1.5 and 2 s or later.
    assert!(ms.len() >= 4, "{ms:?}");
    let mut before = 0;
    let mut busy_ms = 0.0;
    for (i, (&at, &u)) in ms.iter().zip(&util).enumerate() {
        let last = i + 1 == ms.len();
        assert!(at >= before + if last { 100 } else { 500 }, "{ms:?}");
        assert!((0.0..=100.0).contains(&u), "{util:?}");
        busy_ms += u / 100.0 * (at - before) as f64;
        before = at;
    }
    // fio's util is 100 × busy / elapsed, over the same span up to the
    // report; the series' intervals are timed to the microsecond.
    let whole = total["util"].as_f64().unwrap() / 100.0 * before as f64;
    assert!(
        (busy_ms - whole).abs() <= 100.0 + 0.01 * whole,
        "series busy {busy_ms:.1} ms, util's {whole:.1} ms"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A word of a PDF: (page from 1, text, left, right, height), in points.
type PdfWord = (usize, String, f64, f64, f64);

/// The words of a PDF, from poppler's `pdftotext -bbox`, and each page's
/// width.
fn pdf_words(pdf: &Path) -> (Vec<PdfWord>, Vec<f64>) {
    let out = Command::new("pdftotext")
        .args(["-bbox", &pdf.display().to_string(), "-"])
        .output()
        .expect("pdftotext (poppler-utils) is needed: scripts/test installs it");
    assert!(
        out.status.success(),
        "pdftotext failed on {}",
        pdf.display()
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let attr = |tag: &str, name: &str| -> f64 {
        let key = format!("{name}=\"");
        let at = tag.find(&key).unwrap() + key.len();
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    let (mut words, mut widths) = (Vec::new(), Vec::new());
    for tag in text.split('<').skip(1) {
        if tag.starts_with("page ") {
            widths.push(attr(tag, "width"));
        } else if tag.starts_with("word ") {
            let word = tag.split('>').nth(1).unwrap_or("").to_string();
            let height = attr(tag, "yMax") - attr(tag, "yMin");
            words.push((
                widths.len(),
                word,
                attr(tag, "xMin"),
                attr(tag, "xMax"),
                height,
            ));
        }
    }
    (words, widths)
}

/// The page printed from a wide window (Chromium's print to PDF, as a
/// user's Ctrl+P): every chart is redrawn at the paper's width, so that
/// nothing runs past the right margin and the text is not shrunk to fit
/// (the median word stays above 10.5 pt); every chart's title and every
/// value of the results table are on paper.
#[test]
fn printed_page_fits_the_paper_at_full_size() {
    let dir = scratch("print");
    // A queued job: its queue-depth chart spans the window's width.
    let job = "[p]\nioengine=posixaio\niodepth=4\nfilename=data\nsize=16m\nrw=randrw\nruntime=2\ntime_based\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    ferrio(
        &dir,
        &["--output-format=html", "--output=report.html", "job.fio"],
    );
    let page = dir.join("report.html");
    let pdf = dir.join("report.pdf");
    let out = chromium(
        &page,
        &[
            "--no-pdf-header-footer".to_string(),
            format!("--print-to-pdf={}", pdf.display()),
        ],
    );
    assert!(
        pdf.exists(),
        "no PDF: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (words, widths) = pdf_words(&pdf);
    assert!(!words.is_empty() && !widths.is_empty(), "an empty PDF");
    // The page's print margin is 12 mm (34 pt).
    for (p, word, _, right, _) in &words {
        let width = widths[p - 1];
        assert!(
            *right <= width - 30.0,
            "page {p}: {word:?} ends at {right:.0} of {width:.0} pt"
        );
    }
    let mut heights: Vec<f64> = words.iter().map(|w| w.4).collect();
    heights.sort_by(f64::total_cmp);
    let median = heights[heights.len() / 2];
    // At full size the median word's box is about 12 pt high (16 px body
    // type, 12 px chart text); a page shrunk to fit a wide window's charts
    // prints it below 9 pt.
    assert!(
        median >= 10.5,
        "type shrunk to fit: median word {median:.1} pt high"
    );
    let text: Vec<&str> = words.iter().map(|w| w.1.as_str()).collect();
    let html = std::fs::read_to_string(&page).unwrap();
    let rows = summaries(&html);
    assert_eq!(rows.len(), 2, "a read and a write row");
    for cell in rows.iter().flatten() {
        for piece in cell.split_whitespace() {
            assert!(
                text.contains(&piece),
                "{piece:?} (of {cell:?}) not on paper"
            );
        }
    }
    for title in [
        "Bandwidth over time, read",
        "IOPS over time, write",
        "Completion latency distribution, write",
    ] {
        let first = title.split(' ').next().unwrap();
        let found = words.windows(title.split(' ').count()).any(|w| {
            w[0].1 == first && w.iter().map(|x| x.1.as_str()).collect::<Vec<_>>().join(" ") == title
        });
        assert!(found, "chart {title:?} not on paper");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
