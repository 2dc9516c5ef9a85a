//! `cargo xtask`: the project's maintenance commands.

fn main() {
    let cmd = std::env::args().nth(1).unwrap_or_default();
    eprintln!("xtask: unknown command `{cmd}` (none is written yet)");
    std::process::exit(2);
}
