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
