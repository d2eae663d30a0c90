//! Issue 27 §5: `loggp html` in a real browser. The page of a real 4-rank job
//! (examples/demo.c under Open MPI, with its time split and communication matrix), and
//! the same report grown to 128 ranks (`synth::many_ranks`), rendered in headless
//! Chromium: no console message and no load error; every figure draws (its region of the
//! screenshot has colour: the series, bars and cells, not only grey axes and grid); the
//! 128-rank page stays under 2 MB. A machine without Chromium fails this test, unless
//! "chromium" is on the skip list the test command prints.
mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// Added to the page under test only: records load errors (capture phase: also a
/// resource that fails) and, once loaded, each figure's box and the page's height.
const PROBE: &str = "<script>const loggpErrors=[];window.addEventListener('error',e=>loggpErrors.push(String(e.message||e.target&&e.target.src)),true);window.addEventListener('load',()=>{const r=[...document.querySelectorAll('figure')].map(f=>{const s=f.querySelector('svg');const b=(s||f).getBoundingClientRect();return [f.id,Math.round(b.left),Math.round(b.top+window.scrollY),Math.round(b.width),Math.round(b.height),s?1:0].join(',')});const p=document.createElement('pre');p.id='loggp-probe';p.textContent='PROBE '+document.documentElement.scrollHeight+' ERRORS '+loggpErrors.length+' FIGURES '+r.join(';');document.body.appendChild(p);});</script>";

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Runs Chromium headless on `page` with `args`; returns (stdout, stderr).
fn chrome(bin: &str, dir: &Path, page: &Path, args: &[String]) -> (String, String) {
    let o = Command::new("timeout")
        .args(["120", bin, "--headless", "--no-sandbox", "--disable-gpu"])
        .args(["--hide-scrollbars", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium");
    (
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// Renders `html` and checks it; returns the figures' names.
fn renders(bin: &str, name: &str, html: &str) -> Vec<String> {
    let dir = scratch(name);
    let page = dir.join("page.html");
    let probed = html.replacen("<head>", &format!("<head>{PROBE}"), 1);
    assert_ne!(probed, html, "{name}: no <head>");
    std::fs::write(&page, &probed).unwrap();
    let (dom, err) = chrome(
        bin,
        &dir,
        &page,
        &["--dump-dom".into(), "--window-size=1280,1000".into()],
    );
    let console: Vec<&str> = err.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "{name}: console messages: {console:#?}");
    let probe = dom
        .split("PROBE ")
        .nth(2)
        .or_else(|| dom.split("PROBE ").nth(1))
        .unwrap_or_else(|| panic!("{name}: the page did not load: {err}"));
    let probe = probe.split('<').next().unwrap_or("");
    let mut w = probe.split_whitespace();
    let height: u32 = w.next().and_then(|x| x.parse().ok()).expect("height");
    assert_eq!(w.next(), Some("ERRORS"));
    assert_eq!(w.next(), Some("0"), "{name}: load errors: {probe}");
    assert_eq!(w.next(), Some("FIGURES"));
    let figs: Vec<Vec<String>> = w
        .next()
        .unwrap_or("")
        .split(';')
        .filter(|f| !f.is_empty())
        .map(|f| f.split(',').map(String::from).collect())
        .collect();
    println!("{name}: page height {height} px, figures (id, left, top, width, height): {figs:?}");
    let png = dir.join("shot.png");
    // Chromium shoots at most 16000 device pixels in height: a taller page (a 128-rank
    // page is 15–17.3k CSS pixels, with the tables a run's report holds) is shot at half
    // scale, so that the figures at its foot are in the picture too.
    let scale = if height > 16000 { 0.5 } else { 1.0 };
    chrome(
        bin,
        &dir,
        &page,
        &[
            format!("--screenshot={}", png.display()),
            format!("--force-device-scale-factor={scale}"),
            format!("--window-size=1280,{}", height.min(32000)),
        ],
    );
    assert!(png.is_file(), "{name}: no screenshot");
    let region: Vec<String> = figs
        .iter()
        .flat_map(|f| f[1..5].iter())
        .map(|v| format!("{}", (v.parse::<f64>().unwrap_or(0.0) * scale).round()))
        .collect();
    let o = Command::new("python3")
        .arg(root().join("tools/tests/png_ink.py"))
        .arg(&png)
        .args(&region)
        .output()
        .unwrap();
    let lines: Vec<Vec<f64>> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            l.split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .collect();
    assert_eq!(
        lines.len(),
        figs.len(),
        "{name}: png_ink: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut names = vec![];
    for (f, v) in figs.iter().zip(&lines) {
        assert_eq!(f[5], "1", "{name}: figure {} has no svg", f[0]);
        println!(
            "{name}: {}: {:.1} % ink, {:.2} % colour",
            f[0],
            100.0 * v[0],
            100.0 * v[1]
        );
        assert!(
            v[1] > 0.002,
            "{name}: figure {} draws no colour: {v:?}",
            f[0]
        );
        names.push(f[0].clone());
    }
    names
}

#[test]
fn the_page_renders_in_headless_chromium_at_4_and_128_ranks() {
    let Some(bin) = chromium() else {
        return skip::cannot_run(
            "chromium",
            "no chromium on this machine (scripts/setup.sh installs it)",
        );
    };
    let (r, _) = shim_job(
        Mpi::OpenMpi,
        4,
        "../../examples/demo.c",
        &[],
        &[],
        "browser_demo",
    );
    let figs = renders(bin, "browser_4", &loggp_tools::html::page(&r));
    for want in ["time_split.svg", "matrix.svg", "time_in_mpi.svg"] {
        assert!(figs.iter().any(|f| f == want), "no {want} among {figs:?}");
    }
    let big = loggp_tools::synth::many_ranks(&r, 128);
    assert_eq!(big.time_split.len(), 128);
    let page = loggp_tools::html::page(&big);
    println!("128 ranks: {} bytes", page.len());
    assert!(page.len() < 2 << 20, "128-rank page: {} bytes", page.len());
    let figs128 = renders(bin, "browser_128", &page);
    assert_eq!(figs, figs128, "the same figures at 128 ranks");
}
