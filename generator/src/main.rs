//! `bridgegen` binary: parse arguments, run, print `bridgegen: <error>` on failure.

use bridgegen::cli::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
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
        Command::Build { spec, jaxlib_include, jaxlib, out, install, cuda_arch, quiet, json } => {
            let summary = bridgegen::build::build(&bridgegen::build::BuildOptions {
                spec,
                jaxlib_include,
                jaxlib,
                out,
                install,
                cuda_archs: cuda_arch.0,
                quiet,
                json,
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&summary).map_err(|e| bridgegen::error::Error::Internal(e.to_string()))?);
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
