//! `--sweep`'s answer: the best workgroup shape per pair and quantization,
//! printed and (`--best FILE`) written in the format `--locals` reads.

use std::collections::BTreeMap;
use std::path::Path;

use crate::cases::pair_key;
use crate::error::Fail;
use crate::record::Record;

/// Per pair key ([`pair_key`]): the shape with the least total median time
/// over the cases, and that time (us), at the runtime's rows per invocation
/// (`--rows`' other rows, `rewrite XxYxZ rows R`, are left out).
pub fn best(records: &[Record]) -> BTreeMap<String, ([u32; 3], f64)> {
    let mut total: BTreeMap<(String, [u32; 3]), f64> = BTreeMap::new();
    let at_runtime_rows =
        |r: &&Record| r.kernel.starts_with("rewrite ") && !r.kernel.contains(" rows ");
    for r in records.iter().filter(at_runtime_rows) {
        *total.entry((pair_key(r.case.axes), r.local)).or_default() += r.time.median;
    }
    let mut best: BTreeMap<String, ([u32; 3], f64)> = BTreeMap::new();
    for ((pair, local), t) in total {
        let e = best.entry(pair).or_insert((local, t));
        if t < e.1 {
            *e = (local, t);
        }
    }
    best
}

/// Prints the best shape of each pair and writes them to `file` (a
/// `--locals` file) when given.
pub fn print_best(records: &[Record], file: Option<&Path>) -> Result<(), Fail> {
    let best = best(records);
    println!("best workgroup shape per pair (least total median time over the cases):");
    for (pair, (l, t)) in &best {
        println!("  {pair:<26} {}x{}x{} {t:>10.1} us", l[0], l[1], l[2]);
    }
    if let Some(path) = file {
        let map: BTreeMap<&String, [u32; 3]> = best.iter().map(|(k, v)| (k, v.0)).collect();
        std::fs::write(path, serde_json::to_string_pretty(&map)? + "\n")?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
