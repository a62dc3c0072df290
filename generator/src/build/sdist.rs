//! `bridgegen sdist`: source distributions of a generated package and of the runtime.
//! Each holds a Cargo workspace with the runtime crates vendored, its Python, PKG-INFO,
//! and a pyproject.toml whose in-tree PEP 517 backend (templates/python/backend.py.j2)
//! builds the wheel with `bridgegen` against the jaxlib of the Python building it.
//! Archives are deterministic (sorted entries, fixed times and owners) and written beside
//! their final name, then renamed.

use crate::emit::escape::{metadata_line, py_str};
use crate::error::Error;
use crate::{runtime_src, templates};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

type Files = BTreeMap<String, (Vec<u8>, bool)>;

fn banner(what: &str) -> String {
    format!(
        "# {} {} for {what}. Do not edit: run `bridgegen sdist`.",
        crate::emit::BANNER_MARK,
        env!("CARGO_PKG_VERSION")
    )
}

/// `compiled`: its backend runs the bridgegen CLI (else it only zips Python files).
fn pyproject(dist: &str, version: &str, summary: &str, deps: &[String], compiled: bool) -> String {
    let deps: Vec<String> = deps.iter().map(|d| py_str(d)).collect();
    let requires = if compiled {
        format!(
            "# The backend runs the bridgegen CLI; build with --no-build-isolation where jax is installed.\nrequires = [{}]",
            py_str(&format!("bridgegen=={}", env!("CARGO_PKG_VERSION")))
        )
    } else {
        "# Pure Python: the backend only packs the files.\nrequires = []".to_string()
    };
    format!(
        "{}\n[build-system]\n{requires}\nbuild-backend = \"bridgegen_backend\"\nbackend-path = [\".\"]\n\n[project]\nname = {}\nversion = {}\ndescription = {}\nrequires-python = \">=3.10\"\ndependencies = [{}]\n",
        banner(dist),
        py_str(dist),
        py_str(version),
        py_str(&metadata_line(summary)),
        deps.join(", ")
    )
}

fn pkg_info(dist: &str, version: &str, summary: &str, deps: &[String]) -> String {
    let mut s = format!(
        "Metadata-Version: 2.1\nName: {}\nVersion: {}\nSummary: {}\nRequires-Python: >=3.10\n",
        metadata_line(dist),
        metadata_line(version),
        metadata_line(summary)
    );
    for d in deps {
        s.push_str(&format!("Requires-Dist: {}\n", metadata_line(d)));
    }
    s
}

/// `kind`: "package" (a spec), "runtime" (the delegation's crate) or "pure" (the core);
/// `module`: the Python package a "pure" wheel holds.
fn backend(kind: &str, spec: &str, module: &str, sdist_name: &str) -> Result<String, Error> {
    let env = templates::environment();
    let ctx = minijinja::context! {
        banner_hash => banner(sdist_name), kind => kind, spec => spec, module => module, sdist_name => sdist_name,
        bridgegen_version => env!("CARGO_PKG_VERSION"),
    };
    env.get_template("python/backend.py.j2")
        .and_then(|t| t.render(ctx))
        .map_err(|e| Error::Internal(format!("backend template: {e:#}")))
}

/// Write `files` as `<out>/<stem>.tar.gz`, every path under `<stem>/`.
fn write_tar_gz(out: &Path, stem: &str, files: &Files) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(out).map_err(|source| Error::Io { path: out.into(), source })?;
    let path = out.join(format!("{stem}.tar.gz"));
    let partial = out.join(format!(".{stem}.tar.gz.partial"));
    let io = |source| Error::Io { path: partial.clone(), source };
    let file = std::fs::File::create(&partial).map_err(io)?;
    let gz = flate2::GzBuilder::new().mtime(0).write(file, flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (rel, (data, executable)) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(if *executable { 0o755 } else { 0o644 });
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, format!("{stem}/{rel}"), data.as_slice()).map_err(io)?;
    }
    tar.into_inner().and_then(|gz| gz.finish()).map_err(io)?;
    std::fs::rename(&partial, &path).map_err(|source| Error::Io { path: path.clone(), source })?;
    Ok(path)
}

