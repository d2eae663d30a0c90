//! The code's layout, checked (issue 23): in every crate of the workspace, no import
//! cycle between files nor between the stages (top-level modules) of a crate, and no
//! file over 500 lines outside its tests. Reads the sources only; no MPI.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;
const CRATES: [&str; 4] = ["src", "report/src", "model/src", "tools/src"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text before the file's test module (`#[cfg(test)]` at the start of a line,
/// followed by `mod`), which in this code base comes last.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// The module path of a file under its crate root (`record/hooks/p2p.rs` →
/// [record, hooks, p2p]; `mod.rs` and `lib.rs`/`main.rs` name their folder).
fn module_of(crate_root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(crate_root).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !["mod", "lib", "main"].contains(&stem) {
        parts.push(stem.to_string());
    }
    parts
}

/// The file that defines the longest prefix of `path` (a module path).
fn file_of(crate_root: &Path, path: &[String]) -> Option<PathBuf> {
    for n in (0..=path.len()).rev() {
        let dir = path[..n]
            .iter()
            .fold(crate_root.to_path_buf(), |d, p| d.join(p));
        let candidates = if n == 0 {
            vec![crate_root.join("lib.rs"), crate_root.join("main.rs")]
        } else {
            vec![dir.with_extension("rs"), dir.join("mod.rs")]
        };
        if let Some(f) = candidates.into_iter().find(|f| f.exists()) {
            return Some(f);
        }
    }
    None
}

/// Splits source into identifier, `::`, brace and comma tokens (comments and strings
/// removed first, so that text in them is no import).
fn tokens(text: &str) -> Vec<String> {
    let mut clean = String::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut in_str = false;
        let mut prev = ' ';
        for ch in code.chars() {
            if ch == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                clean.push(ch);
            }
            prev = ch;
        }
        clean.push('\n');
    }
    let mut out = Vec::new();
    let chars: Vec<char> = clean.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
            continue;
        }
        if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
            continue;
        }
        if "{},;".contains(c) {
            out.push(c.to_string());
        } else if !c.is_whitespace() {
            out.push(" ".into());
        }
        i += 1;
    }
    out
}

/// Every module path the file names from `crate::`, `super::` or `self::`, with `use`
/// groups expanded (`crate::a::{b, c::d}` names a::b and a::c::d).
fn paths_named(text: &str, module: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let t = tokens(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let start = match t[i].as_str() {
            "crate" => Some(vec![]),
            "super" => {
                // In a.rs, `super` is a's parent; in a/mod.rs too (the folder's parent).
                let _ = is_mod_file;
                let mut m = module.to_vec();
                m.pop();
                Some(m)
            }
            "self" => Some(module.to_vec()),
            _ => None,
        };
        let preceded = i > 0 && t[i - 1] == "::";
        match start {
            Some(base) if !preceded && t.get(i + 1).is_some_and(|x| x == "::") => {
                let (paths, next) = path_from(&t, i + 2, base);
                out.extend(paths);
                i = next;
            }
            _ => i += 1,
        }
    }
    out
}

/// Parses `a::b::{c, d::e}` from token `i`, prefixing `base`.
fn path_from(t: &[String], mut i: usize, mut base: Vec<String>) -> (Vec<Vec<String>>, usize) {
    loop {
        match t.get(i).map(String::as_str) {
            Some("{") => {
                let mut all = Vec::new();
                i += 1;
                loop {
                    match t.get(i).map(String::as_str) {
                        Some("}") | None => return (all, i + 1),
                        Some(",") => i += 1,
                        Some("self") => {
                            all.push(base.clone());
                            i += 1;
                        }
                        Some(_) => {
                            let (p, next) = path_from(t, i, base.clone());
                            all.extend(p);
                            // A token that starts no path (`*`, `as`'s target…): skip it.
                            i = next.max(i + 1);
                        }
                    }
                }
            }
            Some("super") => {
                base.pop();
                i += 1;
                if t.get(i).is_some_and(|x| x == "::") {
                    i += 1;
                }
            }
            Some(id) if id.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                base.push(id.to_string());
                i += 1;
                if t.get(i).is_some_and(|x| x == "::") {
                    i += 1;
                } else {
                    return (vec![base], i);
                }
            }
            _ => return (vec![base], i),
        }
    }
}

