//! UI tests: every `tests/ui/<case>.toml` is a spec with mistakes; its rendered
//! diagnostics must equal `tests/ui/<case>.stderr`. `BRIDGEGEN_BLESS=1` rewrites them.
//! Also: no input, however mangled, makes the generator panic.

use std::path::{Path, PathBuf};

fn ui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/ui")
}

fn cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(ui_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

fn render(path: &Path) -> String {
    let origin = format!("tests/ui/{}", path.file_name().unwrap().to_string_lossy());
    let source = std::fs::read_to_string(path).unwrap();
    // `# headers-root: DIR` (first line): headers are checked to exist under tests/ui/DIR.
    let root = source.lines().next().and_then(|l| l.strip_prefix("# headers-root: ")).map(|d| ui_dir().join(d.trim()));
    // Included files (tests/ui/parts/) are read from tests/ui.
    match bridgegen::load_source(&origin, &source, &ui_dir(), root.as_deref()) {
        Ok(_) => "no errors\n".to_string(),
        Err(e) => format!("{e}\n"),
    }
}

/// One UI case: `tests/ui/<case>.toml` must render `tests/ui/<case>.stderr` (a diff if not).
fn check_ui(case: &str) {
    let path = ui_dir().join(format!("{case}.toml"));
    let got = render(&path);
    assert_ne!(got, "no errors\n", "{} must contain a mistake", path.display());
    let expected_path = path.with_extension("stderr");
    if std::env::var("BRIDGEGEN_BLESS").as_deref() == Ok("1") {
        std::fs::write(&expected_path, &got).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default().replace("\r\n", "\n");
    if got != expected {
        let diff = similar::TextDiff::from_lines(expected.as_str(), got.as_str());
        panic!(
            "{case}: diagnostics differ (BRIDGEGEN_BLESS=1 to accept):\n{}",
            diff.unified_diff().context_radius(3).header(&expected_path.display().to_string(), "rendered")
        );
    }
}

// One #[test] per tests/ui/<case>.toml, named ui_<case> (written by build.rs):
// `cargo test --test ui ui_bad_rule` runs one.
include!(concat!(env!("OUT_DIR"), "/ui_cases.rs"));

#[test]
fn there_are_ui_cases() {
    assert!(cases().len() >= 15, "expected at least 15 UI cases, found {}", cases().len());
}

#[test]
fn every_diagnostic_has_position_and_hint() {
    for case in cases() {
        let got = render(&case);
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        assert!(got.contains(&format!("tests/ui/{name}:")), "{name}: no file:line:col in\n{got}");
        assert!(got.contains("help:"), "{name}: no hint in\n{got}");
    }
}

#[test]
fn all_errors_of_a_phase_are_reported_together() {
    let got = render(&ui_dir().join("many_errors.toml"));
    for needle in [
        "package name `jax-demo`",
        "package version `1`",
        "unknown variable `z`",
        "type loop `f->ff`",
        "unknown platform `tpu`",
        "duplicate function `gammaln`",
        "ufunc `digamma` includes no header",
    ] {
        assert!(got.contains(needle), "missing `{needle}` in\n{got}");
    }
}

/// A tiny deterministic generator, so the mangling test needs no extra crate.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn mangled_specs_never_panic() {
    let mut sources: Vec<String> = cases().iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs");
    sources.push(std::fs::read_to_string(specs.join("xsf.toml")).unwrap());
    sources.push(std::fs::read_to_string(specs.join("xsf/statistics.toml")).unwrap());
    let mut rng = Lcg(0x5eed);
    let pieces = ["\"", "[", "]", "{", "}", "=", "\n", "->", "::", "é", "x", "1e999", "[[ufunc]]\n", ",", "#"];
    for src in &sources {
        for _ in 0..60 {
            let mut s: Vec<char> = src.chars().collect();
            for _ in 0..1 + rng.next(4) {
                let at = rng.next(s.len() + 1);
                match rng.next(3) {
                    0 if at < s.len() => {
                        s.remove(at);
                    }
                    1 => s.splice(at..at, pieces[rng.next(pieces.len())].chars()).for_each(drop),
                    _ => {
                        let end = (at + rng.next(40)).min(s.len());
                        s.drain(at.min(end)..end);
                    }
                }
            }
            let text: String = s.into_iter().collect();
            let result = std::panic::catch_unwind(|| bridgegen::load_str("mangled.toml", &text).map(|_| ()));
            assert!(result.is_ok(), "generator panicked on:\n{text}");
        }
    }
}

/// A spec with `n` functions, each with one mistake (an unknown variable).
fn spec_with_errors(n: usize) -> String {
    let mut s = String::from("[package]\nname = \"jax_many\"\nversion = \"0.1.0\"\nsummary = \"x\"\n");
    for i in 0..n {
        s += &format!(
            "\n[[ufunc]]\nname = \"f{i}\"\nheaders = [\"xsf/gamma.h\"]\ninputs = [\"x\"]\nexpr = \"xsf::gamma(y)\"\nloops = [\"d->d\"]\n"
        );
    }
    s
}

#[test]
fn diagnostics_stay_linear_in_the_number_of_errors() {
    // Rendering once took O(errors x spec length): each snippet scanned the whole source.
    // Four times the errors must cost well under sixteen times the time (best of three).
    let time = |n: usize| {
        let source = spec_with_errors(n);
        (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                let e = bridgegen::load_str("many.toml", &source).unwrap_err().to_string();
                assert!(e.contains(&format!("{n} errors found")), "{}", &e[e.len().saturating_sub(200)..]);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let (small, large) = (time(2000), time(8000));
    assert!(large < 8.0 * small.max(1e-3), "2000 errors: {small:.3} s, 8000 errors: {large:.3} s");
}
