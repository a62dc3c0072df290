//! The minijinja environment: templates embedded at compile time from `templates/`,
//! strict about undefined variables.

use minijinja::{Environment, UndefinedBehavior};

const TEMPLATES: &[(&str, &str)] = &[
    ("rust/Cargo.toml.j2", include_str!("../../templates/rust/Cargo.toml.j2")),
    ("rust/build.rs.j2", include_str!("../../templates/rust/build.rs.j2")),
    ("rust/workspace.toml.j2", include_str!("../../templates/rust/workspace.toml.j2")),
    ("cpp/ufunc.cpp.j2", include_str!("../../templates/cpp/ufunc.cpp.j2")),
    ("cpp/core_view.j2", include_str!("../../templates/cpp/core_view.j2")),
    ("cpp/loops.cpp.j2", include_str!("../../templates/cpp/loops.cpp.j2")),
    ("cuda/ufunc.cu.j2", include_str!("../../templates/cuda/ufunc.cu.j2")),
    ("python/__init__.py.j2", include_str!("../../templates/python/__init__.py.j2")),
    ("python/__init__.pyi.j2", include_str!("../../templates/python/__init__.pyi.j2")),
    ("python/_spec.py.j2", include_str!("../../templates/python/_spec.py.j2")),
    ("python/_rules.py.j2", include_str!("../../templates/python/_rules.py.j2")),
    ("python/backend.py.j2", include_str!("../../templates/python/backend.py.j2")),
];

pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    // One escaper per target language (emit/escape.rs).
    env.add_filter("py", |s: String| crate::emit::escape::py_str(&s));
    env.add_filter("pydoc", |s: String| crate::emit::escape::py_doc(&s));
    env.add_filter("rust", |s: String| crate::emit::escape::rust_str(&s));
    env.add_filter("cpp", |s: String| crate::emit::escape::cpp_str(&s));
    env.add_filter("comment", |s: String| crate::emit::escape::comment(&s));
    for (name, src) in TEMPLATES {
        env.add_template(name, src).expect("embedded templates parse (covered by golden tests)");
    }
    env
}
