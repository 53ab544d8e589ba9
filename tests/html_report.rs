//! ferrio's HTML report, loaded in headless Chromium: every chart must be
//! drawn (its lines and bars laid out with a non-empty size). Chromium
//! comes from Debian's `chromium` package, which scripts/test installs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrio-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A script added to a copy of the page (the page itself has none): it
/// writes each chart's id and the laid-out size of its drawn marks into
/// the document, which Chromium's --dump-dom then prints.
const PROBE: &str = r#"<script>
window.addEventListener('load', () => {
  const found = [...document.querySelectorAll('svg.chart')].map(svg => {
    const marks = [...svg.querySelectorAll('polyline.series, rect.bar')];
    const drawn = marks.filter(m => { const b = m.getBBox(); return b.width > 0 || b.height > 0; });
    return svg.id + ':' + drawn.length;
  });
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = found.join(' ');
  document.body.appendChild(out);
});
</script>"#;

fn chromium() -> &'static str {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
        .expect("headless Chromium is needed: apt-get install chromium (scripts/test does)")
}

fn render(page: &Path) -> String {
    let out = Command::new("timeout")
        .args(["-k", "5", "60", chromium()])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn html_report_charts_render_in_chromium() {
    let dir = scratch();
    let job = "[h]\nioengine=psync\nfilename=data\nsize=16m\nrw=randrw\nruntime=2\ntime_based\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_ferrio"))
        .args(["--output-format=html", "--output=report.html", "job.fio"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script"), "the page carries no script");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "self-contained"
    );
    let probed = dir.join("probed.html");
    std::fs::write(&probed, page.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let dom = render(&probed);
    let probe = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("no probe output; chromium printed: {dom:.400}"));
    let charts: Vec<(&str, usize)> = probe
        .split_whitespace()
        .map(|c| {
            let (id, n) = c.split_once(':').unwrap();
            (id, n.parse().unwrap())
        })
        .collect();
    let ids: Vec<&str> = charts.iter().map(|c| c.0).collect();
    for wanted in [
        "bandwidth",
        "iops",
        "latency-read",
        "latency-write",
        "depth",
    ] {
        assert!(ids.contains(&wanted), "chart {wanted} missing: {ids:?}");
    }
    for (id, drawn) in &charts {
        assert!(*drawn > 0, "chart {id} drew nothing: {probe}");
    }
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

/// The page's summary rows, job by job: (heading, [(direction, cells)]).
fn summaries(page: &str) -> Vec<(String, Vec<Vec<String>>)> {
    page.split("<section class=\"job\"><h2>")
        .skip(1)
        .map(|section| {
            let heading = section.split("</h2>").next().unwrap().to_string();
            let table = section.split("</table>").next().unwrap();
            let rows = table
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
                .collect();
            (heading, rows)
        })
        .collect()
}

/// One run writes JSON+ and HTML; every number of the page's summary
/// tables is the JSON document's value for the same job and direction,
/// as printed: IOPS and bandwidth within one step of their last digit,
/// clat max likewise, and each clat percentile within the fio histogram
/// bucket (1/64 of its value, 6 bits of precision) around the JSON's.
#[test]
fn html_summary_values_are_the_json_values_of_the_same_run() {
    // Not scratch(): that folder is the other test's, which runs beside.
    let dir = std::env::temp_dir().join(format!("ferrio-html-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = "[h]\nioengine=null\nsize=64m\nbs=4k\nrw=randrw\nnumjobs=2\n\
        [g]\nstonewall\nioengine=null\nsize=16m\nrw=write\nbs=64k\n";
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let run = Command::new("timeout")
        .args(["-k", "5", "60", env!("CARGO_BIN_EXE_ferrio")])
        .args(["--output-format=json+,html", "job.fio"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = String::from_utf8(run.stdout).unwrap();
    let page_at = out.find("<!DOCTYPE html>").expect("an HTML page on stdout");
    let doc: serde_json::Value = serde_json::from_str(&out[..page_at]).unwrap();
    let jobs = doc["jobs"].as_array().unwrap();
    let tables = summaries(&out[page_at..]);
    assert_eq!(tables.len(), jobs.len());
    let mut compared = 0;
    for (job, (heading, rows)) in jobs.iter().zip(&tables) {
        let name = job["jobname"].as_str().unwrap();
        let group = job["groupid"].as_u64().unwrap();
        assert_eq!(*heading, format!("{name} (group {group}, 1 job)"));
        let used: Vec<&str> = ["read", "write", "trim"]
            .into_iter()
            .filter(|d| job[d]["total_ios"].as_u64().unwrap() > 0)
            .collect();
        assert_eq!(rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), used);
        for row in rows {
            let d = &job[row[0].as_str()];
            let clat = &d["clat_ns"];
            let near = |cell: &str, want: f64, slack: f64, what: &str| {
                let (value, step) = shown(cell);
                assert!(
                    (value - want).abs() <= step + slack,
                    "{name} {} {what}: page {cell}, JSON {want}",
                    row[0]
                );
            };
            near(&row[1], d["iops"].as_f64().unwrap().floor(), 0.0, "IOPS");
            near(&row[2], d["bw_bytes"].as_f64().unwrap(), 0.0, "bandwidth");
            for (cell, p) in [(3, "50.000000"), (4, "99.000000"), (5, "99.990000")] {
                let want = clat["percentile"][p].as_f64().unwrap();
                near(&row[cell], want, want / 64.0, p);
            }
            near(&row[6], clat["max"].as_f64().unwrap(), 0.0, "clat max");
            compared += 1;
        }
    }
    // h's two clones read and write, g writes.
    assert_eq!(compared, 5);
    let _ = std::fs::remove_dir_all(&dir);
}
