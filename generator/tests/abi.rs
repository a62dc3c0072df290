//! The runtime's copies of runtime/abi.toml are fresh (BRIDGEGEN_BLESS=1 rewrites them),
//! and the facts still written by hand elsewhere agree with it.

use bridgegen::abi;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn check(rel: &str, want: &str) {
    let path = root().join(rel);
    if std::env::var_os("BRIDGEGEN_BLESS").is_some() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "{rel} is stale against runtime/abi.toml (first difference at line {}):\n  have: {:?}\n  want: {:?}\nrun `BRIDGEGEN_BLESS=1 cargo test -p bridgegen --test abi`",
            first + 1,
            have.lines().nth(first).unwrap_or(""),
            want.lines().nth(first).unwrap_or("")
        );
    }
}

#[test]
fn rust_runtime_copy_is_fresh() {
    check(abi::RUST_PATH, &abi::render_rust());
}

#[test]
fn python_runtime_copy_is_fresh() {
    check(abi::PYTHON_PATH, &abi::render_python());
}

#[test]
fn kernel_header_dims_match() {
    let cuh = std::fs::read_to_string(root().join("runtime/rust/include/bridgegen/kernel.cuh")).unwrap();
    let want = format!("constexpr int kMaxDims = {};", abi::abi().max_cuda_dims);
    assert!(cuh.contains(&want), "kernel.cuh must say `{want}` (runtime/abi.toml's max_cuda_dims)");
    let want = format!("constexpr long long kMaxLaunchElements = {};", abi::abi().cuda_launch_max_elements);
    assert!(cuh.contains(&want), "kernel.cuh must say `{want}` (runtime/abi.toml's cuda_launch_max_elements)");
}

#[test]
fn generator_dtypes_are_the_abis() {
    let codes: Vec<char> = bridgegen::ir::dtype::DType::ALL.iter().map(|d| d.code()).collect();
    let declared: Vec<char> = abi::abi().loop_dtype.iter().map(|d| d.code).collect();
    assert_eq!(codes, declared);
}