fn add(files: &mut Files, rel: impl Into<String>, text: impl Into<Vec<u8>>) {
    files.insert(rel.into(), (text.into(), false));
}

/// `bridgegen sdist SPEC`: the package's source distribution and those of the runtime
/// packages it needs.
pub fn sdist(spec: &Path, out: &Path) -> Result<Vec<PathBuf>, Error> {
    let source = crate::fs::read(spec)?;
    let spec_name = spec.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "spec.toml".into());
    // Generated as the backend regenerates it: from the sdist's root, the spec beside
    // (and the files it includes, at the same paths below it).
    let dir = spec.parent().unwrap_or(Path::new(""));
    let pkg = crate::load_source(&spec_name, &source, dir, None)?;
    let runtime = runtime_src::needed(!pkg.functions.is_empty());
    let range = super::headers::requires_jaxlib();
    let mut deps = vec![format!("jax{range}"), format!("jaxlib{range}")];
    deps.extend(runtime.iter().map(|r| r.pin()));
    let dist = pkg.name.replace('_', "-");
    let stem = format!("{}-{}", pkg.name, pkg.version);

    let mut files = Files::new();
    for (rel, text) in crate::render(&pkg)? {
        add(&mut files, rel.to_string_lossy().replace('\\', "/"), text);
    }
    add(&mut files, spec_name.clone(), source);
    for rel in &pkg.spec_files[1..] {
        add(&mut files, rel.clone(), crate::fs::read(&dir.join(rel))?);
    }
    add(&mut files, "pyproject.toml", pyproject(&dist, &pkg.version, &pkg.summary, &deps, true));
    add(&mut files, "PKG-INFO", pkg_info(&dist, &pkg.version, &pkg.summary, &deps));
    add(&mut files, "bridgegen_backend.py", backend("package", &spec_name, "", &format!("{stem}.tar.gz"))?);
    let mut written = vec![write_tar_gz(out, &stem, &files)?];
    for r in runtime {
        written.push(runtime_sdist(r, out)?);
    }
    Ok(written)
}

/// A runtime package's sdist: its Python under python/ and, for the delegation, its crate
/// vendored as in a generated package.
fn runtime_sdist(r: runtime_src::PythonPackage, out: &Path) -> Result<PathBuf, Error> {
    let mut files = Files::new();
    if r.native {
        let (vendor_to, vendor_from) = runtime_src::VENDORED[0];
        let env = templates::environment();
        let ctx = minijinja::value::merge_maps([
            crate::emit::workspace_context(&[vendor_to]),
            minijinja::context! { banner_hash => banner(r.dist) },
        ]);
        let workspace = env
            .get_template("rust/workspace.toml.j2")
            .and_then(|t| t.render(ctx))
            .map_err(|e| Error::Internal(format!("{e:#}")))?;
        add(&mut files, "Cargo.toml", workspace + "\n");
        for (rel, text) in runtime_src::under(vendor_from) {
            add(&mut files, format!("{vendor_to}/{rel}"), text);
        }
    }
    for (rel, text) in r.files() {
        add(&mut files, format!("python/{}/{rel}", r.module), text);
    }
    let stem = format!("{}-{}", r.module, r.version());
    let deps = r.requires();
    add(&mut files, "pyproject.toml", pyproject(r.dist, r.version(), r.summary, &deps, r.native));
    add(&mut files, "PKG-INFO", pkg_info(r.dist, r.version(), r.summary, &deps));
    let kind = if r.native { "runtime" } else { "pure" };
    add(&mut files, "bridgegen_backend.py", backend(kind, "", r.module, &format!("{stem}.tar.gz"))?);
    write_tar_gz(out, &stem, &files)
}
