//! The handler crate's `src/lib.rs`, built with `quote!` and formatted by prettyplease:
//! an extern block for the C++ host loops, one table per ufunc and platform, one
//! `extern "C"` handler per ufunc and platform, and the exported contract and CUDA
//! architecture strings. All logic is in bridgegen-runtime.

use crate::emit::view::contract;
use crate::ir::{names, Package, Platform, Ufunc};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn c_str(s: &str) -> Result<syn::LitCStr, String> {
    Ok(syn::LitCStr::new(&std::ffi::CString::new(s).map_err(|e| e.to_string())?, Span::call_site()))
}

fn dtypes(l: &crate::ir::Loop) -> TokenStream {
    let types = l.inputs.iter().chain(&l.outputs).map(|d| {
        let v = ident(d.runtime_variant());
        quote! { DType::#v }
    });
    quote! { &[#(#types),*] }
}

fn handler(pkg: &Package, u: &Ufunc, p: Platform, body: TokenStream) -> TokenStream {
    let handler = ident(&names::handler_symbol(&pkg.name, &u.name, p));
    let doc = format!(" XLA FFI handler for `{}` on {}.", names::xla_target(&pkg.name, &u.name), p.as_str());
    quote! {
        #[doc = #doc]
        /// # Safety
        /// Called by XLA with a valid call frame.
        #[no_mangle]
        pub unsafe extern "C" fn #handler(frame: *mut XLA_FFI_CallFrame) -> *mut XLA_FFI_Error {
            #body
        }
    }
}

/// `Some(&gufunc::Signature { .. })` for a generalized ufunc, else `None`.
fn core(u: &Ufunc) -> TokenStream {
    let Some(sig) = &u.signature else { return quote! { None } };
    let names = sig.names();
    let text = sig.text();
    let operands = sig.operands().map(|dims| {
        let dims = dims.iter().map(|d| {
            let name = match &d.name {
                Some(n) => {
                    let i = names.iter().position(|m| m == n).unwrap_or(0);
                    quote! { Some(#i) }
                }
                None => quote! { None },
            };
            let add = d.add;
            quote! { gufunc::Dim { name: #name, add: #add } }
        });
        quote! { &[#(#dims),*] }
    });
    quote! { Some(&gufunc::Signature { text: #text, operands: &[#(#operands),*] }) }
}

/// Host loop table and handler of one ufunc.
fn cpu_items(pkg: &Package, u: &Ufunc, externs: &mut Vec<TokenStream>) -> TokenStream {
    let stat = ident(&names::ufunc_static(&u.name, Platform::Cpu));
    let qualified = format!("{}.{}", pkg.name, u.name);
    let (nin, nout) = (u.inputs.len(), u.outputs.len());
    let mut loops = Vec::new();
    for l in &u.loops {
        let sym = ident(&names::loop_symbol(&pkg.name, &u.name, l));
        externs.push(quote! { fn #sym(args: *const *mut u8, n: *const i64, steps: *const i64); });
        let types = dtypes(l);
        loops.push(quote! { cpu::Loop { types: #types, kernel: #sym } });
    }
    let handler = handler(pkg, u, Platform::Cpu, quote! { cpu::run_ufunc(frame, &#stat) });
    let core = core(u);
    quote! {
        static #stat: cpu::Ufunc =
            cpu::Ufunc { name: #qualified, nin: #nin, nout: #nout, loops: &[#(#loops),*], core: #core };
        #handler
    }
}

/// Loop types, module (kernel images from the build script) and handler of one ufunc.
fn cuda_items(pkg: &Package, u: &Ufunc) -> Result<TokenStream, String> {
    let stat = ident(&names::ufunc_static(&u.name, Platform::Cuda));
    let images = ident(&names::images_static(&u.name));
    let qualified = format!("{}.{}", pkg.name, u.name);
    let (nin, nout) = (u.inputs.len(), u.outputs.len());
    let device: Vec<_> = u.loops.iter().filter(|l| u.on_device(l)).collect();
    let types: Vec<TokenStream> = device.iter().map(|l| dtypes(l)).collect();
    let kernels =
        device.iter().map(|l| c_str(&names::loop_symbol(&pkg.name, &u.name, l))).collect::<Result<Vec<_>, _>>()?;
    let handler = handler(pkg, u, Platform::Cuda, quote! { cuda::run_ufunc(frame, &#stat) });
    let stack = u.cuda_stack as usize;
    let core = core(u);
    Ok(quote! {
        static #stat: cuda::Ufunc = cuda::Ufunc {
            name: #qualified,
            nin: #nin,
            nout: #nout,
            loops: &[#(#types),*],
            core: #core,
            module: cuda::module::Module::new(#qualified, kernels::#images, &[#(#kernels),*], #stack),
        };
        #handler
    })
}

pub fn handler_lib(pkg: &Package, banner: &str) -> Result<String, String> {
    let mut externs = Vec::new();
    let mut items = Vec::new();
    for u in &pkg.ufuncs {
        if u.platforms.contains(&Platform::Cpu) {
            items.push(cpu_items(pkg, u, &mut externs));
        }
        if u.platforms.contains(&Platform::Cuda) {
            items.push(cuda_items(pkg, u)?);
        }
    }
    let contract_sym = ident(&names::contract_symbol(&pkg.name));
    let contract_lit = c_str(&contract(pkg))?;
    let archs_sym = ident(&names::cuda_archs_symbol(&pkg.name));
    let info_sym = ident(&names::build_info_symbol(&pkg.name));
    let file: TokenStream = quote! {
        #![allow(clippy::missing_safety_doc)]
        // A spec of only [[function]]s has no handlers: these may go unused.
        #[allow(unused_imports)]
        use bridgegen_runtime::ffi::{XLA_FFI_CallFrame, XLA_FFI_Error};
        #[allow(unused_imports)]
        use bridgegen_runtime::{cpu, cuda, gufunc, DType};

        /// Kernel images embedded by the build script (empty without NVRTC output).
        mod kernels {
            #![allow(dead_code, unused_imports)]
            use bridgegen_runtime::cuda::{Image, ImageKind};
            include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
        }

        extern "C" {
            #(#externs)*
        }

        #(#items)*

        /// The build contract (generator version, spec hash, FFI API version), checked by the
        /// Python package at import.
        #[no_mangle]
        pub extern "C" fn #contract_sym() -> *const std::ffi::c_char {
            #contract_lit.as_ptr()
        }

        /// The CUDA architectures whose kernels are embedded (`sm_90 compute_80`), empty
        /// when the library was built without them.
        #[no_mangle]
        pub extern "C" fn #archs_sym() -> *const std::ffi::c_char {
            kernels::ARCHS.as_ptr()
        }

        /// What the build used (JSON: jaxlib and FFI API versions, CUDA architectures,
        /// generator), compared at import with the copy in the Python package.
        #[no_mangle]
        pub extern "C" fn #info_sym() -> *const std::ffi::c_char {
            build_info::BUILD_INFO.as_ptr()
        }

        mod build_info {
            include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
        }

        /// Keeps the runtime's exported symbols (FFI API versions) in this library.
        pub use bridgegen_runtime::exports;
    };
    let parsed: syn::File = syn::parse2(file).map_err(|e| format!("generated Rust does not parse: {e}"))?;
    Ok(format!("{banner}\n{}", prettyplease::unparse(&parsed)))
}
