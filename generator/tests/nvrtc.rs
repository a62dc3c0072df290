//! NVRTC at build time, on the golden `minimal` fixture's kernel sources: both image kinds
//! come out (an ELF cubin holding every kernel, PTX with every entry point), and a second
//! run is served from the cache, and a function's own options (`cuda_fmad = false`) make
//! its own cache entries and reach NVRTC. Needs NVRTC and CuPy in BRIDGEGEN_PYTHON's environment
//! (requirements/dev.txt); skips without them unless BRIDGEGEN_REQUIRE_NVRTC=1.

use bridgegen::build::{nvrtc, python};
use std::path::Path;

#[test]
fn compiles_cubin_and_ptx_and_caches_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tools = python::cuda_tools().expect("ask Python for the CUDA tools");
    if tools.nvrtc.is_none() || tools.cupy_include.is_none() {
        assert!(
            std::env::var("BRIDGEGEN_REQUIRE_NVRTC").is_err(),
            "BRIDGEGEN_REQUIRE_NVRTC=1 but NVRTC or CuPy is missing: {tools:?}"
        );
        eprintln!("skipped: NVRTC or CuPy headers not found ({tools:?})");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("bridgegen-nvrtc-test-{}", std::process::id()));
    let cache = tmp.join("cache");
    let crate_dir = root.join("tests/golden/minimal/expected/rust");
    let fns = [source("digamma", true), source("gammaln", true)];
    let archs = nvrtc::parse_archs("sm_90,compute_80").unwrap();
    let include = root.join("runtime/rust/include");
    let out = tmp.join("kernels");
    let request = nvrtc::Request {
        crate_dir: &crate_dir,
        functions: &fns,
        archs: &archs,
        tools: &tools,
        runtime_include: &include,
        out_dir: &out,
        cache: &cache,
        quiet: true,
    };
    let first = nvrtc::compile_kernels(&request).unwrap().unwrap();
    assert_eq!((first.compiled, first.cached), (4, 0));
    let cubin = std::fs::read(out.join("gammaln.sm_90.cubin")).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    for k in ["bg_jax_minimal_gammaln__f_f", "bg_jax_minimal_gammaln__d_d"] {
        assert!(cubin.windows(k.len()).any(|w| w == k.as_bytes()), "{k} missing from the cubin");
    }
    let ptx = std::fs::read_to_string(out.join("digamma.compute_80.ptx")).unwrap();
    assert!(ptx.contains(".entry bg_jax_minimal_digamma__D_D") && ptx.contains(".target sm_80"));
    let second = nvrtc::compile_kernels(&request).unwrap().unwrap();
    assert_eq!((second.compiled, second.cached), (0, 4));
    assert_eq!(std::fs::read(out.join("gammaln.sm_90.cubin")).unwrap(), cubin);

    // gammaln's polynomials contract into FMAs unless --fmad=false (CUDA's math library
    // keeps the fma() calls it makes itself); digamma's entries stay cached.
    let fmas = |ptx: &str| ptx.matches("fma.rn").count();
    let contracted = fmas(&std::fs::read_to_string(out.join("gammaln.compute_80.ptx")).unwrap());
    let fns = [source("digamma", true), source("gammaln", false)];
    let third = nvrtc::compile_kernels(&nvrtc::Request { functions: &fns, ..request }).unwrap().unwrap();
    assert_eq!((third.compiled, third.cached), (2, 2));
    let separate = std::fs::read_to_string(out.join("gammaln.compute_80.ptx")).unwrap();
    assert!(separate.contains(".entry bg_jax_minimal_gammaln__d_d"));
    assert!(fmas(&separate) < contracted, "--fmad=false: {} FMAs, default {contracted}", fmas(&separate));
    let _ = std::fs::remove_dir_all(&tmp);
}

fn source(function: &str, fmad: bool) -> nvrtc::KernelSource {
    nvrtc::KernelSource { function: function.into(), fmad }
}

/// One function's sm_90 cubin, into `tmp`/out with its cache in `tmp`/cache.
fn compile(
    tools: &python::CudaTools,
    crate_dir: &Path,
    function: &str,
    tmp: &Path,
) -> Result<Result<nvrtc::KernelReport, String>, bridgegen::error::Error> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    nvrtc::compile_kernels(&nvrtc::Request {
        crate_dir,
        functions: &[source(function, true)],
        archs: &["sm_90".into()],
        tools,
        runtime_include: &root.join("runtime/rust/include"),
        out_dir: &tmp.join("out"),
        cache: &tmp.join("cache"),
        quiet: true,
    })
}

