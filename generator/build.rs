//! Embeds the runtime's sources (its two crates, its Python package, its ABI declaration)
//! into the binary, so that an installed `bridgegen` never reads its checkout: `generate`
//! vendors the crates into each generated package and `build` packages the runtime from
//! them. Only source files are taken (no build outputs, caches or stray libraries), in a
//! fixed order, so the binary and what it writes do not depend on the checkout's state.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// (directory under the repository root, file suffixes taken; "" takes files without one).
const TREES: &[(&str, &[&str])] = &[
    ("runtime/rust", &[".rs", ".toml", ".hpp", ".cuh", ""]),
    ("runtime/build", &[".rs", ".toml"]),
    ("runtime/python/bridgegen_runtime", &[".py"]),
    ("runtime/python/jax_cupy_bridge", &[".py"]),
];

/// `__version__ = "X"` of a runtime Python package's `__init__.py`: its one version source.
fn python_version(init: &Path) -> String {
    let text = std::fs::read_to_string(init).unwrap_or_else(|e| panic!("{}: {e}", init.display()));
    text.lines()
        .find_map(|l| l.strip_prefix("__version__ = \"").and_then(|r| r.strip_suffix('"')))
        .unwrap_or_else(|| panic!("{}: no `__version__ = \"...\"` line", init.display()))
        .to_string()
}

fn walk(dir: &Path, suffixes: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let ty = e.file_type().expect("file type");
        if name.starts_with('.') || name == "target" || name == "__pycache__" || ty.is_symlink() {
            continue;
        }
        if ty.is_dir() {
            walk(&e.path(), suffixes, out);
        } else if suffixes.iter().any(|s| if s.is_empty() { !name.contains('.') } else { name.ends_with(s) }) {
            out.push(e.path());
        }
    }
}

fn main() {
    // Read at run time: a build script binary may be reused for a copy elsewhere.
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("repository root").to_path_buf();
    let mut files = vec![root.join("runtime/abi.toml")];
    for (dir, suffixes) in TREES {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
        walk(&root.join(dir), suffixes, &mut files);
    }
    println!("cargo:rerun-if-changed={}", root.join("runtime/abi.toml").display());
    let mut src = String::from("/// The runtime's sources: (path under the repository root, contents).\npub static FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        let rel = f.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/");
        writeln!(src, "    ({rel:?}, include_str!({:?})),", f.display().to_string()).unwrap();
    }
    src.push_str("];\n");
    src.push_str("/// The runtime's Python packages' versions: (directory, `__version__` of its __init__.py).\npub static PYTHON_VERSIONS: &[(&str, &str)] = &[\n");
    for (dir, _) in TREES.iter().filter(|(d, _)| d.starts_with("runtime/python/")) {
        writeln!(src, "    ({dir:?}, {:?}),", python_version(&root.join(dir).join("__init__.py"))).unwrap();
    }
    src.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out_dir.join("embedded.rs"), src).expect("write embedded.rs");

    // One test per UI and golden case (tests/ui.rs, tests/golden.rs include these), so each
    // runs, fails and reruns by name.
    let ui =
        cases(&root.join("tests/ui"), |e| e.file_name().to_string_lossy().strip_suffix(".toml").map(str::to_string));
    write_tests(&out_dir.join("ui_cases.rs"), "ui", "check_ui", &ui);
    let golden = cases(&root.join("tests/golden"), |e| {
        e.path().join("spec.toml").is_file().then(|| e.file_name().to_string_lossy().into_owned())
    });
    write_tests(&out_dir.join("golden_cases.rs"), "golden", "check_case", &golden);
}

/// The names of a test directory's cases (`name` picks them from the entries), sorted.
fn cases(dir: &Path, name: impl Fn(&std::fs::DirEntry) -> Option<String>) -> Vec<String> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut v: Vec<String> =
        std::fs::read_dir(dir).map(|d| d.flatten().filter_map(|e| name(&e)).collect()).unwrap_or_default();
    v.sort();
    v
}

/// One `#[test] fn <prefix>_<case>() { check(<case>) }` per case.
fn write_tests(path: &Path, prefix: &str, check: &str, cases: &[String]) {
    let tests: String =
        cases.iter().map(|c| format!("#[test]\nfn {prefix}_{c}() {{\n    {check}({c:?});\n}}\n")).collect();
    std::fs::write(path, tests).expect("write the generated test list");
}
