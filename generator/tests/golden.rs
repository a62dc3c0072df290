//! Golden tests: each `tests/golden/<case>/spec.toml` must generate exactly the files in
//! `tests/golden/<case>/expected/`. `BRIDGEGEN_BLESS=1` rewrites the expectations.
//! Also: `generated/` is fresh for every spec in `specs/`, and output is deterministic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_under(dir: &Path, base: &Path, out: &mut BTreeMap<PathBuf, String>) {
    if !dir.is_dir() {
        return;
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, base, out);
        } else {
            out.insert(
                p.strip_prefix(base).unwrap().to_path_buf(),
                std::fs::read_to_string(&p).unwrap().replace("\r\n", "\n"),
            );
        }
    }
}

fn check_case(case: &str) {
    let dir = root().join("tests/golden").join(case);
    let source = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    let pkg = bridgegen::load_str(&format!("tests/golden/{case}/spec.toml"), &source).unwrap();
    // The vendored runtime is checked once, by vendored_runtime_is_the_runtime.
    let out: BTreeMap<PathBuf, String> =
        bridgegen::emit::emit_package(&pkg).unwrap().into_iter().filter(|(p, _)| !p.starts_with("vendor")).collect();
    let expected_dir = dir.join("expected");
    if std::env::var("BRIDGEGEN_BLESS").as_deref() == Ok("1") {
        let _ = std::fs::remove_dir_all(&expected_dir);
        for (rel, text) in &out {
            let p = expected_dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        return;
    }
    let mut expected = BTreeMap::new();
    files_under(&expected_dir, &expected_dir, &mut expected);
    let got: BTreeMap<PathBuf, String> = out.into_iter().collect();
    let missing: Vec<_> = expected.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<_> = got.keys().filter(|k| !expected.contains_key(*k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{case}: files differ: missing {missing:?}, extra {extra:?} (BRIDGEGEN_BLESS=1 to accept)"
    );
    for (rel, text) in &got {
        let want = &expected[rel];
        if text != want {
            let diff = similar::TextDiff::from_lines(want.as_str(), text.as_str());
            panic!(
                "{case}: {} differs (BRIDGEGEN_BLESS=1 to accept):\n{}",
                rel.display(),
                diff.unified_diff().context_radius(3).header("expected", "generated")
            );
        }
    }
}

// One #[test] per tests/golden/<case>/, named golden_<case> (written by build.rs).
include!(concat!(env!("OUT_DIR"), "/golden_cases.rs"));

#[test]
fn generated_is_fresh() {
    // As `just check` runs it: from the repository root, which the banners' spec paths
    // are relative to.
    for entry in std::fs::read_dir(root().join("specs")).unwrap() {
        let spec = entry.unwrap().path();
        if spec.extension().is_some_and(|e| e == "toml") {
            let rel = spec.strip_prefix(root()).unwrap();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_bridgegen"))
                .arg("check")
                .arg(rel)
                .current_dir(root())
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

#[test]
fn output_is_deterministic_and_independent_of_function_order_and_files() {
    // specs/xsf.toml as it is (its [[ufunc]] tables in the files it includes) against the
    // same tables inlined into one file in reverse order.
    let path = root().join("specs/xsf.toml");
    let source = std::fs::read_to_string(&path).unwrap();
    let (head, body) = source.split_once("\n[package]\n").unwrap();
    let includes: Vec<&str> = head.lines().filter_map(|l| l.trim().strip_prefix('"')?.split('"').next()).collect();
    assert!(includes.len() > 1, "specs/xsf.toml is expected to include its families");
    let (mut preludes, mut tables) = (Vec::new(), Vec::new());
    for rel in &includes {
        let part = std::fs::read_to_string(root().join("specs").join(rel)).unwrap();
        let mut chunks = part.split("\n[[ufunc]]\n");
        // [[prelude]] tables come before a file's first [[ufunc]].
        let head = chunks.next().unwrap();
        preludes.extend(head.split("\n[[prelude]]\n").skip(1).map(|t| format!("[[prelude]]\n{}\n\n", t.trim_end())));
        tables.extend(chunks.map(|t| t.trim_end().to_string()));
    }
    assert!(!preludes.is_empty(), "specs/xsf/ is expected to share a [[prelude]]");
    preludes.reverse();
    tables.reverse();
    let inlined = format!(
        "[package]\n{}\n\n{}[[ufunc]]\n{}\n",
        body.trim_end(),
        preludes.concat(),
        tables.join("\n\n[[ufunc]]\n")
    );
    let a = bridgegen::load_source("specs/xsf.toml", &source, &root().join("specs"), None).unwrap();
    let b = bridgegen::load_str("specs/xsf.toml", &inlined).unwrap();
    assert_eq!(a.ufuncs.len(), b.ufuncs.len());
    assert!(a.spec_files.len() == includes.len() + 1 && b.spec_files.len() == 1);
    let ea = bridgegen::emit::emit_package(&a).unwrap();
    let eb = bridgegen::emit::emit_package(&b).unwrap();
    let ea2 = bridgegen::emit::emit_package(&a).unwrap();
    assert_eq!(ea, ea2);
    // Only the contract (spec hash) and the spec lines `#line` points the compiler at may
    // differ between the two.
    let spec_line = |l: &str| l.starts_with("#line ") && l.contains("\"specs/xsf");
    for (rel, text) in &ea {
        let other = &eb[rel];
        let strip = |s: &str| {
            let s = s.replace(&a.spec_hash[..16], "H").replace(&b.spec_hash[..16], "H");
            s.lines().map(|l| if spec_line(l) { "#line N" } else { l }).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(strip(text), strip(other), "{} depends on spec order or files", rel.display());
    }
}

#[test]
fn vendored_runtime_is_the_runtime() {
    // Every generated package carries the runtime crates as they are in runtime/.
    let pkg = bridgegen::load(&root().join("tests/golden/minimal/spec.toml")).unwrap();
    let out = bridgegen::emit::emit_package(&pkg).unwrap();
    let mut n = 0;
    for (to, from) in bridgegen::runtime_src::VENDORED {
        let mut files = BTreeMap::new();
        files_under(&root().join(from), &root().join(from), &mut files);
        for (rel, text) in files {
            if rel.starts_with("target") {
                continue;
            }
            assert_eq!(
                out.get(&PathBuf::from(to).join(&rel)),
                Some(&text),
                "{to}/{} is not {from}/{}",
                rel.display(),
                rel.display()
            );
            n += 1;
        }
    }
    assert_eq!(n, out.keys().filter(|p| p.starts_with("vendor")).count());
}

#[test]
fn generate_never_follows_a_symlink_out_of_its_directory() {
    // A symlinked directory and a symlinked file in the output, pointing at owned-looking
    // files outside it: generate leaves both targets alone.
    let tmp = std::env::temp_dir().join(format!("bridgegen-symlink-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (out, outside) = (tmp.join("out"), tmp.join("outside"));
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("victim.py");
    std::fs::write(&victim, "# Generated by bridgegen (looks owned, is not ours to delete)\n").unwrap();
    let spec = root().join("tests/golden/minimal/spec.toml");
    bridgegen::generate(&spec, Some(&out)).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("linked-dir")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("python/linked.py")).unwrap();
    let report = bridgegen::generate(&spec, Some(&out)).unwrap().report;
    assert!(report.removed.is_empty(), "{:?}", report.removed);
    assert!(victim.is_file() && out.join("linked-dir").exists() && out.join("python/linked.py").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn cli_check_reports_stale_files() {
    let tmp = std::env::temp_dir().join(format!("bridgegen-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let spec = root().join("tests/golden/minimal/spec.toml");
    let bin = env!("CARGO_BIN_EXE_bridgegen");
    let run = |args: &[&str]| std::process::Command::new(bin).args(args).output().unwrap();
    let out = run(&["generate", spec.to_str().unwrap(), "-o", tmp.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(&["check", spec.to_str().unwrap(), "-o", tmp.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Rerunning generate touches nothing.
    let out = run(&["generate", spec.to_str().unwrap(), "-o", tmp.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 written"));
    std::fs::write(tmp.join("rust/src/lib.rs"), "// Generated by bridgegen, edited by hand\n").unwrap();
    let out = run(&["check", spec.to_str().unwrap(), "-o", tmp.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("rust/src/lib.rs (differs)"), "{err}");
    // A missing spec is one clear line, not a panic.
    let out = run(&["check", "no/such/spec.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("bridgegen: no/such/spec.toml: "));
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    // Each: non-zero exit, one `bridgegen:` line (clap's own usage errors aside), no panic.
    let tmp = std::env::temp_dir().join(format!("bridgegen-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bad = tmp.join("bad.toml");
    std::fs::write(&bad, "[package]\nname = \"os\"\nversion = \"0.1.0\"\n").unwrap();
    let good = root().join("tests/golden/minimal/spec.toml");
    let bin = env!("CARGO_BIN_EXE_bridgegen");
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = std::process::Command::new(bin);
        c.args(args).current_dir(&tmp);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let out = run(&["sdist", bad.to_str().unwrap()], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("package name `os` is the name of another Python module"), "{err}");
    assert!(!tmp.join("dist").exists(), "a bad spec wrote an sdist");
    let out = run(&["build", good.to_str().unwrap(), "--cuda", "14"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.lines().next().unwrap_or("").contains("invalid value '14' for '--cuda"),
        "{err}"
    );
    // --cuda 12 where no CUDA 12 NVRTC can be found: names what to install.
    // (The system Python: no pip NVRTC in it.)
    if Path::new("/usr/bin/python3").exists() {
        let out = run(&["build", good.to_str().unwrap(), "--cuda", "12"], &[("BRIDGEGEN_PYTHON", "/usr/bin/python3")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.trim().lines().count() == 1, "{err}");
        assert!(
            err.contains("--cuda 12: no CUDA 12 NVRTC") && err.contains("pip install nvidia-cuda-nvrtc-cu12"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