#[test]
fn a_compile_error_names_the_function_and_shows_the_log() {
    let tools = python::cuda_tools().unwrap();
    if tools.nvrtc.is_none() || tools.cupy_include.is_none() {
        return; // reported by the test above
    }
    let tmp = std::env::temp_dir().join(format!("bridgegen-nvrtc-bad-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("crate/cuda")).unwrap();
    std::fs::write(tmp.join("crate/cuda/broken.cu"), "extern \"C\" __global__ void k() { undefined_thing(); }\n")
        .unwrap();
    let err = compile(&tools, &tmp.join("crate"), "broken", &tmp).unwrap_err().to_string();
    assert!(err.contains("broken (sm_90)") && err.contains("undefined_thing"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn cuda_12_nvrtc_compiles_the_kernels_for_sm_90() {
    // `build --cuda 12`: CUDA 12's NVRTC (pip nvidia-cuda-nvrtc-cu12) and runtime headers.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tools = python::cuda_tools_for(Some(12)).expect("ask Python for the CUDA 12 tools");
    if tools.nvrtc.is_none() || tools.cupy_include.is_none() {
        assert!(
            std::env::var("BRIDGEGEN_REQUIRE_NVRTC").is_err(),
            "BRIDGEGEN_REQUIRE_NVRTC=1 but CUDA 12's NVRTC is missing: {tools:?}"
        );
        return;
    }
    assert!(tools.nvrtc.as_ref().unwrap().to_string_lossy().contains("libnvrtc.so.12"), "{tools:?}");
    let tmp = std::env::temp_dir().join(format!("bridgegen-nvrtc12-{}", std::process::id()));
    let report = compile(&tools, &root.join("tests/golden/minimal/expected/rust"), "gammaln", &tmp).unwrap().unwrap();
    assert!(report.nvrtc_version.starts_with("12."), "{}", report.nvrtc_version);
    let cubin = std::fs::read(tmp.join("out/gammaln.sm_90.cubin")).unwrap();
    assert_eq!(&cubin[..4], b"\x7fELF");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn the_template_declares_what_xsf_headers_lack_under_nvrtc() {
    // xsf/fresnel.h calls pow and sqrt of ints and std::sin/cos of a complex, xsf/boxcox.h
    // std::expm1: CuPy's config.h maps neither under NVRTC, the CUDA template does
    // (emit/view.rs: NVRTC_FRESNEL_GAPS, NVRTC_STD_GAPS). Without that, these fail to compile.
    let tools = python::cuda_tools().unwrap();
    if tools.nvrtc.is_none() || tools.cupy_include.is_none() {
        return; // reported by the first test
    }
    let spec = r#"
[package]
name = "jax_shims"
version = "0.1.0"

[[ufunc]]
name = "modfresnelp"
headers = ["xsf/fresnel.h"]
inputs = ["x"]
outputs = ["fp", "kp"]
expr = "xsf::modified_fresnel_plus(x, fp, kp)"
loops = ["d->DD"]

[[ufunc]]
name = "boxcox"
headers = ["xsf/boxcox.h"]
inputs = ["x", "lmbda"]
expr = "xsf::boxcox(x, lmbda)"
loops = ["dd->d"]
"#;
    let pkg = bridgegen::load_str("shims.toml", spec).unwrap();
    let tmp = std::env::temp_dir().join(format!("bridgegen-nvrtc-shims-{}", std::process::id()));
    bridgegen::fs::write_output(&tmp.join("pkg"), &bridgegen::render(&pkg).unwrap()).unwrap();
    for f in ["modfresnelp", "boxcox"] {
        let report = compile(&tools, &tmp.join("pkg/rust"), f, &tmp).unwrap().unwrap();
        assert_eq!(report.compiled, 1, "{f}");
        let cubin = std::fs::read(tmp.join(format!("out/{f}.sm_90.cubin"))).unwrap();
        let k = format!("bg_jax_shims_{f}__");
        assert!(cubin.windows(k.len()).any(|w| w == k.as_bytes()), "{k} missing from the cubin");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