/// Strongly connected components of more than one node (Tarjan).
fn cycles<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct S<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(v: &N, e: &BTreeMap<N, BTreeSet<N>>, s: &mut S<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on.insert(v.clone());
        for w in e.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, e, s);
                let l = s.low[w].min(s.low[v]);
                s.low.insert(v.clone(), l);
            } else if s.on.contains(w) {
                let l = s.index[w].min(s.low[v]);
                s.low.insert(v.clone(), l);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on.remove(&w);
                comp.push(w.clone());
                if &w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = S {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on: BTreeSet::new(),
        out: vec![],
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out
}

/// The file-level and stage-level import graphs of one crate.
fn graphs(
    crate_root: &Path,
) -> (
    BTreeMap<String, BTreeSet<String>>,
    BTreeMap<String, BTreeSet<String>>,
) {
    let mut files = Vec::new();
    rust_files(crate_root, &mut files);
    let name = |f: &Path| f.strip_prefix(root()).unwrap().display().to_string();
    let stage = |f: &Path| {
        let m = module_of(crate_root, f);
        m.first().cloned().unwrap_or_else(|| "(root)".into())
    };
    let (mut by_file, mut by_stage) = (BTreeMap::new(), BTreeMap::new());
    for f in &files {
        let text = without_tests(&std::fs::read_to_string(f).unwrap());
        let module = module_of(crate_root, f);
        let is_mod = f.file_name().is_some_and(|n| n == "mod.rs");
        let from = name(f);
        let targets: &mut BTreeSet<String> = by_file.entry(from.clone()).or_default();
        let stage_targets: &mut BTreeSet<String> = by_stage.entry(stage(f)).or_default();
        for p in paths_named(&text, &module, is_mod) {
            if let Some(g) = file_of(crate_root, &p) {
                let to = name(&g);
                // A folder's mod.rs declares its children: that is structure, not an
                // import; the crate root declares the stages.
                if to != from && !module_of(crate_root, &g).is_empty() {
                    targets.insert(to);
                    let s = stage(&g);
                    if s != stage(f) && !module.is_empty() {
                        stage_targets.insert(s);
                    }
                }
            }
        }
    }
    (by_file, by_stage)
}

#[test]
fn no_import_cycle_in_any_crate() {
    let mut problems = Vec::new();
    for c in CRATES {
        let (files, stages) = graphs(&root().join(c));
        for cyc in cycles(&files) {
            problems.push(format!("{c}: files import each other in a circle: {cyc:?}"));
        }
        for cyc in cycles(&stages) {
            problems.push(format!(
                "{c}: stages import each other in a circle: {cyc:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_file_over_500_lines_outside_tests() {
    let mut big = Vec::new();
    for c in CRATES {
        let mut files = Vec::new();
        rust_files(&root().join(c), &mut files);
        for f in files {
            let n = without_tests(&std::fs::read_to_string(&f).unwrap())
                .lines()
                .count();
            if n > MAX_LINES {
                big.push(format!("{} ({n} lines)", f.display()));
            }
        }
    }
    assert!(big.is_empty(), "over {MAX_LINES} lines: {big:?}");
}

/// The checker itself finds a cycle and a long file (so the tests above can fail).
#[test]
fn the_checks_can_fail() {
    let dir = root().join("target/structure-selftest/src");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "pub mod x;\n").unwrap();
    std::fs::write(
        dir.join("a/x.rs"),
        "use crate::b::{self, y::{Z}};\nfn f() { super::super::b::g(); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "// crate::a::x in a comment is no import\nuse crate::a::x;\n",
    )
    .unwrap();
    let (files, stages) = graphs(&dir);
    assert_eq!(cycles(&files).len(), 1, "{files:?}");
    assert_eq!(cycles(&stages).len(), 1, "{stages:?}");
    std::fs::write(
        dir.join("b.rs"),
        "// crate::a::x in a comment is no import\n",
    )
    .unwrap();
    let (files, _) = graphs(&dir);
    assert!(cycles(&files).is_empty(), "{files:?}");
    let long = "fn f() {}\n".repeat(MAX_LINES + 1) + "#[cfg(test)]\nmod tests {}\n";
    assert_eq!(without_tests(&long).lines().count(), MAX_LINES + 1);
}
