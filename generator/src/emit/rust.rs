//! The handler crate's `src/lib.rs`, built with `quote!` and formatted by prettyplease:
//! an extern block for the C++ loops, one loop table per ufunc, one `extern "C"`
//! handler per ufunc and platform, and the contract symbol. All logic is in
//! bridgegen-runtime.

use crate::emit::view::{contract, BUILT_PLATFORMS};
use crate::ir::{names, Package, Platform};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

pub fn handler_lib(pkg: &Package, banner: &str) -> Result<String, String> {
    let mut externs = Vec::new();
    let mut items = Vec::new();
    for u in &pkg.ufuncs {
        if !u.platforms.contains(&Platform::Cpu) {
            continue;
        }
        let stat = ident(&names::ufunc_static(&u.name));
        let qualified = format!("{}.{}", pkg.name, u.name);
        let (nin, nout) = (u.inputs.len(), u.outputs.len());
        let mut loops = Vec::new();
        for l in &u.loops {
            let sym = ident(&names::loop_symbol(&pkg.name, &u.name, l));
            externs.push(quote! { fn #sym(args: *const *mut u8, n: *const i64, steps: *const i64); });
            let types = l.inputs.iter().chain(&l.outputs).map(|d| {
                let v = ident(d.runtime_variant());
                quote! { DType::#v }
            });
            loops.push(quote! { Loop { types: &[#(#types),*], kernel: #sym } });
        }
        items.push(quote! {
            static #stat: Ufunc = Ufunc { name: #qualified, nin: #nin, nout: #nout, loops: &[#(#loops),*] };
        });
        for p in BUILT_PLATFORMS.iter().filter(|p| u.platforms.contains(p)) {
            let handler = ident(&names::handler_symbol(&pkg.name, &u.name, *p));
            let doc = format!(" XLA FFI handler for `{}` on {}.", names::xla_target(&pkg.name, &u.name), p.as_str());
            items.push(quote! {
                #[doc = #doc]
                /// # Safety
                /// Called by XLA with a valid call frame.
                #[no_mangle]
                pub unsafe extern "C" fn #handler(frame: *mut XLA_FFI_CallFrame) -> *mut XLA_FFI_Error {
                    cpu::run_ufunc(frame, &#stat)
                }
            });
        }
    }
    let contract_sym = ident(&names::contract_symbol(&pkg.name));
    let contract_lit = syn::LitCStr::new(
        &std::ffi::CString::new(contract(pkg)).map_err(|e| e.to_string())?,
        Span::call_site(),
    );
    let file: TokenStream = quote! {
        #![allow(clippy::missing_safety_doc)]
        use bridgegen_runtime::cpu::{self, Loop, Ufunc};
        use bridgegen_runtime::ffi::{XLA_FFI_CallFrame, XLA_FFI_Error};
        use bridgegen_runtime::DType;

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

        /// Keeps the runtime's exported symbols (FFI API versions) in this library.
        pub use bridgegen_runtime::exports;
    };
    let parsed: syn::File = syn::parse2(file).map_err(|e| format!("generated Rust does not parse: {e}"))?;
    Ok(format!("{banner}\n{}", prettyplease::unparse(&parsed)))
}
