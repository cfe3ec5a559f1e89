//! `dtrace`: the dtrace(1) command. See `run.rs` for the flow and `args.rs` for
//! the command line.

mod args;
#[cfg(test)]
mod docs_check;
mod header;
mod link;
mod output;
mod provider;
mod run;
mod sink;
mod verbose;

fn main() {
    // Arguments that are not valid UTF-8 are taken lossily: D programs, probe
    // descriptions and option names are text.
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let code = run::main(&argv);
    std::process::exit(code);
}
