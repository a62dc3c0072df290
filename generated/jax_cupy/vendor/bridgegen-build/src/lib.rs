//! What every generated crate's `build.rs` does, so that the generated script is a list of
//! names: compile the C++ host loops against the headers `bridgegen-runtime` located, and
//! embed the CUDA kernel images that `bridgegen build` compiled with NVRTC.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Compile the host loop sources (C++17 over xsf, -O3) into the static library `name`.
/// The xsf include directory comes from bridgegen-runtime (`DEP_BRIDGEGEN_RUNTIME_XSF_INCLUDE`).
pub fn host_loops(name: &str, sources: &[&str]) {
    let xsf =
        std::env::var("DEP_BRIDGEGEN_RUNTIME_XSF_INCLUDE").expect("bridgegen-runtime exports the xsf include dir");
    let runtime = runtime_include();
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(3)
        .include(&xsf)
        .include(&runtime)
        .warnings(false)
        .flag_if_supported("-fno-math-errno");
    // The loops are one translation unit (xsf headers define non-`inline` functions), and
    // GCC caps how much a large unit may grow by inlining: without lifting the cap each
    // function gets less inlining than it would alone (erf 15 % slower at 1e7, kv 4 %).
    build.flag_if_supported("--param=large-unit-insns=100000000");
    println!("cargo:rerun-if-changed=cpu");
    for s in sources {
        build.file(s);
    }
    build.compile(name);
    // The loops call libm (floor, fma, fmax, ...) and libgcc (__divdc3, __muldc3 for complex
    // arithmetic). Named here, right after the loops, the system's versions resolve those
    // calls; otherwise Rust's compiler-builtins, linked later into every Rust library,
    // supplies portable fallbacks (kv spent 15 % of its time in a slower __divdc3).
    println!("cargo:rustc-link-lib=dylib=m");
    println!("cargo:rustc-link-lib=dylib=gcc_s");
}

/// The runtime's C++ headers: the package's own vendored copy beside the generated crate
/// (`../vendor/bridgegen-runtime/include`), else where bridgegen-runtime reports them.
/// Not the report alone: in a target directory several packages share, Cargo identifies a
/// path dependency by its path relative to its workspace, so every package's vendored
/// runtime is one unit, and its build script's report names the package that ran it last.
fn runtime_include() -> PathBuf {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let vendored = manifest.join("../vendor/bridgegen-runtime/include");
    if vendored.join("bridgegen/loop.hpp").is_file() {
        return vendored;
    }
    std::env::var("DEP_BRIDGEGEN_RUNTIME_INCLUDE").expect("bridgegen-runtime exports its C++ include dir").into()
}

/// Write `$OUT_DIR/kernels.rs`: for each `(function, static)` a `static: &[Image]` of the
/// images `<function>.<arch>.<cubin|ptx>` found in `$BRIDGEGEN_KERNELS` (none when it is
/// unset: the library is then CPU-only), and `ARCHS`, the architectures every function has.
pub fn embed_kernels(functions: &[(&str, &str)]) {
    println!("cargo:rerun-if-env-changed=BRIDGEGEN_KERNELS");
    let dir = std::env::var_os("BRIDGEGEN_KERNELS").map(PathBuf::from);
    if let Some(d) = &dir {
        println!("cargo:rerun-if-changed={}", d.display());
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set for build scripts")).join("kernels.rs");
    std::fs::write(out, kernels_rs(functions, dir.as_deref())).expect("write kernels.rs");
}

/// Write `$OUT_DIR/build_info.rs`: `BUILD_INFO`, the JSON `bridgegen build` passes in
/// `$BRIDGEGEN_BUILD_INFO` (jaxlib and FFI API versions, CUDA architectures, generator),
/// or `{}` for a plain `cargo build`. The Python package compares it with its own copy.
pub fn embed_build_info() {
    println!("cargo:rerun-if-env-changed=BRIDGEGEN_BUILD_INFO");
    let info = std::env::var("BRIDGEGEN_BUILD_INFO").unwrap_or_else(|_| "{}".into());
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set for build scripts")).join("build_info.rs");
    std::fs::write(out, format!("pub const BUILD_INFO: &std::ffi::CStr = c{info:?};\n")).expect("write build_info.rs");
}

fn kernels_rs(functions: &[(&str, &str)], dir: Option<&Path>) -> String {
    let mut files: Vec<String> = dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .map(|it| it.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    files.sort();
    let mut out = String::new();
    let mut common: Option<Vec<String>> = None;
    for (name, stat) in functions {
        let mut archs = Vec::new();
        let _ = writeln!(out, "pub static {stat}: &[Image] = &[");
        for f in &files {
            let Some((arch, kind, num)) = image_name(f, name) else { continue };
            let path = dir.expect("files come from dir").join(f);
            let _ = writeln!(
                out,
                "    Image {{ arch: {num}, kind: ImageKind::{kind}, data: include_bytes!({:?}) }},",
                path.display().to_string()
            );
            archs.push(arch);
        }
        out.push_str("];\n");
        common = Some(match common {
            None => archs,
            Some(c) => c.into_iter().filter(|a| archs.contains(a)).collect(),
        });
    }
    let archs = common.unwrap_or_default().join(" ");
    let _ = writeln!(out, "pub const ARCHS: &std::ffi::CStr = c{archs:?};");
    out
}

/// `gammaln.sm_90.cubin` -> ("sm_90", "Cubin", 90) for function `gammaln`.
fn image_name(file: &str, function: &str) -> Option<(String, &'static str, u32)> {
    let rest = file.strip_prefix(function)?.strip_prefix('.')?;
    let (arch, ext) = rest.split_once('.')?;
    let (kind, num) = match (ext, arch.split_once('_')?) {
        ("cubin", ("sm", n)) => ("Cubin", n),
        ("ptx", ("compute", n)) => ("Ptx", n),
        _ => return None,
    };
    Some((arch.to_string(), kind, num.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names() {
        assert_eq!(image_name("gammaln.sm_90.cubin", "gammaln"), Some(("sm_90".into(), "Cubin", 90)));
        assert_eq!(image_name("gammaln.compute_80.ptx", "gammaln"), Some(("compute_80".into(), "Ptx", 80)));
        assert_eq!(image_name("gammaln.sm_90.cubin", "gamma"), None);
        assert_eq!(image_name("gammaln.sm_90.ptx", "gammaln"), None);
    }

    #[test]
    fn only_common_archs_are_reported() {
        let dir = std::env::temp_dir().join(format!("bridgegen-build-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["a.sm_90.cubin", "a.compute_80.ptx", "b.sm_90.cubin"] {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
        let rs = kernels_rs(&[("a", "IMAGES_A"), ("b", "IMAGES_B")], Some(&dir));
        assert!(rs.contains("pub static IMAGES_A") && rs.contains("ImageKind::Ptx"));
        assert!(rs.contains(r#"ARCHS: &std::ffi::CStr = c"sm_90";"#), "{rs}");
        assert!(kernels_rs(&[("a", "IMAGES_A")], None).contains(r#"c"";"#));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
