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
            out.insert(p.strip_prefix(base).unwrap().to_path_buf(), std::fs::read_to_string(&p).unwrap().replace("\r\n", "\n"));
        }
    }
}

fn check_case(case: &str) {
    let dir = root().join("tests/golden").join(case);
    let source = std::fs::read_to_string(dir.join("spec.toml")).unwrap();
    let pkg = bridgegen::load_str(&format!("tests/golden/{case}/spec.toml"), &source).unwrap();
    let out = bridgegen::emit::emit_package(&pkg, "../../../runtime/rust").unwrap();
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
    assert!(missing.is_empty() && extra.is_empty(), "{case}: files differ: missing {missing:?}, extra {extra:?} (BRIDGEGEN_BLESS=1 to accept)");
    for (rel, text) in &got {
        let want = &expected[rel];
        if text != want {
            let line = text.lines().zip(want.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{case}: {} differs at line {}:\n  got:      {:?}\n  expected: {:?}\n(BRIDGEGEN_BLESS=1 to accept)",
                rel.display(),
                line + 1,
                text.lines().nth(line),
                want.lines().nth(line)
            );
        }
    }
}

#[test]
fn golden_minimal() {
    check_case("minimal");
}

#[test]
fn golden_multi_output() {
    check_case("multi_output");
}

#[test]
fn generated_is_fresh() {
    for entry in std::fs::read_dir(root().join("specs")).unwrap() {
        let spec = entry.unwrap().path();
        if spec.extension().is_some_and(|e| e == "toml") {
            if let Err(e) = bridgegen::check(&spec, None) {
                panic!("{e}");
            }
        }
    }
}

#[test]
fn output_is_deterministic_and_independent_of_function_order() {
    let path = root().join("specs/xsf.toml");
    let source = std::fs::read_to_string(&path).unwrap();
    // Reverse the order of the [[ufunc]] tables.
    let mut parts: Vec<&str> = source.split("\n[[ufunc]]\n").collect();
    let head = parts.remove(0);
    parts.reverse();
    let shuffled = format!("{head}\n[[ufunc]]\n{}", parts.iter().map(|p| p.trim_end()).collect::<Vec<_>>().join("\n\n[[ufunc]]\n"));
    let a = bridgegen::load_str("specs/xsf.toml", &source).unwrap();
    let b = bridgegen::load_str("specs/xsf.toml", &shuffled).unwrap();
    let ea = bridgegen::emit::emit_package(&a, "rt").unwrap();
    let eb = bridgegen::emit::emit_package(&b, "rt").unwrap();
    let ea2 = bridgegen::emit::emit_package(&a, "rt").unwrap();
    assert_eq!(ea, ea2);
    // Only the contract (spec hash) may differ between the two orders.
    for (rel, text) in &ea {
        let other = &eb[rel];
        let strip = |s: &str| s.replace(&a.spec_hash[..16], "H").replace(&b.spec_hash[..16], "H");
        assert_eq!(strip(text), strip(other), "{} depends on spec order", rel.display());
    }
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
