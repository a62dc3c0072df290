//! `bridgegen` binary: parse arguments, run, print `bridgegen: <error>` on failure.

use bridgegen::cli::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let version: &'static str = Box::leak(bridgegen::version_line().into_boxed_str());
    let cli = Cli::from_arg_matches(&Cli::command().version(version).get_matches()).unwrap_or_else(|e| e.exit());
    match run(cli.command) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("bridgegen: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Ok(false): ran, and found problems (doctor).
fn run(cmd: Command) -> Result<bool, bridgegen::error::Error> {
    match cmd {
        Command::Generate { spec, out } => {
            let bridgegen::Generated { dir, report: r, .. } = bridgegen::generate(&spec, out.as_deref())?;
            println!(
                "bridgegen: {}: {} written, {} unchanged, {} removed",
                dir.display(),
                r.written.len(),
                r.unchanged,
                r.removed.len()
            );
        }
        Command::Check { spec, out } => {
            let dir = bridgegen::check(&spec, out.as_deref())?;
            println!("bridgegen: {} is up to date", dir.display());
        }
        Command::Build {
            spec,
            jaxlib_include,
            jaxlib,
            out,
            generated,
            install,
            no_runtime,
            cuda_arch,
            cuda,
            jaxlib_newest,
            glibc,
            quiet,
            json,
        } => {
            let summary = bridgegen::build::build(&bridgegen::build::BuildOptions {
                spec,
                generated,
                jaxlib_include,
                jaxlib,
                out,
                install,
                runtime_wheel: !no_runtime,
                cuda_arch_explicit: cuda_arch.is_some(),
                cuda_archs: cuda_arch.map_or_else(
                    || bridgegen::build::nvrtc::parse_archs(bridgegen::build::nvrtc::DEFAULT_ARCHS).unwrap_or_default(),
                    |a| a.0,
                ),
                cuda,
                jaxlib_newest,
                glibc,
                quiet,
                json,
            })?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&summary)
                        .map_err(|e| bridgegen::error::Error::Internal(e.to_string()))?
                );
            }
        }
        Command::Sdist { spec, out } => {
            for path in bridgegen::build::sdist::sdist(&spec, &out)? {
                println!("bridgegen: wrote {}", path.display());
            }
        }
        Command::BuildRuntime { source, jaxlib_include, out, quiet, json } => {
            let wheel = bridgegen::build::build_runtime(&source, jaxlib_include.as_deref(), &out, quiet)?;
            if json {
                println!("{}", serde_json::json!({ "wheels": [wheel.display().to_string()] }));
            }
        }
        Command::Ir { spec } => {
            let pkg = bridgegen::load(&spec)?;
            println!("{pkg:#?}");
        }
        Command::Doctor { spec } => return bridgegen::doctor::doctor(spec.as_deref()),
    }
    Ok(true)
}
