//! `bridgegen` binary: parse arguments, run, print `bridgegen: <error>` on failure.

use bridgegen::cli::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bridgegen: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cmd: Command) -> Result<(), bridgegen::error::Error> {
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
        Command::Build { spec, jaxlib_include, out, install, cuda_arch, quiet } => {
            bridgegen::build::build(&bridgegen::build::BuildOptions {
                spec,
                jaxlib_include,
                out,
                install,
                cuda_archs: cuda_arch.0,
                quiet,
            })?;
        }
        Command::Ir { spec } => {
            let pkg = bridgegen::load(&spec)?;
            println!("{pkg:#?}");
        }
    }
    Ok(())
}
