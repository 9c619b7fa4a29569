//! The `waggle` binary: a UHP engine by default, with tools as subcommands.

mod cli;

fn main() -> anyhow::Result<()> {
    cli::run()
}
